"""The live graph as a :class:`~pathrag_gds.training.graph_source.GraphSource`: one community in Neo4j.

Reads go through `cypher/train_*.cypher` (sorted rows, seeded hub sampling), and everything read
is cached for the run, so walks and hard-negative enumeration cost one round trip per batch of
new entities.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from pathrag_gds.catalog import community_state
from pathrag_gds.errors import InvalidInput
from pathrag_gds.expanders import entity_record  # exactly as the search builds them
from pathrag_gds.graph import Graph
from pathrag_gds.load_versions import refuse_open_load
from pathrag_gds.ontology import Ontology
from pathrag_gds.paths import Edge, EntityRecord
from pathrag_gds.training.graph_source import Hop

BATCH = 500


class Neo4jSource:
    """One community of the live graph, read through the training Cypher files.

    Args:
        graph: the connection.
        community: the community id.
        relations: relationship types that may be walked (the ontology's, present in the graph).
        cap: neighbours per entity, relationship type and direction (hub cap).
        seed: salts the hub sampling, so another seed picks other neighbours of a hub.
    """

    def __init__(
        self, graph: Graph, community: str, relations: list[str], *, cap: int = 25, seed: int = 0
    ) -> None:
        self.graph = graph
        self.settings = graph.settings
        self.community = community
        self.relations = sorted(relations)
        self.cap = cap
        self.salt = f"pathrag-tune-{seed}"
        self._entities: dict[str, EntityRecord] = {}
        self._hops: dict[str, list[Hop]] = {}
        self._starts: list[str] | None = None
        self.round_trips = 0

    def start_ids(self) -> list[str]:
        """The community's entity ids, sorted."""
        if self._starts is None:
            rows = self.graph.read("train_start_ids", community=self.community)
            self.round_trips += 1
            self._starts = [str(r["id"]) for r in rows]
        return self._starts

    def entities(self, ids: Iterable[str]) -> dict[str, EntityRecord]:
        """Records of these ids (fetched once, then cached)."""
        ids = list(dict.fromkeys(ids))
        missing = [i for i in ids if i not in self._entities]
        s = self.settings
        for k in range(0, len(missing), BATCH):
            rows = self.graph.read(
                "train_entities",
                ids=missing[k : k + BATCH],
                entity_label=s.entity_label,
                embedding_key=s.embedding_property,
            )
            self.round_trips += 1
            for r in rows:
                self._entities[r["id"]] = entity_record(s, r["id"], r["labels"], r["props"])
        return {i: self._entities[i] for i in ids if i in self._entities}

    def neighbours(self, ids: Iterable[str]) -> dict[str, list[Hop]]:
        """Hops of each id, sorted by (type, direction, neighbour id); cached."""
        ids = list(dict.fromkeys(ids))
        missing = [i for i in ids if i not in self._hops]
        s = self.settings
        for k in range(0, len(missing), BATCH):
            chunk = missing[k : k + BATCH]
            rows = self.graph.read(
                "train_neighbours",
                ids=chunk,
                rels=self.relations,
                cap=self.cap,
                salt=self.salt,
                entity_label=s.entity_label,
                embedding_key=s.embedding_property,
            )
            self.round_trips += 1
            for i in chunk:
                self._hops[i] = []
            for r in rows:
                nid = str(r["id"])
                if nid not in self._entities:
                    self._entities[nid] = entity_record(s, nid, r["labels"], r["props"])
                edge = Edge(r["type"], r["src"], r["tgt"], r["direction"], dict(r["rel_props"] or {}))
                self._hops[r["frontier"]].append((edge, nid))
        return {i: self._hops[i] for i in ids}


def community_source(svc: Any, community: str, *, cap: int, seed: int) -> tuple[Ontology, Neo4jSource]:
    """The community's ontology and a source over its relationship types that the graph holds.

    Raises:
        InvalidInput: the community does not exist.
        LoadConflict: a load of it has not completed (training would read that load's entities).
    """
    if community not in svc.info.communities:
        raise InvalidInput(
            f"unknown community {community!r}; the graph has {sorted(svc.info.communities) or 'none'}"
        )
    refuse_open_load(community_state(svc.info, community), svc.settings.load_stale_s, "tune")
    ontology = svc.ontology_for(community, None)
    relations = [r for r in ontology.relation_names if r in svc.info.types]
    return ontology, Neo4jSource(svc.graph, community, relations, cap=cap, seed=seed)
