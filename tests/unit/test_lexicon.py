"""Relational nouns (WordNet glosses) resolved against an ontology, and the questions that use them."""

from __future__ import annotations

import re

from pathrag_gds.ontology import EntityType, Ontology, RelationType
from pathrag_gds.training.lexicon import compound_chains, load_relational_nouns, step_roles
from pathrag_gds.training.phrasing import plural
from pathrag_gds.training.questions import MemoryGraph, QuestionGenerator
from tests.unit.test_training import ONTOLOGY, toy_graph

PERSON = ("Person",)
FAMILY = Ontology(
    "Family",
    entity_types=(
        EntityType("Person", "Someone in the family."),
        EntityType("City", "A town where people live."),
    ),
    relation_types=(
        RelationType("parent_of", "is a parent of", "is a child of", "", PERSON, PERSON),
        RelationType("sibling_of", "is a sibling of", "is a sibling of", "", PERSON, PERSON),
        RelationType("lives_in", "lives in", "is home to", "", PERSON, ("City",)),
    ),
)
KIN_WORDS = re.compile(r"grand|niece|nephew|aunt|uncle|cousin")


def test_the_glosses_are_packaged() -> None:
    nouns = {n.noun: n for n in load_relational_nouns()}
    assert "child" in nouns["grandchild"].head
    assert {word for word, _ in nouns["niece"].of} == {"brother", "sister"}
    assert "gramps" not in nouns  # a synonym no corpus uses is left out


def test_roles_come_from_the_phrases_read_from_the_near_node() -> None:
    roles = step_roles(FAMILY)
    assert roles[("parent_of", "in")] == "parent"  # far is a parent of near
    assert roles[("parent_of", "out")] == "child"
    assert roles[("sibling_of", "in")] == roles[("sibling_of", "out")] == "sibling"
    assert ("lives_in", "out") not in roles  # `is home to` names no role


def test_chains_two_and_three_hops() -> None:
    chains = compound_chains(FAMILY)
    assert chains[(("parent_of", "out"), ("parent_of", "out"))] == ("grandchild",)
    assert "grandparent" in chains[(("parent_of", "in"), ("parent_of", "in"))]
    assert set(chains[(("sibling_of", "out"), ("parent_of", "out"))]) == {"nephew", "niece"}
    assert set(chains[(("parent_of", "in"), ("sibling_of", "in"))]) == {"aunt", "uncle"}
    assert chains[(("parent_of", "in"), ("sibling_of", "in"), ("parent_of", "out"))] == ("cousin",)
    assert all(2 <= len(c) <= 3 for c in chains)


def test_no_chain_across_labels_that_do_not_meet_or_without_roles() -> None:
    split = Ontology(
        "Split",
        relation_types=(
            RelationType("parent_of", "is a parent of", "is a child of", "", ("Cat",), ("Cat",)),
            RelationType("sibling_of", "is a sibling of", "is a sibling of", "", ("Dog",), ("Dog",)),
        ),
    )
    assert not any(len({r for r, _ in c}) > 1 for c in compound_chains(split))  # no cat-dog niece
    assert compound_chains(ONTOLOGY) == {}


def family_graph() -> MemoryGraph:
    """Three generations: two siblings, their parents and grandparents, their children."""
    people = ["ada", "bo", "cy", "di", "ed", "flo", "gus", "hal"]
    ents = [(p, "Person", p.title()) for p in people] + [("oslo", "City", "Oslo")]
    triples = [("ada", "parent_of", "cy"), ("bo", "parent_of", "cy"), ("ada", "parent_of", "di")]
    triples += [("cy", "parent_of", "ed"), ("cy", "parent_of", "flo"), ("di", "parent_of", "gus")]
    triples += [("cy", "sibling_of", "di"), ("ed", "sibling_of", "flo"), ("ed", "parent_of", "hal")]
    triples += [(p, "lives_in", "oslo") for p in people]
    return MemoryGraph.from_triples(ents, triples)


def test_questions_say_the_walk_with_one_word() -> None:
    g = family_graph()
    qs = QuestionGenerator(g, FAMILY, seed=1, entity_share=0.0).generate(200)
    worded = [q for q in qs if q.template.endswith("relational-noun")]
    assert len(worded) >= 5
    chains = compound_chains(FAMILY)
    for q in worded:
        steps = tuple((e.type, e.direction) for e in q.path.edges)
        said = {w for c, words in chains.items() if steps[len(steps) - len(c) :] == c for w in words}
        assert any(w in q.question.lower() or plural(w) in q.question.lower() for w in said), q.question
    off = QuestionGenerator(g, FAMILY, seed=1, entity_share=0.0, relational_nouns=False).generate(200)
    assert not any(KIN_WORDS.search(q.question.lower()) for q in off)


def test_an_ontology_without_such_words_phrases_as_before() -> None:
    g = toy_graph()
    on = QuestionGenerator(g, ONTOLOGY, seed=3).generate(80)
    off = QuestionGenerator(g, ONTOLOGY, seed=3, relational_nouns=False).generate(80)
    assert [q.question for q in on] == [q.question for q in off]
