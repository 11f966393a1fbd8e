"""How one walk is put into words: relative clauses, idiomatic last hops, question words, styles.

The phrases come from the ontology (`phrase` and `inverse_phrase` of each relationship type, entity
type names and descriptions); the English forms are in :mod:`.phrasing`. Every choice comes from
the generator's `random.Random`, so a seed gives the same questions.
"""

from __future__ import annotations

import random
import re
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from pathrag_gds.intent.model import Encoder
from pathrag_gds.ontology import Ontology
from pathrag_gds.paths import Edge, EntityRecord, Path
from pathrag_gds.search.schema import Chain, label_noun, path_chain
from pathrag_gds.serialize import SYSTEM_KEYS, humanize_key
from pathrag_gds.training.phrasing import (
    LOCATIVE,
    PLACE_WORDS,
    TEMPORAL,
    TIME_WORDS,
    Sentence,
    agree,
    capitalize_first,
    co_forms,
    kind_noun,
    possessable,
)
from pathrag_gds.training.phrasing import plural as _plural

#: Words in an entity type's label or description that make `who` the right question word (a
#: label named by what its people do, `Actor`, `Coach`, is read by :func:`someone_labels`).
PERSON_WORDS = frozenset({"person", "people", "character", "human", "someone"})
#: The readings :func:`someone_labels` weighs a type's label noun between.
SOMEONE, SOMETHING = "someone, a person", "something, a thing"
#: How much nearer `SOMEONE` than `SOMETHING` the encoder reads a label noun (`a coach`) for `who`:
#: `a person` +0.59; 25 nouns for what people do (baker, inventor, skipper ... actor) +0.18 to +0.4;
#: things, places and groups (object, match, incident, city, team) +0.14 or less (`crew` +0.22).
SOMEONE_MARGIN = 0.16
#: How an anchored question names its occasion (`{}` is the event).
OCCASION_LINKS = ("during {}", "in {}", "at the time of {}", "when {} happened", "when {} took place")
#: Words in an entity type's label or description head that make it an occasion (`during X`).
EVENT_WORDS = frozenset({"event", "events", "incident", "occasion", "happening", "episode"})


def type_word(entity: EntityRecord) -> str:
    """The entity type as a lower-case noun: `MovieGenre` -> `movie genre`."""
    return label_noun(entity.label)


