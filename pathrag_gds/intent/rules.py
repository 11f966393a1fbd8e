"""The rules of intent detection, one named function each, applied in order by :func:`~.infer.infer_intent`.

A :class:`Reading` is what the question's words say (no model); a :class:`Draft` is the intent
decided so far. Each rule takes the reading and the draft and returns the draft, changed where the
rule applies, with a reason saying why. In order:

1. :func:`described_rule`: entities named in other words are noted (never the answer);
2. :func:`relation_hint_rule`: the question (or its asked clause) against every relation's sentence;
3. :func:`definition_rule`: `who is Jane?` asks for the named entity itself;
4. :func:`attribute_rule`: `what colour is Bob?` asks for a property of the named entity;
5. :func:`named_answer_rule`: for those two, the answer's types are the named entities' types;
6. :func:`noun_rule`: `which village` -> the type whose label and description fit the noun best;
   :func:`kind_of_named_rule`: `what kind of movie is X?` about a movie asks for a category of X;
   :func:`property_of_a_chain_rule`: `the name of X's father's boat` asks for the boat;
7. :func:`wh_concept_rule`: `where` / `when` / `who` without a noun -> the types fitting its concept;
8. :func:`same_type_rule`: `who` along a relation that links the named entity's type to itself;
9. :func:`relation_end_rule`: no type word -> the far ends of the hinted relations;
10. :func:`unknown_rule`: nothing decided a type -> the kind is `unknown`.

Example:
    >>> r = read_question("Who is Jane?", [EntityRecord("j", ("Person",), "Jane")])
    >>> definition_rule(r, Draft(noun=r.noun)).kind
    'definition'
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace

import numpy as np

from pathrag_gds.intent.lexicon import (
    DEFINITION_OPENERS,
    DEFINITION_WH,
    DO_SUPPORT,
    PERSON_WH,
    PHRASE_FILLER,
    RELATIVE_WORDS,
    STOP_WORDS,
    VERB_PARTICLES,
)
from pathrag_gds.intent.mentions import (
    bracket_mentions,
    definite_descriptions,
    described_entities,
    mask_mentions,
    named_entities,
    part_names,
    role_descriptions,
    type_mentions,
)
from pathrag_gds.intent.model import EXPECTED_MIN, Encoder, softmax_scores
from pathrag_gds.intent.text import (
    asks_kind_of_named,
    closed_phrase,
    link_nouns,
    main_clause,
    names_a_property,
    singular,
    verb_key,
    wh_and_noun,
    words,
)
from pathrag_gds.intent.vocabulary import OntologyVocabulary
from pathrag_gds.paths import EntityRecord

#: Hinted relations a reason lists.
REASON_RELATIONS = 3
#: Type scores under this are left out of a reason.
REASON_MIN_SCORE = 0.1


@dataclass(frozen=True)
class Reading:
    """What the question's words say, before any rule decides (no model).

    Attributes:
        question: the question as asked.
        entities: candidate entities by id.
        named: id -> the words naming each candidate the question names: its name
            (:func:`named_entities`) or a definite description (:func:`definite_descriptions`).
        described: id -> the name or kind of those named in other words (:func:`described_entities`).
        mentions: bracketed mentions, then the names of `named`.
        named_types: labels of the named entities, sorted.
        masked: the question with every mention replaced by `X`.
        words: the words of `masked`.
        wh: the wh-word (`which`, `who`, ... or `how` for `how old`), or "".
        noun: the type noun after it (`village`), or "".
    """

    question: str
    entities: Mapping[str, EntityRecord]
    named: Mapping[str, str]
    described: Mapping[str, str]
    mentions: tuple[str, ...]
    named_types: tuple[str, ...]
    masked: str
    words: tuple[str, ...]
    wh: str
    noun: str

    @property
    def content_words(self) -> list[str]:
        """Words of the masked question that are not function or question words."""
        return [w for w in self.words if w not in STOP_WORDS]

    @property
    def kind_of_named(self) -> bool:
        """`what kind of movie is X?` (:func:`~.text.asks_kind_of_named`)."""
        return asks_kind_of_named(self.words, self.wh)

    @property
    def one_clause(self) -> bool:
        """No relative clause follows the wh-word (`the dog that chases Bob` holds two relations)."""
        after = self.words[self.words.index(self.wh) + 1 :] if self.wh in self.words else self.words
        return not any(w in RELATIVE_WORDS for w in after)


def read_question(question: str, entities: Iterable[EntityRecord] = ()) -> Reading:
    """Find the mentions, mask them, and read the wh-word and its noun.

    Example:
        >>> r = read_question("Which village was Bob in?", [EntityRecord("b", ("Animal",), "Bob")])
        >>> r.masked, r.wh, r.noun, r.named_types
        ('Which village was X in?', 'which', 'village', ('Animal',))
    """
    by_id = {e.id: e for e in entities}
    named = named_entities(question, by_id.values())
    named.update(definite_descriptions(question, by_id.values(), named))
    named.update(role_descriptions(question, by_id.values(), named))
    named.update(part_names(question, by_id.values(), named))
    mentions = (*bracket_mentions(question), *named.values())
    masked = mask_mentions(question, mentions)
    wh, noun = wh_and_noun(masked)
    return Reading(
        question=question,
        entities=by_id,
        named=named,
        described=described_entities(question, by_id.values(), named),
        mentions=mentions,
        named_types=tuple(sorted({by_id[i].label for i in named})),
        masked=masked,
        words=tuple(words(masked)),
        wh=wh,
        noun=noun,
    )


@dataclass(frozen=True)
class Draft:
    """The intent as decided so far.

    Attributes:
        kind: `entity`, `attribute`, `definition` or `unknown` (see :class:`~.model.Intent`).
        scores: expected type -> score.
        hints: hinted relation -> score.
        noun: the type noun (the word of the noun phrase that fit a type best, once chosen).
        reasons: why, one line a decision.
    """

    kind: str = "entity"
    scores: Mapping[str, float] = field(default_factory=dict)
    hints: Mapping[str, float] = field(default_factory=dict)
    noun: str = ""
    reasons: tuple[str, ...] = ()

    def because(self, reason: str, **changes: object) -> Draft:
        """This draft with `changes` and one more reason."""
        return replace(self, reasons=(*self.reasons, reason), **changes)  # type: ignore[arg-type]


def top_scores(scores: Mapping[str, float]) -> str:
    """`Place 1.00, Event 0.31`: the scores a reason shows (those of at least REASON_MIN_SCORE).

    Example:
        >>> top_scores({"Event": 0.31, "Place": 1.0, "Person": 0.01})
        'Place 1.00, Event 0.31'
    """
    ranked = sorted(scores.items(), key=lambda kv: -kv[1])
    return ", ".join(f"{t} {s:.2f}" for t, s in ranked if s >= REASON_MIN_SCORE) or "nothing"


def described_rule(r: Reading, d: Draft) -> Draft:
    """Note the entities named by a description (`the grey cat`) or in other words (`cleaned up`)."""
    by_description = [
        f"{r.entities[i].name} ({w})" for i, w in r.named.items() if w.lower() != r.entities[i].name.lower()
    ]
    if by_description:
        d = d.because("named by a description: " + ", ".join(by_description))
    if not r.described:
        return d
    said = []
    for eid, phrase in r.described.items():
        name = r.entities[eid].name
        said.append(name + ("" if phrase == name else f" (a {phrase})"))
    return d.because("named in other words: " + ", ".join(said))


def relation_hint_rule(r: Reading, d: Draft, vocab: OntologyVocabulary, encoder: Encoder) -> Draft:
    """Relation hints: the masked question's similarity to each relation's sentence, as scores.

    When a clause of time follows the asked clause (`Where was Bob when the kitchen was cleaned
    up?`), that clause alone, its named entities by type (`Where was the animal?`), is compared.
    """
    if not vocab.relations:
        return d
    hint_text = r.masked
    clause = main_clause(r.question, r.wh, r.mentions)
    reasons = list(d.reasons)
    if clause is not None:
        labels = {i: r.entities[i].label for i in r.named}
        hint_text = type_mentions(clause, r.named, labels)
        reasons.append(f"relations asked by the main clause: '{hint_text}'")
    qv = np.asarray(encoder.encode([hint_text]), dtype=np.float32)[0]
    sims = vocab.relation_vecs @ qv
    hints = softmax_scores({rel: float(s) for rel, s in zip(vocab.relations, sims, strict=True)})
    top = sorted(hints.items(), key=lambda kv: -kv[1])[:REASON_RELATIONS]
    reasons.append("relations by similarity: " + ", ".join(f"{rel} {s:.2f}" for rel, s in top))
    return replace(d, hints=hints, reasons=tuple(reasons))


def definition_rule(r: Reading, d: Draft) -> Draft:
    """`who is Jane?` / `what is X?` with nothing else asked: the named entity itself is the answer."""
    if (
        d.kind == "entity"
        and r.wh in DEFINITION_WH
        and tuple(r.words[:2]) in DEFINITION_OPENERS
        and not r.content_words
        and r.named
    ):
        return d.because("definition question: the named entity is the answer", kind="definition")
    return d


def key_words(key: str) -> list[str]:
    """The words of an attribute key that name a property of the entity.

    A kind key (`boat_type`, `place_type`: what the entity is, :func:`pathrag_gds.paths.kind_nouns`)
    names the property with its last word only: "which boat" asks for a boat, "what type" for the
    kind.

    Example:
        >>> key_words("fur_color"), key_words("boat_type")
        (['fur', 'color'], ['type'])
    """
    parts = key.lower().split("_")
    return parts[-1:] if len(parts) > 1 and parts[-1] == "type" else parts


def is_attribute_of(noun: str, r: Reading) -> bool:
    """Is `noun` a word of an attribute key of a named entity (`color` in `fur_color`)?

    Not the thing word of a kind key: the Morning Star's `boat_type` does not make "which boat is
    skippered by ..." a question about the Morning Star's property.
    """
    key = singular(noun)
    return any(any(key in key_words(k) for k in e.attributes) for e in r.entities.values() if e.id in r.named)


def attribute_rule(r: Reading, d: Draft) -> Draft:
    """A property noun (`what colour`), `how old`, or a named entity's attribute key: a property is asked."""
    if d.kind != "entity" or not r.noun:
        return d
    first = r.noun.split()[0]
    if names_a_property(first) or r.wh == "how" or is_attribute_of(first, r):
        return d.because(f"'{r.noun}' is a property: the named entity is the answer", kind="attribute")
    return d


