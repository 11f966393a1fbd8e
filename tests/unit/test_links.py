"""The link-type term: a possessive or `of` chain's nouns name the types its chain passes."""

from __future__ import annotations

from pathrag_gds.intent.text import link_nouns
from pathrag_gds.ontology import Ontology
from pathrag_gds.search.links import link_match, link_term
from pathrag_gds.search.planner import plan_chains
from pathrag_gds.search.schema import TypedChain

HARBOUR = Ontology.from_mapping(
    {
        "relationship_types": [
            {"type": "owns", "phrase": "owns", "inverse_phrase": "belongs to", "source": ["Person"],
             "target": ["Animal", "Boat"]},
            {"type": "lives_at", "phrase": "lives at", "inverse_phrase": "is the home of",
             "source": ["Person", "Animal"], "target": ["Place"]},
        ]
    }
)  # fmt: skip


def test_link_nouns_read_possessives_and_of_chains_nearest_x_first() -> None:
    assert link_nouns("X's wife's brother's employer?") == ("wife", "brother", "employer")
    assert link_nouns("the birthplace of the father of the wife of X") == ("wife", "father", "birthplace")
    assert link_nouns("Where is the dinghy of X\u2019s son moored?") == ("son moored", "dinghy")
    assert link_nouns("Who is X's old friend's boss?") == ("friend", "boss")  # the reader picks a word
    assert link_nouns("Who directed X?") == () and link_nouns("Who directed the film?") == ()


def test_link_match_keeps_the_nouns_order_and_may_skip_hops() -> None:
    person, boat = {"Person": 1.0, "Boat": 0.1}, {"Boat": 1.0}
    # grandfather's boat: the person two hops away, then the boat
    assert link_match(["Person", "Person", "Boat"], [person, boat]) == 1.0
    assert link_match(["Boat", "Person"], [person, boat]) == 0.5  # the boat before the person: one fits
    assert link_match(["Person"], [person, boat]) == 0.5  # too short for the boat
    assert link_match([], [person]) == 0.0 and link_match(["Boat"], []) == 0.0


def test_the_chain_through_the_named_type_is_planned_first() -> None:
    """`Where does X's cat live?`: a text scorer that cannot tell them apart; the cat decides."""
    flat = lambda texts: [0.5 for _ in texts]  # noqa: E731
    cat = ({"Animal": 1.0, "Person": 0.1, "Boat": 0.05, "Place": 0.05},)
    plan = plan_chains(
        flat, HARBOUR, "Person", max_depth=2, temperature=0.05, itself=False,
        typed=lambda chains: link_term(chains, cat, 0.1),
    )  # fmt: skip
    assert plan.best in {(("owns", "out"), ("lives_at", "out")), (("owns", "out"),)}
    assert plan.best[0] == ("owns", "out")
    home = TypedChain((("lives_at", "out"),), ("Person", "Place"))
    assert link_term([home], cat, 0.1) == [0.1 * 0.05]


def test_a_relative_clause_about_x_is_a_link_too() -> None:
    assert link_nouns("Where does the animal that X's cat chases live?") == ("cat chases", "animal")
    assert link_nouns("Who is the mother of the man who was married to X?") == ("man", "mother")
    # no article, no link (a wh-noun's clause: "which film that X directed"); a pronoun is no noun
    assert link_nouns("Which film that X directed won?") == ()
    assert link_nouns("Who is it that X met?") == ()
