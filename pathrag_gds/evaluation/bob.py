"""The Bob-the-Cat suite: the specification's 10 queries (and 10 fresh ones) against the demo graph.

A query is a hit at rank k when the k-th path contains every entity the eval file lists under
`must_contain` and its first answer candidate is one of `answer`. The questions are read by
:mod:`pathrag_gds.datasets.bob_suite`.

Example:
    >>> suite = load_suite()  # doctest: +SKIP
    >>> report = run_suite(get_pathrag_service(), suite.queries)  # doctest: +SKIP
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

from pathrag_gds.datasets.bob_suite import EvalQuery, Suite, intended_path, load_suite
from pathrag_gds.evaluation.metaqa import p50_p95
from pathrag_gds.results import PathRagResult, PathResult

#: `EvalQuery`, `Suite` and `load_suite` are also importable from here.
__all__ = ["EvalQuery", "Suite", "judge", "load_suite", "path_hits", "run_suite"]


def path_hits(path: PathResult, q: EvalQuery) -> bool:
    """Does this path contain the required entities and lead with a right answer?"""
    ids = set(path.node_ids)
    if not set(q.must_contain) <= ids:
        return False
    first = path.answer_candidates[0].id if path.answer_candidates else None
    return first in q.answer


def judge(result: PathRagResult, q: EvalQuery, k: int = 5) -> dict[str, Any]:
    """Hit@1, Hit@k and the #1 path of one query."""
    best = result.best
    hit_rank = next((p.rank for p in result.paths[:k] if path_hits(p, q)), None)
    return {
        "id": q.id,
        "query": q.query,
        "hit_at_1": hit_rank == 1,
        "hit_at_5": hit_rank is not None,
        "hit_rank": hit_rank,
        "score": best.score if best else None,
        "path": " ; ".join(best.path_context)
        if best and best.path_context
        else (best.nodes[0].name if best else ""),
        "answer": best.answer_candidates[0].name if best and best.answer_candidates else None,
        "depth": best.depth if best else None,
        "round_trips": result.round_trips,
        "timings_ms": result.timings_ms,
    }


def run_suite(
    service: Any,
    queries: Sequence[EvalQuery],
    community_id: str | None,
    *,
    start_from_path: bool = False,
    progress: Callable[[dict[str, Any]], None] | None = None,
    **params: Any,
) -> dict[str, Any]:
    """Run queries through a service and summarise: hits, and `service.pathrag` wall time p50/p95.

    `start_from_path` seeds each question with the first entity of its intended path (its `note`)
    instead of linking: what the search scores when the start is given, a diagnostic. `progress`
    is called with each question's row.
    """
    rows, wall = [], []
    for q in queries:
        seeds = {"seed_ids": [intended_path(q.note)[0]]} if start_from_path else {}
        t0 = time.perf_counter()
        result = service.pathrag(q.query, community_id=community_id, generate=False, **params, **seeds)
        wall.append((time.perf_counter() - t0) * 1000.0)
        rows.append(judge(result, q) | {"wall_ms": round(wall[-1], 1)})
        if progress is not None:
            progress(rows[-1])
    return {
        "total": len(rows),
        "hits_at_1": sum(r["hit_at_1"] for r in rows),
        "hits_at_5": sum(r["hit_at_5"] for r in rows),
        "latency_ms": p50_p95(wall),
        "queries": rows,
    }
