"""`python -m pathrag_gds communities --community ID`: GDS clusters of a community, summarized.

Runs Leiden (or Louvain, `PATHRAG_CLUSTER_ALGORITHM`) from the GDS plugin over the community's
entity graph, writes `(:Cluster {level, title, summary, rating})` nodes with `MEMBER_OF` edges and
their summaries' embeddings in a vector index; rerunning replaces the old clusters. The `global`
and `hybrid` query modes read them.
"""

from __future__ import annotations

import argparse
import json


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the `communities` command."""
    p = sub.add_parser(
        "communities", help="cluster a community's entities with GDS and summarize the clusters (global mode)"
    )
    p.add_argument("--community", required=True, help="the community whose entities are clustered")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Run `communities` and print its report."""
    from pathrag_gds.clusters.build import build_clusters
    from pathrag_gds.config import get_settings
    from pathrag_gds.encoders import get_embedder
    from pathrag_gds.graph import Graph

    settings = get_settings()
    with Graph.connect(settings) as graph:
        report = build_clusters(graph, get_embedder(settings), args.community, progress=not args.json)
    if args.json:
        print(json.dumps(report.as_dict(), indent=2, ensure_ascii=False))
    else:
        for line in report.lines():
            print(line)
    return 0
