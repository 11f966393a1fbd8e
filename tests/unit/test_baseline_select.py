"""The baselines' Python copy of `cypher/expand.cypher`'s per-path filters (no database)."""

from __future__ import annotations

from typing import Any

from pathrag_gds.baseline_select import choose, held_steps, neo4j_cosine, plan_probe, probe_tokens
from pathrag_gds.config import Settings
from pathrag_gds.paths import Edge, Path
from pathrag_gds.search.context import QueryContext
from pathrag_gds.search.planner import ChainPlan
from pathrag_gds.search.protocols import Frontier


def row(rel: str, src: str, tgt: str, sim: float, frontier: str = "a") -> dict[str, Any]:
    other = tgt if src == frontier else src
    return {
        "type": rel,
        "src": src,
        "tgt": tgt,
        "id": other,
        "direction": "out" if src == frontier else "in",
        "sim": sim,
    }


def ids(rows: list[dict[str, Any]]) -> list[str]:
    return [r["id"] for r in rows]


def test_a_free_path_caps_each_type_then_keeps_the_best_overall() -> None:
    s = Settings(cap_per_relation=2, expand_per_path=3)
    rows = [row("r", "a", f"r{i}", 0.9 - i / 10) for i in range(4)] + [row("q", "a", "q0", 0.1)]
    rows.append(row("x", "a", "x0", 0.99))  # not whitelisted
    out = choose(s, Frontier(0, Path(("a",))), rows, {"r", "q"})
    assert ids(out) == ["r0", "r1", "q0"]


def test_a_free_path_never_revisits_a_node_on_it() -> None:
    p = Path(("b",)).extend(Edge("r", "b", "a", "out"), "a")
    rows = [row("r", "b", "a", 0.9), row("r", "a", "c", 0.5)]
    assert ids(choose(Settings(), Frontier(0, p), rows, {"r"})) == ["c"]


def test_a_planned_path_takes_its_steps_each_capped_and_may_pass_an_entity_again() -> None:
    s = Settings(cap_per_relation=50, expand_per_path=2)
    # a -r-> m, m <-r- a walked; from m: back along the same relationship is refused, the topic too,
    # another relationship to a node on the path is not
    p = Path(("t",)).extend(Edge("w", "t", "m", "out"), "m")
    rows = [
        row("w", "t", "m", 0.9, frontier="m"),  # back along the walked relationship
        row("d", "m", "t", 0.8, frontier="m"),  # to the topic
        row("d", "m", "x", 0.7, frontier="m"),
        row("d", "m", "y", 0.6, frontier="m"),
        row("d", "m", "z", 0.5, frontier="m"),  # past the per-step limit
        row("e", "k", "m", 0.4, frontier="m"),
        row("e", "m", "k2", 0.95, frontier="m"),  # e:out is not a planned step
    ]
    f = Frontier(0, p, frozenset({("d", "out"), ("e", "in"), ("w", "in")}))
    assert ids(choose(s, f, rows, {"w", "d", "e"})) == ["x", "y", "k"]


def test_held_steps_do_not_count_the_relationship_just_walked() -> None:
    f = Frontier(
        0, Path(("a",)), frozenset({("r", "in")}), {("r", "in"): frozenset({("r", "out"), ("s", "in")})}
    )
    r = row("r", "b", "a", 0.5)  # b -r-> a walked backwards: b has r:out once through it
    assert held_steps(f, {**r, "degrees": {("r", "out"): 1, ("s", "in"): 0}}) == frozenset()
    assert held_steps(f, {**r, "degrees": {("r", "out"): 2, ("s", "in"): 1}}) == {("r", "out"), ("s", "in")}
    assert held_steps(Frontier(0, Path(("a",))), r) is None


def test_probe_lists_and_neo4j_similarity() -> None:
    chain = (("r", "out"), ("s", "in"))
    ctx = QueryContext("q", plans={"t": ChainPlan({chain: 1.0}, reserve={chain: 1.0, (("u", "out"),): 0.1})})
    assert plan_probe(ctx) == [{"t": "r", "d": "out"}, {"t": "s", "d": "in"}, {"t": "u", "d": "out"}]
    f = Frontier(0, Path(("t",)), None, {("r", "out"): frozenset({("s", "in")})})
    assert probe_tokens([f, Frontier(1, Path(("u",)))]) == [{"t": "s", "d": "in"}]
    assert neo4j_cosine([1.0, 0.0], [[0.0, 2.0]]) == [0.5]
