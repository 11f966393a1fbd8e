"""Adopt a graph pathrag_gds did not load: answer questions on the user's own labelled nodes.

`adopt` never changes the user's nodes. It writes structures pathrag_gds owns beside them: a
`Community`, one `Entity` per adopted node (its name, description and scalar properties, the
node's type labels) tied to it by `(:Entity)-[:ADOPTS]->(node)`, the relationships between the
adopted nodes mirrored between those entities, and an ontology read from the graph
(:mod:`pathrag_gds.adopt_ontology`). So the read path stays as it is (one round trip per depth,
confined by `AGGREGATES`), and `remove_adoption` deletes all of it and nothing else.

Example:
    >>> plan = plan_adoption(graph, "my_kg", ["__Entity__"])  # doctest: +SKIP
    >>> for line in plan.lines(): print(line)  # doctest: +SKIP
    >>> adopt(graph, plan)  # doctest: +SKIP
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pathrag_gds.adopt_ontology import RelationStats, TypeStats, add_sample, infer_ontology
from pathrag_gds.datasets.checks import BAD_IN_NAME, BAD_IN_TEXT, is_identifier
from pathrag_gds.datasets.load_report import LoadReport
from pathrag_gds.datasets.loader import GraphLoader, batched, delete_community
from pathrag_gds.datasets.rows import Dataset, EntityRow, RelationRow, entity_id
from pathrag_gds.errors import InvalidInput
from pathrag_gds.graph import Graph, quote_identifier
from pathrag_gds.ontology import Ontology

#: Labels that mark how a node was made, not what it is (neo4j-graphrag's KG builder).
STRUCTURAL_LABELS = frozenset({"__Entity__", "__KGBuilder__"})
#: Fallbacks when a node has no `name` property.
NAME_FALLBACKS = ("name", "title", "id", "entity_id")
#: Float lists at least this long are vectors (the user's own embeddings), not attributes.
VECTOR_MIN = 16
#: `adopt --lightrag WORKSPACE`: LightRAG's Neo4j storage (`(:<workspace>:<entity_type>
#: {entity_id, entity_type, description, source_id, ...})`, every edge `DIRECTED` with its meaning
#: in `keywords` and `description`).
LIGHTRAG_RENAME = {"DIRECTED": "RELATED_TO"}
LIGHTRAG_SKIP = (
    "entity_type",
    "source_id",
    "file_path",
    "created_at",
    "weight",
    "truncate",
)  # a label too, or bookkeeping
#: Node ids per relationship read.
READ_BATCH = 5000


@dataclass
class AdoptPlan:
    """What `adopt` writes for one community, computed from the graph without writing."""

    community_id: str
    labels: tuple[str, ...]
    with_labels: tuple[str, ...]
    ontology: Ontology
    dataset: Dataset
    #: [{id: the new entity's id, element_id: the user's node}]
    links: list[dict[str, str]] = field(default_factory=list)
    skipped_types: Counter[str] = field(default_factory=Counter)
    #: the user's relationship type from a node to its chunks (neo4j-graphrag's FROM_CHUNK), or None
    chunk_rel: str | None = None
    #: [{id: entity id, chunk: the chunk's element id}]
    chunk_links: list[dict[str, str]] = field(default_factory=list)
    #: chunk_rel targets that are not chunks with a text (not sources)
    unusable_chunks: int = 0

    def lines(self) -> list[str]:
        """What adopting adds, for `--dry-run` and the report."""
        ds, cid = self.dataset, self.community_id
        types = Counter(label for e in ds.entities for label in e.labels)
        rels = Counter(r.type for r in ds.relationships)
        out = [
            f"adopt {cid!r}: {len(ds.entities)} node(s) with label(s) {' or '.join(self.labels)}"
            + "".join(f" and {label}" for label in self.with_labels if label not in self.labels)
            + ", "
            f"{len(ds.relationships)} relationship(s) between them",
            "your nodes and relationships are not changed: no label, property or relationship of "
            "theirs is set or removed; adopt adds, beside them:",
            f"  (:Community {{id: {cid!r}, adopted_labels: {list(self.labels)}, "
            f"adopted_with_labels: {list(self.with_labels)}}})",
            f"  {len(ds.entities)} (:Entity) node(s), one per node of yours, with its type labels, "
            f"name, description and scalar properties ({_counts(types) or 'no type labels'})",
            f"  {len(self.links)} (:Entity)-[:ADOPTS]->(your node) and {len(ds.entities)} "
            "(:Community)-[:AGGREGATES]->(:Entity) relationship(s)",
            f"  {len(ds.relationships)} relationship(s) between those entities, one per relationship "
            f"of yours ({_counts(rels) or 'none'})",
            f"  (:Ontology {{id: {self.ontology.id!r}}}) with {len(self.ontology.entity_types)} "
            f"EntityType and {len(self.ontology.relation_types)} RelationType node(s):",
        ]
        if self.chunk_rel:
            chunks = len({c["chunk"] for c in self.chunk_links})
            out.append(
                f"  {len(self.chunk_links)} (:Entity)-[:MENTIONED_IN]->(your :Chunk) relationship(s), to "
                f"{chunks} chunk(s) your nodes point to with {self.chunk_rel}: the paths' sources, "
                "their text not copied"
            )
            if self.unusable_chunks:
                out.append(
                    f"  {self.unusable_chunks} {self.chunk_rel} target(s) are not (:Chunk) nodes with "
                    "a text: not sources"
                )
        for rt in self.ontology.relation_types:
            ends = f"{'/'.join(rt.source_labels) or 'any'} -> {'/'.join(rt.target_labels) or 'any'}"
            out.append(
                f"    {rt.type}: {ends}, reads {rt.phrase!r} / {rt.inverse_phrase or '(stored direction)'!r}"
            )
        if self.skipped_types:
            out.append(f"  not mirrored (not a name): {_counts(self.skipped_types)}")
        out.append(
            f"then `python -m pathrag_gds index --community {cid}` embeds those entities (not your nodes);"
        )
        out.append(f"`python -m pathrag_gds adopt --community {cid} --remove` deletes all of the above.")
        return out


def _counts(counter: Mapping[str, int]) -> str:
    return ", ".join(f"{k} {v}" for k, v in sorted(counter.items()))


def _clean(text: str, *, multiline: bool = True) -> str:
    """Text the loaders accept: characters they refuse become spaces (the user's data is kept as it is)."""
    if not multiline:
        text = " ".join(text.split())
    return (BAD_IN_TEXT if multiline else BAD_IN_NAME).sub(" ", text).strip()


def _value(value: Any) -> Any:
    """A property value as the loaders store it, or None when it is not one (maps, vectors)."""
    if isinstance(value, str):
        return _clean(value)
    if isinstance(value, bool | int):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, list):
        if value and all(isinstance(v, float) for v in value) and len(value) >= VECTOR_MIN:
            return None
        items = [_value(v) for v in value]
        kinds = {type(v) for v in items}
        return (
            items
            if None not in items and len(kinds) <= 1 and not any(isinstance(v, list) for v in items)
            else None
        )
    if hasattr(value, "iso_format") or hasattr(value, "isoformat"):  # Neo4j / Python temporal values
        return str(value)
    return None


