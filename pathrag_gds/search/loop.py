"""The beam search: seeds, then per depth expand -> score -> keep, then the top-N. Pure.

The specification's loop, written against an :class:`~pathrag_gds.search.protocols.Expander`
(how the beam grows; the server-side one makes ONE database round trip per depth) and a
:class:`~pathrag_gds.search.ranking.Ranker` (how paths are scored and kept). Per depth: the
cancellation and time limit are checked, the beam's frontier is expanded along the relations
allowed at that depth (a path from a planned topic only along its plan's next steps; a path that
has walked a whole planned chain stops), the children are scored, floored, recorded as candidates
and kept as the next beam. After the walk the planned candidates are reranked and the best `top_n`
returned, with per-depth counts.

Example:
    >>> from pathrag_gds.config import Settings
    >>> from pathrag_gds.paths import Path
    >>> from pathrag_gds.search.context import QueryContext
    >>> from pathrag_gds.search.protocols import Expansion
    >>> from pathrag_gds.search.ranking import Ranker
    >>> class Nowhere:
    ...     follows_plans = True
    ...     def expand(self, ctx, frontier, relations): return Expansion([])
    >>> class Half:
    ...     def score(self, texts): return [0.5] * len(texts)
    >>> ranker = Ranker(Settings(), Half(), lambda p: p.start)
    >>> out = beam_search(QueryContext("q", max_depth=2), [Path(("a",))], Nowhere(), ranker, top_n=5)
    >>> [x.path.start for x in out.best], [d.candidates for d in out.depths], out.explored
    (['a'], [1, 0], 1)
"""

from __future__ import annotations

import time
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass

from pathrag_gds.beam import Candidates, ScoredPath
from pathrag_gds.paths import Path
from pathrag_gds.results import DepthStat
from pathrag_gds.search.context import QueryContext
from pathrag_gds.search.protocols import Expander, Frontier
from pathrag_gds.search.ranking import Ranker
from pathrag_gds.search.schema import Chain, Step, path_chain

#: Called after each depth with that depth's best beam paths (for streaming).
DepthCallback = Callable[[int, list[ScoredPath]], None]


@dataclass
class SearchOutcome:
    """The best paths of a search, its per-depth counts, and how many distinct paths it explored."""

    best: list[ScoredPath]
    depths: list[DepthStat]
    explored: int


def _stat(depth: int, beam_in: int, candidates: int, scored: int, kept: int, t0: float) -> DepthStat:
    return DepthStat(
        depth=depth,
        beam_in=beam_in,
        candidates=candidates,
        scored=scored,
        kept=kept,
        seconds=time.perf_counter() - t0,
    )


def frontier(
    ctx: QueryContext, beam: Sequence[ScoredPath], steps_past: Collection[int] = ()
) -> list[Frontier]:
    """The beam paths to expand, each with the steps its chain plan allows (None: any).

    A planned path that has walked a whole kept chain has no next step: it stops here, unless
    its beam index is in `steps_past`: then it takes one more step, along any relation
    (:meth:`Ranker.steps_past`).
    """
    out = []
    for i, b in enumerate(beam):
        plan = ctx.plan_of(b.path)
        steps = None if plan is None else frozenset(plan.allowed(path_chain(b.path)))
        if steps is not None and not steps:
            if i in steps_past:
                out.append(Frontier(i, b.path))
            continue
        probe = None if plan is None else plan.probe(path_chain(b.path))
        out.append(Frontier(i, b.path, steps, probe or None))
    return out


def hold_plans(ctx: QueryContext, beam: Sequence[ScoredPath], depth: int) -> None:
    """Before walking `depth`: each topic's plan keeps the best chains the graph still holds.

    A kept chain whose next step no entity the walk reached along its prefix has gives its place
    to the most probable chain of the plan's reserve that does (:meth:`ChainPlan.held`), so the
    walk follows `chain_keep` chains that exist, not chains the schema allows and the graph lacks.
    """
    if depth < 2 or not ctx.plans:
        return
    walked: dict[str, dict[Chain, set[Step]]] = {t: {} for t in ctx.plans}
    for b in beam:
        p = b.path
        steps = ctx.next_steps.get((p.end, p.edge_keys[-1])) if p.edges else None
        if p.start in walked and steps is not None:
            walked[p.start].setdefault(path_chain(p), set()).update(steps)
    for t, plan in ctx.plans.items():
        ctx.plans[t] = plan.held(depth, walked[t])


