"""The search loop and its ranking with a fake expander and a fake scorer: no database, no model."""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence

import pytest

from pathrag_gds.config import Settings
from pathrag_gds.errors import QueryCancelled, QueryTimeout
from pathrag_gds.paths import Edge, EntityRecord, Path
from pathrag_gds.search.context import QueryContext
from pathrag_gds.search.loop import beam_search, frontier
from pathrag_gds.search.planner import ChainPlan
from pathrag_gds.search.protocols import Child, Expansion, Frontier
from pathrag_gds.search.ranking import Ranker

#: node -> (relationship type, neighbour) of stored edges out of it
EDGES = {
    "a": [("r", "b1"), ("r", "b2"), ("r", "b3"), ("s", "x")],
    "b1": [("t", "c1")],
    "b2": [("t", "c2")],
    "b3": [("t", "c3")],
    "c1": [("u", "d1")],
    "z": [("r", "y")],
}


class FakeGraphExpander:
    """Walks `EDGES` (out along them, in against them); one 'round trip' per call.

    With `obey_steps=False` it returns every neighbour, planned or not (the loop must drop them).
    """

    follows_plans = True

    def __init__(self, obey_steps: bool = True) -> None:
        self.obey_steps = obey_steps
        self.calls: list[list[Frontier]] = []

    def expand(self, ctx: QueryContext, frontier: Sequence[Frontier], relations: Sequence[str]) -> Expansion:
        ctx.counter.add(0.0)
        self.calls.append(list(frontier))
        out = Expansion([])
        for f in frontier:
            here = f.path.end
            hops = [(t, here, n, "out") for t, n in EDGES.get(here, [])]
            hops += [(t, s, here, "in") for s, es in EDGES.items() for t, n in es if n == here]
            for t, src, tgt, direction in hops:
                there = tgt if direction == "out" else src
                if (relations and t not in relations) or there in f.path.node_ids:
                    continue
                if self.obey_steps and f.steps is not None and (t, direction) not in f.steps:
                    continue
                out.entities.setdefault(there, EntityRecord(there, ("Thing",), there.upper()))
                child = f.path.extend(Edge(t, src, tgt, direction), there)  # type: ignore[arg-type]
                held = (
                    None
                    if f.probe is None
                    else self.held(there, f.probe.get((t, direction), frozenset()), here)
                )  # type: ignore[arg-type]
                out.children.append(Child(child, f.index, sim=0.5, steps=held))
        return out

    @staticmethod
    def held(node: str, asked: frozenset[tuple[str, str]], came_from: str) -> frozenset[tuple[str, str]]:
        """Of the steps asked about, those `node` has in `EDGES` (not back to where it came from)."""
        has = {(t, "out") for t, n in EDGES.get(node, []) if n != came_from}
        has |= {(t, "in") for s, es in EDGES.items() for t, n in es if n == node and s != came_from}
        return frozenset(asked & has)  # type: ignore[operator]


class FakeScorer:
    """Scores a path text (its node ids joined by '-') from a table; records every batch."""

    def __init__(self, table: dict[str, float] | None = None, default: float = 0.5) -> None:
        self.table = table or {}
        self.default = default
        self.batches: list[list[str]] = []

    def score(self, texts: Sequence[str]) -> list[float]:
        self.batches.append(list(texts))
        return [self.table.get(t, self.default) for t in texts]


def text(p: Path) -> str:
    return "-".join(p.node_ids)


def context(max_depth: int, **kw: object) -> QueryContext:
    ctx = QueryContext("q", max_depth=max_depth, **kw)  # type: ignore[arg-type]
    ctx.entities["a"] = EntityRecord("a", ("Thing",), "A")
    return ctx


def search(
    ctx: QueryContext, expander: FakeGraphExpander, scorer: FakeScorer, settings: Settings | None = None
) -> list[str]:
    ranker = Ranker(settings or Settings(min_score=0.0), scorer, text)
    out = beam_search(ctx, [Path(("a",))], expander, ranker, top_n=50)
    return [text(x.path) for x in out.best]


