"""What the service knows about the graph: communities, schema, index state, ontologies.

Read once (:func:`read_graph_info`, three round trips) and again on `PathRag.refresh()`; from it, the
ontology that governs a query (:func:`governing_ontology`) and the relationship types it may walk
(:func:`relation_whitelist`).

Example:
    >>> info = GraphInfo(communities={}, labels={"Entity", "Person"}, types={"KNOWS", "AGGREGATES"},
    ...                  index_state="ONLINE")
    >>> onto = Ontology.inferred_from({"Person"}, {"KNOWS"})
    >>> relation_whitelist(info, onto, None)
    ['KNOWS']
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from pathrag_gds.config import Settings
from pathrag_gds.errors import InvalidInput, SchemaError
from pathrag_gds.graph import Graph
from pathrag_gds.load_versions import STAGED_LABEL, LoadState
from pathrag_gds.ontology import EntityType, Ontology, RelationType

log = logging.getLogger(__name__)

#: Relationship types that hold structure, not facts: never walked even without an ontology.
STRUCTURAL_TYPES = frozenset({"AGGREGATES", "MENTIONED_IN", "HAS_ENTITY_TYPE", "HAS_RELATION_TYPE"})


@dataclass
class GraphInfo:
    """What the service reads once at start-up (and on `refresh()`)."""

    communities: dict[str, dict[str, Any]]
    labels: set[str]
    types: set[str]
    index_state: str | None
    ontologies: dict[str, Ontology] = field(default_factory=dict)


def community_state(info: GraphInfo, community_id: str) -> LoadState:
    """A known community's versions: its last complete load, and the one that has not completed."""
    return LoadState.from_row(community_id, info.communities.get(community_id, {}))


def read_graph_info(graph: Graph, settings: Settings) -> GraphInfo:
    """Communities, schema, index state and ontologies, read from the database."""
    rows = graph.read("graph_info", index_name=settings.vector_index)
    row = rows[0] if rows else {"communities": [], "labels": [], "types": []}
    idx = graph.read("index_state", index_name=settings.vector_index)
    ontologies: dict[str, Ontology] = {}
    for o in graph.read("ontology_read", ontology_id=None):
        ontologies[o["id"]] = Ontology.from_mapping(
            {
                "id": o["id"],
                "entity_types": o["entity_types"],
                "relationship_types": [
                    {
                        "type": r["type"],
                        "phrase": r.get("phrase"),
                        "inverse_phrase": r.get("inverse_phrase"),
                        "description": r.get("description") or "",
                        "source": r.get("source_labels") or [],
                        "target": r.get("target_labels") or [],
                    }
                    for r in o["relation_types"]
                ],
            }
        )
    return GraphInfo(
        communities={c["id"]: c for c in row["communities"]},
        labels=set(row["labels"]),
        types=set(row["types"]),
        index_state=idx[0]["state"] if idx else None,
        ontologies=ontologies,
    )


def governing_ontology(
    info: GraphInfo, settings: Settings, community_id: str | None, ontology_id: str | None
) -> Ontology:
    """The ontology that governs a query: named, the community's, or all stored ones merged.

    A graph without a stored ontology gets one inferred from its labels and relationship
    types (minus structural ones), with a warning.

    Raises:
        InvalidInput: `ontology_id` names no stored ontology.
    """
    if ontology_id is not None:
        if ontology_id not in info.ontologies:
            raise InvalidInput(
                f"unknown ontology {ontology_id!r}; the graph has {sorted(info.ontologies) or 'none'}"
            )
        return info.ontologies[ontology_id]
    if community_id is not None:
        oid = info.communities.get(community_id, {}).get("ontology_id")
        if oid in info.ontologies:
            return info.ontologies[oid]
    if info.ontologies:
        if len(info.ontologies) == 1:
            return next(iter(info.ontologies.values()))
        merged: dict[str, RelationType] = {}
        ets: list[EntityType] = []
        for o in info.ontologies.values():
            ets.extend(o.entity_types)
            for r in o.relation_types:
                merged.setdefault(r.type, r)
        return Ontology("merged", tuple(ets), tuple(merged.values()))
    log.warning(
        "the graph stores no ontology: walking every relationship type except structural ones; "
        "load an ontology for readable phrasing and intent"
    )
    return Ontology.inferred_from(
        info.labels - {settings.entity_label, settings.community_label, settings.cluster_label, STAGED_LABEL},
        info.types - STRUCTURAL_TYPES - {settings.cluster_rel},
    )


def relation_whitelist(info: GraphInfo, ontology: Ontology, relations: Sequence[str] | None) -> list[str]:
    """The relationship types a query may walk: `relations` if given, else the ontology's present ones.

    Raises:
        SchemaError: a type in `relations` is not in the database.
    """
    present = info.types
    if relations is not None:
        unknown = sorted(set(relations) - present)
        if unknown:
            raise SchemaError(
                f"relationship type(s) {unknown} are not in the database (it has {sorted(present)}); "
                "fix the relation whitelist"
            )
        return [r for r in relations if r not in STRUCTURAL_TYPES]
    return [r for r in ontology.relation_names if r in present and r not in STRUCTURAL_TYPES]
