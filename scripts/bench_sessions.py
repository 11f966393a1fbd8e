"""Session stores side by side: create, use (touch) and delete a session in SQLite (in memory and a
file) and in Neo4j (`PATHRAG_API_SESSIONS`), in one run; prints per-operation p50/p95 in ms.

The Neo4j store writes under a scope of its own, removed at the end; the database is the one of
`NEO4J_URI` (a `neo4j://` URI measures the routing driver).

Usage:
    .venv/bin/python scripts/bench_sessions.py              # 300 sessions per store
    .venv/bin/python scripts/bench_sessions.py -n 1000
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path

from pathrag_gds.api.requests import Effective
from pathrag_gds.api.sessions import Neo4jSessionStore, Sessions, SessionStore
from pathrag_gds.graph import Graph


def _ms(samples: list[float]) -> str:
    q = statistics.quantiles(samples, n=20)
    return f"p50 {statistics.median(samples):7.3f}  p95 {q[18]:7.3f}"


def bench(store: Sessions, n: int) -> dict[str, list[float]]:
    """Times (ms) of `n` creates, then a touch of each, then a delete of each."""
    opts = Effective(mode="local", hop_depth=2, top_n=5, seed_n=5, community_id=None)
    times: dict[str, list[float]] = {"create": [], "touch": [], "delete": []}
    ids = []

    def timed(op: str, fn: Callable[[], object]) -> object:
        t0 = time.perf_counter()
        out = fn()
        times[op].append((time.perf_counter() - t0) * 1000)
        return out

    for i in range(n):
        ids.append(timed("create", lambda i=i: store.create("neo4j", opts, f"owner{i % 8}")).session_id)  # type: ignore[attr-defined]
    for i, sid in enumerate(ids):
        timed("touch", lambda sid=sid, i=i: store.touch(sid, f"owner{i % 8}"))
    for i, sid in enumerate(ids):
        timed("delete", lambda sid=sid, i=i: store.delete(sid, f"owner{i % 8}"))
    return times


def main() -> None:
    """Run every store and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-n", type=int, default=300, help="sessions per store")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp, Graph.connect() as graph:
        stores: list[tuple[str, Sessions]] = [
            ("memory", SessionStore(1800, 100000)),
            ("sqlite file", SessionStore(1800, 100000, Path(tmp) / "s.sqlite")),
            ("neo4j", Neo4jSessionStore(graph, 1800, 100000, scope=f"bench-{uuid.uuid4().hex}")),
        ]
        print(f"{args.n} sessions per store, ms per operation ({graph.settings.neo4j_uri})")
        for name, store in stores:
            try:
                if isinstance(store, Neo4jSessionStore):
                    store.count()  # constraints created before timing
                times = bench(store, args.n)
            finally:
                if isinstance(store, Neo4jSessionStore):
                    store.clear()
                store.close()
            print(f"{name:12} " + "   ".join(f"{op} {_ms(v)}" for op, v in times.items()))


if __name__ == "__main__":
    main()
