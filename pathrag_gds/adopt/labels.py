"""Adopt the nodes with a label: neo4j-graphrag's KG builder graphs, LightRAG workspaces, plain graphs.

`plan_adoption` reads the nodes that carry one of the labels (and all of the `with_labels`), the
relationships between them and, with a `chunk_rel`, the chunks they point to; it writes nothing.

Example:
    >>> plan = plan_adoption(graph, "my_kg", ["__Entity__"], chunk_rel="FROM_CHUNK")  # doctest: +SKIP
    >>> for line in plan.lines(): print(line)  # doctest: +SKIP
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from pathrag_gds.adopt.ontology import infer_ontology
from pathrag_gds.adopt.plan import AdoptPlan, check_adoptable, own_labels, read_chunks, read_relationships
from pathrag_gds.adopt.reader import NodeReader
from pathrag_gds.datasets.rows import Dataset
from pathrag_gds.errors import InvalidInput
from pathrag_gds.graph import Graph, quote_identifier

#: Labels that mark how a node was made, not what it is (neo4j-graphrag's KG builder).
STRUCTURAL_LABELS = frozenset({"__Entity__", "__KGBuilder__"})
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
    if not labels:
        raise InvalidInput("adopt needs a label: adopt --community ID --label LABEL")
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
    check_adoptable(graph, community_id)
    reader = NodeReader(
        community_id,
        not_types=set(with_labels) | STRUCTURAL_LABELS | own_labels(s),
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
    read_relationships(graph, reader)
    ontology = infer_ontology(f"adopted:{community_id}", reader.types, reader.relations)
    dataset = Dataset(ontology, community_id, reader.entities, reader.rels)
    links = [{"id": eid, "element_id": element_id} for element_id, eid in reader.ids.items()]
    plan = AdoptPlan(community_id, labels, with_labels, ontology, dataset, links, reader.skipped, chunk_rel)
    read_chunks(graph, plan, reader.ids)
    return plan
