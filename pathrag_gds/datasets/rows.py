"""The rows a load writes: entities, relationships, chunks, a dataset of them, and entity ids.

Example:
    >>> ds = Dataset(ontology=Ontology("o"), community_id="c", entities=[EntityRow("c:a", "a")])
    >>> ds.entity_count
    1
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pathrag_gds.errors import InvalidInput
from pathrag_gds.ontology import Ontology


class DatasetError(InvalidInput):
    """A data or ontology file cannot be loaded as it is (the message says what to fix)."""


@dataclass(frozen=True, slots=True)
class EntityRow:
    """One entity to write: id (globally unique), name, type labels, description, attributes."""

    id: str
    name: str
    labels: tuple[str, ...] = ()
    description: str = ""
    attributes: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class RelationRow:
    """One relationship to write: entity ids, the ontology type, scalar attributes."""

    source: str
    type: str
    target: str
    attributes: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class ChunkRow:
    """One provenance chunk and the entity ids it mentions."""

    id: str
    text: str
    source: str = ""
    mentions: tuple[str, ...] = ()


@dataclass
class Dataset:
    """Everything one load writes: one ontology, one community and its data."""

    ontology: Ontology
    community_id: str
    entities: list[EntityRow] = field(default_factory=list)
    relationships: list[RelationRow] = field(default_factory=list)
    chunks: list[ChunkRow] = field(default_factory=list)

    @property
    def entity_count(self) -> int:
        """Number of entities."""
        return len(self.entities)


def entity_id(community_id: str, name: str) -> str:
    r"""The entity id of `name` in a community: `<community>:<name>`, the community escaped.

    In the community, `\` becomes `\\` and `:` becomes `\:`, so the first unescaped `:` ends
    it and no two (community, name) pairs share an id. Communities without `:` or `\` keep the
    plain form (`metaqa:Heat`).

    Example:
        >>> entity_id("acme", "secret:Vault Plan"), entity_id("acme:secret", "Vault Plan")
        ('acme:secret:Vault Plan', 'acme\\:secret:Vault Plan')
    """
    return community_id.replace("\\", "\\\\").replace(":", "\\:") + ":" + name


def split_entity_id(eid: str) -> tuple[str, str]:
    r"""The (community, name) an :func:`entity_id` was built from.

    Raises:
        ValueError: `eid` has no unescaped `:` (it is not a community-scoped id).

    Example:
        >>> split_entity_id("acme\\:secret:Vault Plan")
        ('acme:secret', 'Vault Plan')
    """
    out: list[str] = []
    i = 0
    while i < len(eid):
        ch = eid[i]
        if ch == "\\" and i + 1 < len(eid):
            out.append(eid[i + 1])
            i += 2
            continue
        if ch == ":":
            return "".join(out), eid[i + 1 :]
        out.append(ch)
        i += 1
    raise ValueError(f"{eid!r} is not a community-scoped entity id (no unescaped ':')")


def id_community(eid: str) -> str | None:
    r"""The community whose namespace entity id `eid` is in, or None for a plain id.

    An id with an unescaped `:` is community-scoped: the part before it (unescaped) names the
    community, as in :func:`entity_id`, and only that community's loads may create the id. An id
    without one (`bob`, `victim\:Target`) is plain: no triple-file id is plain, so plain ids never
    collide with them.

    Example:
        >>> id_community("victim2:Target"), id_community("acme\\:secret:Plan"), id_community("bob")
        ('victim2', 'acme:secret', None)
    """
    try:
        return split_entity_id(eid)[0]
    except ValueError:
        return None
