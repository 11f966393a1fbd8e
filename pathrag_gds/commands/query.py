"""`python -m pathrag_gds query "QUESTION"`: the top paths for one question."""

from __future__ import annotations

import argparse
import json
import uuid
from typing import TYPE_CHECKING

from rich.console import Console
from rich.table import Table

from pathrag_gds.errors import InvalidInput
from pathrag_gds.modes import MODES, WEIGHT_NAMES
from pathrag_gds.results import PathRagResult, PathResult
from pathrag_gds.scoring_mode import ScoringMode

if TYPE_CHECKING:  # pragma: no cover
    from pathrag_gds.service import PathRag


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the `query` command."""
    p = sub.add_parser("query", help="answer one question with ranked graph paths")
    p.add_argument("question", help="the question, in words (quote it)")
    p.add_argument(
        "--top-n", type=int, default=None, help="paths to return (1-50, default 5; PATHRAG_API_MAX_TOP_N)"
    )
    p.add_argument(
        "--max-depth",
        type=int,
        default=None,
        help="longest path in hops (1-6, default 6; PATHRAG_API_MAX_HOP_DEPTH)",
    )
    p.add_argument(
        "--seed-n", type=int, default=None, help="seed entities (1-100, default 30; PATHRAG_API_MAX_SEED_N)"
    )
    p.add_argument(
        "--mode",
        choices=[*MODES, *(m.value for m in ScoringMode)],
        default=None,
        help="local (paths, the default), global (cluster summaries; run `communities` first), hybrid "
        "(paths with their clusters), mix (vector + graph with inheritance), naive (seeds only); "
        "option-d / a3: local, scored so",
    )
    p.add_argument(
        "--weight",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help=f"a mix / hybrid weight in [0, 1]: {', '.join(WEIGHT_NAMES)} (repeat for several)",
    )
    p.add_argument("--community", default=None, help="confine the search to one community id")
    p.add_argument("--ontology", default=None, help="ontology id whose relations may be walked")
    p.add_argument(
        "--as-of",
        default=None,
        metavar="TIMESTAMP",
        help="cite the document versions valid then (ISO 8601, e.g. 2026-01-31T12:00:00Z; default: now)",
    )
    p.add_argument(
        "--generate",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="have the answer model (PATHRAG_ANSWER_LLM_URL) write the answer from the top paths, printed "
        "as it is written after the paths (default: where one is configured; --no-generate: the "
        "extractive answer)",
    )
    p.add_argument("--json", action="store_true", help="print the full result as JSON")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Run the query and print a table (or JSON: the HTTP API's `QueryResponse`)."""
    from pathrag_gds.answer_llm import wants_generation
    from pathrag_gds.config import get_settings
    from pathrag_gds.service import get_pathrag_service
    from pathrag_gds.validation import QueryLimits, check_query, default_options

    settings = get_settings()
    limits = QueryLimits.of(settings)
    hop_depth, top_n, seed_n = default_options(settings, limits)
    hop_depth = hop_depth if args.max_depth is None else args.max_depth
    top_n = top_n if args.top_n is None else args.top_n
    seed_n = seed_n if args.seed_n is None else args.seed_n
    check_query(args.question, limits, hop_depth=hop_depth, top_n=top_n, seed_n=seed_n)
    generate = getattr(args, "generate", None)
    service = get_pathrag_service()
    result = service.pathrag(
        args.question,
        community_id=args.community,
        ontology_id=args.ontology,
        top_n=top_n,
        max_depth=hop_depth,
        seed_n=seed_n,
        mode=args.mode,
        as_of=args.as_of,
        weights=parse_weights(getattr(args, "weight", [])),
        generate=generate if args.json else False,  # a table: the answer is written after the paths
    )
    if args.json:
        print(response_json(result, hop_depth=hop_depth, top_n=top_n, seed_n=seed_n))
        return 0
    console = Console()
    if result.clusters and not result.paths:
        _clusters_table(console, args.question, result)
    else:
        _paths_table(console, args.question, result)
    if wants_generation(settings, generate):
        result = _written_answer(console, service, result, generate)
    elif result.answer is not None:
        console.print(f"[bold]answer:[/bold] {result.answer.text}", highlight=False)
    t = result.timings_ms
    console.print(
        f"[dim]mode {result.mode}{f' ({result.scoring})' if result.scoring else ''}, scorer {result.scorer}, "
        f"{result.round_trips} database round trips, {result.explored} paths explored; ms: "
        + ", ".join(f"{k} {v:.0f}" for k, v in t.items())
        + "[/dim]"
    )
    return 0


