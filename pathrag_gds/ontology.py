"""The ontology: entity types and relationship types with readable phrases.

It lives in the graph (`(:Ontology)-[:HAS_ENTITY_TYPE]->(:EntityType)`,
`(:Ontology)-[:HAS_RELATION_TYPE]->(:RelationType)`) and in YAML files for loading. Relationship
types that are not in the ontology are never traversed.

Example:
    >>> rt = RelationType("directed_by", "was directed by", "directed", "", ("Movie",), ("Person",))
    >>> rt.phrase, rt.inverse_phrase
    ('was directed by', 'directed')
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True)
class EntityType:
    """An entity type: its label and what it means."""

    label: str
    description: str = ""


@dataclass(frozen=True, slots=True)
class RelationType:
    """A relationship type with its phrase read forwards and backwards.

    `phrase` reads source -> target ("Jane owns Bob"); `inverse_phrase` reads target -> source
    ("Bob is owned by Jane"). An empty `inverse_phrase` means: write the sentence in the stored
    direction ("Jane owns Bob") even when the walk went against the arrow.
    """

    type: str
    phrase: str
    inverse_phrase: str
    description: str = ""
    source_labels: tuple[str, ...] = ()
    target_labels: tuple[str, ...] = ()


#: The prefix of the type labels on `adopt`'s entities: the copy of a user's `(:Person)` is
#: `(:Entity:Adopted__Person)`, so that the user's own `MATCH (p:Person)` never finds it. Whatever
#: reads labels as types reads them without it (:func:`type_labels`); ontologies name plain types.
ADOPTED_TYPE_PREFIX = "Adopted__"


def adopted_type_label(label: str) -> str:
    """The label an adopted entity carries for the user's type `label`.

    Example:
        >>> adopted_type_label("Person")
        'Adopted__Person'
    """
    return ADOPTED_TYPE_PREFIX + label


def type_labels(labels: Iterable[str]) -> tuple[str, ...]:
    """Type labels as the ontology names them: an adopted entity's without the prefix; each once, in order.

    Example:
        >>> type_labels(["Adopted__Person", "Movie", "Person"])
        ('Person', 'Movie')
    """
    n = len(ADOPTED_TYPE_PREFIX)
    plain = (label[n:] if label.startswith(ADOPTED_TYPE_PREFIX) else label for label in labels)
    return tuple(dict.fromkeys(plain))


def default_phrase(rel_type: str) -> str:
    """A readable phrase from a relationship type name: `LOCATED_IN` -> `located in`."""
    return rel_type.replace("_", " ").strip().lower()


@dataclass(frozen=True)
class Ontology:
    """Entity and relationship types of one graph."""

    id: str
    entity_types: tuple[EntityType, ...] = ()
    relation_types: tuple[RelationType, ...] = ()
    #: True when built from the database's labels and types because no ontology was stored.
    inferred: bool = False
    _by_type: dict[str, RelationType] = field(default_factory=dict, compare=False, repr=False)
    #: texts read from this ontology alone, kept with it (`search.schema.chain_text`: every query
    #: plans over the same chains, so their texts are written once per ontology, not per query)
    texts: dict[object, str] = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self) -> None:
        self._by_type.update({r.type: r for r in self.relation_types})

    @property
    def relation_names(self) -> list[str]:
        """The traversable relationship types."""
        return [r.type for r in self.relation_types]

    @property
    def labels(self) -> list[str]:
        """The entity type labels."""
        return [e.label for e in self.entity_types]

    def relation(self, rel_type: str) -> RelationType:
        """The relation type; a default phrasing for types the ontology does not describe."""
        found = self._by_type.get(rel_type)
        if found is not None:
            return found
        return RelationType(rel_type, default_phrase(rel_type), "")

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any]) -> Ontology:
        """Build from the YAML/JSON shape used by the loaders.

        Raises:
            ValueError: a relationship type lacks `type`, or an entity type lacks `label`.
        """
        ets = tuple(
            EntityType(str(e["label"]), str(e.get("description", ""))) for e in data.get("entity_types", [])
        )
        rts = []
        for r in data.get("relationship_types", []):
            phrase = str(r.get("phrase") or default_phrase(str(r["type"])))
            rts.append(
                RelationType(
                    type=str(r["type"]),
                    phrase=phrase,
                    inverse_phrase=str(r.get("inverse_phrase") or ""),
                    description=str(r.get("description", "")),
                    source_labels=tuple(_as_list(r.get("source"))),
                    target_labels=tuple(_as_list(r.get("target"))),
                )
            )
        return cls(id=str(data.get("id", "default")), entity_types=ets, relation_types=tuple(rts))

    @classmethod
    def inferred_from(cls, labels: Iterable[str], types: Iterable[str]) -> Ontology:
        """An ontology made of the labels and relationship types found in a database."""
        rts = [RelationType(t, default_phrase(t), "") for t in sorted(types)]
        return cls(
            id="inferred",
            entity_types=tuple(EntityType(x) for x in sorted(labels)),
            relation_types=tuple(rts),
            inferred=True,
        )


def _as_list(value: Any) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    return [str(v) for v in value]