@dataclass
class Phraser:
    """Relative clauses for one walk, built from the ontology's phrases."""

    ontology: Ontology
    entities: Mapping[str, EntityRecord]
    rng: random.Random
    person_labels: frozenset[str] = field(default_factory=frozenset)
    place_labels: frozenset[str] = field(default_factory=frozenset)
    time_labels: frozenset[str] = field(default_factory=frozenset)
    #: Share of last hops asked in an idiomatic form (`Where does Jane live?`) when the phrase allows.
    idiomatic_share: float = 0.6
    #: The kind noun each entity was last named by (the answer set narrows to that kind).
    kinds: dict[str, str] = field(default_factory=dict)
    #: Noun phrases built in the plural (`the movies that X directed`): verbs after them agree.
    plurals: set[str] = field(default_factory=set)
    #: Chains of 2-3 steps one English word names (`grandchild`, :mod:`.lexicon`), and their words.
    compounds: Mapping[Chain, tuple[str, ...]] = field(default_factory=dict)
    #: Share of such hops said with the one word ("X's grandchildren") when the walk has them.
    compound_share: float = 0.8
    #: Other ways to say a relation phrase (:func:`.synonyms.synonym_table`), and the share of the
    #: phrases said so; drawn from `reword_rng`, so the walks and the rest of the wording stay as
    #: they are without it.
    rewordings: Mapping[str, Sequence[str]] = field(default_factory=dict)
    reword_share: float = 0.0
    reword_rng: random.Random | None = None

    def say(self, phrase: str) -> str:
        """The relation phrase, or at `reword_share` one of its rewordings (`owns` -> `possesses`)."""
        options = self.rewordings.get(phrase)
        if not options or self.reword_rng is None or self.reword_rng.random() >= self.reword_share:
            return phrase
        return self.reword_rng.choice(list(options))

    def phrases(self, edge: Edge) -> tuple[str, str]:
        """(phrase, inverse phrase) of the edge's relation as this question says them."""
        rel = self.ontology.relation(edge.type)
        return self.say(rel.phrase), self.say(rel.inverse_phrase) if rel.inverse_phrase else ""

    def noun(self, entity: EntityRecord) -> str:
        """The entity's type noun, or half the time its kind (`village` for a Place) when it has one."""
        kind = kind_noun(entity.attributes)
        if kind and self.rng.random() < 0.5:
            self.kinds[entity.id] = kind
            return kind
        self.kinds.pop(entity.id, None)
        return type_word(entity)

    def wh(self, entity: EntityRecord) -> str:
        """The question word for an answer entity: Who, Where, When or What."""
        if entity.label in self.person_labels:
            return "Who"
        if entity.label in self.place_labels:
            return "Where"
        return "When" if entity.label in self.time_labels else "What"

    def sentences(self, edge: Edge) -> tuple[Sentence, Sentence]:
        """(far as subject, far as object): the relation's phrases read from the near node.

        `in` (far -> near stored): `far <phrase> near`, `near <inverse> far`; `out` the other way.
        """
        phrase, inverse = self.phrases(edge)
        forward, backward = Sentence.parse(phrase), Sentence.parse(inverse)
        return (forward, backward) if edge.direction == "in" else (backward, forward)

    def idiomatic(self, edge: Edge, near: str, end: EntityRecord, noun: str) -> list[str]:
        """Short forms of the last hop read from the relation phrases (see `phrasing`)."""
        wh = self.wh(end)
        as_subject, as_object = self.sentences(edge)
        many = near in self.plurals
        if edge.direction == "out":  # near <phrase> end; end <inverse> near
            return as_object.object_forms(near, noun, wh, many) + as_subject.subject_forms(near, noun, wh)
        return as_subject.subject_forms(near, noun, wh) + as_object.object_forms(near, noun, wh, many)

    def subject_clause(self, edge: Edge, other: str) -> str | None:
        """Clause with the far node as subject about `other` (the near node): `owns Bob`."""
        phrase, inverse = self.phrases(edge)
        if edge.direction == "in":  # the far node is the stored source
            return f"{phrase} {other}"
        return f"{inverse} {other}" if inverse else None

    def object_clause(self, edge: Edge, other: str) -> str | None:
        """Clause with the near node (`other`) as subject: `Jane owns`, `Tom Hanks starred in`."""
        forward, inverse = self.phrases(edge)
        phrase = forward if edge.direction == "out" else inverse
        return f"{other} {agree(phrase, other in self.plurals)}" if phrase else None

    def reduced_clause(self, edge: Edge, other: str) -> str | None:
        """A reduced passive relative for the far node: `directed by Al`, `located in Paris`.

        Only for `is|was <participle> <prep>` phrases read from the far node (general English drops
        `that was`: "the movies directed by Al").
        """
        forward, inverse = self.phrases(edge)
        phrase = forward if edge.direction == "in" else inverse
        sentence = Sentence.parse(phrase) if phrase else None
        if sentence is None or not sentence.participle or not sentence.prep:
            return None
        return f"{sentence.participle} {sentence.prep} {other}"

    def in_situ(self, edge: Edge, near: str, end: EntityRecord) -> str | None:
        """An echo question with the question word in the object's place: `Al directed what?`.

        `Who` for persons; a locative or temporal last preposition gives way to `where` / `when`
        for places and times (`Heat was released when?`), else `what`.
        """
        obj = self.object_clause(edge, near)
        if obj is None:
            return None
        wh = self.wh(end)
        words = obj.split()
        if (wh == "Where" and words[-1] in LOCATIVE) or (wh == "When" and words[-1] in TEMPORAL):
            return f"{' '.join(words[:-1])} {wh.lower()}?"
        return f"{obj} {'who' if wh == 'Who' else 'what'}?"

    def compound(self, path: Path, upto: int) -> tuple[int, str] | None:
        """(hops, word) when the 2-3 hops ending at node `upto` are said with one word (`grandchild`).

        Drawn at `compound_share` among the words that name those hops; None when none does (the
        random stream is then untouched, so an ontology without such words phrases as before).
        """
        steps = path_chain(path)
        options = [
            (hops, word)
            for hops in (2, 3)
            if hops <= upto
            for word in self.compounds.get(steps[upto - hops : upto], ())
        ]
        if not options or self.rng.random() >= self.compound_share:
            return None
        return self.rng.choice(options)

    def compound_nouns(self, word: str, inner: str) -> list[str]:
        """Noun phrases for what `word` names of `inner`: `the grandchildren of X`, `X's grandchild`."""
        out = [f"the {word} of {inner}", self._many(f"the {_plural(word)} of {inner}")]
        if possessable(inner):
            out += [f"{inner}'s {word}", self._many(f"{inner}'s {_plural(word)}")]
        return out

    def describe(self, path: Path, upto: int) -> str:
        """A noun phrase for node `upto` of the path: its name (start) or a relative clause chain."""
        if upto == 0:
            e = self.entities[path.start]
            if self.rng.random() < 0.2:
                return f"the {type_word(e)} {e.name}"
            return e.name
        found = self.compound(path, upto)
        if found:
            hops, word = found
            return self.rng.choice(self.compound_nouns(word, self.describe(path, upto - hops)))
        noun = self.noun(self.entities[path.node_ids[upto]])
        shared = self.shared_forms(path, noun) if upto == 2 else []
        if shared and self.rng.random() < self.idiomatic_share:
            return self.rng.choice(shared)  # `the movie that starred the same person as X`, `Al's co-stars`
        inner = self.describe(path, upto - 1)
        edge = path.edges[upto - 1]
        subj = self.subject_clause(edge, inner)
        obj = self.object_clause(edge, inner)
        options = []
        if subj:
            options.append(f"the {noun} that {subj}")
        if obj:
            options.append(f"the {noun} that {obj}")
            options.append(self._many(f"the {_plural(noun)} that {obj}"))
        reduced = self.reduced_clause(edge, inner)
        if reduced:
            options.append(f"the {noun} {reduced}")
            options.append(self._many(f"the {_plural(noun)} {reduced}"))
        options += self.noun_forms(edge, inner, self.entities[path.node_ids[upto]], noun)
        if not options:
            rel = self.ontology.relation(edge.type)
            options.append(f"the {noun} linked to {inner} by '{rel.phrase}'")
        return self.rng.choice(options)

    def _many(self, phrase: str) -> str:
        """Record `phrase` as a plural noun phrase and return it."""
        self.plurals.add(phrase)
        return phrase

    def noun_forms(self, edge: Edge, inner: str, far: EntityRecord, noun: str) -> list[str]:
        """Shorter noun phrases for the far node of `edge` seen from `inner` (see `phrasing`).

        `the owner of Rex`, `Bob's squirrel friend` (role and agent nouns), `the tree where Joy
        lives` (a locative verb phrase).
        """
        as_subject, as_object = self.sentences(edge)
        # "Bob's squirrel friend", but not "Jane's house home"
        kind = None if far.label in self.place_labels else kind_noun(far.attributes)
        out = as_subject.subject_nouns(inner, kind)
        where = as_object.where_clause(inner, inner in self.plurals)
        if where:
            out.append(f"the {noun} {where}")
        return out

    def is_person(self, entity: EntityRecord) -> bool:
        """Whether the entity's type reads as a person (`who` questions)."""
        return entity.label in self.person_labels

    def shared(self, path: Path, end: EntityRecord, noun: str) -> list[str]:
        """Forms of 2-hop `X -r-> M <-r- Y` walks (Y shares M): ``Who starred in the same movie as X?``.

        People also get the `co-` and `together with` forms (``Who co-starred with X?``, ``Who are
        X's co-stars?``, see :func:`phrasing.co_forms`). Longer walks that start so get the noun
        phrases inside (`describe`): ``Which genre does the movie that starred the same person as X
        have?``

        Empty for any other walk.
        """
        parts = self.same_parts(path) if path.depth == 2 else None
        if not parts:
            return []
        clause, start, same = parts
        if not self.is_person(end):
            return [f"What {same}?", f"Which {noun} {same}?"]
        clauses, nouns = co_forms(clause, start)
        out = [f"Who {same}?", f"Which {noun} {same}?"] + [f"Who {c}?" for c in clauses]
        return out + [f"Who are {n}?" for n in nouns]

    def shared_forms(self, path: Path, noun: str) -> list[str]:
        """Noun phrases for the 3rd node of a walk starting `X -r-> M <-r- Y` (see `shared`), else []."""
        parts = self.same_parts(path)
        if not parts:
            return []
        clause, start, same = parts
        out = [f"the {noun} that {same}"]
        if self.is_person(self.entities[path.node_ids[2]]):
            clauses, nouns = co_forms(clause, start)
            out += [self._many(f"the {_plural(noun)} that {agree(c, True)}") for c in clauses]
            out += [self._many(n) for n in nouns]
        return out

    def same_parts(self, path: Path) -> tuple[str, str, str] | None:
        """For a path starting `X -r-> M <-r- Y`: (Y's clause, X's name, `<clause> the same <M> as X`).

        None for any other path.
        """
        if path.depth < 2:
            return None
        first, second = path.edges[:2]
        if first.type != second.type or first.direction == second.direction:
            return None
        rel = self.ontology.relation(second.type)
        clause = rel.phrase if second.direction == "in" else rel.inverse_phrase  # Y <clause> M
        if not clause:
            return None
        start, middle = self.entities[path.start].name, type_word(self.entities[path.node_ids[1]])
        return clause, start, f"{clause} the same {middle} as {start}"

    def question(self, path: Path) -> tuple[str, str]:
        """(question, template name) for a walk of 1+ hops; the answer is the end node."""
        found = self.compound(path, path.depth)
        if found:
            hops, word = found
            near = self.describe(path, path.depth - hops)
            end = self.entities[path.end]
            forms = Sentence(role=word).subject_forms(near, self.noun(end), self.wh(end))
            if possessable(near):
                forms.append(f"Name {near}'s {_plural(word)}.")
            return _style(capitalize_first(self.rng.choice(forms)), self.rng), "relational-noun"
        inner = self.describe(path, path.depth - 1)
        edge = path.edges[-1]
        end = self.entities[path.end]
        noun = self.noun(end)
        shared = self.shared(path, end, noun)
        if shared and self.rng.random() < self.idiomatic_share:
            return _style(self.rng.choice(shared), self.rng), "shared"
        short = self.idiomatic(edge, inner, end, noun)
        if short and self.rng.random() < self.idiomatic_share:
            return _style(capitalize_first(self.rng.choice(short)), self.rng), "idiomatic"
        subj = self.subject_clause(edge, inner)
        obj = self.object_clause(edge, inner)
        options: list[tuple[str, str]] = []
        if subj:
            options += [
                ("which-subj", f"Which {noun} {subj}?"),
                ("what-is-subj", f"What is the {noun} that {subj}?"),
                ("name-subj", f"Name the {noun} that {subj}."),
            ]
            if self.is_person(end):
                options.append(("who-subj", f"Who {subj}?"))
        if obj:
            options += [
                ("obj-which", f"{capitalize_first(obj)} which {noun}?"),
                ("what-is-obj", f"What is the {noun} that {obj}?"),
                ("which-plural-obj", f"Which {_plural(noun)} {obj}?"),
            ]
            echo = self.in_situ(edge, inner, end)
            if echo:
                options.append(("obj-in-situ", capitalize_first(echo)))
        if not options:
            rel = self.ontology.relation(edge.type)
            options.append(("linked", f"Which {noun} is linked to {inner} by '{rel.phrase}'?"))
        name, text = self.rng.choice(options)
        return _style(text, self.rng), name

    def anchored_question(self, path: Path) -> tuple[str, str]:
        """(question, template) about the walk from the path's 2nd entity, during its start (an event).

        Example: ``Where does Bob hide during the kitchen clean-up?``
        """
        sub = path.without_start()
        text, template = self.question(sub)
        start = self.entities[path.start].name
        occasion = self.rng.choice([start, f"the {start[:1].lower()}{start[1:]}"])
        base = text.rstrip("?.")
        link = self.rng.choice(OCCASION_LINKS)
        return f"{base} {link.format(occasion)}" + ("?" if text != base else ""), f"anchored-{template}"

    def entity_question(self, entity: EntityRecord) -> tuple[str, str]:
        """(question, template name) about the entity itself: what it is or one of its attributes."""
        keys = [
            humanize_key(k)
            for k, v in entity.attributes.items()
            if k not in SYSTEM_KEYS and v not in (None, "")
        ]
        n = entity.name
        options: list[tuple[str, str]] = [
            ("what-is", f"What is {n}?"),
            ("tell-about", f"Tell me about {n}."),
            ("describe", f"Describe the {type_word(entity)} {n}."),
        ]
        if self.is_person(entity):
            options.append(("who-is", f"Who is {n}?"))
        if entity.description:
            options.append(("what-kind", f"What kind of {type_word(entity)} is {n}?"))
        for k in keys:
            options += [
                ("attr-of", f"What is the {k} of {n}?"),
                ("attr-poss", f"What is {n}'s {k}?"),
                ("attr-have", f"What {k} does {n} have?"),
            ]
        name, text = self.rng.choice(options)
        return _style(text, self.rng), name


