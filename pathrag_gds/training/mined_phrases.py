"""Relation phrasings mined from the graph's own text: how its authors say each relation.

The ontology says a relation one way (`is the skipper of`); the people who wrote the graph's
descriptions said it their way ("Jory ... skippers the trawler Morning Star", "Biscuit ... goes to
sea on the Morning Star", "Mara is Jory's daughter"), and the people who ask about the graph share
their words far more often than they share the ontology's. This is distant supervision (Mintz et
al., 2009): where an entity's description or attributes name an entity it is linked to by exactly
one relationship type, the words right before that name say that relation (read from the
describing entity), and `<name>'s <noun>` says that the describing entity is the named one's
`<noun>` (`is the daughter of`). Each candidate is kept only where the sentence encoder reads it
nearer its own relation's phrase and description than any other relation's, so a span that says
nothing ("a", "17", "near the top of") or says another relation is dropped.

`tune --mined-share S` says that share of the generated questions' phrases with these phrasings
(the chain text keeps the ontology's words, so the model learns to map the graph's words onto
them). Nothing here reads a question: only the community's own entities and relationships.

Example:
    >>> from pathrag_gds.paths import Edge, EntityRecord
    >>> jory = EntityRecord("j", ("Person",), "Jory", "A fisherman who skippers the trawler Morning Star.")
    >>> boat = EntityRecord("m", ("Boat",), "Morning Star", "", {"boat_type": "trawler"})
    >>> mara = EntityRecord("d", ("Person",), "Mara", "Jory's daughter, eleven.")
    >>> edges = [Edge("captains", "j", "m", "out"), Edge("child_of", "d", "j", "out")]
    >>> sorted(mine({e.id: e for e in (jory, boat, mara)}, edges).items())
    [(('captains', 'phrase'), ['skippers']), (('child_of', 'phrase'), ['is the daughter of'])]
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Mapping
from typing import Any, Literal

from pathrag_gds.ontology import Ontology
from pathrag_gds.paths import Edge, EntityRecord, kind_nouns
from pathrag_gds.search.schema import label_noun
from pathrag_gds.training.phrasing import PREPOSITIONS, base_verb, past_base_verb

#: Which reading of a relation a phrasing says: `phrase` (source -> target) or `inverse` (target -> source).
Side = Literal["phrase", "inverse"]
#: Words a phrasing never starts with or runs across: a clause or list boundary.
BOUNDARY = frozenset(
    {
        "and",
        "or",
        "but",
        "who",
        "that",
        "which",
        "whose",
        "where",
        "when",
        "while",
        "with",
        "he",
        "she",
        "it",
        "they",
    }
)
#: Determiners and possessives that open the named entity's own noun phrase (`the trawler Morning Star`).
OPENERS = frozenset({"the", "a", "an", "her", "his", "their", "its", "own", "our", "my"})
#: Words that open a prepositional phrasing (`next to`, `near the top of`, `aboard`; not `to`,
#: which opens an infinitive: `loves to chase`).
OPEN_PREPOSITIONS = (PREPOSITIONS - {"to"}) | frozenset(
    {"next", "beside", "behind", "above", "below", "under", "opposite", "aboard", "along", "across", "inside"}
)
#: The longest phrasing kept, in words.
MAX_WORDS = 4
#: A phrasing's cosine to its own relation must be at least this, and beat every other relation's.
MIN_SIMILARITY = 0.3

_WORD = re.compile(r"[\w'-]+|[;:,.()]")


def _names(entity: EntityRecord) -> list[str]:
    """The entity's name and, for a proper name of several words, each capitalised word of it."""
    words = [w for w in re.findall(r"[\w'-]+", entity.name) if w[:1].isupper() and len(w) > 2]
    return [entity.name, *words] if len(words) > 1 else [entity.name]


def _own_words(entity: EntityRecord) -> set[str]:
    """Nouns the named entity's own noun phrase may hold: its kinds and type labels, word by word."""
    words = {w for k in kind_nouns(entity.attributes) for w in k.lower().split()}
    words |= {w for label in entity.labels for w in label_noun(label).split()}
    return words


def span_before(text: str, start: int, own: set[str]) -> str | None:
    """The words right before a mention at `start` that say how the text's entity relates to it.

    At most :data:`MAX_WORDS` words, none across punctuation, a clause word, a pronoun or a
    capitalised word (a name or a sentence's start: the subject, not the verb phrase); the named
    entity's own noun phrase is cut off (`skippers the trawler [Morning Star]` -> `skippers`).
    None when nothing is left.

    Example:
        >>> span_before("He skippers the trawler Morning Star", 24, {"trawler", "boat"})
        'skippers'
        >>> span_before("Moored next to Kestrel", 15, set())
        'next to'
        >>> span_before("Bob, the cat", 5, set()) is None
        True
    """
    words = _WORD.findall(text[:start])
    span: list[str] = []
    for w in reversed(words):
        if not w[0].isalnum() or w[0].isupper() or w.lower() in BOUNDARY or len(span) >= MAX_WORDS:
            break
        span.insert(0, w)
    # the mention's own noun phrase: `the trawler`, `her own dinghy`
    for i, w in enumerate(span):
        if w.lower() in OPENERS and all(x.lower() in own | OPENERS for x in span[i:]):
            span = span[:i]
            break
    return " ".join(span).lower() if span else None


