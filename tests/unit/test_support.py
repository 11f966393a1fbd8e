"""The chain planner's support prior (search/support.py): step counts read as a chain's share."""

from __future__ import annotations

import math

from pathrag_gds.ontology import Ontology, RelationType
from pathrag_gds.search.schema import TypedChain
from pathrag_gds.search.support import BOTH, StepSupport

ONTO = Ontology(
    "o",
    relation_types=(
        RelationType("sibling_of", "is a sibling of", "is a sibling of"),
        RelationType("lives_in", "lives in", "is home to"),
    ),
)
ROWS = [
    {"label": "Person", "type": None, "side": None, "one": 98, "two": 0},
    {"label": "City", "type": None, "side": None, "one": 8, "two": 0},
    {"label": "Person", "type": "sibling_of", "side": "out", "one": 20, "two": 5},
    {"label": "Person", "type": "sibling_of", "side": "in", "one": 20, "two": 5},
    {"label": "Person", "type": "sibling_of", "side": BOTH, "one": 38, "two": 18},
    {"label": "Person", "type": "lives_in", "side": "out", "one": 96, "two": 0},
    {"label": "City", "type": "lives_in", "side": "in", "one": 8, "two": 8},
]
SUPPORT = StepSupport.from_rows(ONTO, ROWS)


def test_the_first_step_is_given_and_each_later_step_is_a_share_of_its_label() -> None:
    assert SUPPORT.log_prior(TypedChain((("lives_in", "out"),), ("Person", "City"))) == 0.0
    siblings_home = TypedChain((("sibling_of", "out"), ("lives_in", "out")), ("Person", "Person", "City"))
    assert math.isclose(SUPPORT.log_prior(siblings_home), math.log(97 / 100))


def test_a_symmetric_relation_counts_either_side_and_walking_it_again_needs_two() -> None:
    # stored once per pair: the sibling's own siblings are those with two, on either side
    other_sibling = TypedChain(
        (("lives_in", "out"), ("lives_in", "in"), ("sibling_of", "in")),
        ("Person", "City", "Person", "Person"),
    )
    assert math.isclose(SUPPORT.log_prior(other_sibling), math.log(9 / 10) + math.log(39 / 100))
    again = TypedChain((("sibling_of", "out"), ("sibling_of", "out")), ("Person",) * 3)
    assert math.isclose(SUPPORT.log_prior(again), math.log(19 / 40))


def test_an_untyped_position_adds_nothing_and_rows_round_trip() -> None:
    untyped = TypedChain((("lives_in", "out"), ("lives_in", "in")), ("Person", "Entity", "Person"))
    assert SUPPORT.log_prior(untyped) == 0.0
    assert StepSupport.from_rows(ONTO, SUPPORT.rows()) == SUPPORT