def _attributes(props: Mapping[str, Any], skip: set[str]) -> dict[str, Any]:
    out = {}
    for key, raw in props.items():
        if key in skip or key.startswith("__") or not is_identifier(key):
            continue
        value = _value(raw)
        if value is not None and value != "":
            out[key] = value
    return out


def _name(props: Mapping[str, Any], name_property: str, fallback: str) -> str:
    for key in (name_property, *NAME_FALLBACKS):
        value = props.get(key)
        if isinstance(value, str | int | float) and _clean(str(value), multiline=False):
            return _clean(str(value), multiline=False)
    return fallback


def plan_adoption(
    graph: Graph,
    community_id: str,
    labels: Sequence[str],
    *,
    with_labels: Sequence[str] = (),
    key: str | None = None,
    name_property: str | None = None,
    description_property: str | None = None,
    chunk_rel: str | None = None,
    rename_types: Mapping[str, str] | None = None,
    skip_properties: Sequence[str] = (),
) -> AdoptPlan:
    """Read the nodes to adopt, their relationships and their ontology; write nothing.

    Args:
        graph: the connection.
        community_id: the community to create.
        labels: adopt the nodes that carry any of them (`Person`, `Movie`; `__Entity__`).
        with_labels: ... and all of these too (narrows a shared label to one graph).
        key: a property whose value identifies a node (default: the node's element id).
        name_property: the property holding a name (default: the *name_property* setting).
        description_property: the property holding a description (default: the setting).
        chunk_rel: the relationship type from a node to its chunks (`FROM_CHUNK`); the chunks
            (with the chunk label and a text) become the sources of the node's paths.
        rename_types: mirror these relationship types under another name (LightRAG's `DIRECTED`,
            which says nothing, as `RELATED_TO`).
        skip_properties: properties not copied (bookkeeping such as LightRAG's `source_id`).

    Raises:
        InvalidInput: no label given, a label the database lacks, no such nodes, or a community of
            that id that was loaded rather than adopted.
    """
    s = graph.settings
    labels, with_labels = tuple(dict.fromkeys(labels)), tuple(dict.fromkeys(with_labels))
    if not labels or not community_id:
        raise InvalidInput("adopt needs a community id and a label: adopt --community ID --label LABEL")
    for label in (*labels, *with_labels, *([chunk_rel] if chunk_rel else [])):
        quote_identifier(label)
    schema = graph.schema()
    missing = sorted({*labels, *with_labels} - schema["labels"])
    if missing:
        raise InvalidInput(f"no node has label(s) {missing}: check the spelling (labels are case-sensitive)")
    if chunk_rel and chunk_rel not in schema["types"]:
        raise InvalidInput(
            f"no relationship has type {chunk_rel!r}: check --chunk-rel (types are case-sensitive)"
        )
    state = graph.read("adopt_state", community_id=community_id)
    if state and state[0]["labels"] is None:
        raise InvalidInput(
            f"community {community_id!r} exists and was loaded, not adopted: choose another --community id"
        )
    own = {s.entity_label, s.community_label, s.chunk_label, s.document_label, s.section_label}
    own |= {s.cluster_label, "Ontology", "EntityType", "RelationType"}
    reader = _Reader(
        community_id,
        not_types=set(with_labels) | STRUCTURAL_LABELS | own,
        key=key,
        name_property=name_property or s.name_property,
        description_property=description_property or s.description_property,
        skip={"id", "name", "embedding", s.embedding_property, *([key] if key else []), *skip_properties},
        rename=dict(rename_types or {}),
    )
    for label in labels:
        for row in graph.read("adopt_nodes", extra={"label": label}, with_labels=list(with_labels)):
            reader.node(row)
    if not reader.ids:
        raise InvalidInput(
            f"no node has any of the labels {list(labels)}"
            + (f" and all of {list(with_labels)}" if with_labels else "")
            + " (pathrag_gds's own entities excepted)"
        )
    for batch in batched(list(reader.ids), READ_BATCH):
        for row in graph.read("adopt_relationships", ids=list(batch)):
            reader.relationship(row, {s.community_rel, s.adopts_rel})
    ontology = infer_ontology(f"adopted:{community_id}", reader.types, reader.relations)
    dataset = Dataset(ontology, community_id, reader.entities, reader.rels)
    links = [{"id": eid, "element_id": element_id} for element_id, eid in reader.ids.items()]
    plan = AdoptPlan(community_id, labels, with_labels, ontology, dataset, links, reader.skipped, chunk_rel)
    if chunk_rel:
        for batch in batched(list(reader.ids), READ_BATCH):
            for row in graph.read("adopt_chunks", extra={"chunk_rel": chunk_rel}, ids=list(batch)):
                if row["usable"]:
                    plan.chunk_links.append({"id": reader.ids[row["node"]], "chunk": row["chunk"]})
                else:
                    plan.unusable_chunks += 1
    return plan


