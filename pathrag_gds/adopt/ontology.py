"""The ontology of a graph pathrag_gds did not load, read from what the graph holds.

Type labels become entity types, relationship types become relation types with the source and
target labels observed on them, phrases come from the type names and descriptions from counts and
samples (`adopt`, docs/graph-model.md "Your own graph").

Example:
    >>> derive_phrases("LOCATED_IN")
    ('is located in', '')
    >>> derive_phrases("DIRECTED_BY")
    ('was directed by', 'directed')
    >>> derive_phrases("CAPITAL_OF")
    ('is capital of', 'has capital')
    >>> derive_phrases("HAS_CAPITAL")
    ('has capital', 'is capital of')
    >>> derive_phrases("WORKS_FOR")
    ('works for', '')
    >>> derive_phrases("RELATED_TO")
    ('is related to', 'is related to')
    >>> derive_phrases("ACTED_IN")
    ('acted in', '')
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from pathrag_gds.ontology import EntityType, Ontology, RelationType

#: Irregular past participles that read as a state ("is known as", "was born in").
_PARTICIPLES = frozenset(
    {"born", "known", "made", "written", "given", "taken", "held", "built", "seen", "led", "drawn"}
    | {"grown", "shown", "sold", "told", "found", "run", "won", "begun", "thrown", "chosen", "hidden"}
)
#: Past tenses of verbs that take no object: `ACTED_IN` reads "acted in", not "is acted in".
_INTRANSITIVE = frozenset(
    {"acted", "worked", "lived", "studied", "appeared", "starred", "died", "played", "participated"}
    | {"graduated", "resided", "competed", "served", "stayed", "travelled", "traveled", "moved"}
    | {"arrived", "belonged", "voted", "sailed", "retired", "debuted", "performed", "collaborated"}
)
_PAST_TENSE = frozenset({"born", "founded", "created", "written", "built", "made", "directed", "produced"})
#: Samples per type kept for descriptions.
SAMPLES = 3


def _is_participle(word: str) -> bool:
    return word in _PARTICIPLES or (word.endswith("ed") and len(word) > 3 and word not in _INTRANSITIVE)


def derive_phrases(rel_type: str) -> tuple[str, str]:
    """(phrase, inverse phrase) from a relationship type name; inverse `''` when none is sure.

    An empty inverse phrase makes the sentences read in the stored direction, which is always right.
    """
    words = [w for w in rel_type.replace("-", "_").lower().split("_") if w]
    if not words:
        return rel_type, ""
    if words in (["related", "to"], ["relates", "to"]):  # symmetric
        return "is related to", "is related to"
    text = " ".join(words)
    if words[0] == "has" and len(words) > 1:
        return text, f"is {' '.join(words[1:])} of"
    if words[-1] == "of" and len(words) > 1 and not _is_participle(words[0]) and words[0] != "is":
        return f"is {text}", f"has {' '.join(words[:-1])}"
    if words[0] in {"is", "was", "has", "had"}:
        return text, ""
    if _is_participle(words[0]) and len(words) > 1:
        aux = "was" if words[0] in _PAST_TENSE or words[-1] == "by" else "is"
        inverse = words[0] if words[-1] == "by" and len(words) == 2 and words[0].endswith("ed") else ""
        return f"{aux} {text}", inverse
    return text, ""


@dataclass
class TypeStats:
    """What the graph shows of one entity type: how many nodes, some names."""

    count: int = 0
    samples: list[str] = field(default_factory=list)


@dataclass
class RelationStats:
    """What the graph shows of one relationship type: count, end labels, sample triples."""

    count: int = 0
    sources: Counter[str] = field(default_factory=Counter)
    targets: Counter[str] = field(default_factory=Counter)
    samples: list[tuple[str, str]] = field(default_factory=list)


def _ordered(counts: Counter[str]) -> tuple[str, ...]:
    return tuple(label for label, _ in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))


def infer_ontology(
    ontology_id: str, types: Mapping[str, TypeStats], relations: Mapping[str, RelationStats]
) -> Ontology:
    """The ontology of the observed types and relations (labels ordered by how often they occur)."""
    entity_types = tuple(
        EntityType(label, _type_description(label, stats)) for label, stats in sorted(types.items())
    )
    relation_types = []
    for rel, stats in sorted(relations.items()):
        phrase, inverse = derive_phrases(rel)
        relation_types.append(
            RelationType(
                type=rel,
                phrase=phrase,
                inverse_phrase=inverse,
                description=_relation_description(rel, phrase, stats),
                source_labels=_ordered(stats.sources),
                target_labels=_ordered(stats.targets),
            )
        )
    return Ontology(ontology_id, entity_types, tuple(relation_types))


def _type_description(label: str, stats: TypeStats) -> str:
    examples = f", e.g. {', '.join(stats.samples)}" if stats.samples else ""
    return f"{label}: {stats.count} node(s) in the adopted graph{examples}."


def _relation_description(rel: str, phrase: str, stats: RelationStats) -> str:
    ends = f"{'/'.join(_ordered(stats.sources)) or 'any'} -> {'/'.join(_ordered(stats.targets)) or 'any'}"
    examples = "; ".join(f"{s} {phrase} {t}" for s, t in stats.samples)
    tail = f", e.g. {examples}" if examples else ""
    return f"{rel} ({ends}): {stats.count} relationship(s) in the adopted graph{tail}."


def add_sample(samples: list[str] | list[tuple[str, str]], item: object, limit: int = SAMPLES) -> None:
    """Keep the first `limit` distinct samples."""
    if len(samples) < limit and item not in samples:
        samples.append(item)  # type: ignore[arg-type]


def ordered_labels(labels: Sequence[str]) -> tuple[str, ...]:
    """Type labels in a stable order (sorted), so the first one is the same on every run."""
    return tuple(sorted(labels))
