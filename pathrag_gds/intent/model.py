"""What a question asks for (:class:`Intent`), the scale its scores live on, and the encoder it needs."""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

#: Softmax temperature turning cosine similarities into scores in (0, 1] (best = 1).
TEMPERATURE = 0.05
#: A type (or relation) with at least this score counts as expected (hinted).
EXPECTED_MIN = 0.5


class Encoder(Protocol):
    """What intent detection needs from an embedder: `encode(texts) -> (n, dim)` unit vectors."""

    def encode(self, texts: Sequence[str]) -> Any:
        """Embed texts."""
        ...


def softmax_scores(sims: Mapping[str, float], temperature: float = TEMPERATURE) -> dict[str, float]:
    """Similarities as scores in (0, 1], the best one 1: `exp((sim - best) / temperature)`.

    Example:
        >>> {k: round(v, 3) for k, v in softmax_scores({"a": 0.9, "b": 0.85}).items()}
        {'a': 1.0, 'b': 0.368}
    """
    if not sims:
        return {}
    top = max(sims.values())
    return {k: math.exp((v - top) / temperature) for k, v in sims.items()}


@dataclass(frozen=True)
class Intent:
    """What a question asks for.

    Attributes:
        question: the question as asked.
        kind: `entity` (another entity is the answer), `attribute` (a property of a named entity),
            `definition` (`who is Jane?`: the named entity itself) or `unknown`.
        type_scores: entity type label -> score in [0, 1] (best = 1); empty when unknown.
        relation_hints: relationship type -> score in [0, 1] (best = 1).
        wh: the wh-word found (`who`, `which`, ...), or "".
        noun: the type noun of the question (`village`, `movies`), or "".
        mentions: named mentions found in the text (`[Jane]`, or candidate entity names).
        named: ids of entities named in the question (set once candidates are known).
        named_as: id -> the words that name it in the question (its name, or a definite
            description such as `the silver grey cat`).
        named_types: labels of the named entities.
        described: ids of entities the question names in other words (:func:`described_entities`);
            not in `named`, and not counted in `named_types`.
        reasons: how each decision was made (shown by the `intent` command).
        link_types: named id -> the type scores of each noun of a possessive, `of` or relative-clause
            chain from it, nearest it first (:func:`~pathrag_gds.intent.text.link_nouns`; property
            nouns and nouns no type fits left out).
    """

    question: str
    kind: str = "unknown"
    type_scores: dict[str, float] = field(default_factory=dict)
    relation_hints: dict[str, float] = field(default_factory=dict)
    wh: str = ""
    noun: str = ""
    mentions: tuple[str, ...] = ()
    named: tuple[str, ...] = ()
    named_as: dict[str, str] = field(default_factory=dict)
    named_types: tuple[str, ...] = ()
    described: tuple[str, ...] = ()
    reasons: tuple[str, ...] = ()
    link_types: dict[str, tuple[dict[str, float], ...]] = field(default_factory=dict)

    @property
    def expected_types(self) -> list[str]:
        """Entity types the answer should have, best first (score >= EXPECTED_MIN)."""
        ranked = sorted(self.type_scores.items(), key=lambda kv: (-kv[1], kv[0]))
        return [t for t, s in ranked if s >= EXPECTED_MIN]

    @property
    def answer_is_named(self) -> bool:
        """True when the question asks about a named entity itself (attribute / definition)."""
        return self.kind in {"attribute", "definition"}

    def asks_for_another_type(self, labels: Collection[str]) -> bool:
        """Does the question ask for an entity of none of these types, so one of them is no answer?

        Then an entity with these labels cannot answer about itself: "what does X act in" about a
        person asks for a movie, not for X (the plan's empty chain, `planner.plan_chains`).

        Example:
            >>> it = Intent("what does X act in", kind="entity", type_scores={"Movie": 1.0})
            >>> it.asks_for_another_type(("Person",)), it.asks_for_another_type(("Movie",))
            (True, False)
            >>> who = Intent("who is X", kind="definition", type_scores={"Movie": 1.0})
            >>> who.asks_for_another_type(("Person",))
            False
        """
        expected = self.expected_types
        return self.kind == "entity" and bool(expected) and not set(expected) & set(labels)

    @property
    def hinted_relations(self) -> list[str]:
        """Relationship types the question hints at, best first (score >= EXPECTED_MIN)."""
        ranked = sorted(self.relation_hints.items(), key=lambda kv: (-kv[1], kv[0]))
        return [r for r, s in ranked if s >= EXPECTED_MIN]

    def as_dict(self) -> dict[str, Any]:
        """A JSON-ready summary."""
        return {
            "question": self.question,
            "kind": self.kind,
            "expected_types": self.expected_types,
            "type_scores": {k: round(v, 4) for k, v in sorted(self.type_scores.items())},
            "hinted_relations": self.hinted_relations,
            "relation_hints": {k: round(v, 4) for k, v in sorted(self.relation_hints.items())},
            "wh": self.wh,
            "noun": self.noun,
            "mentions": list(self.mentions),
            "named": list(self.named),
            "named_as": dict(sorted(self.named_as.items())),
            "named_types": list(self.named_types),
            "described": list(self.described),
            "link_types": {
                k: [max(s, key=lambda t: (s[t], t)) for s in v] for k, v in sorted(self.link_types.items())
            },
            "reasons": list(self.reasons),
        }
