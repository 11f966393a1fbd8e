"""`python -m pathrag_gds eval bob|metaqa|plans ...`: evaluation suites."""

from __future__ import annotations

import argparse
import json

from rich.console import Console
from rich.table import Table

from pathrag_gds.evaluation import metaqa_cli, plans_cli
from pathrag_gds.scoring_mode import ScoringMode


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the `eval` command and its suites."""
    p = sub.add_parser("eval", help="run an evaluation suite")
    suites = p.add_subparsers(dest="suite", metavar="SUITE", required=True)
    b = suites.add_parser("bob", help="the spec's 10-query Bob-the-Cat suite on the demo graph")
    b.add_argument("--mode", choices=[m.value for m in ScoringMode], default=None)
    b.add_argument("--fresh", action="store_true", help="run the 10 fresh questions instead")
    b.add_argument("--json", action="store_true", help="print JSON")
    b.set_defaults(func=run_bob)
    metaqa_cli.register(suites)
    plans_cli.register(suites)


def run_bob(args: argparse.Namespace) -> int:
    """Run the Bob suite and print the spec-style table."""
    from pathrag_gds.evaluation.bob import load_suite, run_suite
    from pathrag_gds.service import get_pathrag_service

    service = get_pathrag_service()
    suite = load_suite()
    queries = suite.fresh if args.fresh else suite.queries
    mode = ScoringMode(args.mode) if args.mode else service.settings.mode
    report = run_suite(service, queries, suite.community_id, mode=mode)
    report = {"suite": "bob-fresh" if args.fresh else "bob", "mode": mode.value, **report}
    if args.json:
        print(json.dumps(report, indent=2, ensure_ascii=False))
        return 0
    table = Table(title=f"Bob suite ({report['suite']}), mode {mode.value}", show_lines=True)
    for col in ("#", "query", "#1 score", "#1 path", "answer", "hit@1", "hit rank"):
        table.add_column(col)
    for r in report["queries"]:
        table.add_row(
            r["id"],
            r["query"],
            f"{r['score']:.4f}" if r["score"] is not None else "-",
            r["path"],
            str(r["answer"]),
            "yes" if r["hit_at_1"] else "no",
            str(r["hit_rank"] or "-"),
        )
    console = Console()
    console.print(table)
    console.print(
        f"Hit@1 {report['hits_at_1']}/{report['total']}   Hit@5 {report['hits_at_5']}/{report['total']}"
    )
    return 0