def property_of_a_chain_rule(r: Reading, d: Draft, vocab: OntologyVocabulary, encoder: Encoder) -> Draft:
    """`the name of X's father's boat`: the property is the boat's, so the boat is asked, not X.

    An attribute question whose property noun closes a possessive or `of` chain from the one
    named entity asks for the entity at the chain's end (its property is read off it): the kind
    becomes `entity` and the last link noun gives the scores. "What is X's age?" (no link before
    the property) stays an attribute of X.

    Example:
        >>> jane = [EntityRecord("j", ("Person",), "Jane")]
        >>> r = read_question("What is the name of Jane's father's boat?", jane)
        >>> link_nouns(r.masked)  # the property closes the chain: the boat is asked
        ('father', 'boat', 'name')
    """
    if d.kind != "attribute" or len(r.named) != 1:
        return d
    links = link_nouns(r.masked)
    if len(links) < 2 or not names_a_property(links[-1]):
        return d
    scores, _, noun = vocab.best_noun(links[-2].split(), encoder)
    return d.because(
        f"'{links[-1]}' closes a chain from the named entity: '{noun}' is asked -> {top_scores(scores)}",
        kind="entity",
        scores=scores,
        noun=noun,
    )


def named_answer_rule(r: Reading, d: Draft) -> Draft:
    """For a definition or attribute question, the answer's types are the named entities' types."""
    if d.kind not in {"definition", "attribute"}:
        return d
    return replace(d, scores={t: 1.0 for t in r.named_types})