@dataclass
class _Reader:
    """Turns the user's nodes and relationships into rows and ontology statistics."""

    community_id: str
    not_types: set[str]
    key: str | None
    name_property: str
    description_property: str
    skip: set[str]
    rename: dict[str, str] = field(default_factory=dict)
    ids: dict[str, str] = field(default_factory=dict)  # element id -> entity id
    names: dict[str, str] = field(default_factory=dict)  # element id -> name
    labels: dict[str, tuple[str, ...]] = field(default_factory=dict)  # element id -> type labels
    entities: list[EntityRow] = field(default_factory=list)
    rels: list[RelationRow] = field(default_factory=list)
    types: dict[str, TypeStats] = field(default_factory=dict)
    relations: dict[str, RelationStats] = field(default_factory=dict)
    skipped: Counter[str] = field(default_factory=Counter)

    def node(self, row: Mapping[str, Any]) -> None:
        element_id, props = row["element_id"], row["props"]
        if element_id in self.ids:  # found under two of the labels
            return
        value = props.get(self.key) if self.key else None
        node_key = str(value) if value is not None else element_id
        eid = entity_id(self.community_id, _clean(node_key, multiline=False))
        name = _name(props, self.name_property, node_key)
        type_labels = tuple(
            sorted(label for label in row["labels"] if label not in self.not_types and is_identifier(label))
        )
        desc = props.get(self.description_property)
        skip = self.skip | {self.name_property, self.description_property}
        attributes = _attributes(props, skip)
        description = _clean(desc) if isinstance(desc, str) else ""
        self.entities.append(EntityRow(eid, name, type_labels, description, attributes))
        self.ids[element_id], self.names[element_id], self.labels[element_id] = eid, name, type_labels
        for label in type_labels:
            stats = self.types.setdefault(label, TypeStats())
            stats.count += 1
            add_sample(stats.samples, name)

    def relationship(self, row: Mapping[str, Any], reserved: set[str]) -> None:
        src, rel_type, tgt = row["source"], row["type"], row["target"]
        if tgt not in self.ids:
            return
        rel_type = self.rename.get(rel_type, rel_type)
        if not is_identifier(rel_type) or rel_type in reserved:
            self.skipped[rel_type] += 1
            return
        self.rels.append(
            RelationRow(self.ids[src], rel_type, self.ids[tgt], _attributes(row["props"], self.skip))
        )
        stats = self.relations.setdefault(rel_type, RelationStats())
        stats.count += 1
        stats.sources.update(self.labels[src])
        stats.targets.update(self.labels[tgt])
        add_sample(stats.samples, (self.names[src], self.names[tgt]))


