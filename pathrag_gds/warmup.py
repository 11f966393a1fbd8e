"""Warm a freshly started Neo4j for the search: compile its queries and read the data they touch.

The first question after a server start paid for query planning and cold caches: on the demo
graph the expansion took 1.5 s and the sources 0.4 s, against 0.5 s and 20 ms from the second
question on. `db start` and `demo` run :func:`warm_up` once, so the first question does not: for
the demo graph's community (when loaded: the README's first command asks it, and a larger graph
loaded beside it must not push it out) and the largest others it asks the search one real
question (the name of one of their entities), so exactly the queries a question runs, with the
parameters it sends, are planned and their code compiled: seeding, the intent, every depth of the
expansion and the sources; then one question with no community given (the CLI's default), which
seeds and walks every community at once. A community with a chain model is asked twice: once walking its plan
from the entity, once walking free as a question without a sure plan does (that walk is wider;
warming only the planned one left the demo's first question 0.3-0.7 s slower in the expansion).

Example:
    >>> WarmUp(communities=["metaqa"], queries=5, seconds=0.8).summary()
    'warmed up the search queries for 1 community (5 queries, 0.8 s)'
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from neo4j.exceptions import Neo4jError

from pathrag_gds.catalog import community_state, read_graph_info
from pathrag_gds.chain_model import chain_model_dir
from pathrag_gds.config import Settings
from pathrag_gds.datasets.demo import DEMO_COMMUNITY
from pathrag_gds.errors import PathRagError
from pathrag_gds.graph import Graph
from pathrag_gds.progress import quiet

if TYPE_CHECKING:
    from pathrag_gds.service import PathRag

log = logging.getLogger(__name__)

#: Loggers of the hints a question may log, kept quiet while warming (shown with `-v`).
HINT_LOGGERS = (
    "pathrag_gds.chain_model",
    "pathrag_gds.scoring.registry",
    "pathrag_gds.catalog",
    "pathrag_gds.intent",
)

#: Communities warmed: the demo's, then the largest (plans are shared by all; the data read is per
#: community).
MAX_COMMUNITIES = 3


@dataclass
class WarmUp:
    """What the warm-up did."""

    communities: list[str] = field(default_factory=list)
    queries: int = 0
    #: a question with no community given was asked too
    unscoped: bool = False
    seconds: float = 0.0

    def summary(self) -> str:
        """One line for the CLI."""
        n = len(self.communities)
        return (
            f"warmed up the search queries for {n} communit{'y' if n == 1 else 'ies'} "
            f"({self.queries} queries, {self.seconds:.1f} s)"
        )


def warm_up(graph: Graph, settings: Settings, max_communities: int = MAX_COMMUNITIES) -> WarmUp:
    """Run the search's queries once for the demo's and the largest communities (module docstring).

    A community without embedded entities (not indexed yet), or whose first load has not completed,
    is skipped; a database or model error
    is logged and ends the warm-up early, never the caller: warming is an optimisation.
    """
    t0 = time.monotonic()
    report = WarmUp()
    try:
        info = read_graph_info(graph, settings)
        report.queries += 3
        complete = [c for c in info.communities.items() if community_state(info, c[0]).complete]
        sizes = sorted(complete, key=lambda c: (c[0] != DEMO_COMMUNITY, -int(c[1].get("size") or 0)))
        service = _service(graph, settings)
        free: PathRag | None = None  # built only for a community with a chain model
        # a question's hints (no chain model, no tuned model, no stored ontology) are for one who
        # asks it: `db start` said one per community it warmed; `-v` shows them
        with quiet(*HINT_LOGGERS):
            for cid, _ in sizes[:max_communities]:
                report.queries += _warm_community(graph, service, cid)
                if settings.chain_planning and chain_model_dir(settings, cid).is_dir():
                    free = free or _service(graph, settings.model_copy(update={"chain_planning": False}))
                    report.queries += _warm_community(graph, free, cid)
                report.communities.append(cid)
            if sizes:
                # a question asked without a community (the CLI's default) seeds and walks every
                # community at once: other queries, other pages (first 1.8 s, then 0.9 s on 9 communities)
                report.queries += _warm_community(graph, service, sizes[0][0], scoped=False)
                report.unscoped = True
    except Neo4jError as exc:
        log.warning("warm-up stopped early (the first question will be slower): %s", exc.message or exc)
    except PathRagError as exc:
        log.warning("warm-up stopped early (the first question will be slower): %s", exc)
    report.seconds = time.monotonic() - t0
    return report


def _service(graph: Graph, settings: Settings) -> PathRag:
    """One search service for every community warmed (it reads the catalog once)."""
    from pathrag_gds.service import PathRag

    return PathRag(settings, graph=graph)


def _warm_community(graph: Graph, service: PathRag, community: str, *, scoped: bool = True) -> int:
    """Ask the search one question about an entity of `community`; returns the round trips it took.

    `scoped` false: the question is asked with no community given (every community is searched).
    """
    rows = graph.read("warmup_entity", community=community)
    if not rows:  # nothing embedded yet: only this query ran
        return 1
    question = str(rows[0]["name"] or rows[0]["id"])
    where = community if scoped else None
    return 1 + service.pathrag(question, community_id=where, generate=False).round_trips
