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
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

from pathrag_gds.ontology import Ontology
from pathrag_gds.paths import Path
from pathrag_gds.training.graph_source import GraphSource, Group, Hop, MemoryGraph, signature
from pathrag_gds.training.lexicon import compound_chains
from pathrag_gds.training.phraser import (
    Phraser,
    event_labels,
    person_labels,
    place_labels,
    time_labels,
    type_word,
)
from pathrag_gds.training.phrasing import kind_noun

__all__ = [
    "GeneratedQuestion",
    "GraphSource",
    "Group",
    "Hop",
    "MemoryGraph",
    "QuestionGenerator",
    "normalize_question",
    "signature",
    "type_word",
]


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
        with_answers: find every answer of each question (more round trips); False: the walk's
            end stands alone (enough to train a chain scorer, which never sees entities).
        relational_nouns: say 2-3 hops with one English word where one names them ("X's
            grandchildren", :mod:`pathrag_gds.training.lexicon`) where the walk has such hops.
        compound_walk_share: share of 2+ hop walks made to start with such a chain.
        rewordings: other ways to say the ontology's relation phrases (WordNet synonyms,
            :func:`pathrag_gds.training.synonyms.synonym_table`).
        reword_share: share of the phrases said with one of their rewordings; drawn from a
            random stream of its own, so the walks are the same with or without it.
        someone: type labels the encoder reads as someone, asked with `who` beside those a
            person word names (:func:`~pathrag_gds.training.phraser.someone_labels`).
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
        with_answers: bool = True,
        relational_nouns: bool = True,
        compound_walk_share: float = 0.3,
        rewordings: Mapping[str, Sequence[str]] | None = None,
        reword_share: float = 0.0,
        someone: Collection[str] = (),
    ) -> None:
        if max_depth < 1:
            raise ValueError("max_depth must be at least 1")
        self.source = source
        self.ontology = ontology
        self.seed = seed
        self.max_depth = max_depth
        self.entity_share = entity_share
        self.anchored_share = anchored_share
        self.with_answers = with_answers
        self.rng = random.Random(seed)
        self.compounds = compound_chains(ontology) if relational_nouns else {}
        self.compound_walk_share = compound_walk_share
        self.rewordings = dict(rewordings or {})
        self.reword_share = reword_share
        self.reword_rng = random.Random(f"reword-{seed}")
        self.someone = frozenset(someone)
        self._starts = source.start_ids()
        if not self._starts:
            raise ValueError("the graph has no entity with a neighbour to start a question from")

    def walk(self, start: str, depth: int, prefix: Sequence[Group] = ()) -> Path | None:
        """A random walk of exactly `depth` hops from `start` (no revisits), or None.

        `prefix`: the (type, direction) of the first hops, when the walk must start with them.
        """
        path = Path((start,))
        for i in range(depth):
            hops = [h for h in self.source.neighbours([path.end])[path.end] if h[1] not in path.node_ids]
            groups = sorted({(e.type, e.direction) for e, _ in hops})
            if i < len(prefix):
                groups = [g for g in groups if g == prefix[i]]
            if not groups:
                return None
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

    def _compound_prefix(self, depth: int) -> tuple[Group, ...]:
        """For `compound_walk_share` of walks, a chain one word names (`grandchild`) to start with.

        Random walks seldom take such chains (a few in a thousand on a family graph), too few to
        learn the word from. Empty, without drawing, when the ontology has none.
        """
        fits = sorted(c for c in self.compounds if len(c) <= depth)
        if not fits or self.rng.random() >= self.compound_walk_share:
            return ()
        return self.rng.choice(fits)

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
            prefix = self._compound_prefix(depth) if depth else ()
            path = Path((start,)) if depth == 0 else self.walk(start, depth, prefix)
            for _ in range(20 if prefix else 0):  # few entities start such a chain: look for one
                if path is not None:
                    break
                start = self.rng.choice(self._starts)
                path = self.walk(start, depth, prefix)
            if path is None:
                continue
            ents = self.source.entities(path.node_ids)
            if len(ents) < len(set(path.node_ids)):
                continue
            labels.update(e.label for e in ents.values())
            phraser = Phraser(
                self.ontology,
                ents,
                self.rng,
                person_labels(self.ontology, labels, self.someone),
                place_labels(self.ontology, labels),
                time_labels(self.ontology, labels),
                compounds=self.compounds,
                rewordings=self.rewordings,
                reword_share=self.reword_share,
                reword_rng=self.reword_rng,
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
