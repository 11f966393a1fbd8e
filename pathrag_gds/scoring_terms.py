"""Scoring terms beside the model score (Step 6), each in [0, 1]. Pure functions, no database.

- `s_type`: the path holds an entity of an expected type that the question does not name; the
  nearer the end of the path, the better (at the end: full credit, each hop before it halves it);
- `s_relation_prior`: how well the path's relations fit the relations the question hints at (mean
  hint score of its edges; a 0-hop path has no relation and gets 0, unless the question asks about
  the named entity itself);
- `s_coverage`: the share of the question's named entities the path touches;
- `s_described`: the share of the entities the question describes in other words (an event named
  by a clause: `when the kitchen was cleaned up`) the path touches (1 when it describes none);
- `s_length`: 1 / (1 + hops walked past the last answer-like entity): stops paths from wandering past
  the answer (cosine similarity does not punish extra hops);
- `s_lexical`: the share of the question's own words (outside the entities it names) that the
  path's relations or its best un-named entity hold, word for word up to the stem: what the
  question says of the instance beyond the names ("the evening after the mess" of an event
  described so), which one pooled cosine of the path text can miss.

The final score is `mode score + sum(weight x term)` (weights in :class:`~pathrag_gds.config.Settings`,
0 turns a term off).

Example:
    >>> from pathrag_gds.paths import Edge, EntityRecord, Path
    >>> from pathrag_gds.intent import Intent
    >>> ents = {"e": EntityRecord("e", ("Event",), "spill"), "k": EntityRecord("k", ("Place",), "kitchen")}
    >>> p = Path(("e", "k"), (Edge("takes_place", "e", "k", "out"),))
    >>> s_type(p, ents, Intent("where?", "entity", {"Place": 1.0}))
    1.0
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache

from pathrag_gds.intent import EXPECTED_MIN, Intent, mask_mentions, singular
from pathrag_gds.intent.lexicon import STOP_WORDS
from pathrag_gds.intent.text import stems
from pathrag_gds.paths import EntityRecord, Path

#: Credit kept per hop between an answer-like entity and the end of the path.
POSITION_DECAY = 0.5
#: Share of the type credit kept when the question's noun (`village`) is not in the entity's text.
NOUN_MISS = 0.7


@dataclass(frozen=True)
class TermWeights:
    """Weights of the terms (0 turns a term off)."""

    type: float = 0.0
    relation_prior: float = 0.0
    coverage: float = 0.0
    length: float = 0.0
    described: float = 0.0
    lexical: float = 0.0

    @property
    def any(self) -> bool:
        """True when at least one term is on."""
        return any(w != 0.0 for w in self.by_name().values())

    def by_name(self) -> dict[str, float]:
        """Weight of each term, keyed as in :func:`term_parts`."""
        return {"type": self.type, "relation_prior": self.relation_prior, "coverage": self.coverage,
                "length": self.length, "described": self.described, "lexical": self.lexical}  # fmt: skip


def _entity_words(e: EntityRecord) -> frozenset[str]:
    return _singular_words(" ".join([e.name, e.description, *(f"{k} {v}" for k, v in e.attributes.items())]))


@lru_cache(maxsize=8192)
def _singular_words(text: str) -> frozenset[str]:
    return frozenset(singular(w) for w in re.findall(r"[a-z0-9]+", text.lower()))


def answer_fit(entity: EntityRecord, intent: Intent, named: Sequence[str] | set[str]) -> float:
    """How well one entity fits as the answer, in [0, 1].

    A named entity fits only attribute/definition questions (then it is the answer); otherwise the
    entity's type score, scaled by :data:`NOUN_MISS` when the question's noun (a subtype such as
    `village` for type Place) is not what the entity is: not its type label, not one of its kind
    attributes (`place_type: park`, `species: dog`) when it has any, and, without any, not among its
    words. A kind attribute outranks the description: "The village park by the river" is a park.

    Example:
        >>> from pathrag_gds.paths import EntityRecord
        >>> q = Intent("In which village?", "entity", {"Place": 1.0}, noun="village")
        >>> park = EntityRecord("p", ("Place",), "Whiskerville park", "The village park by the river",
        ...                     {"place_type": "park"})  # fmt: skip
        >>> answer_fit(park, q, ()), answer_fit(EntityRecord("w", ("Place",), "Whiskerville"), q, ())
        (0.7, 0.7)
        >>> answer_fit(EntityRecord("w", ("Place",), "Whiskerville", "", {"place_type": "village"}), q, ())
        1.0
    """
    if entity.id in named:
        return 1.0 if intent.answer_is_named else 0.0
    if intent.answer_is_named:
        return 0.0
    fit = max((intent.type_scores.get(lab, 0.0) for lab in entity.labels), default=0.0)
    if fit > 0.0 and intent.noun and not is_a(entity, singular(intent.noun)):
        fit *= NOUN_MISS
    return fit


def is_a(entity: EntityRecord, noun: str) -> bool:
    """Is the entity a `noun`: its type label, else one of its kind attributes, else a word of its text."""
    if any(singular(lab) == noun for lab in entity.labels):
        return True
    kinds = entity.kinds
    if kinds:
        return any(kind == noun or singular(kind.split()[-1]) == noun for kind in kinds)
    return noun in _entity_words(entity)


def another_kind(entity: EntityRecord, intent: Intent) -> bool:
    """Does the entity say it is another kind of thing than the question's noun asks for?

    True only when the question has a noun and the entity has kind attributes (`place_type:
    cottage`) and neither they nor its type label are that noun: a fact about the entity, not a
    word missing from its description.

    Example:
        >>> from pathrag_gds.paths import EntityRecord
        >>> q = Intent("In which village does he live?", "entity", {"Place": 1.0}, noun="village")
        >>> cottage = EntityRecord("c", ("Place",), "Rose Cottage", "", {"place_type": "cottage"})
        >>> village = EntityRecord("m", ("Place",), "Meadowbrook", "", {"place_type": "village"})
        >>> plain = EntityRecord("x", ("Place",), "A village green")  # no kind: its words say nothing
        >>> another_kind(cottage, q), another_kind(village, q), another_kind(plain, q)
        (True, False, False)
    """
    return bool(intent.noun) and bool(entity.kinds) and not is_a(entity, singular(intent.noun))


def fits(
    path: Path, entities: Mapping[str, EntityRecord], intent: Intent, named: Sequence[str] | set[str]
) -> list[float]:
    """:func:`answer_fit` of each node of the path, in walk order."""
    return [answer_fit(entities[n], intent, named) for n in path.node_ids]


def s_type(
    path: Path,
    entities: Mapping[str, EntityRecord],
    intent: Intent,
    named: Sequence[str] | set[str] = (),
) -> float:
    """Best answer fit on the path, halved per hop between that entity and the path's end."""
    f = fits(path, entities, intent, named or intent.named)
    last = len(f) - 1
    return max((x * POSITION_DECAY ** (last - i) for i, x in enumerate(f)), default=0.0)