def test_one_expansion_round_trip_per_depth() -> None:
    ctx, expander, scorer = context(3), FakeGraphExpander(), FakeScorer()
    ranker = Ranker(Settings(min_score=0.0, local_keep_m=4), scorer, text)
    out = beam_search(ctx, [Path(("a",))], expander, ranker, top_n=50)
    assert ctx.counter.count == len(expander.calls) == 3
    assert [d.depth for d in out.depths] == [0, 1, 2, 3]
    assert "a-b1-c1-d1" in [text(x.path) for x in out.best]
    # every depth is ONE scorer batch of that depth's new paths
    assert [len(b) for b in scorer.batches] == [1, 4, 3, 1]
    assert ctx.entities["d1"].name == "D1" and ctx.sims["d1"] == 0.5


def test_each_parent_keeps_its_best_m_children() -> None:
    ctx, expander = context(2), FakeGraphExpander()
    scorer = FakeScorer({"a-b1": 0.9, "a-b2": 0.8, "a-b3": 0.7, "a-x": 0.6})
    search(ctx, expander, scorer, Settings(min_score=0.0, local_keep_m=2, beam_width=30))
    assert [f.path.end for f in expander.calls[1]] == ["b1", "b2"]


def test_a_planned_path_only_takes_planned_steps_and_stops_at_the_chain_end() -> None:
    plan = ChainPlan({(("r", "out"), ("t", "out")): 1.0})
    ctx = context(3, plans={"a": plan})
    expander = FakeGraphExpander(obey_steps=False)
    paths = search(ctx, expander, FakeScorer())
    assert [f.steps for f in expander.calls[0]] == [frozenset({("r", "out")})]
    assert "a-x" not in paths, "an off-plan child is dropped whatever the expander returned"
    assert set(paths) == {"a", "a-b1", "a-b2", "a-b3", "a-b1-c1", "a-b2-c2", "a-b3-c3"}
    assert len(expander.calls) == 2, "the walked chain's ends take no third step"


def test_a_path_at_the_end_of_its_planned_chain_has_no_frontier() -> None:
    from pathrag_gds.beam import ScoredPath

    ctx = context(3, plans={"a": ChainPlan({(("r", "out"),): 1.0})})
    done = ScoredPath(Path(("a",)).extend(Edge("r", "a", "b1", "out"), "b1"), 1.0)
    free = ScoredPath(Path(("z",)), 1.0)
    assert [(f.index, f.steps) for f in frontier(ctx, [done, free])] == [(1, None)]


@pytest.mark.parametrize("walk_unplanned", [False, True])
def test_beside_a_planned_topic_other_seeds_are_walked_only_when_asked(walk_unplanned: bool) -> None:
    ctx, expander = context(1, plans={"a": ChainPlan({(("r", "out"),): 1.0})}), FakeGraphExpander()
    ctx.entities["z"] = EntityRecord("z", ("Thing",), "Z")
    ranker = Ranker(Settings(min_score=0.0, walk_unplanned_seeds=walk_unplanned), FakeScorer(), text)
    out = beam_search(ctx, [Path(("a",)), Path(("z",))], expander, ranker, top_n=50)
    assert sorted(f.path.end for f in expander.calls[0]) == (["a", "z"] if walk_unplanned else ["a"])
    assert "z" in [text(x.path) for x in out.best], "an unwalked seed stays a 0-hop candidate"


@pytest.mark.parametrize(("best", "walked"), [(0.9, ["a"]), (0.25, ["a", "z"])])
def test_beside_an_unsure_plan_other_seeds_are_walked_too(best: float, walked: list[str]) -> None:
    plan = ChainPlan({(("r", "out"),): best, (("r", "in"),): best / 2})  # the kept chains of a softmax
    ctx, expander = context(1, plans={"a": plan}), FakeGraphExpander()
    ctx.entities["z"] = EntityRecord("z", ("Thing",), "Z")
    ranker = Ranker(Settings(min_score=0.0, chain_sure_best=0.3), FakeScorer(), text)
    beam_search(ctx, [Path(("a",)), Path(("z",))], expander, ranker, top_n=50)
    assert sorted(f.path.end for f in expander.calls[0]) == walked


def test_the_beam_is_trimmed_to_its_width() -> None:
    ctx, expander = context(2), FakeGraphExpander()
    scorer = FakeScorer({"a-b1": 0.9, "a-b2": 0.8, "a-b3": 0.7, "a-x": 0.6})
    search(ctx, expander, scorer, Settings(min_score=0.0, beam_width=3, local_keep_m=10))
    assert [f.path.end for f in expander.calls[1]] == ["b1", "b2", "b3"]


