"""Training questions generated from the graph and its ontology (no human labels, no eval questions).

A question is a random walk that exists in the graph, phrased with the ontology:

1. pick a start entity (seeded sampler over the community's entities, sorted by id);
2. walk 1 to `max_depth` hops: at each step pick a relation group (relationship type and walk
   direction) among the ones the current entity has, then a neighbour in it (no revisits);
3. phrase the chain backwards from the answer with the entity type names and the relation phrases
   read both ways (`phrase`: source -> target, `inverse_phrase`: target -> source), as nested
   relative clauses, with several templates per chain shape, e.g. ``Which person directed the movie
   that Tom Hanks starred in?`` or ``Tom Hanks starred in which movie?``; most last hops whose
   phrase has a readable shape are asked idiomatically instead (:mod:`.phrasing`: ``Where does
   Jane live?``, ``Who are Bob's friends?``), and an entity with a kind attribute (`species`,
   `place_type`) is named by its kind half the time (``In which village ...``);
4. the start entity is named; the answers are every entity the same chain reaches from it (of the
   kind the question names, when it names one).

A share of the 2+ hop walks that start at an event (`anchored_share`) names TWO entities: the
question is asked about the walk from its second entity and the start is the occasion, e.g. ``Where
does Bob hide during the kitchen clean-up?`` for ``kitchen clean-up -involves-> Bob -hides in->
attic``; the answers come from the whole chain, so the path must hold the occasion too.

A share of questions (`entity_share`) asks about the start entity itself (``What is Bob's fur
color?``): their answer is the 0-hop path, so the scorer also learns when NOT to walk.

Everything is deterministic for a seed: the graph sources return rows in a fixed order and all
choices come from one `random.Random(seed)`.

Example:
    >>> g = MemoryGraph.from_triples(
    ...     [("jane", "Person", "Jane"), ("bob", "Animal", "Bob")], [("jane", "owns", "bob")]
    ... )
    >>> onto = Ontology.from_mapping({"relationship_types": [
    ...     {"type": "owns", "phrase": "owns", "inverse_phrase": "is owned by"}]})
    >>> qs = QuestionGenerator(g, onto, seed=1, max_depth=1, entity_share=0.0).generate(6)
    >>> sorted({q.answers for q in qs})
    [('bob',), ('jane',)]
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from pathrag_gds.ontology import Ontology
from pathrag_gds.paths import Direction, Edge, EntityRecord, Path
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
)
from pathrag_gds.training.phrasing import plural as _plural

#: One step of a walk: the edge and the entity it leads to.
Hop = tuple[Edge, str]
#: A relation group at an entity: (relationship type, walk direction).
Group = tuple[str, Direction]

#: Words in an entity type's label or description that make `who` the right question word.
PERSON_WORDS = frozenset({"person", "people", "character", "human", "someone", "actor", "director", "writer"})
#: How an anchored question names its occasion (`{}` is the event).
OCCASION_LINKS = ("during {}", "in {}", "at the time of {}", "when {} happened", "when {} took place")
#: Words in an entity type's label or description head that make it an occasion (`during X`).
EVENT_WORDS = frozenset({"event", "events", "incident", "occasion", "happening", "episode"})


class GraphSource(Protocol):
    """Where questions come from: entity ids, entity records, neighbours (in a fixed order)."""

    def start_ids(self) -> list[str]:
        """Every entity id a question may start from, sorted."""
        ...

    def entities(self, ids: Iterable[str]) -> dict[str, EntityRecord]:
        """Records of these entities (unknown ids are left out)."""
        ...

    def neighbours(self, ids: Iterable[str]) -> dict[str, list[Hop]]:
        """Every entity's hops, sorted by (type, direction, neighbour id)."""
        ...


