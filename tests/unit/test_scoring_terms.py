"""Step 6 scoring terms and answer ranking: pure functions on plain paths (no model, no database)."""

from __future__ import annotations

from pathrag_gds.intent import Intent
from pathrag_gds.paths import Edge, EntityRecord, Path
from pathrag_gds.scoring_terms import (
    TermWeights,
    answer_fit,
    rank_answers,
    s_coverage,
    s_described,
    s_length,
    s_lexical,
    s_relation_prior,
    s_type,
    term_parts,
    weighted_sum,
)

ENTS = {
    "bob": EntityRecord("bob", ("Animal",), "Bob", attributes={"fur_color": "orange"}),
    "spill": EntityRecord("spill", ("Event",), "spilled milk incident"),
    "kitchen": EntityRecord("kitchen", ("Place",), "kitchen", attributes={"place_type": "room"}),
    "house": EntityRecord("house", ("Place",), "Bob's house", attributes={"place_type": "house"}),
    "village": EntityRecord("village", ("Place",), "Whiskerville", attributes={"place_type": "village"}),
    "jane": EntityRecord("jane", ("Person",), "Jane"),
}


def chain(*hops: tuple[str, str, str]) -> Path:
    """A path from (node, rel, next) triples walked forwards."""
    p = Path((hops[0][0],))
    for a, rel, b in hops:
        p = p.extend(Edge(rel, a, b, "out"), b)
    return p


VILLAGE = Intent(
    "In which village was Bob when the milk was spilled?",
    kind="entity",
    type_scores={"Place": 1.0, "Event": 0.1},
    relation_hints={"takes_place": 1.0, "located_in": 0.6, "contains": 0.4},
    noun="village",
    named=("bob",),
)
TO_VILLAGE = chain(
    ("bob", "involves", "spill"),
    ("spill", "takes_place", "kitchen"),
    ("kitchen", "contains", "house"),
    ("house", "located_in", "village"),
)
PAST_VILLAGE = TO_VILLAGE.extend(Edge("involves", "spill", "jane", "out"), "jane")


def test_type_rewards_the_expected_type_at_the_end() -> None:
    assert s_type(TO_VILLAGE, ENTS, VILLAGE) == 1.0
    # one hop past the village: half the credit
    assert s_type(PAST_VILLAGE, ENTS, VILLAGE) == 0.5
    # a room is a Place but not a village: the noun is missing from its text
    to_kitchen = chain(("bob", "involves", "spill"), ("spill", "takes_place", "kitchen"))
    assert 0.0 < s_type(to_kitchen, ENTS, VILLAGE) < s_type(TO_VILLAGE, ENTS, VILLAGE)


def test_named_entities_are_not_the_answer_unless_asked_about() -> None:
    assert answer_fit(ENTS["bob"], VILLAGE, {"bob"}) == 0.0
    colour = Intent(
        "What colour is Bob's fur?", kind="attribute", type_scores={"Animal": 1.0}, named=("bob",)
    )
    assert s_type(Path(("bob",)), ENTS, colour) == 1.0
    assert rank_answers(Path(("bob",)), ENTS, colour)[0] == ("bob", "the named entity asked about")


def test_relation_prior_is_the_mean_hint_of_the_edges() -> None:
    two = chain(("spill", "takes_place", "kitchen"), ("kitchen", "contains", "house"))
    assert s_relation_prior(two, VILLAGE) == (1.0 + 0.4) / 2
    assert s_relation_prior(Path(("spill",)), VILLAGE) == 0.0
    assert s_relation_prior(chain(("bob", "chases", "jane")), VILLAGE) == 0.0


def test_coverage_counts_the_named_entities_touched() -> None:
    assert s_coverage(TO_VILLAGE, {"bob", "jane"}) == 0.5
    assert s_coverage(TO_VILLAGE, set()) == 1.0
    assert s_coverage(Path(("kitchen",)), {"bob"}) == 0.0


def test_length_punishes_hops_past_the_answer() -> None:
    assert s_length(TO_VILLAGE, ENTS, VILLAGE) == 1.0
    assert s_length(PAST_VILLAGE, ENTS, VILLAGE) == 0.5
    no_answer = chain(("bob", "involves", "spill"))
    assert s_length(no_answer, ENTS, VILLAGE) == 0.5  # no Place: every hop counts


def test_parts_and_weights() -> None:
    w = TermWeights(type=0.2, relation_prior=0.0, coverage=0.1, length=0.05)
    parts = term_parts(TO_VILLAGE, ENTS, VILLAGE, w)
    assert set(parts) == {"type", "coverage", "length"}
    assert all(0.0 <= v <= 1.0 for v in parts.values())
    assert abs(weighted_sum(parts, w) - (0.2 * 1.0 + 0.1 * 1.0 + 0.05 * 1.0)) < 1e-9
    assert not TermWeights().any and w.any


