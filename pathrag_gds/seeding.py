"""Where a search starts: seed entities from the vector index (and chunks), or from given ids.

Each function reads one round trip (two with chunk seeds), caches the seed entities in the query's
context (`ctx.entities`, `ctx.sims`) and returns the seeds in order.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pathrag_gds.catalog import GraphInfo
from pathrag_gds.config import Settings
from pathrag_gds.expanders import entity_record
from pathrag_gds.graph import Graph
from pathrag_gds.provenance import chunk_seed_rows
from pathrag_gds.search.context import QueryContext


@dataclass(frozen=True)
class SeedHit:
    """One seed entity and its similarity to the question."""

    id: str
    similarity: float


def seed_rows(settings: Settings, ctx: QueryContext, rows: list[dict[str, Any]]) -> list[SeedHit]:
    """Cache the seed entities of a seed query's rows and return the seeds in order."""
    out = []
    for r in rows:
        ctx.hidden = sorted({*ctx.hidden, *(r.get("hidden") or ())})
        ctx.entities[r["id"]] = entity_record(settings, r["id"], r["labels"], r["props"])
        ctx.sims[r["id"]] = float(r["score"])
        if "out_types" in r:
            outgoing = {(str(t), "out") for t in r["out_types"] or ()}
            ctx.steps[r["id"]] = frozenset(outgoing | {(str(t), "in") for t in r["in_types"] or ()})
        out.append(SeedHit(r["id"], float(r["score"])))
    return out


def vector_seeds(
    graph: Graph,
    settings: Settings,
    info: Callable[[], GraphInfo],
    ctx: QueryContext,
    seed_n: int,
    community_id: str | None,
) -> list[SeedHit]:
    """The `seed_n` entities nearest the question's vector (`ctx.vector`), then chunk seeds.

    Within a community of at most 20,000 entities the search is exact; chunk seeds are added when
    `chunk_seed_n` is set and the graph has chunks.
    """
    s = settings
    exact = False
    if community_id is not None:
        size = int(info().communities[community_id].get("size") or 0)
        exact = size <= 20000
    rows = graph.read(
        "seeds",
        counter=ctx.counter,
        index_name=s.vector_index,
        k=max(seed_n * (20 if community_id else 1), seed_n),
        qvec=ctx.vector,
        seed_n=seed_n,
        community=community_id,
        exact=exact,
        entity_label=s.entity_label,
        embedding_key=s.embedding_property,
    )
    if s.chunk_seed_n and s.chunk_label in info().labels:
        have = {r["id"] for r in rows}
        more = chunk_seed_rows(
            graph,
            ctx.vector,
            community=community_id,
            as_of=ctx.as_of,
            seed_n=s.chunk_seed_n,
            counter=ctx.counter,
            hidden=[*ctx.hidden, *(h for r in rows for h in r.get("hidden") or ())],
        )
        rows += [r for r in more if r["id"] not in have]
    return seed_rows(s, ctx, rows)


def seeds_by_id(
    graph: Graph, settings: Settings, ctx: QueryContext, seed_ids: list[str], community_id: str | None
) -> list[SeedHit]:
    """The given entities (already linked by the caller), in one round trip, with their similarity."""
    s = settings
    rows = graph.read(
        "seeds_by_id",
        counter=ctx.counter,
        ids=list(dict.fromkeys(seed_ids)),
        community=community_id,
        pinned=ctx.hidden,
        qvec=ctx.vector,
        entity_label=s.entity_label,
        embedding_key=s.embedding_property,
    )
    return seed_rows(s, ctx, rows)