class MemoryGraph:
    """A graph held in memory (tests and small generated graphs).

    Example:
        >>> g = MemoryGraph.from_triples([("a", "T", "A"), ("b", "T", "B")], [("a", "r", "b")])
        >>> [(e.type, e.direction, n) for e, n in g.neighbours(["b"])["b"]]
        [('r', 'in', 'a')]
    """

    def __init__(self, entities: Mapping[str, EntityRecord], edges: Sequence[Edge], cap: int = 50) -> None:
        """Entities by id and stored edges (direction `out`); at most `cap` hops per group."""
        self._entities = dict(entities)
        self._hops: dict[str, list[Hop]] = {k: [] for k in self._entities}
        for e in edges:
            self._hops[e.source_id].append(
                (Edge(e.type, e.source_id, e.target_id, "out", e.attributes), e.target_id)
            )
            self._hops[e.target_id].append(
                (Edge(e.type, e.source_id, e.target_id, "in", e.attributes), e.source_id)
            )
        for k, hops in self._hops.items():
            hops.sort(key=lambda h: (h[0].type, h[0].direction, h[1]))
            counts: dict[Group, int] = {}
            kept = []
            for h in hops:
                g = (h[0].type, h[0].direction)
                counts[g] = counts.get(g, 0) + 1
                if counts[g] <= cap:
                    kept.append(h)
            self._hops[k] = kept

    @classmethod
    def from_triples(
        cls,
        entities: Sequence[tuple[str, str, str]] | Sequence[tuple[str, str, str, dict[str, Any]]],
        triples: Sequence[tuple[str, str, str]],
    ) -> MemoryGraph:
        """Entities as `(id, type, name[, attributes])`, relationships as `(source, type, target)`."""
        ents = {}
        for row in entities:
            attrs = dict(row[3]) if len(row) > 3 else {}
            desc = str(attrs.pop("description", ""))
            ents[row[0]] = EntityRecord(row[0], (row[1],), row[2], desc, attrs)
        return cls(ents, [Edge(t, s, o, "out") for s, t, o in triples])

    def start_ids(self) -> list[str]:
        """Entity ids with at least one neighbour, sorted."""
        return sorted(k for k, v in self._hops.items() if v)

    def entities(self, ids: Iterable[str]) -> dict[str, EntityRecord]:
        """Records of the known ids."""
        return {i: self._entities[i] for i in ids if i in self._entities}

    def neighbours(self, ids: Iterable[str]) -> dict[str, list[Hop]]:
        """Hops of each id."""
        return {i: list(self._hops.get(i, [])) for i in ids}


@dataclass(frozen=True)
class GeneratedQuestion:
    """One generated question with its walked path and all the entities that answer it."""

    id: int
    question: str
    template: str
    path: Path
    answers: tuple[str, ...]
    #: the question names the path's second entity too and its start as the occasion (`during X`)
    anchored: bool = False

    @property
    def depth(self) -> int:
        """Hops of the walked chain (0: the question is about the start entity)."""
        return self.path.depth

    @property
    def chain(self) -> tuple[Group, ...]:
        """The relation chain: (type, walk direction) per hop."""
        return signature(self.path)


def signature(path: Path) -> tuple[Group, ...]:
    """(type, direction) per hop: what a question about the path asks, whatever the entities."""
    return tuple((e.type, e.direction) for e in path.edges)


def type_word(entity: EntityRecord) -> str:
    """The entity type as a lower-case noun: `MovieGenre` -> `movie genre`."""
    words = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", entity.label).replace("_", " ")
    return " ".join(words.split()).lower() or "entity"


@dataclass
class _Phraser:
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
        rel = self.ontology.relation(edge.type)
        forward, backward = Sentence.parse(rel.phrase), Sentence.parse(rel.inverse_phrase)
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
        rel = self.ontology.relation(edge.type)
        if edge.direction == "in":  # the far node is the stored source
            return f"{rel.phrase} {other}"
        return f"{rel.inverse_phrase} {other}" if rel.inverse_phrase else None

    def object_clause(self, edge: Edge, other: str) -> str | None:
        """Clause with the near node (`other`) as subject: `Jane owns`, `Tom Hanks starred in`."""
        rel = self.ontology.relation(edge.type)
        phrase = rel.phrase if edge.direction == "out" else rel.inverse_phrase
        return f"{other} {agree(phrase, other in self.plurals)}" if phrase else None

    def reduced_clause(self, edge: Edge, other: str) -> str | None:
        """A reduced passive relative for the far node: `directed by Al`, `located in Paris`.

        Only for `is|was <participle> <prep>` phrases read from the far node (general English drops
        `that was`: "the movies directed by Al").
        """
        rel = self.ontology.relation(edge.type)
        phrase = rel.phrase if edge.direction == "in" else rel.inverse_phrase
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

    def describe(self, path: Path, upto: int) -> str:
        """A noun phrase for node `upto` of the path: its name (start) or a relative clause chain."""
        if upto == 0:
            e = self.entities[path.start]
            if self.rng.random() < 0.2:
                return f"the {type_word(e)} {e.name}"
            return e.name
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


def person_labels(ontology: Ontology, labels: Iterable[str]) -> frozenset[str]:
    """Entity type labels whose name or description reads as a person (`who` questions)."""
    return _labels_reading_as(ontology, labels, PERSON_WORDS)


def event_labels(ontology: Ontology, labels: Iterable[str]) -> frozenset[str]:
    """Entity type labels that read as occasions (`during X`), by the label or its description's head."""
    return _labels_reading_as(ontology, labels, EVENT_WORDS, head=4)


def normalize_question(text: str) -> str:
    """Lower case, brackets and punctuation dropped, spaces collapsed (to compare questions)."""
    text = re.sub(r"[\[\]?.!,'\"]", " ", text.lower())
    return " ".join(text.split())


