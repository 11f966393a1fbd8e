"""The user's nodes and relationships turned into the rows `adopt` writes, and the ontology's counts.

One :class:`NodeReader` serves every source shape: the shape decides which nodes are read (by label,
by a Thalabus community) and which of their properties hold the name and description; the reader
turns each node into an :class:`~pathrag_gds.datasets.rows.EntityRow` (its type labels
prefixed, :func:`~pathrag_gds.ontology.adopted_type_label`), each relationship between
read nodes into a :class:`~pathrag_gds.datasets.rows.RelationRow`, and counts types and samples for
:func:`pathrag_gds.adopt.ontology.infer_ontology`.

Example:
    >>> r = NodeReader("c", not_types={"Tag"}, key=None, name_property="name",
    ...                description_property="description", skip=set())
    >>> r.node({"element_id": "4:x:1", "labels": ["Person", "Tag"], "props": {"name": "Ada"}})
    >>> r.node({"element_id": "4:x:2", "labels": ["City"], "props": {"name": "Turin"}})
    >>> r.relationship({"source": "4:x:1", "type": "LIVES_IN", "target": "4:x:2", "props": {}}, set())
    >>> [(e.id, e.labels) for e in r.entities]
    [('c:4:x:1', ('Adopted__Person',)), ('c:4:x:2', ('Adopted__City',))]
    >>> r.rels[0].type, dict(r.relations["LIVES_IN"].sources)
    ('LIVES_IN', {'Person': 1})
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from pathrag_gds.adopt.ontology import RelationStats, TypeStats, add_sample
from pathrag_gds.adopt.values import attributes, clean, node_name
from pathrag_gds.datasets.checks import is_identifier
from pathrag_gds.datasets.rows import EntityRow, RelationRow, entity_id
from pathrag_gds.ontology import adopted_type_label


@dataclass
class NodeReader:
    """Turns the user's nodes and relationships into rows and ontology statistics."""

    community_id: str
    #: labels that are not types (the selecting labels, builder internals, pathrag_gds's own)
    not_types: set[str]
    #: the property whose value keys a node (None: its element id)
    key: str | None
    name_property: str
    description_property: str
    #: properties never copied
    skip: set[str]
    #: relationship types mirrored under another name
    rename: dict[str, str] = field(default_factory=dict)
    #: read only the properties whose names end with it, without it (Thalabus's `_consolidated`);
    #: a node with none for its name or description falls back to the plain property
    suffix: str | None = None
    #: mirror only these relationship types (a graph's own ontology); None: every type
    relation_types: frozenset[str] | None = None
    ids: dict[str, str] = field(default_factory=dict)  # element id -> entity id
    names: dict[str, str] = field(default_factory=dict)  # element id -> name
    labels: dict[str, tuple[str, ...]] = field(default_factory=dict)  # element id -> type labels
    entities: list[EntityRow] = field(default_factory=list)
    rels: list[RelationRow] = field(default_factory=list)
    types: dict[str, TypeStats] = field(default_factory=dict)
    relations: dict[str, RelationStats] = field(default_factory=dict)
    skipped: Counter[str] = field(default_factory=Counter)
    undeclared: Counter[str] = field(default_factory=Counter)

    def _props(self, props: Mapping[str, Any]) -> dict[str, Any]:
        """The properties read (with a suffix: those that end with it, named without it)."""
        if not self.suffix:
            return dict(props)
        n = len(self.suffix)
        return {k[:-n]: v for k, v in props.items() if k.endswith(self.suffix) and len(k) > n}

    def node(self, row: Mapping[str, Any]) -> None:
        """Read one node (`{element_id, labels, props}`); a node read before is left as it is."""
        element_id, raw = row["element_id"], row["props"]
        if element_id in self.ids:  # found under two of the labels
            return
        value = raw.get(self.key) if self.key else None
        node_key = str(value) if value is not None else element_id
        eid = entity_id(self.community_id, clean(node_key, multiline=False))
        props, plain = self._props(raw), raw if self.suffix else {}
        name = node_name(props, self.name_property, node_name(plain, self.name_property, node_key))
        type_labels = tuple(
            sorted(label for label in row["labels"] if label not in self.not_types and is_identifier(label))
        )
        desc = props.get(self.description_property) or plain.get(self.description_property)
        skip = self.skip | {self.name_property, self.description_property}
        description = clean(desc) if isinstance(desc, str) else ""
        copy_labels = tuple(adopted_type_label(label) for label in type_labels)  # not the user's Person
        self.entities.append(EntityRow(eid, name, copy_labels, description, attributes(props, skip)))
        self.ids[element_id], self.names[element_id], self.labels[element_id] = eid, name, type_labels
        for label in type_labels:
            stats = self.types.setdefault(label, TypeStats())
            stats.count += 1
            add_sample(stats.samples, name)

    def relationship(self, row: Mapping[str, Any], reserved: set[str]) -> None:
        """Read one relationship (`{source, type, target, props}`, element ids) between read nodes.

        One whose target was not read is ignored; one of a `reserved` type or a type that is not a
        name is counted in `skipped`, one outside `relation_types` in `undeclared`.
        """
        src, rel_type, tgt = row["source"], row["type"], row["target"]
        if tgt not in self.ids:
            return
        rel_type = self.rename.get(rel_type, rel_type)
        if not is_identifier(rel_type) or rel_type in reserved:
            self.skipped[rel_type] += 1
            return
        if self.relation_types is not None and rel_type not in self.relation_types:
            self.undeclared[rel_type] += 1
            return
        props = attributes(self._props(row["props"]), self.skip)
        self.rels.append(RelationRow(self.ids[src], rel_type, self.ids[tgt], props))
        stats = self.relations.setdefault(rel_type, RelationStats())
        stats.count += 1
        stats.sources.update(self.labels[src])
        stats.targets.update(self.labels[tgt])
        add_sample(stats.samples, (self.names[src], self.names[tgt]))