def noun_rule(r: Reading, d: Draft, vocab: OntologyVocabulary, encoder: Encoder) -> Draft:
    """The type noun (`which village`) gives the scores: a whole phrase's head, else its best-fitting word."""
    if d.kind != "entity" or not r.noun:
        return d
    phrase = r.noun.split()
    headed = closed_phrase(r.words, phrase)
    scores, best, noun = vocab.best_noun(phrase, encoder, headed=headed)
    head = f" (the head of '{r.noun}')" if headed else ""
    reason = f"noun '{noun}'{head} -> {top_scores(scores)} (similarity {best:.2f})"
    return d.because(reason, scores=scores, noun=noun)


def kind_of_named_rule(r: Reading, d: Draft) -> Draft:
    """`What kind of movie is X?` about a movie: X is the movie, the question asks for its category.

    The noun names the named entity's own type, so that type is not the answer's, and no word of
    the question names the category: the scores are dropped and the kind is `unknown` (the chain
    plan and the path texts decide). A noun that is not the named entity's type (`what kind of
    award is X?` about a movie) keeps its scores.

    Example:
        >>> r = read_question("what kind of movie is Heat", [EntityRecord("h", ("Movie",), "Heat")])
        >>> kind_of_named_rule(r, Draft(noun="movie", scores={"Movie": 0.9, "Genre": 0.1})).scores
        {}
    """
    if d.kind != "entity" or not r.kind_of_named or not d.scores:
        return d
    best = max(d.scores, key=lambda t: d.scores[t])
    if best not in r.named_types:
        return d
    return d.because(
        f"'what kind of {d.noun} is X' about a {best}: a category of X is asked", scores={}, kind="unknown"
    )


