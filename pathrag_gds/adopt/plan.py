"""What `adopt` will write for one community (:class:`AdoptPlan`), and how `--dry-run` lists it.

Also the reads every source shape shares: relationships between the adopted nodes, their chunks.
A plan is computed from the user's graph without writing (`plan_adoption`, `plan_thalabus`);
:func:`pathrag_gds.adopt.write.adopt` writes it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field

from pathrag_gds.adopt.reader import NodeReader
from pathrag_gds.config import Settings
from pathrag_gds.datasets.loader import batched
from pathrag_gds.datasets.rows import Dataset
from pathrag_gds.errors import InvalidInput
from pathrag_gds.graph import Graph
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
    #: the user's relationship type between a node and its chunks (neo4j-graphrag's FROM_CHUNK), or None
    chunk_rel: str | None = None
    #: [{id: entity id, chunk: the chunk's element id}]
    chunk_links: list[dict[str, str]] = field(default_factory=list)
    #: chunk_rel targets that are not chunks with a text (not sources)
    unusable_chunks: int = 0
    #: the Thalabus community whose entities are adopted (`--thalabus`), or None (chosen by labels)
    source: str | None = None
    #: where the ontology's descriptions and ends come from, when not only from counts and samples
    ontology_note: str = ""
    #: relationship types between adopted nodes that the graph's own ontology does not declare
    undeclared_types: Counter[str] = field(default_factory=Counter)
    #: how the graph's own ontology was read (the relationships it was reached through)
    ontology_notes: tuple[str, ...] = ()

    def lines(self) -> list[str]:
        """What adopting adds, for `--dry-run` and the report."""
        ds, cid = self.dataset, self.community_id
        types = Counter(label for e in ds.entities for label in type_labels(e.labels))
        rels = Counter(r.type for r in ds.relationships)
        if self.source is None:
            chosen = f"with label(s) {' or '.join(self.labels)}" + "".join(
                f" and {label}" for label in self.with_labels if label not in self.labels
            )
            marks = f"adopted_labels: {list(self.labels)}, adopted_with_labels: {list(self.with_labels)}"
        else:
            chosen = f"that the Thalabus community {self.source!r} aggregates"
            marks = f"adopted_from: {self.source!r}"
        out = [
            f"adopt {cid!r}: {len(ds.entities)} node(s) {chosen}, "
            f"{len(ds.relationships)} relationship(s) between them",
            "your nodes and relationships are not changed: no label, property or relationship of "
            "theirs is set or removed; adopt adds, beside them:",
            f"  (:Community {{id: {cid!r}, {marks}}})",
            f"  {len(ds.entities)} (:Entity) node(s), one per node of yours, with its name, description, "
            f"scalar properties and type labels ({_counts(types) or 'no type labels'}), each prefixed "
            f"{ADOPTED_TYPE_PREFIX} so that your MATCH on a label of yours does not find them",
            f"  {len(self.links)} (:Entity)-[:ADOPTS]->(your node) and {len(ds.entities)} "
            "(:Community)-[:AGGREGATES]->(:Entity) relationship(s)",
            f"  {len(ds.relationships)} relationship(s) between those entities, one per relationship "
            f"of yours ({_counts(rels) or 'none'})",
            f"  (:Ontology {{id: {self.ontology.id!r}}}) with {len(self.ontology.entity_types)} "
            f"EntityType and {len(self.ontology.relation_types)} RelationType node(s)"
            + (f", {self.ontology_note}" if self.ontology_note else "")
            + ":",
        ]
        out.extend(f"    {note}" for note in self.ontology_notes)
        for rt in self.ontology.relation_types:
            ends = f"{'/'.join(rt.source_labels) or 'any'} -> {'/'.join(rt.target_labels) or 'any'}"
            out.append(
                f"    {rt.type}: {ends}, reads {rt.phrase!r} / {rt.inverse_phrase or '(stored direction)'!r}"
            )
        if self.chunk_rel:
            chunks = len({c["chunk"] for c in self.chunk_links})
            out.append(
                f"  {len(self.chunk_links)} (:Entity)-[:MENTIONED_IN]->(your :Chunk) relationship(s), to "
                f"{chunks} chunk(s) your nodes are tied to by {self.chunk_rel}: the paths' sources, "
                "their text not copied"
            )
            if self.unusable_chunks:
                out.append(
                    f"  {self.unusable_chunks} {self.chunk_rel} neighbour(s) are not (:Chunk) nodes with "
                    "a text: not sources"
                )
        if self.skipped_types:
            out.append(f"  not mirrored (not a name): {_counts(self.skipped_types)}")
        if self.undeclared_types:
            out.append(f"  not mirrored (not in your graph's ontology): {_counts(self.undeclared_types)}")
        out.append(
            f"then `python -m pathrag_gds index --community {cid}` embeds those entities (not your nodes);"
        )
        out.append(f"`python -m pathrag_gds adopt --community {cid} --remove` deletes all of the above.")
        return out


def _counts(counter: Mapping[str, int]) -> str:
    return ", ".join(f"{k} {v}" for k, v in sorted(counter.items()))


def own_labels(settings: Settings) -> set[str]:
    """pathrag_gds's own labels: never a type of an adopted node."""
    s = settings
    own = {s.entity_label, s.community_label, s.chunk_label, s.document_label, s.section_label}
    return own | {s.cluster_label, "Ontology", "EntityType", "RelationType"}


def check_adoptable(graph: Graph, community_id: str) -> None:
    """Refuse a community id that a load holds (adopting refreshes an adopted one).

    Raises:
        InvalidInput: no id, or the id of a community that was loaded, not adopted.
    """
    if not community_id:
        raise InvalidInput("adopt needs a community id: adopt --community ID ...")
    state = graph.read("adopt_state", community_id=community_id)
    if state and state[0]["labels"] is None:
        raise InvalidInput(
            f"community {community_id!r} exists and was loaded, not adopted: choose another --community id"
        )


def read_relationships(graph: Graph, reader: NodeReader) -> None:
    """Feed `reader` the relationships between the nodes it read (pathrag_gds's own edges left out)."""
    s = graph.settings
    for batch in batched(list(reader.ids), READ_BATCH):
        for row in graph.read("adopt_relationships", ids=list(batch)):
            reader.relationship(row, {s.community_rel, s.adopts_rel})


def read_chunks(graph: Graph, plan: AdoptPlan, ids: Mapping[str, str]) -> None:
    """Fill `plan.chunk_links` with the chunks tied to the adopted nodes `ids` (element id -> entity id)."""
    if not plan.chunk_rel:
        return
    for batch in batched(list(ids), READ_BATCH):
        for row in graph.read("adopt_chunks", extra={"chunk_rel": plan.chunk_rel}, ids=list(batch)):
            if row["usable"]:
                plan.chunk_links.append({"id": ids[row["node"]], "chunk": row["chunk"]})
            else:
                plan.unusable_chunks += 1
