"""A load checked whole before anything is written: every row turned into Cypher parameters, or refused.

:func:`prepare` makes every check of a load that needs no database (bad characters, names that
cannot be labels, types or properties, reserved or unstorable attributes, repeated ids, entity ids
in another community's namespace) and returns the parameter rows of the `cypher/load_*.cypher`
statements. A :class:`DatasetError` from it means nothing was written; a load that passes it fails
later only for a reason of the database's.

Namespaces: an entity id with an unescaped `:` belongs to the community before it
(:func:`~pathrag_gds.datasets.rows.id_community`; every triple-file id is such an id), and only
that community's loads may create it; ids without one (`bob`) are plain and any load may create
them. A `shared` load may name an existing entity of another namespace, to share it: its row is
marked `foreign`, and `load_entities.cypher` refuses to create it.

Example:
    >>> from pathrag_gds.config import Settings
    >>> ds = Dataset(ontology=Ontology("o"), community_id="c", entities=[EntityRow("c:a", "a")])
    >>> settings = Settings.from_env({})
    >>> prepare(ds, settings).entities
    [{'id': 'c:a', 'name': 'a', 'labels': [], 'props': {}, 'foreign': False}]
    >>> try:
    ...     prepare(Dataset(Ontology("o"), "evil", [EntityRow("victim:Target", "T")]), settings)
    ... except DatasetError as exc:
    ...     print(str(exc)[:68])
    entity id 'victim:Target' is in the namespace of community 'victim':
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
from pathrag_gds.datasets.rows import (
    ChunkRow,
    Dataset,
    DatasetError,
    EntityRow,
    RelationRow,
    entity_id,
    id_community,
    split_entity_id,
)
from pathrag_gds.load_versions import LOAD_KEY
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
    #: Entity ids in another community's namespace (only in a `shared` load; they must exist).
    foreign: list[str]


#: Ids named in a namespace error.
_MAX_LISTED = 5


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
                "foreign": False,
            }
        )
    return rows


def foreign_ids(entities: Sequence[EntityRow], community_id: str) -> list[tuple[str, str]]:
    """(id, its community) of every entity id in another community's namespace than `community_id`."""
    out = []
    for e in entities:
        owner = id_community(e.id)
        if owner is not None and owner != community_id:
            out.append((e.id, owner))
    return out


def namespace_error(foreign: Sequence[tuple[str, str]], community_id: str, *, missing: bool = False) -> str:
    """Why a load of `community_id` is refused for `foreign` ids (`missing`: absent, in a shared load)."""
    eid, owner = foreign[0]
    suggestion = entity_id(community_id, split_entity_id(eid)[1])
    rename = f"the entity, e.g. {suggestion!r} (docs/graph-model.md, Entity ids)"
    if missing:
        why = (
            "it does not exist, and a --shared load may name another community's existing entities "
            f"(to share them) but not create them; nothing loaded. Load community {owner!r} first, or "
            f"rename {rename}"
        )
    else:
        why = (
            "an id with an unescaped ':' belongs to the community before it, and a load into community "
            f"{community_id!r} may create only its own ids ({entity_id(community_id, 'NAME')!r}) and ids "
            f"without an unescaped ':' (like 'bob'); nothing loaded. Rename {rename}"
        )
    more = ""
    if len(foreign) > 1:
        listed = ", ".join(repr(i) for i, _ in foreign[1 : _MAX_LISTED + 1])
        etc = ", ..." if len(foreign) > _MAX_LISTED + 1 else ""
        more = f" (and {len(foreign) - 1} more of other namespaces: {listed}{etc})"
    return f"entity id {eid!r} is in the namespace of community {owner!r}{more}: {why}"


def relationship_rows(relationships: Sequence[RelationRow]) -> list[dict[str, Any]]:
    """Relationship rows `{source, type, target, props}`.

    Raises:
        DatasetError: an invalid type or attribute name, the reserved `pathrag_load` (the load that
            wrote a relationship), or an unstorable value.
    """
    return [
        {
            "source": r.source,
            "type": check_identifier(r.type, "relationship type"),
            "target": r.target,
            "props": _props(
                r.attributes, f"relationship {r.source!r} {r.type} {r.target!r}", frozenset({LOAD_KEY})
            ),
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


def prepare(dataset: Dataset, settings: Settings, *, shared: bool = False) -> PreparedLoad:
    """Check a whole dataset and build its rows; nothing touches the database.

    Raises:
        DatasetError: the first problem found (see the functions above), naming what to fix; an
            entity id in another community's namespace unless `shared`.
    """
    check_dataset(dataset)
    cid = dataset.community_id
    if not cid.strip():
        raise DatasetError("the community id is empty; give the community an id")
    ets, rts = ontology_rows(dataset.ontology)
    entities = entity_rows(dataset.entities, settings)
    foreign = foreign_ids(dataset.entities, cid)
    if foreign and not shared:
        raise DatasetError(namespace_error(foreign, cid))
    marked = {eid for eid, _ in foreign}
    for row in entities:
        row["foreign"] = row["id"] in marked
    return PreparedLoad(
        community_id=cid,
        ontology=dataset.ontology,
        entity_types=ets,
        relation_types=rts,
        entities=entities,
        relationships=relationship_rows(dataset.relationships),
        chunks=chunk_rows(dataset.chunks),
        foreign=[eid for eid, _ in foreign],
    )
