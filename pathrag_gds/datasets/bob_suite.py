"""The Bob-the-Cat suite's questions: the specification's 10 queries and 10 fresh ones, read from the package.

Example:
    >>> suite = load_suite()
    >>> len(suite.queries), len(suite.fresh), suite.community_id
    (10, 10, 'DefaultCommunity_FictionalStories')
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import yaml

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
