"""Intent detection: what kind of entity a question asks for, and which relations it hints at.

Rule-based plus embeddings, no LLM. The vocabulary is the ontology of the graph: entity types with
their descriptions, relationship types with their phrases and source/target types. Nothing here
names a dataset's types.

- wh-words and their nouns: `who` -> person-like types, `where` -> place-like types, `when` ->
  time-like types (each word is embedded as a short generic concept and compared with the type
  descriptions); `which village` / `what movies` / `what are the languages` -> the noun is compared
  with the type labels and descriptions;
- attribute questions (`what colour is ...`, `how old ...`) and definition questions (`who is
  Jane?`) ask about a NAMED entity: then the answer is that entity itself;
- relation hints: embedding similarity of the question (named mentions masked) to each relationship
  type's text; when the question has no type word (`what does [X] star in`), the hinted relation's
  far end gives the expected type; when a clause of time follows the asked clause (`Where was Bob
  when the kitchen was cleaned up?`), the asked clause alone, its named entities by type (`Where
  was the animal?`), is what is compared;
- named entities (mentions in `[brackets]`, or names of candidate entities found in the question)
  are never the answer, unless the question is a definition/attribute one;
- described entities: candidates the question names in other words, by the stems of their name or
  of a kind attribute (`when the kitchen was cleaned up` -> `Kitchen clean-up`, `first meet` -> an
  event with `event_type: first meeting`); like named ones, never the answer.

Example:
    >>> _head_noun("which village was bob in".split(), 0)
    'village'
"""

from __future__ import annotations

import hashlib
import logging
import math
import re
import threading
from collections import deque
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

from pathrag_gds.ontology import Ontology
from pathrag_gds.paths import EntityRecord, kind_nouns

log = logging.getLogger(__name__)

F32 = npt.NDArray[np.float32]

#: Generic concepts behind wh-words without a noun (compared with type descriptions by embedding).
WH_CONCEPTS: dict[str, str] = {
    "who": "a person or a character, someone",
    "whom": "a person or a character, someone",
    "whose": "a person or a character, someone",
    "where": "a place or a location",
    "when": "a time, a date or a year",
}
#: Words that open a relative clause (`the dog that chases Bob`): the question then holds two
#: relations, and the one nearest the named entity need not be the one asked about.
RELATIVE_WORDS = frozenset({"that", "which", "who", "whom", "whose", "where", "when"})
#: Words that open a clause of time after the question's own clause ("Where was Bob when the kitchen
#: was cleaned up?"): the wh-word asks about the clause before it; the later clause names the occasion.
TEMPORAL_WORDS = ("when", "while")
#: Nouns that ask for a property of a named entity, not for another entity (general English).
ATTRIBUTE_NOUNS = frozenset(
    {
        "colour", "color", "age", "size", "height", "weight", "length", "name", "population", "breed",
        "species", "price", "temperament", "address", "material", "shape", "occupation", "job", "food",
        "number", "hobby", "role", "mood", "texture",
    }
)  # fmt: skip
#: Question openers asking about a property ("how old is ...").
ATTRIBUTE_OPENERS = ("how old", "how big", "how tall", "how many", "how much", "how long")
_STOP = frozenset(
    {
        "is", "are", "was", "were", "be", "been", "did", "does", "do", "has", "have", "had", "can", "could",
        "would", "will", "should", "the", "a", "an", "of", "in", "on", "at", "for", "to", "by", "with",
        "from", "that", "this", "these", "those", "and", "or", "also", "whose", "who", "which", "what",
        "when", "where", "x", "kind", "type", "sort", "kinds", "types", "sorts", "primary", "main",
        "spoken", "share", "shares", "together", "it", "its", "their", "his", "her", "he", "she", "they",
        "there", "first", "other",
    }
)  # fmt: skip
#: Words a described entity's name may hold without them counting towards its content words.
FUNCTION_WORDS = frozenset(
    {
        "is", "are", "was", "were", "be", "been", "did", "does", "do", "has", "have", "had", "the", "a",
        "an", "of", "in", "on", "at", "for", "to", "by", "with", "from", "and", "or", "up", "out", "off",
    }
)  # fmt: skip
#: Content words a name or kind needs before stems may match it (one-word names match exactly only).
DESCRIBED_MIN_WORDS = 2
#: Softmax temperature turning cosine similarities into scores in (0, 1] (best = 1).
TEMPERATURE = 0.05
#: A type (or relation) with at least this score counts as expected (hinted).
EXPECTED_MIN = 0.5
#: Placeholder for masked named mentions.
MASK = "X"