def wh_concept_rule(r: Reading, d: Draft, vocab: OntologyVocabulary) -> Draft:
    """A wh-word without a noun (`where`, `when`, `who`): the types that fit its generic concept."""
    if d.kind != "entity" or r.noun or r.wh not in vocab.concept_scores:
        return d
    scores = dict(vocab.concept_scores[r.wh])
    return d.because(f"wh-word '{r.wh}' -> {top_scores(scores)}", scores=scores)


def asked_verb(r: Reading) -> list[str]:
    """The last verb of a `do`-support question, with its particle (as :func:`~.text.verb_key`s).

    `what does X's company make` -> [`mak`]; `who did X work for` -> [`work`, `for`]. Empty when
    the wh-word is not followed by do / does / did.

    Example:
        >>> asked_verb(read_question("Where did the people X mentored study?"))
        ['studi']
    """
    w = list(r.words)
    if r.wh not in w:
        return []
    i = w.index(r.wh)
    if i + 3 >= len(w) or w[i + 1] not in DO_SUPPORT:
        return []
    if w[-1] in VERB_PARTICLES:
        return [verb_key(w[-2]), w[-1]]
    return [verb_key(w[-1])]


def asked_verb_rule(r: Reading, d: Draft, vocab: OntologyVocabulary) -> Draft:
    """`What does the company founded by X make?` asks for what the company makes, not a company.

    After `do`-support the subject comes, then the verb the question asks (English puts it last):
    the subject's own relations (`founded by X`) only say which subject. The verb (with its
    particle) is matched against the verb that heads each relation's phrases: in a `phrase`
    (`Company makes Product`) the answer is the relation's target, in an `inverse_phrase` its
    source; a noun inside a phrase (`is a hiding place of`) is no match. Applies where no type
    noun was read; the wh-word's generic concept (`where`) gives way to it.
    """
    verb = asked_verb(r)
    if d.kind != "entity" or r.noun or not verb:
        return d
    scores: dict[str, float] = {}
    for rt in vocab.ontology.relation_types:
        for text, ends in ((rt.phrase, rt.target_labels), (rt.inverse_phrase, rt.source_labels)):
            keys = [x if x in VERB_PARTICLES else verb_key(x) for x in words(text) if x not in PHRASE_FILLER]
            if keys and keys[0] == verb[0] and set(verb[1:]) <= set(keys):
                scores.update({t: 1.0 for t in ends})
    if not scores:
        return d
    return d.because(f"asked verb '{' '.join(verb)}' -> {top_scores(scores)}", scores=scores)


