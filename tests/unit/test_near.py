"""The first hop read near the topic (`search/near.py`, `training/near_fit.py`): pure logic, no model."""

from __future__ import annotations

import numpy as np
import pytest

from pathrag_gds.ontology import Ontology
from pathrag_gds.search.near import (
    ANSWER_CLASSES,
    WINDOW_CLASSES,
    answer_windows,
    fit_weights,
    topic_windows,
    window_features,
)
from pathrag_gds.search.planner import last_hops, plan_chains, score_chains
from pathrag_gds.search.schema import TypedChain, chain_text, next_chains
from pathrag_gds.training.near_fit import fit_groups, fit_near, near_groups, top1

FILMS = Ontology.from_mapping(
    {
        "relationship_types": [
            {"type": "directed_by", "phrase": "was directed by", "inverse_phrase": "directed",
             "source": ["Movie"], "target": ["Person"]},
            {"type": "starred", "phrase": "starred", "inverse_phrase": "starred in",
             "source": ["Movie"], "target": ["Person"]},
        ]
    }
)  # fmt: skip


def classes_of(question: str, max_words: int = 6) -> dict[str, str]:
    return {text: WINDOW_CLASSES[c] for text, c in topic_windows(question, max_words)}


def test_windows_are_classed_by_their_side_of_the_topic_and_its_possessive() -> None:
    assert classes_of("the director of X", 3) == {"of X": "before X", "director of X": "before X"}
    after = classes_of("X's director was born where", 3)
    assert after == {"X's director": "after X's", "X's director was": "after X's"}
    around = classes_of("the films X directed", 3)
    assert around["X directed"] == "after X" and around["films X directed"] == "around X"
    assert classes_of("what is X?", 2) == {"is X?": "before X"}  # punctuation stays on the word
    assert topic_windows("who directed Heat", 6) == []  # no masked topic: nothing to read


def test_a_class_without_a_window_is_neutral() -> None:
    feats = window_features(np.array([[0.9, 0.1], [0.2, 0.4]]), [1, 4])
    assert feats[:, 1].tolist() == pytest.approx([0.9, 0.2])
    assert feats[:, 4].tolist() == pytest.approx([0.1, 0.4])
    assert feats[0, 0] == pytest.approx(0.5) and feats[1, 3] == pytest.approx(0.3)  # mean of present


def test_the_fit_learns_which_side_names_the_first_hop() -> None:
    """Gold chains read well after a possessive topic, distractors before it: the fit says so."""
    rng = np.random.default_rng(0)
    groups = []
    for _ in range(40):
        feats = rng.uniform(0.2, 0.4, size=(3, len(WINDOW_CLASSES)))
        feats[0, 4] += 0.4  # the gold chain's first hop: after "X's"
        feats[1, 3] += 0.4  # a distractor's: before "X's"
        groups.append((np.full(3, 0.5) + rng.normal(0, 0.01, 3), feats, [0]))
    w = fit_weights(groups, temperature=0.05)
    assert w[4] > 0 and w[4] > w[3]
    assert top1(groups, w) == 1.0 and top1(groups, [0.0] * len(WINDOW_CLASSES)) < 0.7
    assert fit_weights([], temperature=0.05) == [0.0] * len(WINDOW_CLASSES)


def test_the_near_term_tells_an_order_swap_apart_and_the_empty_chain_stays_neutral() -> None:
    asked = TypedChain((("directed_by", "out"), ("directed_by", "in"), ("starred", "out")),
                       ("Movie", "Person", "Movie", "Person"))  # fmt: skip
    swapped = TypedChain((("starred", "out"), ("starred", "in"), ("directed_by", "out")),
                         ("Movie", "Person", "Movie", "Person"))  # fmt: skip
    empty = TypedChain((), ("Movie",))
    chains = [asked, swapped, empty]
    texts = [chain_text(FILMS, c) for c in chains]

    def whole(ts):  # type: ignore[no-untyped-def]
        return [0.5 for _ in ts]  # a pooled vector that cannot tell the order

    def near(ts):  # type: ignore[no-untyped-def]
        return [0.2 if t == "the person that directed X" else 0.0 for t in ts]

    scores = score_chains(FILMS, chains, texts, whole, near, 1.0)
    assert scores[0] > scores[1] == pytest.approx(0.5)
    hops = [chain_text(FILMS, c) for c in next_chains(FILMS, empty)]
    assert scores[2] == pytest.approx(0.5 + 0.2 / len(hops))  # the mean over the hops it could take
    assert score_chains(FILMS, chains, texts, whole, near, 0.0) == [0.5, 0.5, 0.5]  # weight 0: off
    plan = plan_chains(whole, FILMS, "Movie", max_depth=3, temperature=0.05, near=near, near_weight=1.0)
    assert plan.best[0] == ("directed_by", "out")


