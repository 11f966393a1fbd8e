"""The retrieval modes without a database: inheritance arithmetic, the rule table, mode and weight
checks, cluster summaries and the extractive answer."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from pathrag_gds.answer import extractive_answer
from pathrag_gds.api.models import QueryRequest, resolve
from pathrag_gds.clusters.summary import Facts, Member, clusters_of, summarize
from pathrag_gds.commands.query import parse_weights
from pathrag_gds.config import DEFAULT_GRAPH_RULES, GraphRule, ScoringMode, Settings
from pathrag_gds.errors import ConfigError, InvalidInput
from pathrag_gds.modes import ModeWeights, RetrievalMode, parse_mode
from pathrag_gds.modes.inheritance import Hit, combine_and_rank
from pathrag_gds.modes.rules import graph_score
from pathrag_gds.paths import Edge, Path
from pathrag_gds.results import (
    AnswerCandidate,
    ClusterEntity,
    ClusterResult,
    EdgeOut,
    NodeOut,
    PathResult,
    SourceChunk,
)

SPEC = {"vector_weight": 0.7, "graph_weight": 0.3, "factor": 0.5}


# --- inheritance (graph-score-inheritance.md) -------------------------------------------------------


def test_inheritance_matches_the_specs_worked_example() -> None:
    """Two same-city results (0.8, 0.8) expanded from A: A inherits 0.4, combined = 0.7 v + 0.3 x 0.4."""
    museum = Hit("NL-UT-UTR-M-UMUU", vector=0.641, from_vector=True)
    other_city = Hit("NL-ZH-DHA-L-CB", vector=0.623, from_vector=True)
    same_city = [Hit("X", graph=0.8, related=[museum.id]), Hit("Y", graph=0.8, related=[museum.id])]
    ranked = {h.id: h for h in combine_and_rank([museum, other_city], same_city, **SPEC)}
    a = ranked[museum.id]
    assert a.inherited == pytest.approx(0.4) and a.graph == pytest.approx(0.4)
    assert a.combined == pytest.approx(0.7 * 0.641 + 0.3 * 0.4)
    assert round(a.combined, 3) == 0.569  # the spec's table: V:0.641 G:0.400 C:0.569
    assert a.related == ["X", "Y"] and a.from_vector
    b = ranked[other_city.id]  # "no inheritance (different city)": V:0.623 G:0.000 C:0.436
    assert (b.inherited, b.graph, round(b.combined, 3)) == (0.0, 0.0, 0.436)
    assert ranked["X"].combined == pytest.approx(0.3 * 0.8) and ranked["X"].related == [museum.id]


def test_same_type_inherits_a_quarter_and_the_mean_counts_every_related_result() -> None:
    a = Hit("A", vector=0.5, from_vector=True)
    ranked = {h.id: h for h in combine_and_rank([a], [Hit("T", graph=0.5, related=["A"])], **SPEC)}
    assert ranked["A"].inherited == pytest.approx(0.25)  # same type 0.5 -> 0.25
    mixed = [Hit("X", graph=0.8, related=["A"]), Hit("T", graph=0.5, related=["A"])]
    ranked = {h.id: h for h in combine_and_rank([a], mixed, **SPEC)}
    assert ranked["A"].inherited == pytest.approx(0.5 * (0.8 + 0.5) / 2)


def test_a_graph_result_that_is_a_vector_result_merges_by_id() -> None:
    a = Hit("A", vector=0.6, from_vector=True)
    b = Hit("B", vector=0.5, from_vector=True)
    # B reached from A (0.8) and from A again at lower score: one result, the larger graph score
    ranked = combine_and_rank([a, b], [Hit("B", graph=0.8, related=["A"]), Hit("B", graph=0.4)], **SPEC)
    by_id = {h.id: h for h in ranked}
    assert set(by_id) == {"A", "B"}
    assert by_id["B"].graph == pytest.approx(0.8) and by_id["B"].from_vector
    assert by_id["A"].inherited == 0.0  # a direct merge is not inherited (as the spec's code)
    assert [h.id for h in ranked] == ["B", "A"]  # 0.35 + 0.24 beats 0.42


# --- the rule table ----------------------------------------------------------------------------------


def _walk(*hops: tuple[str, str, str, str]) -> Path:
    p = Path((hops[0][1] if hops[0][3] == "out" else hops[0][2],))
    for rel, src, tgt, direction in hops:
        p = p.extend(Edge(rel, src, tgt, direction), tgt if direction == "out" else src)  # type: ignore[arg-type]
    return p


def test_rules_score_each_walk_by_its_best_row() -> None:
    rules = DEFAULT_GRAPH_RULES
    shared = _walk(("lives_in", "bob", "town", "out"), ("lives_in", "rex", "town", "in"))
    assert graph_score(shared, ["Animal"], ["Animal"], rules) == (0.8, "shared")
    assert graph_score(_walk(("owns", "jane", "bob", "in")), ["Animal"], ["Person"], rules) == (
        0.8,
        "neighbour",
    )
    two = _walk(("owns", "jane", "bob", "in"), ("is_child_of", "jane", "martha", "out"))
    assert graph_score(two, ["Animal"], ["Person"], rules) == (0.4, "path")
    assert graph_score(two, ["Person"], ["Person"], rules) == (0.5, "same_type")
    three = _walk(("a", "x", "y", "out"), ("b", "y", "z", "out"), ("c", "z", "w", "out"))
    assert graph_score(three, ["P"], ["Q"], rules) == (0.25, "path")
    only_places = (GraphRule(match="path", relation="lives_in", score=0.9),)
    assert graph_score(shared, [], [], only_places) == (0.9, "path")
    assert graph_score(two, [], [], only_places) == (0.0, "")


def test_rules_and_weights_are_settings() -> None:
    s = Settings.from_env({"PATHRAG_MIX_GRAPH_RULES": '[{"match": "shared", "depth": 2, "score": 0.9}]'})
    assert s.mix_graph_rules == (GraphRule(match="shared", depth=2, score=0.9),)
    for env in (
        {"PATHRAG_MIX_GRAPH_RULES": "[{"},
        {"PATHRAG_MIX_GRAPH_RULES": '[{"match": "cousin", "score": 0.9}]'},
        {"PATHRAG_MIX_VECTOR_WEIGHT": "1.5"},
    ):
        with pytest.raises(ConfigError, match=next(iter(env))):
            Settings.from_env(env)


# --- modes and weights -------------------------------------------------------------------------------


def test_modes_and_the_old_scoring_modes() -> None:
    assert parse_mode(None) == (RetrievalMode.LOCAL, None)
    assert parse_mode("hybrid") == (RetrievalMode.HYBRID, None)
    assert parse_mode("a3") == (RetrievalMode.LOCAL, ScoringMode.A3)
    with pytest.raises(InvalidInput, match="local, global, hybrid, mix, naive"):
        parse_mode("graph")


def test_weights_outside_zero_one_are_refused_everywhere() -> None:
    s = Settings()
    w = ModeWeights.resolve(s, {"vector": 0.6, "global": None})
    assert (w.vector, w.graph, w.inheritance, w.global_) == (0.6, 0.3, 0.5, s.hybrid_global_weight)
    for bad in ({"vector": 1.5}, {"graph": -0.1}, {"inheritance": True}, {"weight": 0.5}):
        with pytest.raises(InvalidInput, match="weight"):
            ModeWeights.resolve(s, bad)
    with pytest.raises(ValidationError, match="less than or equal to 1"):
        QueryRequest(question="q", mode="mix", vector_weight=1.01)
    eff = resolve(s, QueryRequest(question="q", mode="mix", graph_weight=0.4, global_weight=0))
    assert eff.weights == {"graph": 0.4, "global": 0.0}
    assert resolve(s, QueryRequest(question="q", mode="global", hop_depth=2)).hop_depth == 0
    assert parse_weights(["vector=0.6"]) == {"vector": 0.6}
    with pytest.raises(InvalidInput, match="NAME=VALUE"):
        parse_weights(["vector"])


# --- cluster summaries -------------------------------------------------------------------------------

ENTS = {
    "b": Member("b", "Bob", ("Animal",)),
    "j": Member("j", "Jane", ("Person",)),
    "w": Member("w", "Whiskerville", ("Place",)),
    "r": Member("r", "Rex", ("Animal",)),
    "x": Member("x", "Lonely", ("Thing",)),
}


def test_clusters_drop_small_ones_and_repeats_of_a_finer_level() -> None:
    levels = [{"b": 0, "j": 0, "w": 0, "r": 1, "x": 2}, {"b": 5, "j": 5, "w": 5, "r": 6, "x": 6}]
    assert [(c.level, c.members) for c in clusters_of(levels, min_size=2)] == [
        (0, ("b", "j", "w")),
        (1, ("r", "x")),
    ]


def test_summary_names_central_members_facts_relations_and_sentences() -> None:
    facts = Facts(
        ENTS,
        [("j", "owns", "b"), ("b", "lives_in", "w"), ("j", "lives_in", "w"), ("r", "chases", "b")],
        [("It rained all day. Jane took Bob home to Whiskerville. Rex barked.", ["j", "b", "w", "r"])],
    )
    clusters = clusters_of([{"b": 0, "j": 0, "w": 0, "r": 1, "x": 1}], min_size=2)
    big, small = summarize(clusters, facts, {"b": 0.5, "j": 0.3, "w": 0.2, "r": 0.1, "x": 0.1})
    assert big.title == "Bob, Jane, Whiskerville" and big.rating == 10.0 and small.rating == 2.0
    assert "Most central: Bob (Animal), Jane (Person), Whiskerville (Place)" in big.summary
    assert "Facts: Jane owns Bob; Bob lives in Whiskerville; Jane lives in Whiskerville" in big.summary
    assert "Commonest relations: lives in (2), owns (1)" in big.summary
    assert big.summary.endswith('From the text: "Jane took Bob home to Whiskerville."')
    assert "chases" not in big.summary  # Rex is in the other cluster
    assert big.profile == "Bob, Jane, Whiskerville. lives in, owns. Jane took Bob home to Whiskerville."
    assert big.centrality == {"b": 0.5, "j": 0.3, "w": 0.2}


# --- the extractive answer ---------------------------------------------------------------------------


def test_the_answer_quotes_a_sentence_that_states_the_path() -> None:
    path = PathResult(
        rank=1,
        score=1.0,
        depth=1,
        key="k",
        text="Bob is owned by Jane. ||| Bob is a Animal.",
        path_context=["Bob <- owns <- Jane"],
        nodes=[NodeOut(id="b", name="Bob", labels=[]), NodeOut(id="j", name="Jane", labels=[])],
        edges=[EdgeOut(type="owns", source="j", target="b", direction="in")],
        answer_candidates=[AnswerCandidate(id="j", name="Jane", labels=["Person"])],
        sources=[
            SourceChunk(id="c1", text="Bob slept. Jane came home.", entity_id="b"),
            SourceChunk(id="c2", text="Jane adopted Bob the kitten and owns him still. Rain.", entity_id="j"),
        ],
    )
    a = extractive_answer([path], [])
    assert a is not None and (a.entity, a.entity_id, a.source_id) == ("Jane", "j", "c2")
    assert (
        a.text
        == 'Jane. Bob is owned by Jane. As the text has it: "Jane adopted Bob the kitten and owns him still."'
    )
    bare = extractive_answer([path.model_copy(update={"sources": [], "answer_candidates": []})], [])
    assert bare is not None and bare.text == "Bob is owned by Jane." and bare.sentence is None
    # issue 53: "Jane owns Bob" was quoted with a sentence about a cup of milk (it names Jane only)
    milk = SourceChunk(
        id="m", text="After breakfast Jane left her blue cup of milk on the table.", entity_id="j"
    )
    unsupported = extractive_answer([path.model_copy(update={"sources": [milk]})], [], "Who owns Bob?")
    assert (
        unsupported is not None
        and unsupported.sentence is None
        and "As the text has it" not in unsupported.text
    )
    cluster = ClusterResult(
        id="c", level=0, title="Bob, Jane", summary="2 entities. Most central: Bob. More.", rating=10.0,
        size=2, score=0.7, top_entities=[ClusterEntity(id="b", name="Bob", labels=["Animal"])],
    )  # fmt: skip
    g = extractive_answer([], [cluster])
    assert g is not None and g.text == "Bob, Jane: 2 entities. Most central: Bob." and g.entity == "Bob"
    assert extractive_answer([], []) is None


def test_clusters_are_never_walked_in_a_graph_without_an_ontology() -> None:
    from pathrag_gds.catalog import GraphInfo, governing_ontology

    info = GraphInfo({}, {"Entity", "Person", "Cluster", "Community"}, {"KNOWS", "MEMBER_OF"}, "ONLINE")
    onto = governing_ontology(info, Settings(), None, None)
    assert onto.relation_names == ["KNOWS"] and onto.labels == ["Person"]
