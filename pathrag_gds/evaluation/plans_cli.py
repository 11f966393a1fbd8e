r"""`python -m pathrag_gds eval plans --questions FILE [FILE ...]`: chain planning alone, in seconds.

Example:
    python -m pathrag_gds eval plans --questions /work/shared/data/metaqa/{1,2,3}-hop/qa_dev.txt \
        --sample 300 --seed 0 --community metaqa
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


def register(suites: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add `eval plans` to the suites of the `eval` command."""
    p = suites.add_parser(
        "plans",
        help="where the gold relation chain ranks among the schema's chains (chain model only, no walk)",
    )
    p.add_argument("--questions", nargs="+", required=True, type=Path, help="question file(s), one a hop")
    p.add_argument(
        "--chains",
        nargs="+",
        type=Path,
        default=None,
        help="gold chain file(s) in the order of --questions (default: <name>_chains.txt next to "
        "each, else the MetaQA qtype file)",
    )
    p.add_argument("--sample", type=int, default=None, help="questions per file, stratified by qtype")
    p.add_argument("--seed", type=int, default=0, help="sampling seed (default 0)")
    p.add_argument("--community", default="metaqa", help="community the questions are about")
    p.add_argument("--max-depth", type=int, default=3, help="longest chain ranked (default 3)")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Read, rank, report."""
    from rich.console import Console
    from rich.table import Table
    from tqdm import tqdm

    from pathrag_gds.errors import InvalidInput
    from pathrag_gds.evaluation.metaqa import topic_id
    from pathrag_gds.evaluation.metaqa_cli import sampled_questions
    from pathrag_gds.evaluation.plans import CUTOFFS, plan_ranks, summarize_ranks
    from pathrag_gds.service import get_pathrag_service

    if args.max_depth < 1:
        raise InvalidInput("--max-depth must be at least 1")
    questions = sampled_questions(args)
    service = get_pathrag_service()
    if args.community not in service.info.communities:
        raise InvalidInput(
            f"no community {args.community!r} in the graph; it has {sorted(service.info.communities)}"
        )
    with tqdm(total=len(questions), desc="plans", unit="q", file=sys.stderr, dynamic_ncols=True) as bar:

        def tick() -> None:
            bar.update(1)

        ranks = plan_ranks(
            service,
            questions,
            args.community,
            max_depth=args.max_depth,
            topic_id=topic_id,
            progress=tick,
        )
    report = {
        "suite": "plans",
        "community": args.community,
        "max_depth": args.max_depth,
        "files": [str(p) for p in args.questions],
        "sample_per_file": args.sample,
        "seed": args.seed,
        "by_hop": summarize_ranks(ranks),
    }
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    table = Table(
        title=f"Gold chain rank among the schema's chains ({args.community}, up to {args.max_depth} hops)"
    )
    for col in ("hops", "n", *(f"top-{k}" for k in CUTOFFS), "MRR", "not found"):
        table.add_column(col, justify="right")
    for name, row in report["by_hop"].items():
        table.add_row(
            name,
            str(row["total"]),
            *(f"{row[f'at_{k}']:.3f}" for k in CUTOFFS),
            f"{row['mrr']:.3f}",
            str(row["not_found"]),
        )
    Console().print(table)
    return 0
