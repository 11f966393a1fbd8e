"""Each intent rule on its own, with a hand-made vocabulary (no model, no database)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import numpy as np
import pytest

from pathrag_gds.intent.rules import (
    Draft,
    asked_verb_rule,
    attribute_rule,
    definition_rule,
    described_rule,
    kind_of_named_rule,
    named_answer_rule,
    noun_rule,
    read_question,
    relation_end_rule,
    relation_hint_rule,
    same_type_rule,
    unknown_rule,
    wh_concept_rule,
)
from pathrag_gds.intent.vocabulary import OntologyVocabulary
from pathrag_gds.ontology import EntityType, Ontology, RelationType
from pathrag_gds.paths import EntityRecord

BOB = EntityRecord("bob", ("Animal",), "Bob", "", {"fur_color": "orange"})
JANE = EntityRecord("jane", ("Person",), "Jane")
CLEANUP = EntityRecord("c", ("Event",), "Kitchen clean-up")
MEETING = EntityRecord("m", ("Event",), "Encounter", "", {"event_type": "first meeting"})
ENTITIES = (BOB, JANE, CLEANUP, MEETING)

RELATIONS = (
    RelationType("owns", "owns", "is owned by", "", ("Person",), ("Animal",)),
    RelationType("is_friend_of", "is a friend of", "", "", ("Animal", "Person"), ("Animal", "Person")),
    RelationType("hides_in", "hides in", "", "", ("Animal",), ("Place",)),
    RelationType("starred_actors", "starred", "", "", ("Movie",), ("Person",)),
)
ONTOLOGY = Ontology(
    "t",
    entity_types=tuple(EntityType(x) for x in ("Animal", "Event", "Movie", "Person", "Place")),
    relation_types=RELATIONS,
)


class Axes:
    """An encoder that puts each known text on its own axis (unknown texts: the zero vector)."""

    def __init__(self, texts: Sequence[str]) -> None:
        self.axes = {t: i for i, t in enumerate(texts)}
        self.seen: list[str] = []

    def encode(self, texts: Sequence[str]) -> Any:
        self.seen.extend(texts)
        out = np.zeros((len(texts), len(self.axes)), dtype=np.float32)
        for row, t in enumerate(texts):
            if t in self.axes:
                out[row, self.axes[t]] = 1.0
        return out


def _vocab(
    relation_axes: dict[str, int], dim: int, who: dict[str, float] | None = None
) -> OntologyVocabulary:
    """Relations on given axes; `who` expects the given type scores; no other concept."""
    rel_vecs = np.zeros((len(RELATIONS), dim), dtype=np.float32)
    for row, r in enumerate(RELATIONS):
        if r.type in relation_axes:
            rel_vecs[row, relation_axes[r.type]] = 1.0
    labels = ONTOLOGY.labels
    empty = np.zeros((len(labels), dim), dtype=np.float32)
    concepts = {"who": who or {}, "where": {"Place": 1.0, "Event": 0.2}}
    return OntologyVocabulary(ONTOLOGY, labels, empty, empty, ONTOLOGY.relation_names, rel_vecs, concepts)


def _start(question: str) -> tuple[Any, Draft]:
    r = read_question(question, ENTITIES)
    return r, Draft(noun=r.noun)


def test_read_question_masks_named_and_bracketed_mentions() -> None:
    r = read_question("Which village did Bob visit with [Heat]?", ENTITIES)
    assert r.named == {"bob": "Bob"} and r.mentions == ("Heat", "Bob")
    assert r.masked == "Which village did X visit with X?"
    assert (r.wh, r.noun, r.named_types) == ("which", "village", ("Animal",))


def test_described_rule_names_the_phrase_that_matched() -> None:
    r, d = _start("Where did Bob first meet Jane?")
    assert described_rule(r, d).reasons == ("named in other words: Encounter (a first meeting)",)
    r, d = _start("Where was Bob?")
    assert described_rule(r, d) is d


def test_relation_hint_rule_compares_the_main_clause_with_named_entities_as_types() -> None:
    enc = Axes(["Where was the animal?"])
    r, d = _start("Where was Bob when the kitchen was cleaned up?")
    out = relation_hint_rule(r, d, _vocab({"hides_in": 0}, 1), enc)
    assert enc.seen == ["Where was the animal?"]
    assert out.hints["hides_in"] == 1.0 and out.hints["owns"] < 0.01
    assert out.reasons[0] == "relations asked by the main clause: 'Where was the animal?'"
    # one clause: the masked question itself is compared
    enc = Axes(["Who owns X?"])
    r, d = _start("Who owns Bob?")
    assert relation_hint_rule(r, d, _vocab({"owns": 0}, 1), enc).hints["owns"] == 1.0
    assert enc.seen == ["Who owns X?"]


def test_definition_rule_only_when_nothing_else_is_asked() -> None:
    r, d = _start("Who is Jane?")
    assert definition_rule(r, d).kind == "definition"
    for q in ("Who is Jane's owner?", "Who is the owner?"):  # a content word; nobody named
        r, d = _start(q)
        assert definition_rule(r, d).kind == "entity", q


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("What colour is Bob?", "attribute"),  # a property noun
        ("How old is Bob?", "attribute"),  # a `how` opener
        ("What fur does Bob have?", "attribute"),  # a key of Bob's attributes (fur_color)
        ("Which village is Bob in?", "entity"),
        ("Where is Bob?", "entity"),  # no noun
        # the Encounter's `event_type` key: "type" is a property, "event" is what it is
        ("What type is the Encounter?", "attribute"),
        ("Which event came after the Encounter?", "entity"),
    ],
)
def test_attribute_rule(question: str, kind: str) -> None:
    r, d = _start(question)
    assert attribute_rule(r, d).kind == kind


def test_named_answer_rule_expects_the_named_types() -> None:
    r, d = _start("Who is Jane?")
    assert named_answer_rule(r, definition_rule(r, d)).scores == {"Person": 1.0}
    assert named_answer_rule(r, d) is d  # an entity question is left alone


def test_noun_rule_takes_a_type_label_without_the_model() -> None:
    r, d = _start("Which places did Bob visit?")
    out = noun_rule(r, d, _vocab({}, 1), Axes([]))
    assert out.scores == {"Animal": 0.0, "Event": 0.0, "Movie": 0.0, "Person": 0.0, "Place": 1.0}
    assert out.noun == "places" and out.reasons == ("noun 'places' -> Place 1.00 (similarity 1.00)",)
    r, d = _start("Where is Bob?")
    assert noun_rule(r, d, _vocab({}, 1), Axes([])) is d


def test_noun_rule_reads_a_whole_noun_phrase_by_its_head() -> None:
    # "which lifeboat volunteer is ...": a compound asks for its last word, whatever the first fits
    r, d = _start("Which movie person is married to Bob?")
    out = noun_rule(r, d, _vocab({}, 1), Axes([]))
    assert out.noun == "person" and max(out.scores, key=lambda t: out.scores[t]) == "Person"
    assert out.reasons == ("noun 'person' (the head of 'movie person') -> Person 1.00 (similarity 1.00)",)
    # not closed by a copula, an auxiliary or a relative word: its last word may be a verb, and the
    # word that fits a type best is the noun (both fit here: the first)
    r, d = _start("Which movie person likes Bob?")
    assert noun_rule(r, d, _vocab({}, 1), Axes([])).noun == "movie"


def test_kind_of_named_rule_drops_the_named_entitys_own_type() -> None:
    vocab = _vocab({}, 1)
    r, d = _start("What kind of animal is Bob?")  # Bob is the animal: a category of Bob is asked
    out = kind_of_named_rule(r, noun_rule(r, d, vocab, Axes([])))
    assert out.kind == "unknown" and out.scores == {}
    assert out.reasons[-1] == "'what kind of animal is X' about a Animal: a category of X is asked"
    r, d = _start("What kind of animal chases Bob?")  # the answer is an animal
    kept = replace(d, scores={"Animal": 1.0})
    assert not r.kind_of_named and kind_of_named_rule(r, kept) is kept
    r, d = _start("What kind of place is Bob?")  # not Bob's own type: the noun still decides
    kept = replace(d, scores={"Place": 1.0})
    assert r.kind_of_named and kind_of_named_rule(r, kept) is kept


def test_wh_concept_rule_reads_the_concept_of_a_nounless_wh_word() -> None:
    r, d = _start("Where is Bob?")
    out = wh_concept_rule(r, d, _vocab({}, 1))
    assert out.scores == {"Place": 1.0, "Event": 0.2} and out.reasons == (
        "wh-word 'where' -> Place 1.00, Event 0.20",
    )
    r, d = _start("Which village is Bob in?")
    assert wh_concept_rule(r, d, _vocab({}, 1)) is d


def test_asked_verb_rule_reads_the_last_verb_of_a_do_support_question() -> None:
    vocab = _vocab({}, 1)
    r, d = _start("Where does the cat Jane owns hide in?")  # `hides in` heads hides_in: its target
    out = asked_verb_rule(r, wh_concept_rule(r, d, vocab), vocab)
    assert out.scores == {"Place": 1.0} and out.reasons[-1] == "asked verb 'hid in' -> Place 1.00"
    r, d = _start("What did the films Jane starred in star?")  # `starred`: the phrase, its target
    assert asked_verb_rule(r, d, vocab).scores == {"Person": 1.0}
    r, d = _start("Who did Bob meet?")  # no phrase is headed by `meet`: the concept stays
    assert asked_verb_rule(r, d, vocab) is d
    r, d = _start("Who owns Bob?")  # no do-support
    assert asked_verb_rule(r, d, vocab) is d


def test_same_type_rule_lets_who_answer_with_the_named_type() -> None:
    vocab = _vocab({}, 1)
    hints = {"is_friend_of": 0.9, "owns": 0.2}
    r = read_question("Who are Bob's friends?", ENTITIES)
    out = same_type_rule(r, Draft(scores={"Person": 1.0, "Animal": 0.1}, hints=hints), vocab)
    assert out.scores == {"Person": 1.0, "Animal": 0.9}
    assert out.reasons == ("'who' of a relation between two Animals: Animal 0.90",)
    # a relative clause after the wh-word: the relation nearest Bob need not be the one asked about
    r = read_question("Who is the owner of the dog that chases Bob?", ENTITIES)
    assert same_type_rule(r, Draft(scores={"Person": 1.0}, hints=hints), vocab).scores == {"Person": 1.0}


def test_relation_end_rule_reads_the_far_end_of_the_hinted_relations() -> None:
    vocab = _vocab({}, 1, who={"Person": 1.0})
    r = read_question("what does [Joey Heatherton] star in")
    out = relation_end_rule(r, Draft(hints={"starred_actors": 1.0, "owns": 0.1}), vocab)
    assert out.scores == {"Movie": 1.0}  # `what`: the person-like end is left out
    r = read_question("Who does Bob hide with?", ENTITIES)
    # not the named entity's own type; a type already found stands
    assert relation_end_rule(r, Draft(hints={"hides_in": 0.8}), vocab).scores == {"Place": 0.8}
    found = Draft(scores={"Person": 1.0}, hints={"hides_in": 0.8})
    assert relation_end_rule(r, found, vocab) is found


def test_unknown_rule() -> None:
    assert unknown_rule(Draft()).kind == "unknown"
    assert unknown_rule(Draft(scores={"Place": 1.0})).kind == "entity"
    assert unknown_rule(Draft(kind="attribute")).kind == "attribute"
