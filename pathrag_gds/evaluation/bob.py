"""The Bob-the-Cat suite: the specification's 10 queries (and 10 fresh ones) against the demo graph.

A query is a hit at rank k when the k-th path contains every entity the eval file lists under
`must_contain` and its first answer candidate is one of `answer`.

Example:
    >>> suite = load_suite()  # doctest: +SKIP
    >>> report = run_suite(get_pathrag_service(), suite.queries)  # doctest: +SKIP
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import yaml

from pathrag_gds.results import PathRagResult, PathResult

DATA = resources.files("pathrag_gds.datasets") / "data"


@dataclass(frozen=True)
class EvalQuery:
    """One evaluation question with what its #1 path must hold."""

    id: str
    query: str
    must_contain: tuple[str, ...]
    answer: tuple[str, ...]
    hops: int | None = None
    note: str = ""


@dataclass(frozen=True)
class Suite:
    """The evaluation file: the spec's queries, fresh ones, and the community they run in."""

    queries: tuple[EvalQuery, ...]
    fresh: tuple[EvalQuery, ...]
    community_id: str | None


def _parse(items: Sequence[dict[str, Any]]) -> tuple[EvalQuery, ...]:
    return tuple(
        EvalQuery(
            id=str(q["id"]),
            query=str(q["query"]),
            must_contain=tuple(str(x) for x in q.get("must_contain", [])),
            answer=tuple(str(x) for x in q.get("answer", [])),
            hops=q.get("hops"),
            note=str(q.get("note", "")),
        )
        for q in items
    )


def load_suite(path: Path | None = None) -> Suite:
    """Read `bob_eval.yaml` (and the community id from `bob.yaml`)."""
    text = path.read_text(encoding="utf-8") if path else (DATA / "bob_eval.yaml").read_text(encoding="utf-8")
    data = yaml.safe_load(text)
    graph = yaml.safe_load((DATA / "bob.yaml").read_text(encoding="utf-8"))
    spec = data.get("queries") or data.get("spec") or []
    return Suite(
        queries=_parse(spec),
        fresh=_parse(data.get("fresh", [])),
        community_id=(graph.get("community") or {}).get("id"),
    )


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
    service: Any, queries: Sequence[EvalQuery], community_id: str | None, **params: Any
) -> dict[str, Any]:
    """Run queries through a service and summarise."""
    rows = []
    for q in queries:
        result = service.pathrag(q.query, community_id=community_id, **params)
        rows.append(judge(result, q))
    return {
        "total": len(rows),
        "hits_at_1": sum(r["hit_at_1"] for r in rows),
        "hits_at_5": sum(r["hit_at_5"] for r in rows),
        "queries": rows,
    }