def test_paths_under_the_floor_leave_the_candidates_and_the_beam() -> None:
    ctx, expander = context(2), FakeGraphExpander()
    scorer = FakeScorer({"a-b1": 0.9}, default=0.05)
    paths = search(ctx, expander, scorer, Settings(min_score=0.1))
    assert paths == ["a-b1"], "the seed (0.05) and the other children fall under min_score"
    assert [f.path.end for f in expander.calls[1]] == ["b1"]


def test_cancellation_stops_the_search_between_depths() -> None:
    cancel = threading.Event()
    ctx, expander = context(3, cancel=cancel), FakeGraphExpander()
    ranker = Ranker(Settings(min_score=0.0), FakeScorer(), text)

    def after(depth: int, beam: object) -> None:
        if depth == 1:
            cancel.set()

    with pytest.raises(QueryCancelled):
        beam_search(ctx, [Path(("a",))], expander, ranker, top_n=5, on_depth=after)
    assert len(expander.calls) == 1


def test_a_query_past_its_deadline_stops_before_the_next_expansion() -> None:
    ctx, expander = context(3, deadline=time.monotonic() - 1.0), FakeGraphExpander()
    ranker = Ranker(Settings(min_score=0.0), FakeScorer(), text)
    with pytest.raises(QueryTimeout, match="time limit"):
        beam_search(ctx, [Path(("a",))], expander, ranker, top_n=5)
    assert expander.calls == []


def test_the_rerank_adds_the_text_score_to_the_top_planned_paths_only() -> None:
    plan = ChainPlan({(("r", "out"),): 0.6, (("s", "out"),): 0.4})
    ctx = context(1, plans={"a": plan})
    ctx.sims.update({"b1": 0.9, "b2": 0.8, "b3": 0.7, "x": 0.1})

    class BySim(FakeGraphExpander):
        def expand(
            self, ctx: QueryContext, frontier: Sequence[Frontier], relations: Sequence[str]
        ) -> Expansion:
            out = super().expand(ctx, frontier, relations)
            out.children = [Child(c.path, c.parent, ctx.sims[c.path.end]) for c in out.children]
            return out

    scorer = FakeScorer({"a-b1": 0.2, "a-b2": 0.3, "a-b3": 0.9, "a-x": 0.55})
    settings = Settings(min_score=0.0, chain_rerank=1, weight_chain=1.0)
    ranker = Ranker(settings, scorer, text)
    out = beam_search(ctx, [Path(("a",))], BySim(), ranker, top_n=10)
    best = {text(x.path): x for x in out.best}
    # while walking, planned paths get no text score (the chain decides); after it, one batch per
    # depth: the best planned path, one more of its chain (two per chain) and the best two of every
    # other chain (`s`, and the seed's empty one); the third of the first chain (lowest similarity,
    # so last among equal chain scores) is not scored and leaves the candidates
    assert scorer.batches == [["a-b1", "a-b2", "a-x"], ["a"]]
    assert set(best) == {"a", "a-b1", "a-b2", "a-x"}
    assert best["a-b1"].score == pytest.approx(0.6 + 0.2) and best["a-b1"].parts["model"] == 0.2
    assert best["a-x"].score == pytest.approx(0.4 + 0.55) and best["a"].score == pytest.approx(0.5)
    assert [text(x.path) for x in out.best] == ["a-x", "a-b2", "a-b1", "a"]


def test_an_expander_that_walks_everything_at_once_ends_the_walk() -> None:
    """An expander that returns paths of every length at the first depth and nothing after ends the walk."""

    class WholeWalk:
        follows_plans = False

        def __init__(self) -> None:
            self.calls = 0

        def expand(
            self, ctx: QueryContext, frontier: Sequence[Frontier], relations: Sequence[str]
        ) -> Expansion:
            self.calls += 1
            if any(f.path.depth > 0 for f in frontier):
                return Expansion([])
            ab = frontier[0].path.extend(Edge("r", "a", "b1", "out"), "b1")
            return Expansion([Child(ab, 0), Child(ab.extend(Edge("t", "b1", "c1", "out"), "c1"), 0)])

    scorer = FakeScorer()
    expander = WholeWalk()
    ranker = Ranker(Settings(min_score=0.0), scorer, text)
    out = beam_search(context(3), [Path(("a",))], expander, ranker, top_n=10)
    assert expander.calls == 2 and [d.candidates for d in out.depths] == [1, 2, 0]
    assert ["a-b1"] in scorer.batches and ["a-b1-c1"] in scorer.batches, "one batch per depth"
    assert {text(x.path) for x in out.best} == {"a", "a-b1", "a-b1-c1"}


