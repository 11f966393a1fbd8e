"""`python -m pathrag_gds load demo|triples|graph|documents|remove-documents`: write into Neo4j.

`load demo` loads the Bob demo graph and indexes it (the code of `index`). `load triples FILE`
reads a triple file; bad rows are listed with their line numbers and nothing is written unless
`--skip-bad` is given (then the good rows are loaded and the bad ones listed); it indexes only with
`--index`. A load that did not index says so and names `index --community ID`, which a community
needs before it can be searched. `load graph FILE`
loads a YAML file in the demo's shape. `load documents FILE... --community ID` loads Markdown / text
files as versioned documents whose chunks cite the community's entities (docs/provenance.md);
`load remove-documents KEY... --community ID` takes documents out of retrieval (history stays).

Entities that another community already holds are left unchanged and listed (exit status 1) unless
`--shared` is given (for graphs that share entities between communities on purpose). A file whose
data fails a check, or that names an entity id of another community's namespace (`other:Name`,
docs/graph-model.md), is refused before anything is written (exit status 2); `--shared` may name
existing entities of another namespace, never create them.

A load is a version of its community (docs/graph-model.md, *Loads and readers*): readers see the
previous version until the load's last transaction, then all of it, never a part. The indexing
`load` does (demo, graph, triples --index) happens before that transaction, so the new version is
searchable when it appears. A load that stops (Ctrl-C, a database error, a killed process) is
invisible and says so; the same command run again resumes and completes it.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pathrag_gds.errors import InvalidInput

if TYPE_CHECKING:
    from pathrag_gds.datasets.loader import LoadReport
    from pathrag_gds.documents.store import DocumentLoader
    from pathrag_gds.graph import Graph

#: Bad rows printed before the summary (all of them go to --bad-rows FILE).
MAX_PRINTED_BAD = 50


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the `load` command and its subcommands."""
    p = sub.add_parser("load", help="load a graph into Neo4j (demo, triple file, graph YAML)")
    what = p.add_subparsers(dest="what", metavar="WHAT", required=True)

    d = what.add_parser("demo", help="load the Bob demo graph and build its embeddings and vector index")
    d.add_argument("--no-index", action="store_true", help="load only; do not embed or build the index")
    d.set_defaults(func=run_demo)

    g = what.add_parser("graph", help="load a graph YAML file in the demo's format (bob.yaml)")
    g.add_argument("file", type=Path, help="the YAML file")
    g.add_argument("--no-index", action="store_true", help="load only; do not embed or build the index")
    g.add_argument(
        "--shared",
        action="store_true",
        help="change entities that other communities hold too, and share them, also existing ids of "
        "another community's namespace (default: leave them unchanged and report them)",
    )
    g.set_defaults(func=run_graph)

    t = what.add_parser("triples", help="load a triple file (MetaQA kb.txt, TSV, CSV, JSON lines)")
    t.add_argument("file", type=Path, help="the triple file")
    t.add_argument("--format", default="metaqa", help="metaqa (default), tsv, csv or jsonl")
    t.add_argument(
        "--ontology",
        type=Path,
        default=None,
        help="ontology YAML mapping each relation to source/target types and phrases "
        "(default for metaqa: the bundled MetaQA ontology)",
    )
    t.add_argument(
        "--community",
        default=None,
        help="community id, also the prefix of entity ids `<community>:<name>` (`:` and `\\` in it "
        "escaped with `\\`) "
        "(default: metaqa for --format metaqa, else the file name without extension)",
    )
    t.add_argument("--batch-size", type=int, default=2000, help="rows per transaction (default 2000)")
    t.add_argument("--limit", type=int, default=None, help="read only the first N lines")
    t.add_argument("--skip-bad", action="store_true", help="load the good rows even if some rows are bad")
    t.add_argument("--bad-rows", type=Path, default=None, help="write every bad row to this TSV file")
    t.add_argument(
        "--index",
        action="store_true",
        help="then embed the entities and build the index (without it: run `index --community ID` "
        "before querying)",
    )
    t.add_argument(
        "--shared",
        action="store_true",
        help="change entities that other communities hold too, and share them (default: leave them "
        "unchanged and report them)",
    )
    t.set_defaults(func=run_triples)

    doc = what.add_parser("documents", help="load Markdown / text files as versioned, cited documents")
    doc.add_argument("files", nargs="+", type=Path, help="Markdown (.md) or text (.txt) files")
    doc.add_argument("--community", required=True, help="the community whose entities the chunks cite")
    doc.add_argument("--key", default=None, help="document key of the one file (default: its name stem)")
    doc.add_argument("--published-at", default=None, help="publication date, stored on the document")
    doc.add_argument("--content-date", default=None, help="date the content speaks of, stored as well")
    doc.add_argument("--batch-size", type=int, default=50, help="documents per transaction (default 50)")
    doc.add_argument("--no-embed", action="store_true", help="do not embed new chunks (no chunk seeds)")
    doc.set_defaults(func=run_documents)

    rm = what.add_parser("remove-documents", help="take documents out of retrieval (their history stays)")
    rm.add_argument("keys", nargs="+", help="document keys")
    rm.add_argument("--community", required=True, help="the community that owns them")
    rm.set_defaults(func=run_remove_documents)