class QuestionGenerator:
    """Random walks over a :class:`GraphSource`, phrased with the ontology (see the module docs).

    Args:
        source: the graph (Neo4j community or in memory).
        ontology: relation phrases and entity type descriptions.
        seed: the only source of randomness.
        max_depth: longest chain, in hops.
        entity_share: share of questions about the start entity itself (0 hops).
        anchored_share: share of 2+ hop walks from an event asked with two named entities.
        exclude: normalised questions never to produce (evaluation questions,
            :func:`pathrag_gds.training.exclusions.evaluation_questions`); `excluded` counts the drops.
        with_answers: find every answer of each question (more round trips); False: the walk's
            end stands alone (enough to train a chain scorer, which never sees entities).
    """

    def __init__(
        self,
        source: GraphSource,
        ontology: Ontology,
        *,
        seed: int = 0,
        max_depth: int = 3,
        entity_share: float = 0.1,
        anchored_share: float = 0.7,
        exclude: frozenset[str] = frozenset(),
        with_answers: bool = True,
    ) -> None:
        if max_depth < 1:
            raise ValueError("max_depth must be at least 1")
        self.source = source
        self.ontology = ontology
        self.seed = seed
        self.max_depth = max_depth
        self.entity_share = entity_share
        self.anchored_share = anchored_share
        self.exclude = exclude
        self.with_answers = with_answers
        self.excluded = 0
        self.rng = random.Random(seed)
        self._starts = source.start_ids()
        if not self._starts:
            raise ValueError("the graph has no entity with a neighbour to start a question from")

    def walk(self, start: str, depth: int) -> Path | None:
        """A random walk of exactly `depth` hops from `start` (no revisits), or None."""
        path = Path((start,))
        for _ in range(depth):
            hops = [h for h in self.source.neighbours([path.end])[path.end] if h[1] not in path.node_ids]
            if not hops:
                return None
            groups = sorted({(e.type, e.direction) for e, _ in hops})
            g = self.rng.choice(groups)
            edge, nid = self.rng.choice([h for h in hops if (h[0].type, h[0].direction) == g])
            path = path.extend(edge, nid)
        return path

    def answers(
        self, start: str, chain: Sequence[Group], label: str | None = None, kind: str | None = None
    ) -> tuple[str, ...]:
        """Every entity the chain reaches from `start` (within the source's caps), sorted.

        With `label`, only entities of that type (the question names the answer's type); with
        `kind`, only those of that kind too (`village`, see `phrasing.kind_noun`).
        """
        frontier: list[tuple[str, frozenset[str]]] = [(start, frozenset({start}))]
        for group in chain:
            nxt = []
            hops = self.source.neighbours(sorted({n for n, _ in frontier}))
            for node, seen in frontier:
                for e, nid in hops[node]:
                    if (e.type, e.direction) == group and nid not in seen:
                        nxt.append((nid, seen | {nid}))
            frontier = nxt
        ends = sorted({n for n, _ in frontier})
        if label is not None:
            ents = self.source.entities(ends)
            ends = [n for n in ends if n in ents and ents[n].label == label]
            if kind is not None:
                ends = [n for n in ends if kind_noun(ents[n].attributes) == kind]
        return tuple(ends)

    def generate(self, n: int, *, attempts: int = 20) -> list[GeneratedQuestion]:
        """`n` questions (fewer when the graph runs out of distinct ones), deterministic for the seed."""
        out: list[GeneratedQuestion] = []
        seen: set[str] = set()
        labels: set[str] = set()
        for _ in range(n * attempts):
            if len(out) >= n:
                break
            start = self.rng.choice(self._starts)
            depth = 0 if self.rng.random() < self.entity_share else self.rng.randint(1, self.max_depth)
            path = Path((start,)) if depth == 0 else self.walk(start, depth)
            if path is None:
                continue
            ents = self.source.entities(path.node_ids)
            if len(ents) < len(set(path.node_ids)):
                continue
            labels.update(e.label for e in ents.values())
            phraser = _Phraser(
                self.ontology,
                ents,
                self.rng,
                person_labels(self.ontology, labels),
                place_labels(self.ontology, labels),
                time_labels(self.ontology, labels),
            )
            events = event_labels(self.ontology, labels)
            anchored = (
                depth >= 2
                and ents[start].label in events
                and not any(ents[n].label in events for n in path.node_ids[1:])  # no "event during event"
                and self.rng.random() < self.anchored_share
            )
            if depth == 0:
                text, template = phraser.entity_question(ents[start])
            else:
                text, template = phraser.anchored_question(path) if anchored else phraser.question(path)
            key = normalize_question(text)
            if key in self.exclude:
                self.excluded += 1
                continue
            if key in seen:
                continue
            seen.add(key)
            # the answers walk the graph again (round trips): only for questions that are kept
            answers = (
                (start,)
                if depth == 0 or not self.with_answers
                else self.answers(start, signature(path), ents[path.end].label, phraser.kinds.get(path.end))
            )
            out.append(GeneratedQuestion(len(out), text, f"{depth}-hop:{template}", path, answers, anchored))
        return out
