"""Plain data of the search: entities, edges, paths, and the canonical path key.

Pure data, no database: the beam, the serializer and the tests work on these.

Example:
    >>> e = Edge(type="owns", source_id="jane", target_id="bob", direction="in")
    >>> p = Path(node_ids=("bob", "jane"), edges=(e,))
    >>> p.key
    'jane:owns:bob'
    >>> Path(node_ids=("jane", "bob"), edges=(Edge("owns", "jane", "bob", "out"),)).key == p.key
    True
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

Direction = Literal["out", "in"]


@dataclass(frozen=True, slots=True)
class EntityRecord:
    """An entity as the serializer needs it: id, type labels, name, description, attributes."""

    id: str
    labels: tuple[str, ...]
    name: str
    description: str = ""
    attributes: dict[str, Any] = field(default_factory=dict)

    @property
    def label(self) -> str:
        """The entity's type (its first type label), or `Entity` when it has none."""
        return self.labels[0] if self.labels else "Entity"


@dataclass(frozen=True, slots=True)
class Edge:
    """One hop of a path: the relationship as stored, and the direction it was walked.

    `source_id -> target_id` is the relationship's direction in the graph; `direction` is `out`
    when the walk went from source to target, `in` when it went against the arrow.
    """

    type: str
    source_id: str
    target_id: str
    direction: Direction
    attributes: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)

    @property
    def key(self) -> str:
        """The edge's direction-agnostic identity: `source:type:target` as stored in the graph."""
        return edge_key(self.source_id, self.type, self.target_id)


def edge_key(source_id: str, rel_type: str, target_id: str) -> str:
    """`source:type:target`, the key of one stored relationship (same as cypher/expand.cypher)."""
    return f"{source_id}:{rel_type}:{target_id}"


def canonical_key(node_ids: tuple[str, ...] | list[str], edge_keys: list[str] | tuple[str, ...]) -> str:
    """The direction-agnostic key of a path.

    A 0-hop path is keyed by its node; a longer one by its sorted edge keys joined with `|`, so
    A->B->C and C<-B<-A (the same stored relationships walked either way) share one key.
    """
    if not edge_keys:
        return f"node:{node_ids[0]}"
    return "|".join(sorted(edge_keys))


@dataclass(frozen=True, slots=True)
class Path:
    """An ordered walk: `node_ids[i] -edges[i]- node_ids[i+1]`."""

    node_ids: tuple[str, ...]
    edges: tuple[Edge, ...] = ()

    def __post_init__(self) -> None:
        if len(self.node_ids) != len(self.edges) + 1:
            raise ValueError("a path has exactly one more node than edges")

    @property
    def depth(self) -> int:
        """Number of hops."""
        return len(self.edges)

    @property
    def start(self) -> str:
        """The first node (the seed)."""
        return self.node_ids[0]

    @property
    def end(self) -> str:
        """The last node (the frontier)."""
        return self.node_ids[-1]

    @property
    def edge_keys(self) -> tuple[str, ...]:
        """The stored-relationship keys of its edges, in walk order."""
        return tuple(e.key for e in self.edges)

    @property
    def key(self) -> str:
        """The canonical (direction-agnostic) key."""
        return canonical_key(self.node_ids, self.edge_keys)

    def without_start(self) -> Path:
        """The same walk from its second node (one hop shorter); needs 1+ hops."""
        return Path(self.node_ids[1:], self.edges[1:])

    def extend(self, edge: Edge, node_id: str) -> Path:
        """This path plus one hop to `node_id`."""
        return Path(self.node_ids + (node_id,), self.edges + (edge,))
