"""`python -m pathrag_gds eval bob|metaqa|plans ...`: evaluation suites."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from pathrag_gds.evaluation import metaqa_cli, plans_cli
from pathrag_gds.scoring_mode import ScoringMode


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the `eval` command and its suites."""
    p = sub.add_parser("eval", help="run an evaluation suite")
    suites = p.add_subparsers(dest="suite", metavar="SUITE", required=True)
    b = suites.add_parser(
        "bob",
        help="the Bob-the-Cat suite on the demo graph (spec, fresh, heldout), or another story suite file",
    )
    b.add_argument("--mode", choices=[m.value for m in ScoringMode], default=None)
    b.add_argument("--fresh", action="store_true", help="run the 10 fresh questions (= --set fresh)")
    b.add_argument(
        "--set",
        dest="set_name",
        default=None,
        help="the question set to run (default: spec, else the file's first)",
    )
    b.add_argument(
        "--questions",
        type=Path,
        default=None,
        help="a suite file of the same shape (e.g. pathrag_gds/datasets/data/harbour_eval.yaml; "
        "its community_id says where it runs)",
    )
    b.add_argument(
        "--start-from-path",
        action="store_true",
        help="seed each question with the first entity of its intended path instead of linking "
        "(a diagnostic: what the search scores when the start is given)",
    )
    b.add_argument("--json", action="store_true", help="print JSON")
    b.set_defaults(func=run_bob)
    metaqa_cli.register(suites)
    plans_cli.register(suites)


def run_bob(args: argparse.Namespace) -> int:
    """Run one question set of a story suite and print the spec-style table.

    Raises:
        InvalidInput: the file cannot be read, holds no such set, or its graph is not loaded.
    """
    from pathrag_gds.errors import InvalidInput
    from pathrag_gds.evaluation.bob import load_suite, run_suite
    from pathrag_gds.progress import bar as progress_bar
    from pathrag_gds.service import get_pathrag_service

    suite = load_suite(args.questions)
    default = "spec" if "spec" in suite.sets else next(iter(suite.sets))
    name = "fresh" if args.fresh else args.set_name or default
    if name not in suite.sets:
        raise InvalidInput(f"no question set {name!r} in the file; it has {', '.join(suite.sets)}")
    service = get_pathrag_service()
    if suite.community_id is not None and suite.community_id not in service.info.communities:
        load = (
            "load demo" if args.questions is None else f"load graph {suite.graph_file or '<its graph file>'}"
        )
        raise InvalidInput(
            f"the questions ask community {suite.community_id!r}, which is not loaded: "
            f"run `python -m pathrag_gds {load}` first"
        )
    mode = ScoringMode(args.mode) if args.mode else service.settings.mode
    questions = suite.sets[name]
    # warm: models load
    service.pathrag(questions[0].query, community_id=suite.community_id, mode=mode, generate=False)
    with progress_bar(len(questions), name, "q") as bar:

        def tick(_row: dict[str, Any]) -> None:
            bar.update(1)

        report = run_suite(
            service,
            questions,
            suite.community_id,
            mode=mode,
            start_from_path=args.start_from_path,
            progress=tick,
        )
    label = "bob" if args.questions is None else args.questions.stem
    label = label if name == "spec" else f"{label}-{name}"
    report = {"suite": label, "mode": mode.value, "start_from_path": args.start_from_path, **report}
    if args.json:
        print(json.dumps(report, indent=2, ensure_ascii=False))
        return 0
    table = Table(title=f"suite {report['suite']}, mode {mode.value}", show_lines=True)
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
        f"Hit@1 {report['hits_at_1']}/{report['total']}   Hit@5 {report['hits_at_5']}/{report['total']}   "
        f"p50 {report['latency_ms']['p50']:.0f} ms  p95 {report['latency_ms']['p95']:.0f} ms a question"
    )
    return 0
