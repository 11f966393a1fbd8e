"""Where training questions come from: a graph's entities and their hops, in a fixed order.

:class:`GraphSource` is what the question generator walks (the live community is
:class:`~pathrag_gds.training.source.Neo4jSource`); :class:`MemoryGraph` holds a small graph in
memory (tests and generated graphs).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Protocol

from pathrag_gds.paths import Direction, Edge, EntityRecord, Path

#: One step of a walk: the edge and the entity it leads to.
Hop = tuple[Edge, str]
#: A relation group at an entity: (relationship type, walk direction).
Group = tuple[str, Direction]


class GraphSource(Protocol):
    """Where questions come from: entity ids, entity records, neighbours (in a fixed order)."""

    def start_ids(self) -> list[str]:
        """Every entity id a question may start from, sorted."""
        ...

    def entities(self, ids: Iterable[str]) -> dict[str, EntityRecord]:
        """Records of these entities (unknown ids are left out)."""
        ...

    def neighbours(self, ids: Iterable[str]) -> dict[str, list[Hop]]:
        """Every entity's hops, sorted by (type, direction, neighbour id)."""
        ...


class MemoryGraph:
    """A graph held in memory (tests and small generated graphs).

    Example:
        >>> g = MemoryGraph.from_triples([("a", "T", "A"), ("b", "T", "B")], [("a", "r", "b")])
        >>> [(e.type, e.direction, n) for e, n in g.neighbours(["b"])["b"]]
        [('r', 'in', 'a')]
    """

    def __init__(self, entities: Mapping[str, EntityRecord], edges: Sequence[Edge], cap: int = 50) -> None:
        """Entities by id and stored edges (direction `out`); at most `cap` hops per group."""
        self._entities = dict(entities)
        self._hops: dict[str, list[Hop]] = {k: [] for k in self._entities}
        for e in edges:
            self._hops[e.source_id].append(
                (Edge(e.type, e.source_id, e.target_id, "out", e.attributes), e.target_id)
            )
            self._hops[e.target_id].append(
                (Edge(e.type, e.source_id, e.target_id, "in", e.attributes), e.source_id)
            )
        for k, hops in self._hops.items():
            hops.sort(key=lambda h: (h[0].type, h[0].direction, h[1]))
            counts: dict[Group, int] = {}
            kept = []
            for h in hops:
                g = (h[0].type, h[0].direction)
                counts[g] = counts.get(g, 0) + 1
                if counts[g] <= cap:
                    kept.append(h)
            self._hops[k] = kept

    @classmethod
    def from_triples(
        cls,
        entities: Sequence[tuple[str, str, str]] | Sequence[tuple[str, str, str, dict[str, Any]]],
        triples: Sequence[tuple[str, str, str]],
    ) -> MemoryGraph:
        """Entities as `(id, type, name[, attributes])`, relationships as `(source, type, target)`."""
        ents = {}
        for row in entities:
            attrs = dict(row[3]) if len(row) > 3 else {}
            desc = str(attrs.pop("description", ""))
            ents[row[0]] = EntityRecord(row[0], (row[1],), row[2], desc, attrs)
        return cls(ents, [Edge(t, s, o, "out") for s, t, o in triples])

    def start_ids(self) -> list[str]:
        """Entity ids with at least one neighbour, sorted."""
        return sorted(k for k, v in self._hops.items() if v)

    def entities(self, ids: Iterable[str]) -> dict[str, EntityRecord]:
        """Records of the known ids."""
        return {i: self._entities[i] for i in ids if i in self._entities}

    def neighbours(self, ids: Iterable[str]) -> dict[str, list[Hop]]:
        """Hops of each id."""
        return {i: list(self._hops.get(i, [])) for i in ids}


def signature(path: Path) -> tuple[Group, ...]:
    """(type, direction) per hop: what a question about the path asks, whatever the entities."""
    return tuple((e.type, e.direction) for e in path.edges)
