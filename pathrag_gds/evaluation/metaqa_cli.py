r"""`python -m pathrag_gds eval metaqa --questions FILE [FILE ...]`: the MetaQA suite on the command line.

Example:
    python -m pathrag_gds eval metaqa --questions /work/shared/data/metaqa/{1,2,3}-hop/qa_dev.txt \
        --sample 300 --seed 0 --link topic --max-depth 3 --json
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

#: Search parameters of the suite: the same for every hop (a user does not know the hop count).
DEFAULT_MAX_DEPTH = 3


def register(suites: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add `eval metaqa` to the suites of the `eval` command."""
    p = suites.add_parser("metaqa", help="MetaQA KGQA questions (Hits@1, Hits@5, chain hit per hop/qtype)")
    p.add_argument("--questions", nargs="+", required=True, type=Path, help="qa_*.txt file(s), one a hop")
    p.add_argument(
        "--qtypes",
        nargs="+",
        type=Path,
        default=None,
        help="qtype file(s), in the order of --questions (default: <name>_qtype.txt next to each)",
    )
    p.add_argument(
        "--chains",
        nargs="+",
        type=Path,
        default=None,
        help="gold chain file(s) `rel:out,rel:in` per line, in the order of --questions "
        "(default: <name>_chains.txt next to each, if there); the chain hit then checks directions",
    )
    p.add_argument("--sample", type=int, default=None, help="questions per file, stratified by qtype")
    p.add_argument("--seed", type=int, default=0, help="sampling seed (default 0)")
    p.add_argument("--community", default="metaqa", help="community MetaQA was loaded into")
    p.add_argument(
        "--link",
        choices=["topic", "vector"],
        default="topic",
        help="topic: the [bracketed] entity is the seed; vector: vector-index seeds only",
    )
    p.add_argument("--keep-topic", action="store_true", help="do not skip the topic entity as an answer")
    p.add_argument("--max-depth", type=int, default=DEFAULT_MAX_DEPTH, help="longest path (all hops)")
    p.add_argument("--top-n", type=int, default=None, help="paths per question (default: settings)")
    p.add_argument("--seed-n", type=int, default=None, help="vector seeds (default: settings)")
    p.add_argument("--beam-width", type=int, default=None)
    p.add_argument("--expand-per-path", type=int, default=None)
    p.add_argument("--local-keep-m", type=int, default=None)
    p.add_argument("--cap-per-relation", type=int, default=None)
    p.add_argument("--details", type=Path, default=None, help="write per-question judgements (JSONL)")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.set_defaults(func=run)


def sampled_questions(args: argparse.Namespace) -> list[Any]:
    """The questions of `--questions` (with their `--qtypes` / `--chains` files), `--sample` of each.

    Raises:
        InvalidInput: a `--qtypes` or `--chains` list of another length than `--questions`.
    """
    from pathrag_gds.errors import InvalidInput
    from pathrag_gds.evaluation.metaqa import read_questions, stratified_sample

    qtypes, chains = getattr(args, "qtypes", None), args.chains
    if qtypes is not None and len(qtypes) != len(args.questions):
        raise InvalidInput("give one --qtypes file per --questions file (or none)")
    if chains is not None and len(chains) != len(args.questions):
        raise InvalidInput("give one --chains file per --questions file (or none)")
    questions = []
    for i, path in enumerate(args.questions):
        qs = read_questions(path, qtypes[i] if qtypes else None, chains=chains[i] if chains else None)
        questions.extend(stratified_sample(qs, args.sample, args.seed))
    return questions


def build_service(args: argparse.Namespace) -> Any:
    """A PathRag with the overridden settings."""
    from pathrag_gds.config import get_settings
    from pathrag_gds.service import PathRag

    overrides = {
        k: getattr(args, k)
        for k in ("beam_width", "expand_per_path", "local_keep_m", "cap_per_relation")
        if getattr(args, k, None) is not None
    }
    return PathRag(get_settings().model_copy(update=overrides))


def run(args: argparse.Namespace) -> int:
    """Load, sample, run and report."""
    from rich.console import Console
    from rich.table import Table

    from pathrag_gds.errors import InvalidInput
    from pathrag_gds.evaluation.metaqa import run_questions, summarize
    from pathrag_gds.progress import bar as progress_bar

    questions = sampled_questions(args)
    service = build_service(args)
    if args.community not in service.info.communities:
        raise InvalidInput(
            f"no community {args.community!r} in the graph: load MetaQA first (`python -m pathrag_gds load "
            f"triples kb.txt --format metaqa --community {args.community}`, then `index`)"
        )
    ontology = service.ontology_for(args.community, None)
    params = {"max_depth": args.max_depth, "top_n": args.top_n, "seed_n": args.seed_n}
    bar = progress_bar(len(questions), "metaqa", "q")
    hits = [0]

    def tick(j: Any) -> None:
        hits[0] += int(j.hit_at_1)
        bar.update(1)
        bar.set_postfix(hits1=f"{hits[0] / bar.n:.3f}")

    try:
        rows = run_questions(
            service,
            questions,
            args.community,
            link=args.link,
            skip_topic=not args.keep_topic,
            params=params,
            ontology=ontology,
            progress=tick,
        )
    finally:
        bar.close()
    s = service.settings
    report = summarize(
        rows,
        link=args.link,
        skip_topic=not args.keep_topic,
        sample_per_file=args.sample,
        seed=args.seed,
        scorer=getattr(service.scorer, "name", type(service.scorer).__name__),
        params={
            "max_depth": args.max_depth,
            "top_n": args.top_n or s.top_n,
            "seed_n": 1 if args.link == "topic" else (args.seed_n or s.seed_n),
            "beam_width": s.beam_width,
            "expand_per_path": s.expand_per_path,
            "local_keep_m": s.local_keep_m,
            "cap_per_relation": s.cap_per_relation,
            "min_score": s.min_score,
            "mode": s.mode.value,
        },
        files=[str(p) for p in args.questions],
    )
    if args.details is not None:
        with args.details.open("w", encoding="utf-8") as fh:
            for r in rows:
                fh.write(json.dumps(r.as_dict(), ensure_ascii=False) + "\n")
    if args.json:
        print(json.dumps(report, indent=2, ensure_ascii=False))
        return 0
    console = Console()
    table = Table(
        title=f"MetaQA ({args.link} linking, max_depth {args.max_depth}, scorer {report['scorer']})"
    )
    for col in ("group", "n", "Hits@1", "Hits@5", "chain", "p50 ms", "p95 ms", "round trips"):
        table.add_column(col, justify="right" if col != "group" else "left")

    def add(name: str, g: dict[str, Any]) -> None:
        chain = "-" if g["chain_hit"] is None else f"{g['chain_hit']:.3f}"
        table.add_row(
            name,
            str(g["total"]),
            f"{g['hits_at_1']:.3f}",
            f"{g['hits_at_5']:.3f}",
            chain,
            f"{g['latency_ms']['p50']:.0f}",
            f"{g['latency_ms']['p95']:.0f}",
            f"{g['round_trips']['mean']:.2f}",
        )

    for h, g in report["by_hop"].items():
        add(f"{h}-hop", g)
    for t, g in report["by_qtype"].items():
        add(f"  {t}", g)
    console.print(table)
    console.print(
        f"all: Hits@1 {report['hits_at_1']:.3f}  Hits@5 {report['hits_at_5']:.3f}  "
        f"p50 {report['latency_ms']['p50']:.0f} ms  p95 {report['latency_ms']['p95']:.0f} ms  "
        f"round trips mean {report['round_trips']['mean']:.2f} max {report['round_trips']['max']}"
    )
    return 0