@contextmanager
def _said_when_interrupted() -> Iterator[None]:
    """On Ctrl-C, say what readers see and what to do (the loader's note), then stop as before."""
    try:
        yield
    except KeyboardInterrupt as exc:
        for note in getattr(exc, "__notes__", []):
            print(note, file=sys.stderr)
        raise


def not_indexed_note(graph: Graph, community: str) -> str | None:
    """What `load` says when it did not index and entities of the community have no embedding yet."""
    rows = graph.read("index_pending_count", community=community, force=False)
    pending, total = (int(rows[0]["pending"]), int(rows[0]["total"])) if rows else (0, 0)
    if not pending:
        return None
    what = "its entities are" if pending == total else f"{pending:,} of its {total:,} entities are"
    return (
        f"community {community}: {what} not indexed, so no search can find them yet: run "
        f"`python -m pathrag_gds index --community {community}`"
    )


def _print_report(report: LoadReport) -> None:
    for line in report.lines():
        print(line, file=sys.stderr if line.lstrip().startswith("REFUSED") else sys.stdout)
    if report.index is not None:
        for line in report.index.lines():
            print(line)


def _load_yaml_graph(path: Path | None, no_index: bool, shared: bool = False) -> int:
    from pathrag_gds.datasets.demo import DEMO_FILE, read_graph_file
    from pathrag_gds.datasets.loader import GraphLoader
    from pathrag_gds.encoders import get_embedder
    from pathrag_gds.graph import Graph

    dataset = read_graph_file(path or DEMO_FILE)
    with Graph.connect() as graph, _said_when_interrupted():
        encoder = None if no_index else get_embedder(graph.settings)
        report = GraphLoader(graph).load(dataset, shared=shared, encoder=encoder)
        note = not_indexed_note(graph, dataset.community_id) if no_index else None
    _print_report(report)
    if note:
        print(note)
    return 1 if report.refused else 0


def run_demo(args: argparse.Namespace) -> int:
    """Load (and index) the Bob demo graph and its story document (no-op when unchanged)."""
    from pathrag_gds.datasets.demo import DEMO_FILE, DEMO_STORY, DEMO_STORY_KEY, read_graph_file
    from pathrag_gds.graph import Graph

    status = _load_yaml_graph(None, args.no_index)
    community = read_graph_file(DEMO_FILE).community_id
    with Graph.connect() as graph:
        report = _document_loader(graph, embed=not args.no_index).load(
            [DEMO_STORY], community, key=DEMO_STORY_KEY
        )
    for line in report.lines():
        print(line)
    return status


def run_graph(args: argparse.Namespace) -> int:
    """Load (and index) a graph YAML file; exit status 1 when entities of other communities were refused."""
    return _load_yaml_graph(args.file, args.no_index, args.shared)