def adopt(graph: Graph, plan: AdoptPlan, *, batch_size: int = 2000) -> tuple[LoadReport, dict[str, int]]:
    """Write what `plan` lists: community (marked adopted first), ontology, entities, links.

    Adopting again refreshes: new nodes and relationships are added, changed ones updated, and what
    the user's graph no longer has is deleted (entities, mirrored relationships, ontology types).
    Returns the load report and those deleted counts.
    """
    cid = plan.community_id
    loader = GraphLoader(graph, batch_size=batch_size, progress=False)
    loader.ensure_schema()
    loader.load_community(cid, plan.ontology.id)
    graph.write(
        "adopt_mark",
        community_id=cid,
        labels=list(plan.labels),
        with_labels=list(plan.with_labels),
        chunk_rel=plan.chunk_rel,
    )
    report = loader.load(plan.dataset)
    for rows in batched(plan.links, batch_size):
        graph.write("adopt_link", rows=list(rows))
    graph.write("adopt_unlink_chunks", community_id=cid)  # then the current ones
    for rows in batched(plan.chunk_links, batch_size):
        graph.write("adopt_link_chunks", rows=list(rows))
    return report, _prune(graph, plan, batch_size)


def _prune(graph: Graph, plan: AdoptPlan, batch_size: int) -> dict[str, int]:
    """Delete the community's entities, relationships and types that `plan` no longer has."""
    cid, ds = plan.community_id, plan.dataset
    wanted_ids = {e.id for e in ds.entities}
    wanted_rels = {(r.source, r.type, r.target) for r in ds.relationships}
    stale_ids: list[str] = []
    stale_rels: list[dict[str, str]] = []
    for row in graph.read("adopt_current", community_id=cid, structural=[graph.settings.adopts_rel]):
        if row["id"] not in wanted_ids:
            stale_ids.append(row["id"])
            continue
        for rel_type, target in row["out"]:
            if rel_type is not None and (row["id"], rel_type, target) not in wanted_rels:
                stale_rels.append({"source": row["id"], "type": rel_type, "target": target})
    pruned = {"entities": 0, "relationships": 0, "types": 0}
    for start in range(0, max(len(stale_ids), len(stale_rels)), batch_size):
        rows = graph.write(
            "adopt_prune",
            community_id=cid,
            entities=stale_ids[start : start + batch_size],
            rels=stale_rels[start : start + batch_size],
        )
        pruned["entities"] += int(rows[0]["entities"]) if rows else 0
        pruned["relationships"] += int(rows[0]["rels"]) if rows else 0
    rows = graph.write(
        "adopt_prune_ontology",
        ontology_id=plan.ontology.id,
        labels=plan.ontology.labels,
        types=plan.ontology.relation_names,
    )
    pruned["types"] = int(rows[0]["deleted"]) if rows else 0
    return pruned


def remove_adoption(graph: Graph, community_id: str) -> int:
    """Delete what `adopt` added for a community (its entities, links, ontology, community).

    Returns the number of entities deleted.

    Raises:
        InvalidInput: no such community, or one that was loaded rather than adopted.
    """
    state = graph.read("adopt_state", community_id=community_id)
    if not state:
        raise InvalidInput(f"there is no community {community_id!r}: `python -m pathrag_gds info` lists them")
    if state[0]["labels"] is None:
        raise InvalidInput(
            f"community {community_id!r} was loaded, not adopted: --remove only removes adopted communities "
            "(pathrag_gds.datasets.loader.delete_community deletes a loaded one with its entities)"
        )
    # first: deleting a community deletes the chunks only its entities mention, and these are the user's
    graph.write("adopt_unlink_chunks", community_id=community_id)
    return delete_community(graph, community_id, drop_ontology=True)