def test_a_kept_chain_the_graph_lacks_gives_its_place_to_a_held_one() -> None:
    """The plan keeps r->v (0.6), which no b has; its reserve holds r->t (0.3): at depth 2 the
    walk asks each b for its steps, drops r->v and follows r->t instead."""
    rv, rt = (("r", "out"), ("v", "out")), (("r", "out"), ("t", "out"))
    reserve = {rv: 0.6, rt: 0.3, (("s", "out"), ("w", "out")): 0.05}
    settings = Settings(min_score=0.0, chain_rerank=0)
    held = context(2, plans={"a": ChainPlan({rv: 0.6}, reserve=reserve, keep=1)})
    expander = FakeGraphExpander()
    found = search(held, expander, FakeScorer(), settings)
    assert {"a-b1-c1", "a-b2-c2", "a-b3-c3"} <= set(found)
    assert expander.calls[0][0].probe == {
        ("r", "out"): frozenset({("v", "out"), ("t", "out")}),
        ("s", "out"): frozenset({("w", "out")}),
    }
    assert held.plans["a"].probs == {rt: 0.3}
    # without a reserve the kept chain is walked as planned, and finds nothing at depth 2
    alone = context(2, plans={"a": ChainPlan({rv: 0.6})})
    assert not [p for p in search(alone, FakeGraphExpander(), FakeScorer(), settings) if p.count("-") == 2]


@pytest.mark.parametrize("c2_kind", ["cottage", "village"])
def test_a_chain_ending_only_at_another_kind_than_asked_takes_one_step_past(c2_kind: str) -> None:
    """ "In which village ...": a chain whose every end is a cottage walks one hop on, at its prob."""
    from pathrag_gds.intent import Intent

    plan = ChainPlan({(("r", "out"), ("t", "out")): 0.8})
    intent = Intent("In which village?", "entity", {"Thing": 1.0}, noun="village")
    ctx = context(4, plans={"a": plan}, intent=intent)
    for node, kind in (("c1", "cottage"), ("c2", c2_kind), ("c3", "cottage"), ("d1", "village")):
        ctx.entities[node] = EntityRecord(node, ("Thing",), node.upper(), "", {"place_type": kind})
    expander = FakeGraphExpander()
    ranker = Ranker(Settings(min_score=0.0), FakeScorer(), text)
    out = beam_search(ctx, [Path(("a",))], expander, ranker, top_n=50)
    found = {text(x.path): x for x in out.best}
    if c2_kind == "cottage":
        assert len(expander.calls) == 3 and expander.calls[2][0].steps is None  # any relation
        past = found["a-b1-c1-d1"]
        assert past.parts["chain"] == 0.8 and past.parts["kind_step"] == 1.0
        assert out.best[0].path.end == "d1", "the village ranks above the cottages"
        assert not any(len(x.path.edges) > 3 for x in out.best), "one step, never two"
    else:  # the chain reaches a village: it stays as planned
        assert len(expander.calls) == 2 and "a-b1-c1-d1" not in found


def test_a_planned_path_is_not_evicted_by_its_reverse_walk_from_another_seed() -> None:
    """a -r-> b1 planned from the topic a, and b1 <-r- a walked free from the seed b1: one key.

    Before the rerank the planned path's score is its chain probability (0.25), the free one's the
    path-text score (0.6): compared as they are, the reverse walk (answering `a`, the topic) would
    evict the planned one before the rerank gives it its text score (0.25 + 0.5).
    """
    ctx = context(1, plans={"a": ChainPlan({(("r", "out"),): 0.25})})
    ctx.entities["b1"] = EntityRecord("b1", ("Thing",), "B1")
    ranker = Ranker(Settings(min_score=0.0), FakeScorer({"b1-a": 0.6, "a-b1": 0.5}), text)
    out = beam_search(ctx, [Path(("a",)), Path(("b1",))], FakeGraphExpander(), ranker, top_n=50)
    best = {text(x.path): x for x in out.best}
    assert "a-b1" in best and "b1-a" not in best, "one of the two per key: the better, after the rerank"
    assert best["a-b1"].score == pytest.approx(0.75) and best["a-b1"].parts["chain"] == 0.25
