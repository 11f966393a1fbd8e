"""Bulk import of a fresh database: CSV files for `neo4j-admin database import full`, and the run.

The batched loader (:class:`~pathrag_gds.datasets.loader.GraphLoader`) merges rows through Cypher
and suits incremental loads; a first load of millions of relationships is faster through Neo4j's
offline importer, which writes the store files directly. It REPLACES the whole database, so it is
for a fresh graph on the local server only (`python -m pathrag_gds db import FOLDER --overwrite`).

What the CSV files hold is exactly what the loaders write (docs/graph-model.md): entities with the
entity label and their type labels, id, name and description; the community node and its
`AGGREGATES` edges; the typed relationships. After the import the server is started and the rest
goes through the ordinary Cypher of the loaders: constraints and indexes, the ontology nodes, and
the (empty) vector index, so the search works at once (seeding by id; `index` embeds entities).

Folder layout (written by :func:`write_import_folder`, described by `import.json`):

    import.json          community, ontology file, node and relationship files, counts
    ontology.yaml        the ontology (the YAML form `load triples --ontology` reads)
    entities.csv         id:ID(Entity),name,description,:LABEL   (labels `Entity;Person`)
    community.csv        id:ID(Community),ontology_id,:LABEL
    relationships.csv    :START_ID(Entity),:END_ID(Entity),:TYPE
    aggregates.csv       :START_ID(Community),:END_ID(Entity),:TYPE

Example:
    >>> import tempfile
    >>> from pathrag_gds.config import Settings
    >>> from pathrag_gds.datasets.loader import EntityRow, RelationRow
    >>> from pathrag_gds.ontology import Ontology
    >>> folder = Path(tempfile.mkdtemp())
    >>> m = write_import_folder(folder, Settings.from_env({}), Ontology("o"), "c",
    ...     [EntityRow("c:a", "a", ("T",)), EntityRow("c:b", "b", ("T",))], [RelationRow("c:a", "r", "c:b")])
    >>> m["entities"], m["relationships"], (folder / "entities.csv").read_text().splitlines()[1]
    (2, 1, 'c:a,a,,Entity;T')
"""

from __future__ import annotations

import csv
import json
import subprocess
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import yaml

from pathrag_gds.config import Settings
from pathrag_gds.datasets.loader import (
    DatasetError,
    EntityRow,
    RelationRow,
    check_identifier,
    check_text,
)
from pathrag_gds.datasets.ontology_files import read_ontology
from pathrag_gds.datasets.prepare import foreign_ids, namespace_error
from pathrag_gds.errors import LocalServerError
from pathrag_gds.ontology import Ontology

MANIFEST = "import.json"
Printer = Callable[[str], None]


def ontology_mapping(ontology: Ontology) -> dict[str, Any]:
    """The ontology as the YAML mapping :func:`~pathrag_gds.datasets.ontology_files.read_ontology` reads."""
    return {
        "ontology": {
            "id": ontology.id,
            "entity_types": [{"label": e.label, "description": e.description} for e in ontology.entity_types],
            "relationship_types": [
                {
                    "type": r.type,
                    "phrase": r.phrase,
                    "inverse_phrase": r.inverse_phrase,
                    "description": r.description,
                    "source": list(r.source_labels),
                    "target": list(r.target_labels),
                }
                for r in ontology.relation_types
            ],
        }
    }


def _refuse_attributes(what: str, attributes: dict[str, Any]) -> None:
    if attributes:
        raise DatasetError(
            f"{what} has attributes, which the import files do not carry: load it with `load triples` / "
            "`load graph` (the batched loader) instead"
        )