class Encoder(Protocol):
    """What intent detection needs from an embedder: `encode(texts) -> (n, dim)` unit vectors."""

    def encode(self, texts: Sequence[str]) -> Any:
        """Embed texts."""
        ...


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
        named_types: labels of the named entities.
        described: ids of entities the question names in other words (:func:`described_entities`);
            not in `named`, and not counted in `named_types`.
        reasons: how each decision was made (shown by the `intent` command).
    """

    question: str
    kind: str = "unknown"
    type_scores: dict[str, float] = field(default_factory=dict)
    relation_hints: dict[str, float] = field(default_factory=dict)
    wh: str = ""
    noun: str = ""
    mentions: tuple[str, ...] = ()
    named: tuple[str, ...] = ()
    named_types: tuple[str, ...] = ()
    described: tuple[str, ...] = ()
    reasons: tuple[str, ...] = ()

    @property
    def expected_types(self) -> list[str]:
        """Entity types the answer should have, best first (score >= EXPECTED_MIN)."""
        ranked = sorted(self.type_scores.items(), key=lambda kv: (-kv[1], kv[0]))
        return [t for t, s in ranked if s >= EXPECTED_MIN]

    @property
    def answer_is_named(self) -> bool:
        """True when the question asks about a named entity itself (attribute / definition)."""
        return self.kind in {"attribute", "definition"}

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
            "named_types": list(self.named_types),
            "described": list(self.described),
            "reasons": list(self.reasons),
        }


# --------------------------------------------------------------------------------------------------
# text helpers
# --------------------------------------------------------------------------------------------------


def singular(word: str) -> str:
    """A crude English singular: `movies` -> `movie`, `languages` -> `language`, `boxes` -> `box`."""
    w = word.lower()
    if len(w) > 4 and w.endswith(("vies", "kies", "zies")):  # movies, cookies
        return w[:-1]
    if len(w) > 4 and w.endswith("ies"):
        return w[:-3] + "y"
    if len(w) > 4 and re.search(r"(s|x|ch|sh)es$", w):
        return w[:-2]
    if len(w) > 3 and w.endswith("s") and not w.endswith("ss"):
        return w[:-1]
    return w


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9']+", text.lower())


def bracket_mentions(question: str) -> list[str]:
    """Mentions written in square brackets (`[Tom Cullen]`), as MetaQA marks topic entities."""
    return [m.strip() for m in re.findall(r"\[([^\]]+)\]", question) if m.strip()]


def named_entities(question: str, entities: Iterable[EntityRecord]) -> dict[str, str]:
    """Entities whose name occurs in the question as whole words: id -> name (names >= 3 chars).

    A name inside a longer matched name is dropped (`Bob` vs `Bob the Cat`) only when both are the
    same entity; different entities both count.
    """
    q = question.lower()
    out: dict[str, str] = {}
    for e in entities:
        name = e.name.lower().strip()
        if len(name) >= 3 and re.search(rf"(?<!\w){re.escape(name)}(?!\w)", q):
            out[e.id] = e.name
    return out


def stem(word: str) -> str:
    """A crude English stem: :func:`singular`, then `-ing` / `-ed` off (`cleaned` -> `clean`).

    Example:
        >>> [stem(w) for w in ("cleaned", "meeting", "spilling", "stopped", "used", "incidents")]
        ['clean', 'meet', 'spill', 'stop', 'used', 'incident']
    """
    w = singular(word)
    for suffix in ("ing", "ed"):
        if w.endswith(suffix) and len(w) - len(suffix) >= 3:
            w = w[: -len(suffix)]
            if len(w) > 3 and w[-1] == w[-2] and w[-1] not in "lsz":  # stopped -> stop, not spill
                w = w[:-1]
            break
    return w


def _stems(text: str) -> list[str]:
    return [stem(w) for w in re.findall(r"[a-z0-9]+", text.lower())]


def described_entities(
    question: str, entities: Iterable[EntityRecord], named: Mapping[str, str] | None = None
) -> dict[str, str]:
    """Entities the question names in other words: id -> the name or kind it matched.

    An entity is described when every word of its name, or of one of its kind attributes
    (:func:`~pathrag_gds.paths.kind_nouns`: `event_type: first meeting`), occurs in the question
    up to its stem, the name or kind has at least :data:`DESCRIBED_MIN_WORDS` content words
    (one-word names are matched exactly, by :func:`named_entities`), and one of them is a word of
    the question outside the `named` mentions (id -> name, as :func:`named_entities` returns; those
    entities are skipped): a title inside a longer named title is not described by it ("Wild River"
    in "The River Wild"), while "Kitchen clean-up" is, by "cleaned up" beside the named kitchen.

    Example:
        >>> cleanup = EntityRecord("c", ("Event",), "Kitchen clean-up")
        >>> meeting = EntityRecord("m", ("Event",), "Encounter", "", {"event_type": "first meeting"})
        >>> described_entities("Where was Bob when the kitchen was cleaned up?", [cleanup, meeting])
        {'c': 'Kitchen clean-up'}
        >>> described_entities("Where did Bob first meet Joy?", [cleanup, meeting])
        {'m': 'first meeting'}
    """
    named = named or {}
    q = set(_stems(question))
    outside = {w for w in _stems(mask_mentions(question, named.values())) if w not in _STOP}
    out: dict[str, str] = {}
    for e in entities:
        if e.id in named:
            continue
        for phrase in (e.name, *kind_nouns(e.attributes)):
            words = _stems(phrase)
            content = [w for w in words if w not in FUNCTION_WORDS]
            if (
                len(content) >= DESCRIBED_MIN_WORDS
                and all(w in q for w in words)
                and any(w in outside for w in content)
            ):
                out[e.id] = phrase
                break
    return out


def mask_mentions(question: str, mentions: Iterable[str]) -> str:
    """The question with bracketed and named mentions replaced by `X` (they are not the answer)."""
    text = re.sub(r"\[[^\]]*\]", MASK, question)
    for m in sorted(set(mentions), key=len, reverse=True):
        if len(m) >= 3:
            text = re.sub(rf"(?<!\w){re.escape(m)}(?!\w)", MASK, text, flags=re.IGNORECASE)
    return text


def main_clause(question: str, wh: str, mentions: Iterable[str] = ()) -> str | None:
    """The clause a wh-word asks about, when a clause of time follows it; else None.

    "Where was Bob when the kitchen was cleaned up?" asks where Bob was; the clean-up only says
    when. A `when` that is itself the question's wh-word (MetaQA's "[Macbeth], when was it
    released") opens no later clause, nor does one inside a name (`[When Nietzsche Wept]`, or any
    of `mentions`).

    Example:
        >>> main_clause("Where was Bob when the kitchen was cleaned up?", "where")
        'Where was Bob?'
        >>> main_clause("the movie [Macbeth], when was it released", "when") is None
        True
        >>> main_clause("what is [When Harry Met Sally] about", "what") is None
        True
    """
    if not wh:
        return None
    low = re.sub(r"\[[^\]]*\]", lambda m: "_" * len(m.group()), question.lower())
    for mention in mentions:
        low = re.sub(rf"(?<!\w){re.escape(mention.lower())}(?!\w)", lambda m: "_" * len(m.group()), low)
    at = re.search(rf"(?<!\w){re.escape(wh)}(?!\w)", low)
    if at is None:
        return None
    words = "|".join(TEMPORAL_WORDS)
    later = re.search(rf"(?<![\w'])(?:{words})(?![\w'])", low[at.end() :])
    if later is None:
        return None
    head = question[: at.end() + later.start()].rstrip(" ,;:-")
    return head + "?" if len(_words(head)) >= 2 else None


def type_mentions(text: str, named: Mapping[str, str], labels: Mapping[str, str]) -> str:
    """`text` with each named mention replaced by its entity's type (`Bob` -> `the animal`).

    Relation sentences are written in type words ("Animal hides in Place"), so a clause that says
    what kind of thing its subject is matches them where `X` cannot. Brackets are masked as `X`.

    Args:
        text: a question or a clause of it.
        named: entity id -> the mention in the text (:func:`named_entities`).
        labels: entity id -> type label.

    Example:
        >>> type_mentions("Where was Bob?", {"bob": "Bob"}, {"bob": "Animal"})
        'Where was the animal?'
    """
    kinds: dict[str, set[str]] = {}
    for eid, mention in named.items():
        kinds.setdefault(mention, set()).add(re.sub(r"(?<=[a-z])(?=[A-Z])", " ", labels[eid]).lower())
    out = mask_mentions(text, ())  # brackets only
    for mention in sorted(kinds, key=len, reverse=True):
        if len(mention) >= 3:
            the = "the " + " or ".join(sorted(kinds[mention]))
            out = re.sub(
                rf"(?<!\w)(?:(?:the|an?)\s+)?{re.escape(mention)}(?!\w)", the, out, flags=re.IGNORECASE
            )
    return out


def _noun_phrase(words: Sequence[str], start: int) -> list[str]:
    """Up to two words of the noun phrase after position `start` (`which village` -> [`village`]).

    Leading `the`/`kind of`/auxiliaries are skipped (`what are the languages`); when the skipped words
    hold an auxiliary verb followed by the subject (`what did X ...`, `what was X the director of`)
    the words after it are not a type word, so the phrase is empty.
    """
    phrase: list[str] = []
    i = start + 1
    skipped: list[str] = []
    while i < len(words) and words[i] in _STOP:
        if (
            words[i] in {"kind", "type", "sort", "kinds", "types", "sorts"}
            and i + 1 < len(words)
            and words[i + 1] == "of"
        ):
            skipped.append(words[i])
            i += 2
            continue
        skipped.append(words[i])
        i += 1
    if MASK.lower() in skipped or (skipped and skipped[0] in {"did", "does", "do", "can", "could", "will"}):
        return []
    while i < len(words) and words[i] not in _STOP and len(phrase) < 2:
        phrase.append(words[i])
        i += 1
    return phrase


def _head_noun(words: Sequence[str], start: int) -> str:
    """The last word of :func:`_noun_phrase` (the head of a short English noun phrase)."""
    phrase = _noun_phrase(words, start)
    return phrase[-1] if phrase else ""


def wh_and_noun(masked: str) -> tuple[str, str]:
    """The wh-word and the noun it asks about (`which village` -> (`which`, `village`)).

    `which`/`what` take the noun after them (`what movies`, `what are the languages`, `what was the
    release year`); `who`/`where`/`when` need no noun (`who is the director` keeps `director` only
    as a hint for relations, not as the type word).
    """
    words = _words(masked)
    if "who" in words or "whom" in words:
        return ("who" if "who" in words else "whom"), ""
    for i, w in enumerate(words):
        if w in {"which", "what"}:
            phrase = [n for n in _noun_phrase(words, i) if not n.endswith("'s")]
            return w, " ".join(phrase)
        if w in {"where", "when", "whose"}:
            return w, ""
    low = masked.lower()
    for opener in ATTRIBUTE_OPENERS:
        if low.startswith(opener):
            return "how", opener.split()[1]
    return "", ""


def _softmax_scores(sims: Mapping[str, float], temperature: float = TEMPERATURE) -> dict[str, float]:
    if not sims:
        return {}
    top = max(sims.values())
    return {k: math.exp((v - top) / temperature) for k, v in sims.items()}


# --------------------------------------------------------------------------------------------------
# the ontology's vocabulary, embedded once
# --------------------------------------------------------------------------------------------------


@dataclass
class OntologyVocabulary:
    """Embedded type and relation texts of one ontology (build with :func:`vocabulary`).

    Attributes:
        ontology: the ontology.
        labels: entity type labels, in order.
        label_vecs: `a <label>` phrases embedded, one row per label.
        type_vecs: `<label>: <description>` embedded.
        relations: relationship types, in order.
        relation_vecs: each relation's sentence (`<source> <phrase> <target>. <description>`).
        concept_scores: wh-word -> type scores of its generic concept.
    """

    ontology: Ontology
    labels: list[str]
    label_vecs: F32
    type_vecs: F32
    relations: list[str]
    relation_vecs: F32
    concept_scores: dict[str, dict[str, float]]
    _noun_cache: dict[str, dict[str, float]] = field(default_factory=dict)

    def best_noun(self, words: Sequence[str], encoder: Encoder) -> tuple[dict[str, float], float, str]:
        """Scores of the word of a short noun phrase that best fits a type (`dog keeps` -> `dog`)."""
        best: tuple[dict[str, float], float, str] = ({}, -1.0, "")
        for w in words:
            scores, sim = self.noun_scores(w, encoder)
            if sim > best[1]:
                best = (scores, sim, w)
        return best

    def noun_scores(self, noun: str, encoder: Encoder) -> tuple[dict[str, float], float]:
        """Type scores of a noun, and its best raw similarity (how well any type fits)."""
        key = singular(noun)
        if key not in self._noun_cache:
            for lab in self.labels:  # the noun is a type label (plural or not)
                if singular(lab) == key:
                    self._noun_cache[key] = {t: (1.0 if t == lab else 0.0) for t in self.labels}
                    self._noun_cache[key + "#best"] = {"": 1.0}
                    break
            else:
                v = np.asarray(encoder.encode([f"a {key}", key]), dtype=np.float32)
                sims = 0.5 * (self.label_vecs @ v[0]) + 0.5 * (self.type_vecs @ v[1])
                raw = {t: float(s) for t, s in zip(self.labels, sims, strict=True)}
                self._noun_cache[key] = _softmax_scores(raw)
                self._noun_cache[key + "#best"] = {"": max(raw.values()) if raw else 0.0}
        return self._noun_cache[key], self._noun_cache[key + "#best"][""]


def relation_text(ontology: Ontology, rel_type: str) -> str:
    """The sentence that stands for a relationship type when embedding."""
    r = ontology.relation(rel_type)
    src = " or ".join(r.source_labels) or "something"
    tgt = " or ".join(r.target_labels) or "something"
    inv = f" {tgt} {r.inverse_phrase} {src}." if r.inverse_phrase else ""
    return f"{src} {r.phrase} {tgt}.{inv} {r.description}".strip()


def type_text(label: str, description: str) -> str:
    """The text that stands for an entity type when embedding."""
    return f"{label}: {description}" if description else label


_vocab_cache: dict[str, OntologyVocabulary] = {}
_vocab_lock = threading.Lock()


def _fingerprint(ontology: Ontology, encoder: Encoder) -> str:
    h = hashlib.sha256()
    h.update(str(id(encoder)).encode())
    for e in ontology.entity_types:
        h.update(f"E|{e.label}|{e.description}\n".encode())
    for r in ontology.relation_types:
        h.update(f"R|{relation_text(ontology, r.type)}\n".encode())
    return h.hexdigest()


def vocabulary(ontology: Ontology, encoder: Encoder) -> OntologyVocabulary:
    """The embedded vocabulary of an ontology, computed once per ontology content and cached.

    An inferred ontology (no stored one) has labels without descriptions: the labels alone are
    embedded, which still works for questions that use the type words.
    """
    key = _fingerprint(ontology, encoder)
    with _vocab_lock:
        cached = _vocab_cache.get(key)
        if cached is not None:
            return cached
    labels = ontology.labels
    rels = ontology.relation_names
    concepts = list(WH_CONCEPTS.values())
    texts = (
        [f"a {lab.lower()}" for lab in labels]
        + [type_text(e.label, e.description) for e in ontology.entity_types]
        + [relation_text(ontology, r) for r in rels]
        + concepts
    )
    vecs = np.asarray(encoder.encode(texts), dtype=np.float32) if texts else np.zeros((0, 1), np.float32)
    n, m = len(labels), len(rels)
    label_vecs, type_vecs = vecs[:n], vecs[n : 2 * n]
    rel_vecs = vecs[2 * n : 2 * n + m]
    concept_vecs = vecs[2 * n + m :]
    concept_scores: dict[str, dict[str, float]] = {}
    for (wh, _), cv in zip(WH_CONCEPTS.items(), concept_vecs, strict=True):
        if not labels:
            concept_scores[wh] = {}
            continue
        sims = 0.5 * (label_vecs @ cv) + 0.5 * (type_vecs @ cv)
        concept_scores[wh] = _softmax_scores({t: float(s) for t, s in zip(labels, sims, strict=True)})
    vocab = OntologyVocabulary(ontology, labels, label_vecs, type_vecs, rels, rel_vecs, concept_scores)
    with _vocab_lock:
        _vocab_cache[key] = vocab
    return vocab


def clear_vocabulary_cache() -> None:
    """Forget embedded vocabularies (tests; after an ontology changes)."""
    with _vocab_lock:
        _vocab_cache.clear()


# --------------------------------------------------------------------------------------------------
# inference
# --------------------------------------------------------------------------------------------------


def infer_intent(
    question: str,
    ontology: Ontology,
    encoder: Encoder,
    entities: Iterable[EntityRecord] = (),
) -> Intent:
    """Infer what a question asks for, using the ontology as the vocabulary.

    Args:
        question: the question, in words (`[...]` marks a named entity, as in MetaQA).
        ontology: the graph's ontology (entity and relationship types).
        encoder: the sentence embedder (`encode(texts) -> unit vectors`).
        entities: candidate entities (e.g. the seeds): those named in the question are recorded in
            `named` and their types in `named_types`.

    Returns:
        The intent: kind, expected answer types with scores, hinted relations, named entities.
    """
    vocab = vocabulary(ontology, encoder)
    if ontology.inferred:
        log.warning(
            "no stored ontology: intent uses the database's labels and relationship types only "
            "(no descriptions, no source/target types); load an ontology for better intent"
        )
    ents = list(entities)
    named_map = named_entities(question, ents)
    by_id = {e.id: e for e in ents}
    mentions = bracket_mentions(question) + [n for n in named_map.values()]
    named_types = tuple(sorted({by_id[i].label for i in named_map}))
    described = described_entities(question, ents, named_map)
    masked = mask_mentions(question, mentions)
    wh, noun = wh_and_noun(masked)
    reasons: list[str] = []
    if described:
        said = [by_id[i].name + ("" if m == by_id[i].name else f" (a {m})") for i, m in described.items()]
        reasons.append("named in other words: " + ", ".join(said))

    # relation hints: the masked question against every relation's sentence; when a clause of time
    # follows the asked clause, that clause alone, its named entities by type
    hints: dict[str, float] = {}
    if vocab.relations:
        hint_text = masked
        clause = main_clause(question, wh, mentions)
        if clause is not None:
            hint_text = type_mentions(clause, named_map, {i: by_id[i].label for i in named_map})
            reasons.append(f"relations asked by the main clause: '{hint_text}'")
        qv = np.asarray(encoder.encode([hint_text]), dtype=np.float32)[0]
        sims = vocab.relation_vecs @ qv
        hints = _softmax_scores({r: float(s) for r, s in zip(vocab.relations, sims, strict=True)})
        top = sorted(hints.items(), key=lambda kv: -kv[1])[:3]
        reasons.append("relations by similarity: " + ", ".join(f"{r} {s:.2f}" for r, s in top))

    kind = "entity"
    scores: dict[str, float] = {}
    words = _words(masked)
    rest = [w for w in words if w not in _STOP and w not in {"?", MASK.lower()}]
    if (
        wh in {"who", "what", "which"}
        and words[:2] in (["who", "is"], ["who", "are"], ["what", "is"])
        and (not rest and named_map)
    ):
        kind = "definition"
        reasons.append("definition question: the named entity is the answer")
    elif noun and (
        any(singular(n) in ATTRIBUTE_NOUNS for n in noun.split()[:1])
        or wh == "how"
        or _is_attribute_of(noun.split()[0], ents, named_map)
    ):
        kind = "attribute"
        reasons.append(f"'{noun}' is a property: the named entity is the answer")
    if kind in {"definition", "attribute"}:
        scores = {t: 1.0 for t in named_types} if named_types else {}
    elif noun:
        scores, best, noun = vocab.best_noun(noun.split(), encoder)
        reasons.append(f"noun '{noun}' -> {_top(scores)} (similarity {best:.2f})")
    elif wh in vocab.concept_scores:
        scores = dict(vocab.concept_scores[wh])
        reasons.append(f"wh-word '{wh}' -> {_top(scores)}")
    after_wh = words[words.index(wh) + 1 :] if wh in words else words
    one_clause = not any(w in RELATIVE_WORDS for w in after_wh)
    if kind == "entity" and wh in {"who", "whom"} and not noun and named_types and hints and one_clause:
        for t, h in _same_type_ends(vocab, hints, named_types).items():
            if h > scores.get(t, 0.0):
                scores[t] = h
                reasons.append(f"'{wh}' of a relation between two {t}s: {t} {h:.2f}")
    if kind == "entity" and (not noun or wh == "what") and hints and (not scores or wh == "what"):
        derived = _types_from_relations(vocab, hints, named_types, exclude_person_like=(wh == "what"))
        if derived and not scores:
            scores = derived
            reasons.append(f"no type word: far end of hinted relations -> {_top(scores)}")
    if not scores:
        kind = "unknown" if kind == "entity" else kind
    return Intent(
        question=question,
        kind=kind,
        type_scores=scores,
        relation_hints=hints,
        wh=wh,
        noun=noun,
        mentions=tuple(mentions),
        named=tuple(sorted(named_map)),
        named_types=named_types,
        described=tuple(sorted(described)),
        reasons=tuple(reasons),
    )


def _top(scores: Mapping[str, float]) -> str:
    ranked = sorted(scores.items(), key=lambda kv: -kv[1])
    return ", ".join(f"{t} {s:.2f}" for t, s in ranked if s >= 0.1) or "nothing"


def _is_attribute_of(noun: str, entities: Sequence[EntityRecord], named: Mapping[str, str]) -> bool:
    """Is `noun` part of an attribute key of a named entity (`color` in `fur_color`)?"""
    key = singular(noun)
    return any(e.id in named and any(key in k.lower().split("_") for k in e.attributes) for e in entities)


def _same_type_ends(
    vocab: OntologyVocabulary, hints: Mapping[str, float], named_types: Sequence[str]
) -> dict[str, float]:
    """Named entities' types that a hinted relation links to their own type, with the hint's score.

    `Who are Bob's friends?` about a cat: `is_friend_of` links animals to animals, so the answer may
    be an animal even though `who` reads as a person. Used for one-clause questions only (no
    :data:`RELATIVE_WORDS` after the wh-word: "Tell me who Bob's friends are" qualifies).
    """
    out: dict[str, float] = {}
    for rel, h in hints.items():
        if h < EXPECTED_MIN:
            continue
        r = vocab.ontology.relation(rel)
        for t in named_types:
            if t in r.source_labels and t in r.target_labels:
                out[t] = max(out.get(t, 0.0), h)
    return out


def _types_from_relations(
    vocab: OntologyVocabulary,
    hints: Mapping[str, float],
    named_types: Sequence[str],
    *,
    exclude_person_like: bool,
) -> dict[str, float]:
    """Expected types from the hinted relations' ends (the end that is not the named entity's type)."""
    person_like = {t for t, s in vocab.concept_scores.get("who", {}).items() if s >= EXPECTED_MIN}
    out: dict[str, float] = {}
    for rel, h in hints.items():
        if h < EXPECTED_MIN:
            continue
        r = vocab.ontology.relation(rel)
        ends = set(r.source_labels) | set(r.target_labels)
        if named_types and len(ends) > 1:
            ends -= set(named_types)
        if exclude_person_like and len(ends - person_like) >= 1:
            ends -= person_like
        for t in ends:
            out[t] = max(out.get(t, 0.0), h)
    return out


# --------------------------------------------------------------------------------------------------
# relation whitelist per intent and depth
# --------------------------------------------------------------------------------------------------


def type_distances(ontology: Ontology, targets: Iterable[str]) -> dict[str, int]:
    """Hops in the ontology's type graph (relations read both ways) from each type to `targets`."""
    adj: dict[str, set[str]] = {}
    for r in ontology.relation_types:
        for a in r.source_labels:
            for b in r.target_labels:
                adj.setdefault(a, set()).add(b)
                adj.setdefault(b, set()).add(a)
    dist = {t: 0 for t in targets}
    queue = deque(dist)
    while queue:
        t = queue.popleft()
        for n in adj.get(t, ()):
            if n not in dist:
                dist[n] = dist[t] + 1
                queue.append(n)
    return dist


def relations_allowed(
    ontology: Ontology, intent: Intent | None, base: Sequence[str], depth: int, max_depth: int
) -> list[str]:
    """The relationship types the walk may take at `depth` (1-based) for this intent.

    A relation is allowed when, after walking it, a type the answer may have is still reachable in
    the hops left (`max_depth - depth`), by the ontology's source/target types. So a place question
    walks relations that touch places at any depth, and other relations only while a place is still
    within reach; the last hop must land on an expected type. Relations the ontology does not type
    (no source/target labels), an unknown intent, or an attribute/definition question: no filter.
    """
    if intent is None or intent.answer_is_named or not intent.expected_types:
        return list(base)
    expected = intent.expected_types
    dist = type_distances(ontology, expected)
    left = max_depth - depth
    out = []
    for rel in base:
        r = ontology.relation(rel)
        ends = set(r.source_labels) | set(r.target_labels)
        if not ends or not r.source_labels or not r.target_labels:
            out.append(rel)
            continue
        near = min((dist.get(t, math.inf) for t in ends), default=math.inf)
        if near <= left:
            out.append(rel)
    return out
