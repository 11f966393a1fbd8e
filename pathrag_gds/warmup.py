"""Warm a freshly started Neo4j for the search: compile its queries and read the data they touch.

The first question after a server start paid for query planning and cold caches: on the demo
graph seeding took 1.2 s, the expansion 2.1 s and the sources 0.6 s, against tens of
milliseconds once warm. `db start` and `demo` run :func:`warm_up` once, so the first question does
not: for the largest communities it runs the search's own queries (vector and exact seeding,
seeds by id, one expansion over every relationship type, the sources) from one of their entities,
its embedding standing in for a question.

Example:
    >>> WarmUp(communities=["metaqa"], queries=5, seconds=0.8).summary()
    'warmed up the search queries for 1 community (5 queries, 0.8 s)'
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field

from neo4j.exceptions import Neo4jError

from pathrag_gds.catalog import STRUCTURAL_TYPES, GraphInfo, read_graph_info
from pathrag_gds.config import Settings
from pathrag_gds.expanders import Neo4jExpander
from pathrag_gds.graph import Graph
from pathrag_gds.paths import Path
from pathrag_gds.provenance import read_sources
from pathrag_gds.search.context import QueryContext
from pathrag_gds.search.protocols import Frontier
from pathrag_gds.seeding import seeds_by_id, vector_seeds

log = logging.getLogger(__name__)

#: Communities warmed, largest first (plans are shared by all; the data read is per community).
MAX_COMMUNITIES = 3


@dataclass
class WarmUp:
    """What the warm-up did."""

    communities: list[str] = field(default_factory=list)
    queries: int = 0
    seconds: float = 0.0

    def summary(self) -> str:
        """One line for the CLI."""
        n = len(self.communities)
        return (
            f"warmed up the search queries for {n} communit{'y' if n == 1 else 'ies'} "
            f"({self.queries} queries, {self.seconds:.1f} s)"
        )


def warm_up(graph: Graph, settings: Settings, max_communities: int = MAX_COMMUNITIES) -> WarmUp:
    """Run the search's queries once for the largest communities (see the module docstring).

    A community without embedded entities (not indexed yet) is skipped; a database error is logged
    and ends the warm-up early, never the caller: warming is an optimisation.
    """
    t0 = time.monotonic()
    report = WarmUp()
    try:
        info = read_graph_info(graph, settings)
        report.queries += 3
        sizes = sorted(info.communities.items(), key=lambda c: -int(c[1].get("size") or 0))
        for cid, _ in sizes[:max_communities]:
            report.queries += _warm_community(graph, settings, info, cid)
            report.communities.append(cid)
    except Neo4jError as exc:
        log.warning("warm-up stopped early (the first question will be slower): %s", exc.message or exc)
    report.seconds = time.monotonic() - t0
    return report


def _warm_community(graph: Graph, settings: Settings, info: GraphInfo, community: str) -> int:
    """The search's queries from one entity of `community`; returns how many ran."""
    rows = graph.read("warmup_entity", community=community)
    if not rows:  # nothing embedded yet: only this query ran
        return 1
    eid, vector = rows[0]["id"], [float(x) for x in rows[0]["vector"]]
    ctx = QueryContext("warm-up", vector=vector, community=community, max_depth=1)
    vector_seeds(graph, settings, lambda: info, ctx, settings.seed_n, community)
    seeds_by_id(graph, settings, ctx, [eid], community)
    relations = sorted(info.types - STRUCTURAL_TYPES)
    Neo4jExpander(graph, settings).expand(ctx, [Frontier(0, Path((eid,)))], relations)
    read_sources(graph, [eid], community=community, as_of=None)
    return 5