def s_relation_prior(path: Path, intent: Intent) -> float:
    """Mean hint score of the path's relations (0-hop: 1 for attribute/definition questions, else 0)."""
    if not path.edges:
        return 1.0 if intent.answer_is_named else 0.0
    if not intent.relation_hints:
        return 0.0
    return sum(intent.relation_hints.get(e.type, 0.0) for e in path.edges) / len(path.edges)


def s_coverage(path: Path, named: Sequence[str] | set[str]) -> float:
    """Share of the question's named entities on the path (1 when the question names none)."""
    if not named:
        return 1.0
    nodes = set(path.node_ids)
    return sum(1 for n in set(named) if n in nodes) / len(set(named))


def s_described(path: Path, intent: Intent) -> float:
    """Share of the question's described entities on the path (1 when it describes none).

    Exactly named entities seed the search and their names are in the path text the model reads; an
    entity named in other words (`Kitchen clean-up` for "when the kitchen was cleaned up") is matched
    weakly by the model, so this term says whether the path holds it.

    Example:
        >>> from pathrag_gds.paths import Edge
        >>> it = Intent("Where was Bob when the kitchen was cleaned up?", described=("clean_up",))
        >>> hop = Edge("takes_place", "clean_up", "kitchen", "out")
        >>> s_described(Path(("clean_up", "kitchen"), (hop,)), it)
        1.0
        >>> s_described(Path(("bob",)), it), s_described(Path(("bob",)), Intent("Who owns Bob?"))
        (0.0, 1.0)
    """
    return s_coverage(path, intent.described)


def s_length(
    path: Path,
    entities: Mapping[str, EntityRecord],
    intent: Intent,
    named: Sequence[str] | set[str] = (),
) -> float:
    """`1 / (1 + hops past the last answer-like entity)` (every hop counts when there is none)."""
    f = fits(path, entities, intent, named or intent.named)
    last_fit = max((i for i, x in enumerate(f) if x >= EXPECTED_MIN), default=None)
    wander = path.depth if last_fit is None else path.depth - last_fit
    return 1.0 / (1.0 + wander)


@lru_cache(maxsize=256)
def question_words(question: str, mentions: tuple[str, ...]) -> frozenset[str]:
    """The question's content stems outside its named mentions (stop words and `X` left out).

    Example:
        >>> sorted(question_words("In which room did Jane make up after the mess?", ("Jane",)))
        ['after', 'make', 'mess', 'room', 'up']
    """
    masked = mask_mentions(question, mentions)
    return frozenset(w for w in stems(masked) if w not in STOP_WORDS and w != "x" and not w.isdigit())