def run_triples(args: argparse.Namespace) -> int:
    """Read, check and load a triple file."""
    from pathrag_gds.datasets.loader import GraphLoader
    from pathrag_gds.datasets.ontology_files import METAQA_ONTOLOGY, read_ontology
    from pathrag_gds.datasets.triples import check_format, printable, read_triples
    from pathrag_gds.encoders import get_embedder
    from pathrag_gds.graph import Graph

    fmt = check_format(args.format)
    if args.limit is not None and args.limit < 1:
        raise InvalidInput(f"--limit must be at least 1 (got {args.limit})")
    if args.batch_size < 1:
        raise InvalidInput(f"--batch-size must be at least 1 (got {args.batch_size}); try 2000")
    if args.ontology is None and fmt != "metaqa":
        raise InvalidInput(
            f"--format {fmt} needs --ontology ONTOLOGY.yaml mapping each relation to its source and "
            "target types (see docs/graph-model.md)"
        )
    ontology = read_ontology(args.ontology or METAQA_ONTOLOGY)
    community = args.community or ("metaqa" if fmt == "metaqa" else args.file.stem)
    tf = read_triples(args.file, fmt, ontology, community, limit=args.limit, progress=True)
    print(
        f"{args.file}: {tf.lines_read:,} lines, {tf.triples:,} triples ({tf.duplicates:,} repeated), "
        f"{len(tf.dataset.entities):,} entities, {len(tf.bad_rows):,} bad rows"
    )
    if tf.bad_rows:
        for b in tf.bad_rows[:MAX_PRINTED_BAD]:
            print(f"{args.file}:{b.line}: {b.reason}: {printable(b.text)[:120]}", file=sys.stderr)
        if len(tf.bad_rows) > MAX_PRINTED_BAD:
            print(
                f"... and {len(tf.bad_rows) - MAX_PRINTED_BAD:,} more bad rows"
                + ("" if args.bad_rows else " (use --bad-rows FILE to write them all)"),
                file=sys.stderr,
            )
        summary = ", ".join(f"{n:,} {kind}" for kind, n in tf.bad_summary().items())
        print(f"bad rows by kind: {summary}", file=sys.stderr)
        if args.bad_rows:
            with args.bad_rows.open("w", encoding="utf-8") as fh:
                fh.write("line\treason\ttext\n")
                for b in tf.bad_rows:
                    fh.write(f"{b.line}\t{b.reason}\t{printable(b.text)}\n")
            print(f"all bad rows written to {args.bad_rows}", file=sys.stderr)
        if not args.skip_bad:
            raise InvalidInput(
                f"{len(tf.bad_rows):,} bad row(s) in {args.file}, nothing loaded: fix them, or pass "
                "--skip-bad to load the good rows"
            )
    with Graph.connect() as graph, _said_when_interrupted():
        encoder = get_embedder(graph.settings) if args.index else None
        loader = GraphLoader(graph, batch_size=args.batch_size)
        report = loader.load(tf.dataset, shared=args.shared, encoder=encoder)
        note = None if args.index else not_indexed_note(graph, community)
    _print_report(report)
    if note:
        print(note)
    return 1 if tf.bad_rows or report.refused else 0


def _document_loader(graph: Any, *, embed: bool, batch_size: int = 50) -> DocumentLoader:
    from pathrag_gds.documents.chunking import Chunker
    from pathrag_gds.documents.store import DocumentLoader
    from pathrag_gds.encoders import get_embedder

    settings = graph.settings
    embedder = get_embedder(settings) if embed else None
    return DocumentLoader(graph, Chunker.from_settings(settings), embedder=embedder, batch_size=batch_size)


def run_documents(args: argparse.Namespace) -> int:
    """Load documents (new versions where their text changed) and embed their new chunks."""
    from pathrag_gds.graph import Graph

    with Graph.connect() as graph:
        report = _document_loader(graph, embed=not args.no_embed, batch_size=args.batch_size).load(
            args.files,
            args.community,
            key=args.key,
            published_at=args.published_at,
            content_date=args.content_date,
        )
    for line in report.lines():
        print(line)
    return 0


def run_remove_documents(args: argparse.Namespace) -> int:
    """Close the open HAS_PART edges of documents."""
    from pathrag_gds.graph import Graph

    with Graph.connect() as graph:
        report = _document_loader(graph, embed=False).remove(args.keys, args.community)
    for line in report.lines():
        print(line)
    return 0
