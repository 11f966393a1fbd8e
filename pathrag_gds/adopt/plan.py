"""What `adopt` will write for one community (:class:`AdoptPlan`), and how `--dry-run` lists it.

A plan is computed from the user's graph without writing (`plan_adoption`, `plan_thalabus`);
:func:`pathrag_gds.adopt.write.adopt` writes it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field

from pathrag_gds.datasets.rows import Dataset
from pathrag_gds.ontology import ADOPTED_TYPE_PREFIX, Ontology, type_labels

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
        types = Counter(label for e in ds.entities for label in type_labels(e.labels))
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
            f"  {len(ds.entities)} (:Entity) node(s), one per node of yours, with its name, description, "
            f"scalar properties and type labels ({_counts(types) or 'no type labels'}), each prefixed "
            f"{ADOPTED_TYPE_PREFIX} so that your MATCH on a label of yours does not find them",
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
