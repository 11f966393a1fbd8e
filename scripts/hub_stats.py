"""Degree distribution per relationship type for one community: max, p99, p50, top hubs.

Usage:
    .venv/bin/python scripts/hub_stats.py [--community metaqa] [--top 10] [--json]

Degrees count relationships of one type at an entity, separately as source (`out`) and as target
(`in`), among the entities that have at least one such relationship (cypher/hub_stats.cypher).
"""

from __future__ import annotations

import argparse
import json
import sys
import time

from pathrag_gds.errors import PathRagError
from pathrag_gds.graph import Graph


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--community", default="metaqa", help="community id (default metaqa)")
    parser.add_argument("--top", type=int, default=10, help="hubs listed per relation type (default 10)")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    args = parser.parse_args(argv)
    try:
        with Graph.connect() as graph:
            t0 = time.perf_counter()
            rows = graph.read("hub_stats", community_id=args.community, top=args.top)
            seconds = time.perf_counter() - t0
    except PathRagError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if not rows:
        print(f"error: community {args.community!r} has no relationships; load it first", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(rows, indent=2, ensure_ascii=False))
        return 0
    print(f"community {args.community}: degree per relation type ({seconds:.1f} s)")
    print(f"{'relation':<18}{'side':<5}{'entities':>10}{'max':>8}{'p99':>8}{'p50':>8}  top hubs")
    for r in rows:
        top = ", ".join(f"{h['name']} ({h['degree']})" for h in r["top"])
        stats = f"{r['entities']:>10,}{r['max']:>8,}{r['p99']:>8,}{r['p50']:>8,}"
        print(f"{r['type']:<18}{r['side']:<5}{stats}  {top}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
