r"""`python -m pathrag_gds eval plans --questions FILE [FILE ...]`: chain planning alone, in seconds.

Example:
    python -m pathrag_gds eval plans --questions /work/shared/data/metaqa/{1,2,3}-hop/qa_dev.txt \
        --sample 300 --seed 0 --community metaqa
    python -m pathrag_gds eval plans --questions pathrag_gds/datasets/data/harbour_eval.yaml \
        --hits harbour.json    # a story suite; harbour.json: `eval bob --questions ... --json`
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any


def register(suites: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add `eval plans` to the suites of the `eval` command."""
    p = suites.add_parser(
        "plans",
        help="where the gold relation chain ranks among the schema's chains (chain model only, no walk)",
    )
    p.add_argument(
        "--questions",
        nargs="+",
        required=True,
        type=Path,
        help="question file(s): MetaQA-style text files, one a hop, or story suite YAML files (their "
        "notes' intended paths are the gold chains)",
    )
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
    p.add_argument(
        "--community",
        default=None,
        help="community the questions are about (default: a suite's community_id, else metaqa)",
    )
    p.add_argument("--set", dest="set_name", default=None, help="a suite's question set (default: all)")
    p.add_argument(
        "--hits",
        type=Path,
        default=None,
        help="the `eval bob --json` report of the same suite: also say how many of its misses at #1 "
        "the plan ranked wrong (the planner's share of the misses)",
    )
    p.add_argument("--max-depth", type=int, default=3, help="longest chain ranked (default 3)")
    p.add_argument(
        "--scorer",
        choices=("auto", "tuned", "reader", "base"),
        default=None,
        help="the chain scorer ranked: the community's tuned model (tuned), the chain reader trained "
        "on other graphs (reader), the untrained sentence encoder (base), or the tuned model where "
        "there is one, else the reader (auto); default: the settings' chain_scorer",
    )
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Read, rank, report."""
    from rich.console import Console
    from rich.table import Table

    from pathrag_gds.errors import InvalidInput
    from pathrag_gds.evaluation.metaqa import topic_id
    from pathrag_gds.evaluation.plans import (
        CUTOFFS,
        ERROR_KINDS,
        plan_ranks,
        planner_share,
        summarize_ranks,
    )
    from pathrag_gds.progress import bar as progress_bar
    from pathrag_gds.service import get_pathrag_service

    if args.max_depth < 1:
        raise InvalidInput("--max-depth must be at least 1")
    questions, community, suite_ids = _questions(args)
    args.community = community
    service = get_pathrag_service()
    settings = service.settings
    if args.scorer is not None:
        settings = settings.model_copy(update={"chain_scorer": args.scorer})
    if args.community not in service.info.communities:
        raise InvalidInput(
            f"no community {args.community!r} in the graph; it has {sorted(service.info.communities)}"
        )
    keyed: dict[str, int | None] = {}
    errors: dict[str, int] = {}
    with progress_bar(len(questions), "plans", "q") as bar:

        def tick() -> None:
            bar.update(1)

        ranks = plan_ranks(
            service,
            questions,
            args.community,
            max_depth=args.max_depth,
            topic_id=(lambda _c, t: t) if suite_ids else topic_id,
            progress=tick,
            keys=keyed,
            errors=errors,
            settings=settings,
        )
    report = {
        "suite": "plans",
        "community": args.community,
        "max_depth": args.max_depth,
        "scorer": settings.chain_scorer,
        "files": [str(p) for p in args.questions],
        "sample_per_file": args.sample,
        "seed": args.seed,
        "by_hop": summarize_ranks(ranks),
        "wrong_first": {kind: errors.get(kind, 0) for kind in ERROR_KINDS},
    }
    if args.hits is not None:
        report["planner_share"] = planner_share(keyed, _hits(args.hits))
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
    wrong = report["wrong_first"]
    print(
        f"gold chain not first: {sum(wrong.values())} (walks past {wrong['past']}, stops short "
        f"{wrong['short']}, a relation walked the other way {wrong['direction']}, another relation "
        f"{wrong['relation']}, deeper than --max-depth {wrong['too_deep']})"
    )
    share = report.get("planner_share")
    if share:
        print(
            f"misses at #1 in {args.hits}: {share['misses']}; the plan ranked the gold chain below "
            f"first for {share['plan_wrong']} of them ({share['share']:.0%})"
        )
    return 0


def _questions(args: argparse.Namespace) -> tuple[list[Any], str, bool]:
    """(questions, community, whether they come from story suites): MetaQA-style files or suites.

    Raises:
        InvalidInput: suite and MetaQA-style files mixed, or suites of different communities.
    """
    from pathrag_gds.errors import InvalidInput
    from pathrag_gds.evaluation.metaqa_cli import sampled_questions
    from pathrag_gds.evaluation.plans import suite_questions

    suites = [p for p in args.questions if p.suffix in (".yaml", ".yml")]
    if not suites:
        return sampled_questions(args), args.community or "metaqa", False
    if len(suites) != len(args.questions):
        raise InvalidInput("give either story suite files (.yaml) or MetaQA-style question files, not both")
    questions: list[Any] = []
    communities: set[str | None] = set()
    for path in suites:
        community, qs = suite_questions(path, args.set_name)
        communities.add(community)
        questions.extend(qs)
    named = {c for c in communities if c is not None}
    if args.community is None and (len(named) != 1 or None in communities):
        raise InvalidInput("the suites name no single community_id: give --community")
    return questions, str(args.community or named.pop()), True


def _hits(path: Path) -> dict[str, bool]:
    """Question id -> hit at #1, from an `eval bob --json` report.

    Raises:
        InvalidInput: the file is not such a report.
    """
    from pathrag_gds.errors import InvalidInput

    try:
        report = json.loads(path.read_text(encoding="utf-8"))
        return {str(q["id"]): bool(q["hit_at_1"]) for q in report["queries"]}
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise InvalidInput(f"{path} is not an `eval bob --json` report ({exc}): write one first") from exc
