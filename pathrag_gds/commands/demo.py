"""`python -m pathrag_gds demo [QUESTION]`: the whole job on the embedded default.

Starts the local Neo4j (unless `NEO4J_URI` points at your own), loads the Bob-the-Cat demo graph
(idempotent: a second run changes nothing and skips embeddings that exist), and answers a question.
"""

from __future__ import annotations

import argparse
import contextlib
import sys

DEFAULT_QUESTION = "In which village was Bob when the milk was spilled?"


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the `demo` command."""
    p = sub.add_parser("demo", help="start Neo4j, load the demo graph and answer a question about it")
    p.add_argument("question", nargs="?", default=DEFAULT_QUESTION, help=f"default: {DEFAULT_QUESTION!r}")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Start, load, ask."""
    from pathrag_gds import localdb
    from pathrag_gds.commands import db, load, query
    from pathrag_gds.config import get_settings
    from pathrag_gds.datasets.demo import DEMO_FILE, read_graph_file

    settings = get_settings()
    # with --json, stdout carries the result alone: the server's, the load's and the warm-up's
    # reports go to stderr
    with contextlib.redirect_stdout(sys.stderr) if args.json else contextlib.nullcontext():
        localdb.start(settings)
        load.run_demo(argparse.Namespace(no_index=False))
        print(db.warm(settings).summary())
    community = read_graph_file(DEMO_FILE).community_id
    return query.run(
        argparse.Namespace(
            question=args.question,
            community=community,
            ontology=None,
            top_n=None,
            max_depth=None,
            seed_n=None,
            mode=None,
            as_of=None,
            json=args.json,
        )
    )