def _written_answer(
    console: Console, service: PathRag, result: PathRagResult, generate: bool | None
) -> PathRagResult:
    """Ask the answer model, printing its text as it comes; then what it cited, or why it failed."""
    shown: list[str] = []

    def on_token(token: str) -> None:
        if not shown:
            model = service.settings.answer_llm_model
            console.print(f"[bold]answer[/bold] [dim](written by {model}):[/dim] ", end="")
        shown.append(token)
        console.print(token, end="", markup=False, highlight=False, soft_wrap=True)
        console.file.flush()

    result = service.answer(result, generate=generate, on_token=on_token)
    answer = result.answer
    if shown:
        console.print()
    if answer is None:
        return result
    if answer.generated:
        cited = ", ".join(f"[{n}] {pid}" for n, pid in enumerate(answer.passages, start=1))
        if cited:
            console.print(f"[dim]passages: {cited}[/dim]", highlight=False)
    else:
        console.print(f"[yellow]no generated answer:[/yellow] {answer.reason}", highlight=False, markup=False)
        console.print(f"[bold]answer:[/bold] {answer.text}", highlight=False)
    return result


def response_json(result: PathRagResult, *, hop_depth: int, top_n: int, seed_n: int) -> str:
    """The result as the HTTP API answers it (`QueryResponse`, docs/http-api.md), indented."""
    from pathrag_gds.api.requests import NO_HOPS, Effective
    from pathrag_gds.api.responses import query_response
    from pathrag_gds.config import get_settings

    eff = Effective(
        mode=result.mode,
        hop_depth=0 if result.mode in NO_HOPS else hop_depth,
        top_n=top_n,
        seed_n=seed_n,
        community_id=result.community_id,
    )
    response = query_response(
        result,
        eff,
        question=result.query,
        request_id=uuid.uuid4().hex[:16],
        database_name=get_settings().neo4j_database,
    )
    return json.dumps(response.model_dump(mode="json"), indent=2, ensure_ascii=False)


def parse_weights(items: list[str]) -> dict[str, float | None]:
    """`NAME=VALUE` items as a weights mapping (the service checks names and range).

    Raises:
        InvalidInput: an item that is not `NAME=number`.
    """
    out: dict[str, float | None] = {}
    for item in items:
        name, _, value = item.partition("=")
        try:
            out[name.strip()] = float(value)
        except ValueError:
            raise InvalidInput(f"--weight {item!r}: write NAME=VALUE, e.g. --weight vector=0.6") from None
    return out


def _clusters_table(console: Console, question: str, result: PathRagResult) -> None:
    table = Table(title=question, show_lines=True)
    for col in ("#", "score", "level", "rating", "cluster", "central entities"):
        table.add_column(col, justify="right" if col in ("#", "score", "level", "rating") else "left")
    for i, c in enumerate(result.clusters, start=1):
        names = ", ".join(e.name for e in c.top_entities)
        table.add_row(
            str(i), f"{c.score:.4f}", str(c.level), f"{c.rating:.1f}", f"{c.title}\n{c.summary}", names
        )
    console.print(table)


def _paths_table(console: Console, question: str, result: PathRagResult) -> None:
    table = Table(title=question, show_lines=True)
    table.add_column("#", justify="right")
    table.add_column("score", justify="right")
    table.add_column("hops", justify="right")
    table.add_column("path")
    table.add_column("why (score parts)")
    table.add_column("answer")
    for p in result.paths:
        route = "\n".join(p.path_context) if p.path_context else p.nodes[0].name
        answer = p.answer_candidates[0].name if p.answer_candidates else ""
        table.add_row(str(p.rank), f"{p.score:.4f}", str(p.depth), route, _why(p), answer)
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


def _why(p: PathResult) -> str:
    """The score parts worth showing: mix's breakdown and reason, else the chain and the text score."""
    parts = p.score_parts
    if "combined" in parts and "vector" in parts:
        return (
            f"vector {parts['vector']:.3f}, graph {parts['graph']:.3f}, inherited {parts['inherited']:.3f}"
            f"\n{p.reason}"
        )
    chain = " > ".join(p.chain) or "(the entity itself)"
    why = f"{chain} ({parts['chain']:.2f})\n" if "chain" in parts else ""
    why += f"text {parts.get('model', 0.0):.3f}"
    if "global" in parts:
        why += f", cluster {parts['global']:.3f}"
    return why