def expand(
    ctx: QueryContext,
    expander: Expander,
    beam: Sequence[ScoredPath],
    relations: Sequence[str],
    steps_past: Collection[int] = (),
) -> tuple[list[Path], list[int | None]]:
    """One expansion of the beam: the children and their parents' beam indexes.

    The entities the expander fetched and the children's similarities are recorded in `ctx`; a
    child that leaves its parent's planned steps is dropped (whatever the expander returned).
    """
    todo = frontier(ctx, beam, steps_past)
    if not todo:
        return [], []
    expansion = expander.expand(ctx, todo, relations)
    for eid, record in expansion.entities.items():
        ctx.entities.setdefault(eid, record)
    steps = {f.index: f.steps for f in todo}
    children: list[Path] = []
    parents: list[int | None] = []
    for c in expansion.children:
        if c.sim is not None:
            ctx.sims[c.path.end] = c.sim
        if c.steps is not None:
            ctx.next_steps[(c.path.end, c.path.edge_keys[-1])] = c.steps
        allowed = steps.get(c.parent)
        if allowed is not None and path_chain(c.path)[-1] not in allowed:
            continue
        children.append(c.path)
        parents.append(c.parent)
    return children, parents


def beam_search(
    ctx: QueryContext,
    seeds: Sequence[Path],
    expander: Expander,
    ranker: Ranker,
    *,
    top_n: int,
    relations_at: Callable[[int], Sequence[str]] = lambda depth: (),
    on_depth: DepthCallback | None = None,
) -> SearchOutcome:
    """Search from the seed paths up to `ctx.max_depth` hops and return the best `top_n` paths.

    Args:
        ctx: the question (its intent, plans and entities are read; entities and sims grow).
        seeds: depth-0 paths, scored like any path.
        expander: grows the beam one step per depth.
        ranker: scores, floors, keeps and finally ranks the paths.
        top_n: paths returned (and passed to `on_depth`).
        relations_at: the relationship types that may be walked at a depth.
        on_depth: called after each depth with that depth's best `top_n` beam paths.

    Raises:
        QueryCancelled, QueryTimeout: checked before each depth's expansion.
    """
    candidates = Candidates()
    depths: list[DepthStat] = []
    beam: list[ScoredPath] = []
    if seeds:
        t_depth = time.perf_counter()
        scored = ranker.score(ctx, seeds, [None] * len(seeds))
        candidates.extend(scored)
        with ctx.timed("prune"):
            beam = ranker.keep(scored, 0, walk_others=ranker.walks_beside_plans(ctx))
        depths.append(_stat(0, 0, len(seeds), len(seeds), len(beam), t_depth))
        if on_depth is not None:
            on_depth(0, beam[:top_n])

    for depth in range(1, ctx.max_depth + 1):
        if not beam:
            break
        ctx.check()
        t_depth = time.perf_counter()
        with ctx.timed("plan"):
            hold_plans(ctx, beam, depth)
        with ctx.timed("expand"):
            children, parents = expand(ctx, expander, beam, relations_at(depth), ranker.steps_past(ctx, beam))
        if not children:
            depths.append(_stat(depth, len(beam), 0, 0, 0, t_depth))
            break
        scored = ranker.score(ctx, children, parents)
        with ctx.timed("prune"):
            scored = ranker.floor(scored)
            candidates.extend(scored)
            beam = ranker.keep(scored, depth)
        depths.append(_stat(depth, len(set(parents)), len(children), len(scored), len(beam), t_depth))
        if on_depth is not None:
            on_depth(depth, beam[:top_n])

    candidates = ranker.settle(ctx, candidates)
    return SearchOutcome(ranker.top(ctx, candidates, top_n), depths, len(candidates))
