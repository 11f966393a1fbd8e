"""`python -m pathrag_gds index`: embed entities that have no embedding yet, then build the vector index.

Resumable: only missing embeddings are computed, so an interrupted run continues where it stopped.
`--limit N` embeds a sample and prints how long the rest would take at the measured rate.
"""

from __future__ import annotations

import argparse

from pathrag_gds.indexing import IndexReport


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the `index` command."""
    p = sub.add_parser("index", help="embed entities without an embedding and build the vector index")
    p.add_argument("--community", default=None, help="only this community's entities (default: all)")
    p.add_argument("--batch-size", type=int, default=512, help="entities per page (default 512)")
    p.add_argument("--force", action="store_true", help="re-embed entities that already have an embedding")
    p.add_argument(
        "--limit",
        type=int,
        default=None,
        help="embed at most ~N entities this run (whole pages), then build the index and print the "
        "time the rest needs (a sample of a large graph)",
    )
    p.set_defaults(func=run)


def run_index(
    *, community: str | None, batch_size: int, force: bool, limit: int | None = None
) -> IndexReport:
    """Embed and index with the process settings; prints the report."""
    from pathrag_gds.config import get_settings
    from pathrag_gds.encoders import get_embedder
    from pathrag_gds.graph import Graph
    from pathrag_gds.indexing import index_entities

    settings = get_settings()
    with Graph.connect(settings) as graph:
        report = index_entities(
            graph,
            get_embedder(settings),
            community=community,
            batch_size=batch_size,
            force=force,
            limit=limit,
        )
    for line in report.lines():
        print(line)
    return report


def run(args: argparse.Namespace) -> int:
    """Run `index`."""
    run_index(community=args.community, batch_size=args.batch_size, force=args.force, limit=args.limit)
    return 0