ASKED = TypedChain((("directed_by", "out"), ("directed_by", "in")), ("Movie", "Person", "Movie"))
SWAPPED = TypedChain((("starred", "out"), ("starred", "in")), ("Movie", "Person", "Movie"))


class FakeScorer:
    """The parts of `ChainScorer` the fit reads: first hops that name `directed` read near X."""

    temperature = 0.05
    near_words = 6

    def near_features(self, masked: str):  # type: ignore[no-untyped-def]
        if "X" not in masked:
            return None

        def features(texts: list[str]) -> np.ndarray:
            feats = np.full((len(texts), len(WINDOW_CLASSES)), 0.3)
            for i, t in enumerate(texts):
                if t == "the person that directed X":
                    feats[i, 0] = 0.9  # before X
            return feats

        return features

    def far_features(self, masked: str):  # type: ignore[no-untyped-def]
        return None  # the question word says nothing here

    def scorer_for(self, masked: str):  # type: ignore[no-untyped-def]
        # the whole question prefers the swapped chain a little, the asked one next
        best = {chain_text(FILMS, SWAPPED): 0.51, chain_text(FILMS, ASKED): 0.5}
        return lambda texts: [best.get(t, 0.4) for t in texts]


def test_tune_fits_the_weights_on_held_out_questions_and_reports_what_they_did() -> None:
    questions = [("the films by the director of X", ASKED, {})] * 5 + [("no topic here", ASKED, {})]
    groups = near_groups(FakeScorer(), FILMS, questions, max_depth=2)
    assert len(groups) == 5  # a question without a masked topic is not fitted on
    near, answer_type, noun, far = fit_near(FakeScorer(), FILMS, questions, max_depth=2)
    assert near["classes"] == list(WINDOW_CLASSES) and near["questions"] == 5
    assert far["classes"] == list(ANSWER_CLASSES) and far["weights"] == [0.0] * len(ANSWER_CLASSES)
    assert near["top1_without"] < near["top1_with"] == 1.0 and near["top1_near"] == 1.0
    assert near["weights"][0] > 0
    assert answer_type["weight"] == 0.0  # no type scores: nothing to learn from
    assert noun["weight"] == 0.0 and noun["questions"] == 0  # films: no relational noun


DIRECTOR = TypedChain((("directed_by", "out"),), ("Movie", "Person"))


class TypeBlindScorer(FakeScorer):
    """A whole-question score that prefers the 2-hop chain back to a movie over its 1-hop prefix."""

    def near_features(self, masked: str):  # type: ignore[no-untyped-def]
        return lambda texts: np.full((len(texts), len(WINDOW_CLASSES)), 0.3)

    def scorer_for(self, masked: str):  # type: ignore[no-untyped-def]
        best = {chain_text(FILMS, ASKED): 0.52, chain_text(FILMS, DIRECTOR): 0.5}
        return lambda texts: [best.get(t, 0.4) for t in texts]


def test_the_answer_type_the_intent_reads_is_weighted_by_the_fit() -> None:
    """'Who directed X?' asks for a person: the chain ending at a Person wins once the type is fitted."""
    questions = [("who directed X", DIRECTOR, {"Person": 0.9, "Movie": 0.1})] * 4
    near, answer_type, _, _ = fit_near(TypeBlindScorer(), FILMS, questions, max_depth=2)
    assert answer_type["weight"] > 0
    assert near["top1_without"] == near["top1_near"] == 0.0 and near["top1_with"] == 1.0
    types = {t: answer_type["weight"] * v for t, v in questions[0][2].items()}
    chains = [ASKED, DIRECTOR]
    texts = [chain_text(FILMS, c) for c in chains]
    whole = TypeBlindScorer().scorer_for("who directed X")
    assert score_chains(FILMS, chains, texts, whole)[0] > score_chains(FILMS, chains, texts, whole)[1]
    with_type = score_chains(FILMS, chains, texts, whole, answer_types=types)
    assert with_type[1] > with_type[0]


KIN = Ontology.from_mapping(
    {
        "relationship_types": [
            {"type": "parent_of", "phrase": "is a parent of", "inverse_phrase": "is a child of",
             "source": ["Person"], "target": ["Person"]},
        ]
    }
)  # fmt: skip
GRANDCHILD = TypedChain((("parent_of", "out"), ("parent_of", "out")), ("Person",) * 3)
CHILD = TypedChain((("parent_of", "out"),), ("Person",) * 2)


class HopBlindScorer(TypeBlindScorer):
    """A whole-question score that reads "grandchildren" as one `parent_of` hop (it counts poorly)."""

    def scorer_for(self, masked: str):  # type: ignore[no-untyped-def]
        best = {chain_text(KIN, CHILD): 0.52, chain_text(KIN, GRANDCHILD): 0.5}
        return lambda texts: [best.get(t, 0.4) for t in texts]


