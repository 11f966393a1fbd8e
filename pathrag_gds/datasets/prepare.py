"""A load checked whole before anything is written: every row turned into Cypher parameters, or refused.

:func:`prepare` makes every check of a load that needs no database (bad characters, names that
cannot be labels, types or properties, reserved or unstorable attributes, repeated ids) and returns
the parameter rows of the `cypher/load_*.cypher` statements. A :class:`DatasetError` from it means
nothing was written; a load that passes it fails later only for a reason of the database's.

Example:
    >>> from pathrag_gds.config import Settings
    >>> ds = Dataset(ontology=Ontology("o"), community_id="c", entities=[EntityRow("c:a", "a")])
    >>> prepare(ds, Settings.from_env({})).entities
    [{'id': 'c:a', 'name': 'a', 'labels': [], 'props': {}}]
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pathrag_gds.config import Settings
from pathrag_gds.datasets.checks import (
    check_dataset,
    check_identifier,
    check_text,
    check_text_value,
    check_value,
)
from pathrag_gds.datasets.rows import ChunkRow, Dataset, DatasetError, EntityRow, RelationRow
from pathrag_gds.ontology import Ontology


@dataclass(frozen=True)
class PreparedLoad:
    """A dataset's rows, checked, as the parameters of the load statements."""

    community_id: str
    ontology: Ontology
    entity_types: list[dict[str, Any]]
    relation_types: list[dict[str, Any]]
    entities: list[dict[str, Any]]
    relationships: list[dict[str, Any]]
    chunks: list[dict[str, Any]]


def ontology_rows(ontology: Ontology) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The ontology's entity types and relation types as Cypher parameter rows (names checked)."""
    ets = [
        {"label": check_identifier(e.label, "entity type label"), "description": e.description}
        for e in ontology.entity_types
    ]
    rts = [
        {
            "type": check_identifier(r.type, "relationship type"),
            "phrase": r.phrase,
            "inverse_phrase": r.inverse_phrase,
            "description": r.description,
            "source_labels": list(r.source_labels),
            "target_labels": list(r.target_labels),
        }
        for r in ontology.relation_types
    ]
    return ets, rts


def _props(attributes: dict[str, Any], where: str, reserved: frozenset[str] = frozenset()) -> dict[str, Any]:
    props: dict[str, Any] = {}
    for key, value in attributes.items():
        check_identifier(key, f"attribute of {where}")
        if key in reserved:
            raise DatasetError(f"{where} has an attribute {key!r}, a reserved property; rename it")
        what = f"{where} attribute {key!r}"
        props[key] = check_text_value(check_value(value, what), what)
    return props


def entity_rows(entities: Sequence[EntityRow], settings: Settings) -> list[dict[str, Any]]:
    """Entity rows `{id, name, labels, props}`; ids must be distinct.

    Raises:
        DatasetError: a repeated id, bad text, an invalid or reserved attribute name, an unstorable
            value, or an invalid type label.
    """
    counts = Counter(e.id for e in entities)
    if len(counts) != len(entities):
        dupes = sorted(i for i, n in counts.items() if n > 1)[:5]
        raise DatasetError(f"entity ids must be distinct; repeated: {dupes}. Merge those entities")
    s = settings
    reserved = frozenset({s.id_property, s.name_property, s.embedding_property})
    rows = []
    for e in entities:
        where = f"entity {check_text(e.id, 'entity id')!r}"
        props = _props(e.attributes, where, reserved)
        if e.description:
            props[s.description_property] = check_text(e.description, f"{where} description", multiline=True)
        rows.append(
            {
                "id": e.id,
                "name": check_text(e.name, f"{where} name"),
                "labels": [check_identifier(label, "entity type label") for label in e.labels],
                "props": props,
            }
        )
    return rows


def relationship_rows(relationships: Sequence[RelationRow]) -> list[dict[str, Any]]:
    """Relationship rows `{source, type, target, props}`.

    Raises:
        DatasetError: an invalid type or attribute name, or an unstorable value.
    """
    return [
        {
            "source": r.source,
            "type": check_identifier(r.type, "relationship type"),
            "target": r.target,
            "props": _props(r.attributes, f"relationship {r.source!r} {r.type} {r.target!r}"),
        }
        for r in relationships
    ]


def chunk_rows(chunks: Sequence[ChunkRow]) -> list[dict[str, Any]]:
    """Chunk rows `{id, text, source, mentions}`.

    Raises:
        DatasetError: bad text in an id, text or source.
    """
    return [
        {
            "id": check_text(c.id, "chunk id"),
            "text": check_text(c.text, f"chunk {c.id!r} text", multiline=True),
            "source": check_text(c.source, f"chunk {c.id!r} source"),
            "mentions": list(c.mentions),
        }
        for c in chunks
    ]


def prepare(dataset: Dataset, settings: Settings) -> PreparedLoad:
    """Check a whole dataset and build its rows; nothing touches the database.

    Raises:
        DatasetError: the first problem found (see the functions above), naming what to fix.
    """
    check_dataset(dataset)
    cid = dataset.community_id
    if not cid.strip():
        raise DatasetError("the community id is empty; give the community an id")
    ets, rts = ontology_rows(dataset.ontology)
    return PreparedLoad(
        community_id=cid,
        ontology=dataset.ontology,
        entity_types=ets,
        relation_types=rts,
        entities=entity_rows(dataset.entities, settings),
        relationships=relationship_rows(dataset.relationships),
        chunks=chunk_rows(dataset.chunks),
    )