def _style(text: str, rng: random.Random) -> str:
    """Sometimes lower-case without the final punctuation (how people type queries)."""
    if text.startswith("Which ") and rng.random() < 0.3:
        text = "What " + text[len("Which ") :]  # "What movies did Al direct?" asks the same
    if rng.random() < 0.25:
        return text.rstrip("?.").lower()
    return text


def _labels_reading_as(
    ontology: Ontology, labels: Iterable[str], words: frozenset[str], head: int | None = None
) -> frozenset[str]:
    """Labels whose name, or description (its first `head` words when given), holds one of `words`."""
    desc = {e.label: e.description for e in ontology.entity_types}
    out = set()
    for label in labels:
        text = " ".join(desc.get(label, "").split()[:head])
        if set(re.findall(r"[a-z]+", f"{label} {text}".lower())) & words:
            out.add(label)
    return frozenset(out)


def place_labels(ontology: Ontology, labels: Iterable[str]) -> frozenset[str]:
    """Entity type labels that read as places (`where` questions), by the label or its description's head."""
    return _labels_reading_as(ontology, labels, PLACE_WORDS, head=3)


def time_labels(ontology: Ontology, labels: Iterable[str]) -> frozenset[str]:
    """Entity type labels that read as times (`when` questions), by the label or its description's head."""
    return _labels_reading_as(ontology, labels, TIME_WORDS, head=3)