def write_import_folder(
    folder: Path,
    settings: Settings,
    ontology: Ontology,
    community_id: str,
    entities: Iterable[EntityRow],
    relationships: Iterable[RelationRow],
) -> dict[str, Any]:
    """Write the CSV files and `import.json` of one community (streams: no row list is held).

    Returns the manifest. Entity ids must be distinct and relationships distinct per
    (source, type, target), as the loaders keep them.

    Raises:
        DatasetError: a bad character in an id, name or description, an entity id in another
            community's namespace, an invalid label or type, or attributes (the import files carry
            none: load such data with the batched loader).
    """
    s = settings
    check_text(community_id, "community id")
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "ontology.yaml").write_text(
        yaml.safe_dump(ontology_mapping(ontology), sort_keys=False, allow_unicode=True), encoding="utf-8"
    )
    multiline = False
    n_entities = n_relationships = 0
    with (
        (folder / "entities.csv").open("w", encoding="utf-8", newline="") as ef,
        (folder / "aggregates.csv").open("w", encoding="utf-8", newline="") as af,
    ):
        ew, aw = csv.writer(ef, lineterminator="\n"), csv.writer(af, lineterminator="\n")
        ew.writerow([f"{s.id_property}:ID(Entity)", s.name_property, s.description_property, ":LABEL"])
        aw.writerow([":START_ID(Community)", ":END_ID(Entity)", ":TYPE"])
        for e in entities:
            _refuse_attributes(f"entity {e.id!r}", e.attributes)
            check_text(e.id, "entity id")
            if foreign_ids([e], community_id):
                raise DatasetError(namespace_error(foreign_ids([e], community_id), community_id))
            check_text(e.name, f"entity {e.id!r} name")
            check_text(e.description, f"entity {e.id!r} description", multiline=True)
            multiline = multiline or "\n" in e.description or "\r" in e.description
            labels = [s.entity_label, *(check_identifier(lb, "entity type label") for lb in e.labels)]
            ew.writerow([e.id, e.name, e.description, ";".join(dict.fromkeys(labels))])
            aw.writerow([community_id, e.id, s.community_rel])
            n_entities += 1
    with (folder / "relationships.csv").open("w", encoding="utf-8", newline="") as rf:
        rw = csv.writer(rf, lineterminator="\n")
        rw.writerow([":START_ID(Entity)", ":END_ID(Entity)", ":TYPE"])
        for r in relationships:
            _refuse_attributes(f"relationship {r.source!r} {r.type} {r.target!r}", r.attributes)
            rw.writerow([r.source, r.target, check_identifier(r.type, "relationship type")])
            n_relationships += 1
    with (folder / "community.csv").open("w", encoding="utf-8", newline="") as cf:
        cw = csv.writer(cf, lineterminator="\n")
        cw.writerow(["id:ID(Community)", "ontology_id", ":LABEL"])
        cw.writerow([community_id, ontology.id, s.community_label])
    manifest = {
        "community_id": community_id,
        "ontology": "ontology.yaml",
        "node_files": ["entities.csv", "community.csv"],
        "relationship_files": ["relationships.csv", "aggregates.csv"],
        "entities": n_entities,
        "relationships": n_relationships,
        "multiline": multiline,
    }
    (folder / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    return manifest


def read_manifest(folder: Path) -> dict[str, Any]:
    """The folder's `import.json`, its files checked.

    Raises:
        DatasetError: no manifest, or a file it names is missing.
    """
    path = folder / MANIFEST
    if not path.is_file():
        raise DatasetError(
            f"{path} not found: an import folder is written by scripts/make_scale_graph.py or "
            "pathrag_gds.datasets.bulk.write_import_folder (see docs/scaling.md)"
        )
    manifest: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    for name in [manifest["ontology"], *manifest["node_files"], *manifest["relationship_files"]]:
        if not (folder / name).is_file():
            raise DatasetError(f"{folder / name} is named in {path} but missing; write the folder again")
    return manifest


def import_command(settings: Settings, java: Path, folder: Path, manifest: dict[str, Any]) -> list[str]:
    """The `neo4j-admin database import full` command line (run through the jars' AdminTool)."""
    home = settings.neo4j_home.resolve()
    return [
        str(java),
        f"-Xmx{settings.heap}",
        "-cp",
        f"{home}/plugins/*:{home}/lib/*",
        "org.neo4j.cli.AdminTool",
        "database",
        "import",
        "full",
        settings.neo4j_database,
        "--overwrite-destination=true",
        f"--multiline-fields={'true' if manifest.get('multiline') else 'false'}",
        "--threads=2",
        *(f"--nodes={(folder / n).resolve()}" for n in manifest["node_files"]),
        *(f"--relationships={(folder / r).resolve()}" for r in manifest["relationship_files"]),
    ]


def run_import(settings: Settings, folder: Path, out: Printer = print) -> float:
    """Stop the local server, import the folder over its database, start it again; seconds of the import.

    Raises:
        LocalServerError: `NEO4J_URI` points at another server, or the importer failed.
    """
    from pathrag_gds import localdb
    from pathrag_gds.localdb.conf import env_for_java

    if settings.external_db:
        raise LocalServerError(
            "`db import` writes the local server's store files; NEO4J_URI points at another server. Run "
            "neo4j-admin database import on that server's host (docs/scaling.md), or unset NEO4J_URI"
        )
    manifest = read_manifest(folder)
    java, _ = localdb.find_java()
    localdb.ensure_installed(settings, out)
    localdb.stop(settings, out)
    localdb.write_config(settings)
    t0 = time.perf_counter()
    proc = subprocess.run(
        import_command(settings, java, folder, manifest),
        cwd=settings.neo4j_home,
        env=env_for_java(settings),
        check=False,
    )
    seconds = time.perf_counter() - t0
    if proc.returncode != 0:
        raise LocalServerError(
            f"neo4j-admin import of {folder} failed (exit {proc.returncode}, its output above); the "
            "database may be empty now: fix the files and run `db import` again"
        )
    out(
        f"imported {manifest['entities']:,} entities and {manifest['relationships']:,} relationships in "
        f"{seconds:.1f} s"
    )
    localdb.start(settings, out)
    return seconds


def finish_import(graph: Any, folder: Path, dim: int, out: Printer = print) -> float:
    """After an import: constraints and indexes, the ontology nodes, the vector index; seconds taken."""
    from pathrag_gds.datasets.loader import GraphLoader
    from pathrag_gds.indexing import ensure_vector_index

    manifest = read_manifest(folder)
    t0 = time.perf_counter()
    loader = GraphLoader(graph, progress=False)
    loader.ensure_schema()
    loader.load_ontology(read_ontology(folder / manifest["ontology"]))
    ensure_vector_index(graph, dim, progress=False)
    seconds = time.perf_counter() - t0
    out(f"constraints, ontology and vector index of {manifest['community_id']} in {seconds:.1f} s")
    return seconds