def shaped(span: str) -> str | None:
    """The span as a relation phrase the generator can say, else None.

    A verb phrase stays (`goes to sea on`, `skippered by`); a prepositional phrase of two words or
    more stays (`next to`, `near the top of`); `<noun> of` becomes a role phrase (`skipper of` ->
    `is the skipper of`, `old lighthouse keeper of` -> `is the keeper of`); otherwise the words
    before a verb are dropped (`cheerful deckhand who rides on` -> `rides on`), and a span with
    none of these says nothing the generator can use.

    Example:
        >>> [shaped(s) for s in ("goes to sea on", "skipper of", "next to", "market hall on", "17")]
        ['goes to sea on', 'is the skipper of', 'next to', None, None]
    """
    words = span.split()
    for i, w in enumerate(words):
        rest = words[i:]
        after = rest[1] if len(rest) > 1 else ""
        # a participle only before its preposition: `moored at`, `living in`; not `blue-doored`
        participle = (past_base_verb(w) is not None or w.endswith("ing")) and after in OPEN_PREPOSITIONS
        if w in {"is", "was", "has"} or base_verb(w) or participle:
            return " ".join(rest)
        if w in OPEN_PREPOSITIONS and len(rest) >= 2:
            return " ".join(rest)
    if len(words) >= 2 and words[-1] == "of" and words[-2] not in PREPOSITIONS:
        return f"is the {words[-2]} of"
    return None


def possessed_noun(text: str, end: int) -> str | None:
    """The noun of `<name>'s <noun>` after a mention ending at `end`, else None.

    Example:
        >>> possessed_noun("Jory's daughter, eleven", 4)
        'daughter'
    """
    m = re.match(r"'s\s+([a-z][\w-]*)", text[end:])
    return m.group(1) if m else None


def mine(entities: Mapping[str, EntityRecord], edges: Iterable[Edge]) -> dict[tuple[str, Side], list[str]]:
    """Candidate phrasings of each relation reading, most frequent first: (type, side) -> phrases.

    A span before the other's name in an entity's text says the relation from that entity;
    `<other>'s <noun>` says the entity is the other's `<noun>`. A pair linked by two relationship
    types gives the span to both (Jory owns and skippers the Morning Star): :func:`kept_phrasings`
    keeps it for the one it reads as.
    """
    found: dict[tuple[str, Side], Counter[str]] = defaultdict(Counter)
    for e in edges:
        source, target = entities.get(e.source_id), entities.get(e.target_id)
        if source is None or target is None:
            continue
        # the source's text naming the target says the phrase ("S skippers T", "S is T's daughter");
        # the target's naming the source, its inverse
        readings: tuple[tuple[EntityRecord, EntityRecord, Side], ...] = (
            (source, target, "phrase"),
            (target, source, "inverse"),
        )
        for here, other, side in readings:
            own = _own_words(other)
            for text in _texts(here):
                for name in _names(other):
                    m = re.search(rf"(?<![\w])(?:the\s+)?{re.escape(name)}(?![\w])", text, re.IGNORECASE)
                    if m is None:
                        continue
                    span = span_before(text, m.start(), own)
                    phrase = shaped(span) if span else None
                    if phrase:
                        found[(e.type, side)][phrase] += 1
                    noun = possessed_noun(text, m.end())
                    if noun:
                        # here is other's <noun>: "here is the <noun> of other"
                        found[(e.type, side)][f"is the {noun} of"] += 1
                    break
    return {k: [p for p, _ in c.most_common()] for k, c in found.items()}


def _texts(entity: EntityRecord) -> list[str]:
    """The entity's description and its text attribute values."""
    values = [v for v in entity.attributes.values() if isinstance(v, str)]
    return [t for t in (entity.description, *values) if t]


def kept_phrasings(
    candidates: Mapping[tuple[str, Side], list[str]],
    ontology: Ontology,
    encode: Callable[[list[str]], Any],
    *,
    min_similarity: float = MIN_SIMILARITY,
) -> dict[str, list[str]]:
    """The candidates the encoder reads as their own relation: ontology phrase -> phrasings.

    Each reading is "<phrase>: <description>"; a candidate stays when its cosine to its own
    reading is at least `min_similarity` and no other relation reads nearer. Which way round it is
    said comes from the grammar it was mined with, never from the encoder (a pooled encoder reads
    "skippers" about as near "is skippered by" as "is the skipper of"). `encode`: texts -> unit
    vectors. The result has the shape of the synonym table (the generator's `rewordings`).
    """
    import numpy as np

    readings: list[tuple[str, Side, str]] = []
    for rel in ontology.relation_types:
        for side, phrase in (("phrase", rel.phrase), ("inverse", rel.inverse_phrase)):
            if phrase:
                readings.append((rel.type, side, phrase))  # type: ignore[arg-type]
    if not readings or not candidates:
        return {}
    texts = [f"{p}: {ontology.relation(t).description}".rstrip(": ") for t, _, p in readings]
    rv = np.asarray(encode(texts))
    index = {(t, s): i for i, (t, s, _) in enumerate(readings)}
    flat = [(key, c) for key, cs in candidates.items() if key in index for c in cs]
    if not flat:
        return {}
    cv = np.asarray(encode([c for _, c in flat]))
    sims = cv @ rv.T
    out: dict[str, list[str]] = {}
    for row, (key, phrase) in zip(sims, flat, strict=True):
        own = index[key]
        original = readings[own][2]
        if phrase == original or row[own] < min_similarity or readings[int(np.argmax(row))][0] != key[0]:
            continue
        out.setdefault(original, []).append(phrase)
    return out
