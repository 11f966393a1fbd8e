"""The scale benchmark: what a question costs per depth as the graph grows (scripts/bench_scale.py).

For one community (one graph size) it generates a fixed set of 1-3 hop questions from the graph
itself (the training question generator: a random walk phrased with the ontology, its start
entity named, seeded), asks each with the start entity as the seed (`seed_ids`, as topic linking
does), and records per question the expansion time of every depth, the time inside the database,
the end-to-end time and whether the #1 answer is one the walk's chain reaches. The server's heap
and store size are read at the end. :func:`summarize` turns the runs into p50/p95 per depth.

The same runs work for the two expansion baselines (`per-node`, `var-length`): only the expander
differs (:data:`EXPANDERS`).

Example:
    >>> summarize([QuestionRun(1, 10.0, 4.0, 3, True, [DepthTiming(1, 2.0, 5, 1)])])["expand_ms"]
    {'1': {'p50': 2.0, 'p95': 2.0, 'n': 1}}
"""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from pathrag_gds.baselines import PerNodeExpander, VarLengthExpander
from pathrag_gds.config import Settings
from pathrag_gds.errors import QueryTimeout
from pathrag_gds.evaluation.benchkit import DepthTiming, TimedExpander
from pathrag_gds.evaluation.metaqa import p50_p95, ranked_answers
from pathrag_gds.expanders import Neo4jExpander
from pathrag_gds.graph import Graph
from pathrag_gds.ontology import Ontology
from pathrag_gds.search.protocols import Expander
from pathrag_gds.service import PathRag

#: The expansion strategies a run can use (the service's own, and the two baselines).
EXPANDERS: dict[str, Callable[[Graph, Settings], Expander]] = {
    "pathrag_gds": Neo4jExpander,
    "per-node": PerNodeExpander,
    "var-length": VarLengthExpander,
}


@dataclass(frozen=True)
class ScaleQuestion:
    """A generated question: its hop count, text, the named start entity and every answer id."""

    hop: int
    question: str
    topic_id: str
    answers: tuple[str, ...]


@dataclass
class QuestionRun:
    """What one question cost: end to end, in the database, round trips, per-depth expansions."""

    hop: int
    latency_ms: float
    db_ms: float
    round_trips: int
    hit_at_1: bool
    depths: list[DepthTiming] = field(default_factory=list)
    timed_out: bool = False


class TimedRag(PathRag):
    """The service with one of :data:`EXPANDERS`, each expansion recorded into `log`."""

    def __init__(self, settings: Settings, expander: str, **parts: Any) -> None:
        super().__init__(settings, **parts)
        self.make_expander = EXPANDERS[expander]
        self.log: list[DepthTiming] = []

    def expander(self) -> Expander:
        """The chosen expander, timed."""
        return TimedExpander(self.make_expander(self.graph, self.settings), self.log)


def generate_questions(
    graph: Graph, community: str, ontology: Ontology, per_hop: int, *, seed: int = 0, max_hop: int = 3
) -> list[ScaleQuestion]:
    """`per_hop` questions of each hop count 1..`max_hop`, generated from the community's graph.

    Deterministic for a seed and a graph. Answers are every entity the walked chain reaches from
    the start (hubs sampled at 25 neighbours per relation, as training questions are).

    Raises:
        ValueError: the graph yields too few questions of some hop count.
    """
    from pathrag_gds.training.questions import QuestionGenerator
    from pathrag_gds.training.source import Neo4jSource

    relations = sorted(ontology.relation_names)
    source = Neo4jSource(graph, community, relations, cap=25, seed=seed)
    gen = QuestionGenerator(
        source, ontology, seed=seed, max_depth=max_hop, entity_share=0.0, anchored_share=0.0
    )
    by_hop: dict[int, list[ScaleQuestion]] = defaultdict(list)
    for q in gen.generate(per_hop * max_hop * 3):
        if len(by_hop[q.depth]) < per_hop:
            by_hop[q.depth].append(ScaleQuestion(q.depth, q.question, q.path.node_ids[0], q.answers))
    short = [h for h in range(1, max_hop + 1) if len(by_hop[h]) < per_hop]
    if short:
        raise ValueError(f"community {community!r} gave too few {short}-hop questions; ask for fewer")
    return [q for h in range(1, max_hop + 1) for q in by_hop[h]]


