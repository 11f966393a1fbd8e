"""Relational nouns in questions: which chains they name, on the people ontology and on MetaQA's."""

from __future__ import annotations

import pytest

from pathrag_gds.datasets.ontology_files import read_ontology
from pathrag_gds.datasets.people import PEOPLE_ONTOLOGY
from pathrag_gds.ontology import Ontology
from pathrag_gds.search.nouns import named_chains, noun_prefixes, noun_term
from pathrag_gds.search.schema import TypedChain


def _steps(text: str) -> tuple[tuple[str, str], ...]:
    return tuple((s.split(":")[0], s.split(":")[1]) for s in text.split())


def test_people_kinship_words_name_their_chains_in_the_singular_and_the_plural() -> None:
    onto = read_ontology(PEOPLE_ONTOLOGY)
    assert named_chains("Where do X's grandchildren live?", onto) == [_steps("parent_of:out parent_of:out")]
    assert named_chains("Who is X's grandchild?", onto) == [_steps("parent_of:out parent_of:out")]
    assert _steps("parent_of:in sibling_of:out parent_of:out") in named_chains("Who are X's cousins?", onto)
    nieces = named_chains("Name X's nieces and nephews.", onto)
    assert (
        _steps("sibling_of:out parent_of:out") in nieces and _steps("sibling_of:in parent_of:out") in nieces
    )
    # one hop has its own phrase; a word inside another is not the noun
    assert named_chains("Who are the children of X?", onto) == []
    assert named_chains("Who are X's grandchildrens?", onto) == []


def test_an_ontology_without_kinship_roles_names_nothing() -> None:
    films = Ontology.from_mapping(
        {"relationship_types": [{"type": "directed_by", "phrase": "was directed by",
                                 "inverse_phrase": "directed", "source": ["Movie"], "target": ["Person"]}]}
    )  # fmt: skip
    assert named_chains("who are the grandchildren of the director of X", films) == []
    assert noun_prefixes("who are the grandchildren of X", films, 0.3) is None


def test_a_chain_gets_the_term_of_the_named_chain_it_starts_with() -> None:
    onto = read_ontology(PEOPLE_ONTOLOGY)
    named = noun_prefixes("Where do X's grandchildren live?", onto, 0.3, 0.1)
    assert named == {_steps("parent_of:out parent_of:out"): (0.3, 0.1)}
    assert noun_prefixes("Where do X's grandchildren live?", onto, 0.0) is None  # off
    live = TypedChain(_steps("parent_of:out parent_of:out lives_in:out"), ("Person",) * 3 + ("City",))
    grandchild = TypedChain(_steps("parent_of:out parent_of:out"), ("Person",) * 3)
    child = TypedChain(_steps("parent_of:out lives_in:out"), ("Person", "Person", "City"))
    # going on after the named chain: its start weight; being it: both
    assert noun_term([live, grandchild, child], named) == [0.3, pytest.approx(0.4), 0.0]
