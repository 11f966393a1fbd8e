"""Load speed of `load documents`: N generated Markdown pages into a throw-away community.

Generates a community of entities (people, places) and N pages (a title, three sections of two
paragraphs naming some of them, ~350 words), then measures, with progress bars:

1. the first load (parse, chunk, find mentions, write; chunk embedding timed apart unless --no-embed),
2. a reload of the same files (every page unchanged: nothing is written),
3. a reload with a tenth of the pages changed (new versions: old edges closed, chunks reused).

The community and its documents are deleted at the end (unless --keep).

    python scripts/bench_documents.py --pages 1000
"""

from __future__ import annotations

import argparse
import random
import tempfile
import time
import uuid
from pathlib import Path

from pathrag_gds.config import get_settings
from pathrag_gds.datasets.loader import Dataset, EntityRow, GraphLoader, delete_community
from pathrag_gds.documents.chunking import Chunker
from pathrag_gds.documents.store import DocumentLoader, DocumentReport, document_counts
from pathrag_gds.encoders import get_embedder
from pathrag_gds.graph import Graph
from pathrag_gds.ontology import Ontology

FIRST = ["Ada", "Ben", "Cora", "Dev", "Eli", "Fay", "Gus", "Hana", "Ivo", "Jun", "Kai", "Lena", "Milo", "Nia"]
LAST = ["Archer", "Brook", "Castle", "Dale", "Ember", "Frost", "Glenn", "Hart", "Irving", "Joyce"]
PLACES = ["Mill", "Harbour", "Market", "Chapel", "Orchard", "Bridge", "Tower", "Quarry", "Forge", "Inn"]
TOWNS = ["Ashford", "Brambley", "Cotton End", "Dunmore", "Elmstead"]
WORDS = [
    "the",
    "morning",
    "was",
    "cold",
    "and",
    "the",
    "road",
    "was",
    "long",
    "so",
    "they",
    "walked",
    "slowly",
    "talking",
    "about",
    "the",
    "harvest",
    "the",
    "weather",
    "the",
    "prices",
    "at",
    "the",
    "fair",
    "and",
    "the",
    "letters",
    "that",
    "had",
    "not",
    "yet",
    "arrived",
    "from",
    "the",
    "coast",
]


def entities() -> list[tuple[str, str, str]]:
    """(id suffix, name, label) of the generated community."""
    people = [
        (f"p{i}", f"{f} {last}", "Person")
        for i, (f, last) in enumerate((f, la) for f in FIRST for la in LAST)
    ]
    places = [
        (f"l{i}", f"{town} {p}", "Place") for i, (town, p) in enumerate((t, p) for t in TOWNS for p in PLACES)
    ]
    return people + places


def page(rng: random.Random, n: int, names: list[str]) -> str:
    """One Markdown page naming a few entities."""
    out = [f"# Chronicle {n}", ""]
    for s in range(3):
        out += [f"## Part {s + 1}: {rng.choice(names)}", ""]
        for _ in range(2):
            words = [rng.choice(WORDS) for _ in range(55)]
            for _ in range(3):
                words.insert(rng.randrange(len(words)), rng.choice(names))
            out += [" ".join(words).capitalize() + ".", ""]
    return "\n".join(out)


def show(title: str, report: DocumentReport) -> None:
    print(
        f"{title}: {report.documents:,} pages in {report.read_seconds + report.write_seconds:.1f} s = "
        f"{report.pages_per_second:,.1f} pages/s (read+split {report.read_seconds:.1f} s, write "
        f"{report.write_seconds:.1f} s); chunks {report.chunks:,} ({report.chunks_created:,} created), "
        f"mentions {report.mentions:,}, edges opened {report.parts_opened:,} / closed {report.parts_closed:,}"
        + (
            f"; embedded {report.embedded:,} chunks in {report.embed_seconds:.1f} s "
            f"({report.embedded / report.embed_seconds:,.1f} chunks/s)"
            if report.embedded
            else ""
        )
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pages", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--batch-size", type=int, default=50, help="documents per transaction")
    ap.add_argument("--no-embed", action="store_true", help="do not embed chunks")
    ap.add_argument("--keep", action="store_true", help="keep the community afterwards")
    args = ap.parse_args()
    settings = get_settings()
    cid = f"bench_docs_{uuid.uuid4().hex[:8]}"
    ents = entities()
    onto = Ontology.from_mapping(
        {"id": f"{cid}_onto", "entity_types": [{"label": "Person"}, {"label": "Place"}]}
    )
    rng = random.Random(args.seed)
    with Graph.connect(settings) as graph, tempfile.TemporaryDirectory() as tmp:
        GraphLoader(graph, progress=False).load(
            Dataset(onto, cid, [EntityRow(f"{cid}:{i}", name, (label,)) for i, name, label in ents])
        )
        names = [name for _, name, _ in ents]
        paths = []
        for n in range(args.pages):
            p = Path(tmp) / f"page_{n:05d}.md"
            p.write_text(page(rng, n, names), encoding="utf-8")
            paths.append(p)
        embedder = None if args.no_embed else get_embedder(settings)
        loader = DocumentLoader(
            graph, Chunker.from_settings(settings), embedder=embedder, batch_size=args.batch_size
        )
        try:
            print(
                f"community {cid}: {len(ents)} entities, {args.pages:,} pages "
                f"({sum(p.stat().st_size for p in paths) / 1e6:.1f} MB), chunker: {loader.chunker.name}"
            )
            show("first load", loader.load(paths, cid))
            t0 = time.perf_counter()
            show("reload, unchanged", loader.load(paths, cid))
            for p in paths[::10]:
                p.write_text(p.read_text(encoding="utf-8").replace("Part 2", "Part two"), encoding="utf-8")
            show("reload, every 10th page changed", loader.load(paths, cid))
            print(
                f"counts: {document_counts(graph, cid)} ({time.perf_counter() - t0:.1f} s for both reloads)"
            )
        finally:
            if not args.keep:
                delete_community(graph, cid, drop_ontology=True)


if __name__ == "__main__":
    main()
