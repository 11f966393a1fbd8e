"""Adopt a Thalabus graph: a community's entities, their `*_consolidated` values, the stored ontology.

The chunks that mention the entities become the paths' sources. Thalabus, the service whose graph
pathrag_gds's seed was written for, keeps (the shape `adopt --thalabus` reads; docs/graph-model.md,
"A Thalabus graph")::

    (:Community {id})-[:AGGREGATES]->(:Entity:<type> {id, name_consolidated,
                                      description_consolidated, <attr>_consolidated, embedding})
    (:Entity)-[:<relation> {<attr>_consolidated}]->(:Entity)
    (:Community)-[:BASED_ON]->(:Ontology {id})-[:CONTAINS]->(:EntityOntology {label,
                                                               entity_description})
    (:Ontology)-[:CONTAINS]->(:RelationshipOntology {label, entity_description,
                                                     entity_source_labels, entity_target_labels})
    (:Entity)-[:MENTIONED_IN]->(:Chunk {text})

How the ontology is linked (the relationship types above, the relation types' ends) is read from
the graph, or narrowed by options (:mod:`pathrag_gds.adopt.thalabus_ontology`). A community that
pathrag_gds loaded or adopted is refused as a source. The graph's relation types
are the whitelist, as in Thalabus: a relationship of another type (a structural `CONTAINS`) is not
mirrored. Phrases come from the type names (:func:`~pathrag_gds.adopt.ontology.derive_phrases`)
unless the graph stores them.

Example:
    >>> onto = Ontology("adopted:x", (EntityType("animal", "animal: 1 node(s)"),),
    ...                 (RelationType("owns", "owns", "", "", ("person",), ("animal",)),))
    >>> declared = Declared(("FictionalStories",), {"animal": "A pet."},
    ...                     {"owns": {"description": "Who keeps which pet."}})
    >>> merged = with_declared(onto, declared)
    >>> merged.entity_types[0].description, merged.relation_types[0].description
    ('A pet.', 'Who keeps which pet.')
    >>> plan = plan_thalabus(graph, "bob_paths", "DefaultCommunity_FictionalStories")  # doctest: +SKIP
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pathrag_gds.adopt.ontology import derive_phrases, infer_ontology
from pathrag_gds.adopt.plan import AdoptPlan, check_adoptable, own_labels, read_chunks, read_relationships
from pathrag_gds.adopt.reader import NodeReader
from pathrag_gds.adopt.thalabus_ontology import Declared, OntologyLinks, read_declared, resolve_ends
from pathrag_gds.datasets.rows import Dataset
from pathrag_gds.errors import InvalidInput
from pathrag_gds.graph import Graph, quote_identifier
from pathrag_gds.ontology import EntityType, Ontology, RelationType

#: The names Thalabus writes (not pathrag_gds's settings, whose defaults happen to be the same).
COMMUNITY_LABEL = "Community"
AGGREGATES = "AGGREGATES"
#: The suffix of the properties Thalabus holds as an entity's canonical values.
CONSOLIDATED = "_consolidated"
#: Labels that are not entity types in a Thalabus graph.
RESERVED_LABELS = frozenset({"Entity", "Ontology", "EntityOntology", "RelationshipOntology", "Community"})
#: The relationship between an entity and the chunks that mention it (`--chunk-rel` overrides it).
CHUNK_REL = "MENTIONED_IN"


def with_declared(inferred: Ontology, declared: Declared) -> Ontology:
    """The inferred ontology, with the descriptions, relation ends and phrases the graph declares.

    Entity types: the observed ones and the declared ones. Relation types: the observed ones only
    (the ones mirrored), their ends as declared where declared, else as observed.
    """
    observed = {et.label: et.description for et in inferred.entity_types}
    labels = sorted({*observed, *declared.entity_types})
    entity_types = tuple(
        EntityType(label, declared.entity_types.get(label) or observed.get(label, "")) for label in labels
    )
    relation_types = []
    for rt in inferred.relation_types:
        d: Mapping[str, Any] = declared.relation_types.get(rt.type, {})
        phrase, inverse = derive_phrases(rt.type)
        relation_types.append(
            RelationType(
                type=rt.type,
                phrase=d.get("phrase") or phrase,
                inverse_phrase=d["inverse_phrase"] if d.get("inverse_phrase") is not None else inverse,
                description=d.get("description") or rt.description,
                source_labels=tuple(d.get("source") or rt.source_labels),
                target_labels=tuple(d.get("target") or rt.target_labels),
            )
        )
    return Ontology(inferred.id, entity_types, tuple(relation_types))


def plan_thalabus(
    graph: Graph,
    community_id: str,
    source: str,
    *,
    chunk_rel: str | None = None,
    links: OntologyLinks | None = None,
) -> AdoptPlan:
    """Read the entities the Thalabus community `source` aggregates, and their ontology; write nothing.

    Args:
        graph: the connection.
        community_id: the community to create (not `source`: that one is the user's).
        source: the id of the Thalabus `(:Community)`.
        chunk_rel: the relationship type between an entity and its chunks (default
            `MENTIONED_IN`, when the graph has it).
        links: how to reach the ontology (default: read from the graph;
            :mod:`pathrag_gds.adopt.thalabus_ontology`).

    Raises:
        InvalidInput: `community_id` is `source` or a loaded community, no such Thalabus community
            (or it aggregates nothing but pathrag_gds's copies), `source` is a community
            pathrag_gds loaded or adopted, a `chunk_rel` the graph lacks, or `links` naming an
            ontology or relationship type the graph does not have there.
    """
    s = graph.settings
    if community_id == source:
        raise InvalidInput(
            f"--community {community_id!r} is the Thalabus community itself: adopt it under an id of "
            f"its own, e.g. --community {source}_paths"
        )
    check_adoptable(graph, community_id)
    _check_source(graph, source)
    links = links or OntologyLinks()
    types = graph.schema()["types"]
    if chunk_rel is not None:
        quote_identifier(chunk_rel)
        if chunk_rel not in types:
            raise InvalidInput(
                f"no relationship has type {chunk_rel!r}: check --chunk-rel (types are case-sensitive)"
            )
    chunk_rel = chunk_rel or (CHUNK_REL if CHUNK_REL in types else None)
    declared = read_declared(graph, source, links, COMMUNITY_LABEL)
    reader = NodeReader(
        community_id,
        not_types=set(RESERVED_LABELS) | own_labels(s),
        key="id",
        name_property="name",
        description_property="description",
        skip={"id", "embedding", s.embedding_property},
        suffix=CONSOLIDATED,
        relation_types=frozenset(declared.relation_types) if declared and declared.relation_types else None,
    )
    rows = graph.read(
        "adopt_thalabus_nodes",
        extra={"source_label": COMMUNITY_LABEL, "source_rel": AGGREGATES},
        source=source,
        suffix=CONSOLIDATED,
        plain=["id", "name", "description"],
    )
    for row in rows:
        reader.node(row)
    if not reader.ids:
        raise InvalidInput(
            f"no (:Community {{id: {source!r}}})-[:AGGREGATES]->() entities of yours in the graph: check "
            "--thalabus (ids are case-sensitive; `python -m pathrag_gds info` lists the communities)"
        )
    read_relationships(graph, reader)
    ontology = infer_ontology(f"adopted:{community_id}", reader.types, reader.relations)
    notes: tuple[str, ...] = ()
    if declared:
        declared = resolve_ends(declared, ontology, links)
        ontology = with_declared(ontology, declared)
        note = f"descriptions and relation ends from your graph's ontology {', '.join(declared.ids)}"
        notes = declared.read_through
    else:
        note = "no ontology of yours found for it: inferred from the graph"
    node_links = [{"id": eid, "element_id": element_id} for element_id, eid in reader.ids.items()]
    plan = AdoptPlan(
        community_id,
        (),
        (),
        ontology,
        Dataset(ontology, community_id, reader.entities, reader.rels),
        node_links,
        reader.skipped,
        chunk_rel,
        source=source,
        ontology_note=note,
        undeclared_types=reader.undeclared,
        ontology_notes=notes,
    )
    read_chunks(graph, plan, reader.ids)
    return plan


def _check_source(graph: Graph, source: str) -> None:
    """Refuse as a Thalabus source a community that pathrag_gds adopted or loaded itself.

    Both use the `Community` label Thalabus uses: adopting one would copy pathrag_gds's own copies.
    """
    state = graph.read("adopt_state", community_id=source)
    if not state or state[0]["thalabus"] or state[0]["thalabus_ontology"]:
        return
    if state[0]["labels"] is not None:
        raise InvalidInput(
            f"--thalabus {source!r} is a community adopt made: query it as it is "
            f"(--community {source}), or name the Thalabus community it was adopted from"
        )
    if state[0]["pathrag_ontology"]:
        raise InvalidInput(
            f"--thalabus {source!r} is a community pathrag_gds loaded (its ontology is pathrag_gds's): "
            f"query it as it is (--community {source}); --thalabus takes a community Thalabus wrote"
        )
