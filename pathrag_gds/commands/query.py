"""`python -m pathrag_gds query "QUESTION"`: the top paths for one question."""

from __future__ import annotations

import argparse
import json

from rich.console import Console
from rich.table import Table

from pathrag_gds.scoring_mode import ScoringMode


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the `query` command."""
    p = sub.add_parser("query", help="answer one question with ranked graph paths")
    p.add_argument("question", help="the question, in words (quote it)")
    p.add_argument("--top-n", type=int, default=None, help="paths to return (default 5)")
    p.add_argument("--max-depth", type=int, default=None, help="longest path in hops (default 6)")
    p.add_argument("--seed-n", type=int, default=None, help="seed entities (default 30)")
    p.add_argument("--mode", choices=[m.value for m in ScoringMode], default=None, help="scoring mode")
    p.add_argument("--community", default=None, help="confine the search to one community id")
    p.add_argument("--ontology", default=None, help="ontology id whose relations may be walked")
    p.add_argument(
        "--as-of",
        default=None,
        metavar="TIMESTAMP",
        help="cite the document versions valid then (ISO 8601, e.g. 2026-01-31T12:00:00Z; default: now)",
    )
    p.add_argument("--json", action="store_true", help="print the full result as JSON")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Run the query and print a table (or JSON)."""
    from pathrag_gds.service import get_pathrag_service

    result = get_pathrag_service().pathrag(
        args.question,
        community_id=args.community,
        ontology_id=args.ontology,
        top_n=args.top_n,
        max_depth=args.max_depth,
        seed_n=args.seed_n,
        mode=args.mode,
        as_of=args.as_of,
    )
    if args.json:
        print(json.dumps(result.model_dump(mode="json"), indent=2, ensure_ascii=False))
        return 0
    console = Console()
    table = Table(title=f"{args.question}", show_lines=True)
    table.add_column("#", justify="right")
    table.add_column("score", justify="right")
    table.add_column("hops", justify="right")
    table.add_column("path")
    table.add_column("chain (p) / text score")
    table.add_column("answer")
    for p in result.paths:
        route = "\n".join(p.path_context) if p.path_context else p.nodes[0].name
        answer = p.answer_candidates[0].name if p.answer_candidates else ""
        parts = p.score_parts
        chain = " > ".join(p.chain) or "(the entity itself)"
        why = f"{chain} ({parts['chain']:.2f})\n" if "chain" in parts else ""
        why += f"text {parts.get('model', 0.0):.3f}"
        table.add_row(str(p.rank), f"{p.score:.4f}", str(p.depth), route, why, answer)
    console.print(table)
    if result.paths and result.paths[0].sources:
        src = result.paths[0].sources[0]
        where = src.id
        if src.document_key is not None:
            at = f", characters {src.char_range[0]}-{src.char_range[1]}" if src.char_range else ""
            title = src.document_title or src.document_key
            path = [h for h in src.headings if h != title]
            where = " > ".join([title, *path]) + at
        console.print(f"[dim]source of #1 ({where}):[/dim] {src.text}", highlight=False)
    t = result.timings_ms
    console.print(
        f"[dim]mode {result.mode}, scorer {result.scorer}, {result.round_trips} database round trips, "
        f"{result.explored} paths explored; ms: " + ", ".join(f"{k} {v:.0f}" for k, v in t.items()) + "[/dim]"
    )
    return 0
