"""What one question carries through the search: the `QueryContext`. Pure (no database, no model).

The question is encoded ONCE (`vector`: seeds, the expansion's pre-sort and intent read it); its
intent, named entities and chain plans are found once after the seeds; the entities fetched so far
and their similarity to the question grow as the beam is expanded. Cancellation and the time limit
are checked explicitly (:meth:`QueryContext.check`, between depths), and every stage adds its time
to `timings` and every database call to `counter`.

Example:
    >>> from pathrag_gds.paths import Path
    >>> ctx = QueryContext("Who owns Bob?")
    >>> ctx.plan_of(Path(("bob",))) is None, ctx.counter.count
    (True, 0)
    >>> with ctx.timed("expand"):
    ...     ctx.counter.add(0.001)
    >>> sorted(ctx.timings), ctx.counter.count
    (['expand'], 1)
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING

from pathrag_gds.errors import QueryCancelled, QueryTimeout
from pathrag_gds.paths import EntityRecord, Path
from pathrag_gds.search.planner import ChainPlan
from pathrag_gds.search.schema import Step

if TYPE_CHECKING:  # pragma: no cover
    from pathrag_gds.intent import Intent


class RoundTripCounter:
    """Counts database calls and the time they took (thread-safe)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.count = 0
        self.seconds = 0.0

    def add(self, seconds: float) -> None:
        """Record one round trip."""
        with self._lock:
            self.count += 1
            self.seconds += seconds


@dataclass
class QueryContext:
    """One question's state: its encoding, intent, topics, plans, fetched entities, limits, costs."""

    question: str
    #: the question's ONE embedding (the entity embedding model's), empty until encoded
    vector: list[float] = field(default_factory=list)
    #: the community the query is confined to (None: the whole graph)
    community: str | None = None
    #: longest path asked for, in hops
    max_depth: int = 0
    #: `time.monotonic()` past which the search stops (None: no limit)
    deadline: float | None = None
    #: set it to stop the search between depths
    cancel: threading.Event | None = None
    #: read document versions valid then (None: the current ones)
    as_of: datetime | None = None
    counter: RoundTripCounter = field(default_factory=RoundTripCounter)
    #: stage -> milliseconds
    timings: dict[str, float] = field(default_factory=dict)
    #: every entity fetched so far, by id
    entities: dict[str, EntityRecord] = field(default_factory=dict)
    #: cosine of each fetched entity's stored embedding to the question (computed in Neo4j)
    sims: dict[str, float] = field(default_factory=dict)
    intent: Intent | None = None
    #: entities the question names, word for word or in other words (never the answer)
    named: set[str] = field(default_factory=set)
    #: entities the question names word for word (the topics of chain planning)
    topics: set[str] = field(default_factory=set)
    #: the (relationship type, direction) steps each seed has in the graph, read with the seeds:
    #: a topic's plan starts only with these
    steps: dict[str, frozenset[tuple[str, str]]] = field(default_factory=dict)
    #: chain plans of the topic seeds (seed id -> plan); empty: no chain planning for this query
    plans: dict[str, ChainPlan] = field(default_factory=dict)
    #: the steps a planned path's end entity has, by (end, last edge key): the edge it came along
    #: is not counted (read with the expansion; `ChainPlan.held`)
    next_steps: dict[tuple[str, str], frozenset[Step]] = field(default_factory=dict)
    #: the loads that had not completed when the seeds were read: the query keeps skipping what they
    #: wrote, so it reads one version even if one completes meanwhile (docs/graph-model.md)
    hidden: list[str] = field(default_factory=list)

    def plan_of(self, path: Path) -> ChainPlan | None:
        """The chain plan that governs a path (its start's), if any."""
        return self.plans.get(path.start)

    def check(self) -> None:
        """Stop here if the query was cancelled or ran past its time limit.

        Raises:
            QueryCancelled: `cancel` is set.
            QueryTimeout: `deadline` has passed.
        """
        if self.cancel is not None and self.cancel.is_set():
            raise QueryCancelled("the query was cancelled")
        if self.deadline is not None and time.monotonic() > self.deadline:
            raise QueryTimeout(
                "the query ran past its time limit: lower max_depth / seed_n, or raise the limit"
            )

    def tick(self, stage: str, t0: float) -> None:
        """Add the time since `t0` (`time.perf_counter()`) to a stage."""
        self.timings[stage] = self.timings.get(stage, 0.0) + (time.perf_counter() - t0) * 1000.0

    @contextmanager
    def timed(self, stage: str) -> Iterator[None]:
        """Add the time the block takes to a stage."""
        t0 = time.perf_counter()
        try:
            yield
        finally:
            self.tick(stage, t0)