def test_described_entities_count_like_named_ones_only_in_their_own_term() -> None:
    """A path holding the event the question describes in other words gets the `described` term."""
    it = Intent("Where was Bob when the milk was spilled?", "entity", {"Place": 1.0}, described=("spill",))
    through = chain(("bob", "involves", "spill"), ("spill", "takes_place", "kitchen"))
    assert s_described(through, it) == 1.0
    assert s_described(chain(("bob", "lives_in", "house"), ("house", "located_in", "village")), it) == 0.0
    assert s_described(TO_VILLAGE, VILLAGE) == 1.0  # describes nothing: no signal
    w = TermWeights(described=0.1)
    parts = term_parts(through, ENTS, it, w)
    assert parts == {"described": 1.0} and abs(weighted_sum(parts, w) - 0.1) < 1e-9
    assert "described" not in term_parts(through, ENTS, it, TermWeights(type=0.2))


def test_answers_ranked_by_expected_type_nearest_the_end() -> None:
    ranked = [n for n, _ in rank_answers(PAST_VILLAGE, ENTS, VILLAGE)]
    assert ranked[0] == "village"  # the village beats jane, who is at the end but a Person
    assert ranked[-1] == "bob"  # named in the question: last
    assert set(ranked) == set(PAST_VILLAGE.node_ids)
    # without an intent: from the end backwards, named left out
    assert [n for n, _ in rank_answers(TO_VILLAGE, ENTS, None, {"bob"})] == [
        "village",
        "house",
        "kitchen",
        "spill",
    ]


def test_a_kind_attribute_outranks_the_description() -> None:
    """A kind attribute says what an entity is: "the village park" is a park, not a village."""
    park = EntityRecord("park", ("Place",), "Whiskerville park", "The village park by the river",
                        {"place_type": "park"})  # fmt: skip
    ents = {**ENTS, "park": park}
    assert answer_fit(park, VILLAGE, ()) < answer_fit(ents["village"], VILLAGE, ()) == 1.0
    to_village = chain(("spill", "takes_place", "kitchen"), ("kitchen", "part_of", "house"),
                       ("house", "located_in", "village"))  # fmt: skip
    past = to_village.extend(Edge("located_in", "park", "village", "in"), "park")
    assert s_type(to_village, ents, VILLAGE) > s_type(past, ents, VILLAGE)
    # any kind attribute counts (`species: dog` beside `breed: boxer`); without one, the words do
    dog_q = Intent("Which dog chases Bob?", kind="entity", type_scores={"Animal": 1.0}, noun="dog")
    rex = EntityRecord("rex", ("Animal",), "Rex", "a boxer", {"species": "dog", "breed": "boxer"})
    joy = EntityRecord("joy", ("Animal",), "Joy", "friend of the dog", {"species": "red squirrel"})
    pip = EntityRecord("pip", ("Animal",), "Pip", "the neighbours' dog")
    assert answer_fit(rex, dog_q, ()) == answer_fit(pip, dog_q, ()) == 1.0 > answer_fit(joy, dog_q, ())


def test_lexical_counts_the_question_words_a_path_says_beyond_the_names() -> None:
    ents = {
        "joy": EntityRecord("joy", ("Animal",), "Joy", "A red squirrel from the old oak."),
        "oak": EntityRecord("oak", ("Place",), "Old oak tree", "Home of a squirrel family."),
        "meet": EntityRecord("meet", ("Event",), "Encounter", "An autumn day when Bob saw Joy."),
        "patch": EntityRecord("patch", ("Place",), "Vegetable patch", "Where Bob meets friends."),
    }
    it = Intent("Where did Bob meet Joy the squirrel in autumn?", mentions=("Bob", "Joy"))
    to_oak = chain(("joy", "lives_in", "oak"))
    to_patch = chain(("joy", "involved_in", "meet"), ("meet", "takes_place", "patch"))
    # `squirrel` is Joy's own word: the oak's description gains nothing by repeating it
    assert s_lexical(to_oak, ents, it, {"joy"}) == 0.0
    # `meet` and `autumn` are left; the patch says `meet`, the encounter `autumn`: one entity counts
    assert s_lexical(to_patch, ents, it, {"joy"}) == 0.5
    # a relation type that says a question word counts it once, with the best entity's other words
    met = chain(("joy", "meets", "meet"))
    assert s_lexical(met, ents, it, {"joy"}) == 1.0
    # walking on adds no word the best entity lacks
    on = to_oak.extend(Edge("near", "oak", "patch", "out"), "patch")
    assert s_lexical(on, ents, it, {"joy"}) == s_lexical(chain(("joy", "near", "patch")), ents, it, {"joy"})
    assert term_parts(to_oak, ents, it, TermWeights(lexical=0.5), {"joy"}) == {"lexical": 0.0}