def _values(attributes: Mapping[str, object]) -> list[object]:
    return [v for x in attributes.values() for v in (x if isinstance(x, list | tuple) else [x])]


def _entity_stems(entity: EntityRecord) -> frozenset[str]:
    return _text_stems(" ".join([entity.name, entity.description, *map(str, _values(entity.attributes))]))


@lru_cache(maxsize=8192)
def _text_stems(text: str) -> frozenset[str]:
    return frozenset(stems(text))


def s_lexical(
    path: Path,
    entities: Mapping[str, EntityRecord],
    intent: Intent,
    named: Sequence[str] | set[str] = (),
) -> float:
    """Share of the question's own words the path says, word for word up to the stem.

    The question's words are :func:`question_words` less those the named entities' texts hold
    (`Joy the squirrel`: `squirrel` is Joy's). A word counts when the path's relation types or edge
    attributes hold it, or when the one un-named entity holding most of them does (its name,
    description, attribute values): one entity, so a longer path does not collect words as it
    wanders. 0 when no word is left.

    Example:
        >>> from pathrag_gds.paths import Edge
        >>> ents = {"j": EntityRecord("j", ("Person",), "Jane"),
        ...         "m": EntityRecord("m", ("Event",), "Bonding", "They make up after the mess."),
        ...         "s": EntityRecord("s", ("Event",), "Spill", "Milk on the floor.")}
        >>> it = Intent("When did Jane make up after the mess?", mentions=("Jane",))
        >>> s_lexical(Path(("j", "m"), (Edge("involves", "m", "j", "in"),)), ents, it, {"j"})
        1.0
        >>> s_lexical(Path(("j", "s"), (Edge("involves", "s", "j", "in"),)), ents, it, {"j"})
        0.0
    """
    words = question_words(intent.question, tuple(intent.mentions))
    for n in named:
        if n in entities:
            words = words - _entity_stems(entities[n])
    if not words:
        return 0.0
    found: set[str] = set()
    for e in path.edges:
        found |= _text_stems(" ".join([e.type.replace("_", " "), *map(str, _values(e.attributes))])) & words
    best = 0
    for n in path.node_ids:
        if n not in named and n in entities:
            best = max(best, len((_entity_stems(entities[n]) & words) - found))
    return (len(found) + best) / len(words)


def term_parts(
    path: Path,
    entities: Mapping[str, EntityRecord],
    intent: Intent,
    weights: TermWeights,
    named: Sequence[str] | set[str] = (),
) -> dict[str, float]:
    """Every term of one path (only those with a non-zero weight), keyed `type`, `relation_prior`, ...."""
    named = named or intent.named
    out: dict[str, float] = {}
    if weights.type:
        out["type"] = s_type(path, entities, intent, named)
    if weights.relation_prior:
        out["relation_prior"] = s_relation_prior(path, intent)
    if weights.coverage:
        out["coverage"] = s_coverage(path, named)
    if weights.length:
        out["length"] = s_length(path, entities, intent, named)
    if weights.described:
        out["described"] = s_described(path, intent)
    if weights.lexical:
        out["lexical"] = s_lexical(path, entities, intent, named)
    return out


def weighted_sum(parts: Mapping[str, float], weights: TermWeights) -> float:
    """`sum(weight x term)` over the parts present."""
    w = weights.by_name()
    return sum(w[k] * v for k, v in parts.items() if k in w)


def rank_answers(
    path: Path,
    entities: Mapping[str, EntityRecord],
    intent: Intent | None,
    named: Sequence[str] | set[str] = (),
) -> list[tuple[str, str]]:
    """Answer candidates of a path, best first, with the reason.

    The entity of an expected type nearest the end (not named in the question) first, then the other
    entities from the end backwards; named entities last (or first, for attribute/definition
    questions, whose answer is the named entity).
    """
    named_set = set(named) | (set(intent.named) if intent is not None else set())
    order = list(reversed(path.node_ids))
    if intent is None or not (intent.type_scores or intent.answer_is_named):
        rest = [n for n in order if n not in named_set] or [path.end]
        return [(n, "end of path" if n == path.end else "on the path") for n in rest]
    scored = [(answer_fit(entities[n], intent, named_set), i, n) for i, n in enumerate(order)]
    typed = [(f, i, n) for f, i, n in scored if f >= EXPECTED_MIN]
    typed.sort(key=lambda t: (-round(t[0], 6), t[1]))
    out: list[tuple[str, str]] = []
    for _, _, n in typed:
        out.append((n, "the named entity asked about" if n in named_set else "expected type"))
    chosen = {n for n, _ in out}
    for n in order:
        if n not in chosen and n not in named_set:
            out.append((n, "end of path" if n == path.end else "on the path"))
            chosen.add(n)
    for n in order:
        if n not in chosen:
            out.append((n, "named in the question"))
    return out
