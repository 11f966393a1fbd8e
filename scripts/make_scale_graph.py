"""Generate the synthetic scale graph (pathrag_gds.datasets.synthetic) and write it as loader files.

Writes into OUT (default /tmp/pathrag-scale/<size>):

    triples.tsv + ontology.yaml   for `python -m pathrag_gds load triples triples.tsv --format tsv
                                  --ontology ontology.yaml --community scale<size>` (no descriptions:
                                  a triple file has none)
    import.json, *.csv            for `python -m pathrag_gds db import OUT --overwrite` (neo4j-admin,
                                  entities with descriptions)

`--import` then runs that import (REPLACES the local database); `--load batched` loads the graph
through the batched loader (`GraphLoader`, as `load triples` does, with descriptions) into the
running server instead, and reports the time. Same size and seed: the same files.

Usage:
    .venv/bin/python scripts/make_scale_graph.py --size 1m [--seed 0] [--out DIR] [--import]
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
import time
from pathlib import Path

from tqdm import tqdm

from pathrag_gds.config import get_settings
from pathrag_gds.datasets.bulk import finish_import, run_import, write_import_folder
from pathrag_gds.datasets.loader import GraphLoader
from pathrag_gds.datasets.synthetic import (
    ONTOLOGY,
    SyntheticGraph,
    entity_rows,
    generate,
    parse_size,
    relation_rows,
    size_label,
    to_dataset,
)


def community_of(size: int) -> str:
    return f"scale{size_label(size)}"


def write_triples(graph: SyntheticGraph, path: Path) -> None:
    with path.open("w", encoding="utf-8", newline="") as fh:
        w = csv.writer(fh, delimiter="\t", quoting=csv.QUOTE_NONE, lineterminator="\n")
        for row in tqdm(graph.triples(), total=graph.relationship_count, desc="triples.tsv", unit="rel"):
            w.writerow(row)


def write_files(graph: SyntheticGraph, out: Path, community: str) -> dict[str, object]:
    settings = get_settings()
    out.mkdir(parents=True, exist_ok=True)
    write_triples(graph, out / "triples.tsv")
    rels = tqdm(
        relation_rows(graph, community), total=graph.relationship_count, desc="import csv", unit="rel"
    )
    return write_import_folder(out, settings, ONTOLOGY, community, entity_rows(graph, community), rels)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--size", required=True, help="relationships: 100k, 1m, 5m, ...")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", type=Path, default=None, help="default /tmp/pathrag-scale/<size>")
    ap.add_argument("--community", default=None, help="community id (default scale<size>)")
    ap.add_argument("--import", dest="do_import", action="store_true", help="then REPLACE the local database")
    ap.add_argument("--load", choices=["batched"], default=None, help="load through the batched loader")
    ap.add_argument(
        "--reuse", action="store_true", help="keep OUT's files when its import.json is this graph's"
    )
    ap.add_argument(
        "--embed-sample", type=int, default=0, help="then embed ~N entities (index --limit N): entities/s"
    )
    ap.add_argument("--stats", type=Path, default=None, help="append timings as a JSON line here")
    args = ap.parse_args()
    try:
        size = parse_size(args.size)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    community = args.community or community_of(size)
    out = args.out or Path("/tmp/pathrag-scale") / size_label(size)
    t0 = time.perf_counter()
    graph = generate(size, args.seed)
    stats: dict[str, object] = {
        "size": size,
        "seed": args.seed,
        "community": community,
        "generate_s": round(time.perf_counter() - t0, 1),
        "largest_hub": {label: int(d.max()) for label, d in graph.degrees().items()},
    }
    t0 = time.perf_counter()
    old = out / "import.json"
    manifest = json.loads(old.read_text(encoding="utf-8")) if args.reuse and old.is_file() else {}
    if (manifest.get("community_id"), manifest.get("relationships")) != (community, graph.relationship_count):
        manifest = write_files(graph, out, community)
        stats["write_s"] = round(time.perf_counter() - t0, 1)
    stats.update(entities=manifest["entities"], relationships=manifest["relationships"])
    print(
        f"{out}: {manifest['entities']:,} entities, {manifest['relationships']:,} relationships "
        f"(generated in {stats['generate_s']} s, files {stats.get('write_s', 'reused')})"
    )
    settings = get_settings()
    if args.do_import:
        from pathrag_gds.encoders import get_embedder
        from pathrag_gds.graph import Graph

        t0 = time.perf_counter()
        stats["import_s"] = round(run_import(settings, out), 1)
        with Graph.connect(settings) as g:
            stats["finish_s"] = round(finish_import(g, out, get_embedder(settings).dim), 1)
        stats["import_total_s"] = round(time.perf_counter() - t0, 1)
    if args.load == "batched":
        from pathrag_gds.graph import Graph

        with Graph.connect(settings) as g:
            report = GraphLoader(g).load(to_dataset(graph, community))
        for line in report.lines():
            print(line)
        stats["batched_load_s"] = round(report.seconds, 1)
    if args.embed_sample > 0:
        from pathrag_gds.encoders import get_embedder
        from pathrag_gds.graph import Graph
        from pathrag_gds.indexing import index_entities

        with Graph.connect(settings) as g:
            rep = index_entities(g, get_embedder(settings), community=community, limit=args.embed_sample)
        for line in rep.lines():
            print(line)
        stats.update(embed_rate=round(rep.rate, 1), embedded=rep.embedded)
    if args.stats:
        with args.stats.open("a", encoding="utf-8") as fh:
            fh.write(json.dumps(stats) + "\n")
    print(json.dumps(stats))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