def test_the_chain_a_relational_noun_names_is_weighted_by_the_fit() -> None:
    """'X's grandchildren' names two `parent_of` hops: with the fitted weight that chain comes first."""
    questions = [("who are the grandchildren of X", GRANDCHILD, {})] * 4
    near, _, noun, _ = fit_near(HopBlindScorer(), KIN, questions, max_depth=2)
    assert noun["weight"] + noun["exact_weight"] > 0 and noun["questions"] == 4
    assert near["top1_without"] == 0.0 and near["top1_with"] == 1.0
    chains = [CHILD, GRANDCHILD]
    texts = [chain_text(KIN, c) for c in chains]
    whole = HopBlindScorer().scorer_for("who are the grandchildren of X")
    plain = score_chains(KIN, chains, texts, whole)
    assert plain[0] > plain[1]
    weights = (noun["weight"], noun["exact_weight"])
    named = score_chains(KIN, chains, texts, whole, nouns={GRANDCHILD.steps: weights})
    assert named[1] > named[0]


def test_answer_windows_hold_the_first_question_word() -> None:
    classes = {t: ANSWER_CLASSES[c] for t, c in answer_windows("who acted in the films of X", 3)}
    assert classes == {"who acted": "after wh", "who acted in": "after wh"}
    end = {t: ANSWER_CLASSES[c] for t, c in answer_windows("the films of X are directed by who?", 3)}
    assert end == {"by who?": "before wh", "directed by who?": "before wh"}  # punctuation stays
    assert answer_windows("tell me about X's films that which won", 2)[0] == ("that which", 0)
    assert answer_windows("X's director", 6) == []  # no question word: nothing to read


#: "who acted in the films written by the writer of X": the asked chain ends in `starred`, the
#: whole question's pooled vector prefers the chain that ends in `written_by` again.
ACTED = TypedChain((("directed_by", "out"), ("directed_by", "in"), ("starred", "out")),
                   ("Movie", "Person", "Movie", "Person"))  # fmt: skip
REWRITTEN = TypedChain((("directed_by", "out"), ("directed_by", "in"), ("directed_by", "out")),
                       ("Movie", "Person", "Movie", "Person"))  # fmt: skip


class EndBlindScorer(FakeScorer):
    """The whole question prefers REWRITTEN; the words after `who` read `starred` best."""

    def near_features(self, masked: str):  # type: ignore[no-untyped-def]
        return lambda texts: np.full((len(texts), len(WINDOW_CLASSES)), 0.3)

    def far_features(self, masked: str):  # type: ignore[no-untyped-def]
        def features(texts: list[str]) -> np.ndarray:
            feats = np.full((len(texts), len(ANSWER_CLASSES)), 0.3)
            for i, t in enumerate(texts):
                if t == "the person that starred in X":
                    feats[i, ANSWER_CLASSES.index("after wh")] = 0.9
            return feats

        return features

    def scorer_for(self, masked: str):  # type: ignore[no-untyped-def]
        best = {chain_text(FILMS, REWRITTEN): 0.52, chain_text(FILMS, ACTED): 0.5}
        return lambda texts: [best.get(t, 0.4) for t in texts]


def test_the_last_hop_read_near_the_question_word_is_weighted_by_the_fit() -> None:
    assert [c.steps for c in last_hops(FILMS, ACTED)] == [(("starred", "out"),)]
    questions = [("who acted in the films directed by the director of X", ACTED, {})] * 4
    near, _, _, far = fit_near(EndBlindScorer(), FILMS, questions, max_depth=3)
    assert far["weights"][ANSWER_CLASSES.index("after wh")] > 0
    assert far["top1_without_far"] == 0.0 and near["top1_with"] == 1.0
    chains = [REWRITTEN, ACTED]
    texts = [chain_text(FILMS, c) for c in chains]
    scorer = EndBlindScorer()
    whole = scorer.scorer_for(questions[0][0])
    read = scorer.far_features(questions[0][0])

    def far_fn(ts):  # type: ignore[no-untyped-def]
        return list(read(ts) @ np.asarray(far["weights"]))

    plain = score_chains(FILMS, chains, texts, whole)
    assert plain[0] > plain[1]
    with_far = score_chains(FILMS, chains, texts, whole, far=far_fn)
    assert with_far[1] > with_far[0]


def test_the_reader_fits_one_set_of_terms_on_the_groups_of_several_graphs() -> None:
    """Groups read against their own ontologies are fitted as one: each graph's gold chain first."""
    near_q = [("the films by the director of X", ASKED, {})] * 3
    type_q = [("who directed X", DIRECTOR, {"Person": 0.9, "Movie": 0.1})] * 3
    groups = near_groups(FakeScorer(), FILMS, near_q, max_depth=2)
    groups += near_groups(TypeBlindScorer(), FILMS, type_q, max_depth=2)
    near, answer_type, _, _ = fit_groups(groups, FakeScorer())
    assert near["questions"] == 6
    assert near["weights"][0] > 0 and answer_type["weight"] > 0  # each graph's term is learned
    assert near["top1_without"] < near["top1_with"] == 1.0
