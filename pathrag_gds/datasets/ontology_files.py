"""Ontology YAML files: read, validate, and find the bundled ones.

A file holds either the ontology mapping itself or a mapping with an `ontology:` key (the shape of
`bob.yaml`): `id`, `entity_types: [{label, description}]`, `relationship_types: [{type, phrase,
inverse_phrase, description, source: [labels], target: [labels]}]`.

Example:
    >>> onto = read_ontology(DATA_DIR / "metaqa_ontology.yaml")
    >>> onto.relation("directed_by").phrase
    'was directed by'
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml

from pathrag_gds.datasets.checks import check_identifier
from pathrag_gds.datasets.rows import DatasetError
from pathrag_gds.ontology import Ontology

#: Bundled data files (demo graph, MetaQA ontology).
DATA_DIR = Path(__file__).resolve().parent / "data"
METAQA_ONTOLOGY = DATA_DIR / "metaqa_ontology.yaml"


def read_yaml(path: str | Path) -> Any:
    """Parse a YAML file.

    Raises:
        DatasetError: the file is missing, is not UTF-8 (the message gives the line), or is not
            valid YAML.
    """
    p = Path(path)
    if not p.is_file():
        raise DatasetError(f"file not found: {p}; check the path")
    data = p.read_bytes()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise DatasetError(
            f"{p}:{line}: invalid UTF-8 (byte 0x{data[exc.start]:02X}); convert the file to UTF-8 "
            "or fix that line"
        ) from exc
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}" if mark is not None else ""
        raise DatasetError(f"{p} is not valid YAML{where}; fix the file") from exc


def ontology_from_mapping(data: Any, source: str) -> Ontology:
    """Build and validate an ontology from its mapping (or a mapping with an `ontology:` key).

    Raises:
        DatasetError: missing keys, invalid names, or relations naming undeclared entity types.
    """
    if isinstance(data, Mapping) and isinstance(data.get("ontology"), Mapping):
        data = data["ontology"]
    if not isinstance(data, Mapping) or not data.get("id"):
        raise DatasetError(
            f"{source}: no ontology with an `id` found; see docs/graph-model.md for the format"
        )
    try:
        onto = Ontology.from_mapping(data)
    except (KeyError, TypeError, ValueError) as exc:
        raise DatasetError(
            f"{source}: an entity type lacks `label` or a relationship type lacks `type` ({exc}); fix it"
        ) from exc
    labels = set(onto.labels)
    for et in onto.entity_types:
        check_identifier(et.label, f"{source}: entity type label")
    for rt in onto.relation_types:
        check_identifier(rt.type, f"{source}: relationship type")
        unknown = sorted(set(rt.source_labels + rt.target_labels) - labels)
        if unknown:
            raise DatasetError(
                f"{source}: relationship type {rt.type!r} names entity types {unknown} that "
                "`entity_types` does not declare; add them"
            )
    if len(set(onto.relation_names)) != len(onto.relation_names):
        raise DatasetError(f"{source}: a relationship type is declared twice; keep one")
    return onto


def read_ontology(path: str | Path) -> Ontology:
    """Read an ontology YAML file.

    Raises:
        DatasetError: the file is missing or invalid.
    """
    return ontology_from_mapping(read_yaml(path), str(path))