def run_questions(
    rag: TimedRag,
    questions: Sequence[ScaleQuestion],
    community: str,
    *,
    max_depth: int = 3,
    timeout: float | None = None,
    progress: Callable[[QuestionRun], None] | None = None,
) -> list[QuestionRun]:
    """Ask every question (its topic as the only seed) and record what it cost.

    A question past `timeout` seconds counts as a run that timed out (its time is the timeout).
    """
    out = []
    for q in questions:
        rag.log.clear()
        t0 = time.perf_counter()
        try:
            res = rag.pathrag(
                q.question,
                community_id=community,
                max_depth=max_depth,
                seed_ids=[q.topic_id],
                timeout=timeout,
                generate=False,
            )
        except QueryTimeout:
            ms = (time.perf_counter() - t0) * 1000.0
            run = QuestionRun(q.hop, ms, ms, 0, False, list(rag.log), timed_out=True)
        else:
            ms = (time.perf_counter() - t0) * 1000.0
            ranked = ranked_answers(res, skip_ids=[q.topic_id])
            hit = bool(ranked) and ranked[0].id in q.answers
            db = float(res.timings_ms.get("db", 0.0))
            run = QuestionRun(q.hop, ms, db, res.round_trips, hit, list(rag.log))
        out.append(run)
        if progress is not None:
            progress(run)
    return out


def _p(values: Sequence[float]) -> dict[str, float]:
    return p50_p95(values, 2)


def summarize(runs: Sequence[QuestionRun]) -> dict[str, Any]:
    """p50/p95 of the expansion per depth, of the database time and end to end; Hits@1, round trips."""
    per_depth: dict[int, list[float]] = defaultdict(list)
    for r in runs:
        for t in r.depths:
            per_depth[t.depth].append(t.ms)
    n = len(runs) or 1
    return {
        "questions": len(runs),
        "timed_out": sum(r.timed_out for r in runs),
        "expand_ms": {str(d): {**_p(v), "n": len(v)} for d, v in sorted(per_depth.items())},
        "expand_total_ms": _p([sum(t.ms for t in r.depths) for r in runs]),
        "db_ms": _p([r.db_ms for r in runs]),
        "end_to_end_ms": _p([r.latency_ms for r in runs]),
        "hits_at_1": round(sum(r.hit_at_1 for r in runs) / n, 3),
        "round_trips_mean": round(sum(r.round_trips for r in runs) / n, 2),
        "candidates_mean": {
            str(d): round(sum(t.candidates for r in runs for t in r.depths if t.depth == d) / len(v), 1)
            for d, v in sorted(per_depth.items())
        },
    }


def server_memory(graph: Graph, settings: Settings) -> dict[str, Any]:
    """The server's heap (used and max, MiB), page cache setting, and store size (local server).

    The store size is what the page cache holds when it fits (community edition reports no page
    cache usage).
    """
    rows = graph.read("server_memory")
    heap = rows[0]["heap"] if rows else {}
    folder = settings.neo4j_home / "data" / "databases" / settings.neo4j_database
    local = not settings.external_db and folder.is_dir()
    mib = 1024 * 1024
    return {
        "heap_used_mib": round(int(heap.get("used", 0)) / mib),
        "heap_max_mib": round(int(heap.get("max", 0)) / mib),
        "heap_setting": settings.heap,
        "pagecache_setting": settings.pagecache,
        "store_mib": round(folder_size_mib(folder)) if local else None,
    }


def run_record(runs: Sequence[QuestionRun]) -> list[dict[str, Any]]:
    """The runs as plain data (for the JSON file)."""
    return [asdict(r) for r in runs]


def runs_from_record(rows: Sequence[dict[str, Any]]) -> list[QuestionRun]:
    """The runs back from :func:`run_record`'s plain data (a report summarizes them again)."""
    return [
        QuestionRun(**{**row, "depths": [DepthTiming(**d) for d in row.get("depths", [])]}) for row in rows
    ]


def folder_size_mib(folder: Path) -> float:
    """Bytes of the files below a folder, in MiB."""
    return sum(f.stat().st_size for f in folder.rglob("*") if f.is_file()) / (1024 * 1024)
