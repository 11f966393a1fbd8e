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

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

Direction = Literal["out", "in"]

#: Attribute keys whose value names what kind of thing an entity is (`place_type: village`).
KIND_KEYS = frozenset({"species", "kind", "category", "type", "breed"})


def kind_nouns(attributes: Mapping[str, Any]) -> list[str]:
    """What kinds of thing an entity is, from attributes like `species`, `breed` or `place_type`.

    Keys in sorted order; values of one or two plain words only.

    Example:
        >>> kind_nouns({"species": "dog", "breed": "boxer", "age": 3})
        ['boxer', 'dog']
    """
    out = []
    for key in sorted(attributes):
        value = attributes[key]
        k = key.lower()
        if (k in KIND_KEYS or k.endswith("_type")) and isinstance(value, str):
            words = value.strip().lower().split()
            if 0 < len(words) <= 2 and all(w.isalpha() for w in words):
                out.append(" ".join(words))
    return out


#: Attribute keys whose value says what an entity is to the others (`occupation: harbour master`).
ROLE_KEYS = frozenset({"occupation", "role", "job", "title", "profession", "position"})


def identity_nouns(attributes: Mapping[str, Any]) -> list[str]:
    """What an entity is: its kinds (:func:`kind_nouns`), then its roles (one to three plain words).

    Example:
        >>> identity_nouns({"species": "dog", "occupation": "sheep dog", "fur": "black"})
        ['dog', 'sheep dog']
    """
    out = kind_nouns(attributes)
    for key in sorted(attributes):
        value = attributes[key]
        if key.lower() in ROLE_KEYS and isinstance(value, str):
            words = value.strip().lower().split()
            if 0 < len(words) <= 3 and all(w.isalpha() for w in words) and " ".join(words) not in out:
                out.append(" ".join(words))
    return out


def kind_noun(attributes: Mapping[str, Any]) -> str | None:
    """The first of :func:`kind_nouns`, or None.

    Example:
        >>> kind_noun({"place_type": "village", "population": 840}), kind_noun({"age": 3})
        ('village', None)
    """
    kinds = kind_nouns(attributes)
    return kinds[0] if kinds else None


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

    @property
    def kinds(self) -> list[str]:
        """What kinds of thing the entity is, from its attributes (`place_type: village`)."""
        return kind_nouns(self.attributes)


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