def same_type_ends(
    vocab: OntologyVocabulary, hints: Mapping[str, float], named_types: Iterable[str]
) -> dict[str, float]:
    """Named entities' types that a hinted relation links to their own type, with the hint's score."""
    out: dict[str, float] = {}
    for rel, h in hints.items():
        if h < EXPECTED_MIN:
            continue
        rt = vocab.ontology.relation(rel)
        for t in named_types:
            if t in rt.source_labels and t in rt.target_labels:
                out[t] = max(out.get(t, 0.0), h)
    return out


def same_type_rule(r: Reading, d: Draft, vocab: OntologyVocabulary) -> Draft:
    """`who` along a relation that links the named entity's type to itself: that type may answer too.

    `Who are Bob's friends?` about a cat: `is_friend_of` links animals to animals, so an animal may
    answer though `who` reads as a person. One-clause questions only (no relative word after the
    wh-word; "Tell me who Bob's friends are" qualifies): each such type's score rises to the hint's.
    """
    if not (d.kind == "entity" and r.wh in PERSON_WH and not d.noun and r.named_types and d.hints):
        return d
    if not r.one_clause:
        return d
    scores = dict(d.scores)
    reasons = list(d.reasons)
    for t, h in same_type_ends(vocab, d.hints, r.named_types).items():
        if h > scores.get(t, 0.0):
            scores[t] = h
            reasons.append(f"'{r.wh}' of a relation between two {t}s: {t} {h:.2f}")
    return replace(d, scores=scores, reasons=tuple(reasons))


def relation_end_types(
    vocab: OntologyVocabulary,
    hints: Mapping[str, float],
    named_types: Iterable[str],
    *,
    exclude_person_like: bool,
) -> dict[str, float]:
    """Types at the hinted relations' ends (the end that is not the named entity's type), by hint score.

    With `exclude_person_like` (a `what` question), person-like types (those `who` expects) are left
    out when another end remains.
    """
    named = set(named_types)
    person_like = {t for t, s in vocab.concept_scores.get("who", {}).items() if s >= EXPECTED_MIN}
    out: dict[str, float] = {}
    for rel, h in hints.items():
        if h < EXPECTED_MIN:
            continue
        rt = vocab.ontology.relation(rel)
        ends = set(rt.source_labels) | set(rt.target_labels)
        if named and len(ends) > 1:
            ends -= named
        if exclude_person_like and len(ends - person_like) >= 1:
            ends -= person_like
        for t in ends:
            out[t] = max(out.get(t, 0.0), h)
    return out


def relation_end_rule(r: Reading, d: Draft, vocab: OntologyVocabulary) -> Draft:
    """No type word and no type yet (`what does [X] star in`): the far ends of the hinted relations."""
    if not (d.kind == "entity" and d.hints and not d.scores and (not d.noun or r.wh == "what")):
        return d
    derived = relation_end_types(vocab, d.hints, r.named_types, exclude_person_like=(r.wh == "what"))
    if not derived:
        return d
    return d.because(f"no type word: far end of hinted relations -> {top_scores(derived)}", scores=derived)


def unknown_rule(d: Draft) -> Draft:
    """An entity question no rule found a type for is `unknown` (the search then filters nothing)."""
    return replace(d, kind="unknown") if d.kind == "entity" and not d.scores else d