def person_labels(ontology: Ontology, labels: Iterable[str], someone: Collection[str] = ()) -> frozenset[str]:
    """Entity type labels asked with `who`.

    Those in `someone` (:func:`someone_labels`), and those whose label or description holds a
    person word: a person, or a body of people (`A business that employs people`), which English
    asks for with `who` too ("Who employs Jane?").
    """
    labels = list(labels)
    return frozenset(x for x in labels if x in someone) | _labels_reading_as(ontology, labels, PERSON_WORDS)


def someone_labels(ontology: Ontology, encoder: Encoder) -> frozenset[str]:
    """Type labels whose noun the sentence encoder reads as someone rather than something.

    People name a type by what its members do (`Coach`, `Researcher`) as often as by `Person`,
    and ask for any of them with `who`; a word list cannot hold every such noun, the encoder
    knows them. `a <noun>` is read against :data:`SOMEONE` and :data:`SOMETHING`; a type is
    someone when it is nearer the first by :data:`SOMEONE_MARGIN`.

    Example:
        >>> from pathrag_gds.encoders import get_embedder  # doctest: +SKIP
        >>> onto = Ontology.from_mapping({"entity_types": [{"label": "Sailor"}, {"label": "Anchor"}]})
        >>> sorted(someone_labels(onto, get_embedder()))  # doctest: +SKIP
        ['Sailor']
    """
    labels = [e.label for e in ontology.entity_types]
    if not labels:
        return frozenset()
    vecs = np.asarray(encoder.encode([f"a {label_noun(x)}" for x in labels] + [SOMEONE, SOMETHING]))
    margins = vecs[:-2] @ vecs[-2] - vecs[:-2] @ vecs[-1]
    return frozenset(x for x, m in zip(labels, margins, strict=True) if m >= SOMEONE_MARGIN)


def event_labels(ontology: Ontology, labels: Iterable[str]) -> frozenset[str]:
    """Entity type labels that read as occasions (`during X`), by the label or its description's head."""
    return _labels_reading_as(ontology, labels, EVENT_WORDS, head=4)
