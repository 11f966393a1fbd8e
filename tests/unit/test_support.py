"""Which passages and which sentence support a path for a question (issue 53). Pure, no database."""

from __future__ import annotations

from pathrag_gds.support import (
    PathClaim,
    attribute_words,
    passage_support,
    rank_passages,
    supporting_sentence,
)

OWNS = [("jane", "owns", "bob")]
NAMES = {"bob": ("Bob", "Bob the Cat"), "jane": ("Jane",)}


def _owns(question: str = "Who owns Bob?") -> PathClaim:
    return PathClaim.of(question, NAMES, OWNS, "jane", attribute_words({"species": "cat"}))


def test_the_passage_that_states_the_hop_comes_before_the_reading_order() -> None:
    passages = [
        "Bob napped all morning. Bob ate tuna.",  # names Bob only
        "Jane came home. Later it rained on Bob.",  # both, in two sentences
        "Jane has owned Bob since he was a kitten.",  # the hop in one sentence, with its word
    ]
    ranked = rank_passages(_owns(), passages, text_of=str)
    assert ranked == [passages[2], passages[1], passages[0]]
    assert passage_support(_owns(), passages[2])[:2] == (1, 1)
    # equal support keeps the reading order
    assert rank_passages(_owns(), ["Bob slept.", "Bob ran."], text_of=str) == ["Bob slept.", "Bob ran."]


def test_the_quote_states_a_hop_of_the_answer_with_a_word_of_the_question_or_relation() -> None:
    milk = "After breakfast Jane left her blue cup of milk on the table."
    tea = "Jane's friend Lily came for tea, and Bob stayed at home, since Lily sneezes at a cat."
    assert supporting_sentence(_owns(), [milk]) is None, "names the answer only"
    assert supporting_sentence(_owns(), [tea]) is None, "two names and the entity's own attribute word"
    owned = "Everyone knew that Jane owned Bob the Cat."
    assert supporting_sentence(_owns(), [milk, tea + " " + owned]) == (owned, 1)


def test_aliases_name_an_entity_and_a_0_hop_quote_shares_the_question_words() -> None:
    claim = PathClaim.of("Who is Bob?", {"bob": ("Bob", "the orange cat")}, [], "bob")
    assert supporting_sentence(claim, ["The orange cat slept."]) == ("The orange cat slept.", 0)
    eat = PathClaim.of("What does Bob like to eat?", {"bob": ("Bob",)}, [], "bob")
    assert supporting_sentence(eat, ["She named him Bob."]) is None
    assert supporting_sentence(eat, ["She named him Bob.", "Bob likes tuna."]) == ("Bob likes tuna.", 1)
    assert supporting_sentence(PathClaim.of("q", {}, [], None), ["Bob."]) is None


def test_words_alone_do_not_make_a_quote_but_the_hops_attributes_count() -> None:
    hops = [("enc", "takes_place", "garden")]
    names = {"enc": ("Unexpected encounter",), "garden": ("Garden",), "bob": ("Bob",)}
    claim = PathClaim.of("Where did Bob first meet Joy?", names, hops, "garden", facts=["vegetable patch"])
    words_only = "One afternoon Bob's friend Joy was digging in the vegetable patch of the garden."
    assert supporting_sentence(
        PathClaim.of("Where did Bob first meet Joy?", names, hops, "garden"), [words_only]
    )
    assert "patch" in claim.words and "s" not in claim.words
    alone = PathClaim.of(
        "Where did Bob first meet Joy?", {k: v for k, v in names.items() if k != "bob"}, hops, "garden"
    )
    assert supporting_sentence(alone, [words_only]) is None, "the answer and question words only"
