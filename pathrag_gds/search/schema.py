"""Relation chains of a schema: what a chain is, the text a chain scorer reads, every chain allowed.

A chain is the relation types and walk directions of a path, hop by hop (`(("directed_by", "out"),
("directed_by", "in"))`); a typed chain adds the entity type label at each position, so it can be
read as English (:func:`chain_text`: ``the movie that was directed by the person that directed X``)
and extended only where the ontology's source and target labels allow (:func:`next_chains`,
:func:`schema_chains`). Pure: no database, no model.

Example:
    >>> from pathrag_gds.ontology import Ontology
    >>> onto = Ontology.from_mapping({"relationship_types": [
    ...     {"type": "owns", "phrase": "owns", "inverse_phrase": "is owned by",
    ...      "source": ["Person"], "target": ["Animal"]}]})
    >>> [chain_text(onto, c) for c in next_chains(onto, TypedChain((), ("Animal",)))]
    ['the person that owns X']
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass

from pathrag_gds.ontology import Ontology, RelationType
from pathrag_gds.paths import Direction, Path

#: One hop of a chain: relationship type and walk direction (`out`: along the arrow).
Step = tuple[str, Direction]
#: A relation chain: its steps in walk order.
Chain = tuple[Step, ...]

#: The label written for an entity type the ontology does not constrain.
ANY_LABEL = "Entity"

#: The shape of :func:`chain_text`; part of :func:`ontology_fingerprint`, so a chain model trained
#: on texts of another shape is refused rather than scoring texts it never saw.
CHAIN_TEXT_FORMAT = "phrase+descriptions"


def path_chain(path: Path) -> Chain:
    """The chain a path walks.

    Example:
        >>> from pathrag_gds.paths import Edge
        >>> path_chain(Path(("bob", "jane"), (Edge("owns", "jane", "bob", "in"),)))
        (('owns', 'in'),)
    """
    return tuple((e.type, e.direction) for e in path.edges)


def step_token(step: Step) -> str:
    """`type:out` / `type:in`: how results and gold files write one step.

    Example:
        >>> step_token(("directed_by", "in"))
        'directed_by:in'
    """
    return f"{step[0]}:{step[1]}"


def parse_step(token: str) -> Step:
    """The step a `type:out` / `type:in` token writes (:func:`step_token` read back).

    Example:
        >>> parse_step("directed_by:in"), parse_step("a:b:out")
        (('directed_by', 'in'), ('a:b', 'out'))
    """
    rel, _, direction = token.rpartition(":")
    return (rel, "in") if direction == "in" else (rel, "out")


@dataclass(frozen=True, slots=True)
class TypedChain:
    """A chain with the entity type label at each of its positions (`labels[0]`: the topic's)."""

    steps: Chain
    labels: tuple[str, ...]

    @property
    def depth(self) -> int:
        """Hops."""
        return len(self.steps)


def label_noun(label: str) -> str:
    """An entity type label as a lower-case noun: `MovieGenre` -> `movie genre`."""
    words = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", label).replace("_", " ")
    return " ".join(words.split()).lower() or "entity"


def chain_phrase(ontology: Ontology, chain: TypedChain, start: str = "X") -> str:
    """The chain as one English noun phrase for its end, read from the answer back to `start`.

    Example:
        >>> from pathrag_gds.ontology import RelationType
        >>> onto = Ontology("o", relation_types=(RelationType("directed_by", "was directed by", "directed"),
        ...     RelationType("starred", "starred", "starred in")))
        >>> chain = TypedChain((("directed_by", "out"), ("directed_by", "in"), ("starred", "out")),
        ...     ("Movie", "Person", "Movie", "Person"))
        >>> chain_phrase(onto, chain)
        'the person that starred in the movie that was directed by the person that directed X'
    """
    text = start
    for (rel_type, direction), far in zip(chain.steps, chain.labels[1:], strict=True):
        rel = ontology.relation(rel_type)
        noun = label_noun(far)
        if direction == "in":
            text = f"the {noun} that {rel.phrase} {text}"
        elif rel.inverse_phrase:
            text = f"the {noun} that {rel.inverse_phrase} {text}"
        else:
            text = f"the {noun} that {text} {rel.phrase}"
    return text if chain.steps else f"{start} itself"


def chain_text(ontology: Ontology, chain: TypedChain) -> str:
    """The text a chain scorer reads: :func:`chain_phrase`, then each step's description.

    The phrase reads like the question it answers, from the answer back to the topic ("the person
    that starred in the movie that was directed by the person that directed X"), so the order of
    the relations is the order English asks them in; a mean-pooled encoder keeps little else of
    word order. The descriptions follow in the same order, answer first: they hold the words people
    ask with and no phrase does ("A film and its director.", "A mother or father and their son or
    daughter."); one per step, so a relation walked twice is described twice and the chain's
    length stays in its text.

    Example:
        >>> from pathrag_gds.ontology import RelationType
        >>> onto = Ontology("o", relation_types=(RelationType("directed_by", "was directed by", "directed"),))
        >>> chain = TypedChain((("directed_by", "out"), ("directed_by", "in")), ("Movie", "Person", "Movie"))
        >>> chain_text(onto, chain)
        'the movie that was directed by the person that directed X'
        >>> described = Ontology("o", relation_types=(RelationType("directed_by", "was directed by",
        ...     "directed", "Its director."),))
        >>> chain_text(described, chain)
        'the movie that was directed by the person that directed X (Its director. Its director.)'
    """
    kept = ontology.texts.get(chain)
    if kept is not None:
        return kept
    text = chain_phrase(ontology, chain)
    notes = [d for d in (ontology.relation(t).description for t, _ in reversed(chain.steps)) if d]
    text = f"{text} ({' '.join(notes)})" if notes else text
    ontology.texts[chain] = text
    return text


def schema_chains(ontology: Ontology, label: str, max_depth: int, limit: int = 20000) -> list[TypedChain]:
    """Every chain of the schema from `label`, up to `max_depth` hops (the empty chain first).

    Example:
        >>> onto = Ontology.from_mapping({"relationship_types": [
        ...     {"type": "owns", "source": ["Person"], "target": ["Animal"]}]})
        >>> [c.steps for c in schema_chains(onto, "Person", 2)]
        [(), (('owns', 'out'),), (('owns', 'out'), ('owns', 'in'))]
    """
    level = [TypedChain((), (label,))]
    out = list(level)
    for _ in range(max_depth):
        level = [n for c in level for n in next_chains(ontology, c)]
        out.extend(level)
        if len(out) >= limit:
            return out[:limit]
    return out


def chain_labels(ontology: Ontology) -> list[str]:
    """The labels a chain can start from, sorted: the entity types and every relation end.

    Example:
        >>> from pathrag_gds.ontology import RelationType
        >>> chain_labels(Ontology("o", relation_types=(RelationType("owns", "owns", "is owned by", "",
        ...     ("Person",), ("Animal",)),)))
        ['Animal', 'Person']
    """
    labels = set(ontology.labels)
    for r in ontology.relation_types:
        labels.update(r.source_labels)
        labels.update(r.target_labels)
    return sorted(labels)


def schema_chain_texts(ontology: Ontology, max_depth: int, limit: int = 50000) -> list[str]:
    """The distinct texts of every chain of the schema up to `max_depth` hops, from every label.

    What a chain scorer can be asked about this ontology (its encodings are computed once, at
    `tune` time). Labels: the entity types and every relation end.

    Example:
        >>> from pathrag_gds.ontology import RelationType
        >>> onto = Ontology("o", relation_types=(RelationType("owns", "owns", "is owned by", "",
        ...     ("Person",), ("Animal",)),))
        >>> schema_chain_texts(onto, 1)
        ['X itself', 'the person that owns X', 'the animal that is owned by X']
    """
    texts: dict[str, None] = {}
    for label in chain_labels(ontology):
        for c in schema_chains(ontology, label, max_depth, limit=limit):
            texts.setdefault(chain_text(ontology, c))
            if len(texts) >= limit:
                return list(texts)
    return list(texts)


def pool_chain_texts(ontology: Ontology, held: Collection[Chain]) -> list[str]:
    """The distinct texts of the schema's chains whose steps the graph holds, from every label.

    `held` is the chains some walk of the graph takes (with every prefix of each): a chain no
    entity has cannot reach an answer, so only these are encoded and planned (the chain pool).

    Example:
        >>> from pathrag_gds.ontology import RelationType
        >>> onto = Ontology("o", relation_types=(RelationType("owns", "owns", "is owned by", "",
        ...     ("Person",), ("Animal",)),))
        >>> pool_chain_texts(onto, {(("owns", "out"),)})
        ['X itself', 'the animal that is owned by X']
    """
    keep = set(held)
    texts: dict[str, None] = {}
    for label in chain_labels(ontology):
        level = [TypedChain((), (label,))]
        while level:
            texts.update((chain_text(ontology, c), None) for c in level)
            level = [n for c in level for n in next_chains(ontology, c) if n.steps in keep]
    return list(texts)


def pooled_chains(ontology: Ontology, label: str, pool: Collection[str], max_depth: int) -> list[TypedChain]:
    """The chains from `label` whose texts are in the chain pool, up to `max_depth` hops.

    What a planner with that pool can plan (:func:`~pathrag_gds.search.planner.plan_chains`).

    Example:
        >>> from pathrag_gds.ontology import RelationType
        >>> onto = Ontology("o", relation_types=(RelationType("owns", "owns", "is owned by", "",
        ...     ("Person",), ("Animal",)),))
        >>> [c.steps for c in pooled_chains(onto, "Person", ["X itself", "the animal that is owned by X"], 3)]
        [(), (('owns', 'out'),)]
    """
    level = [c for c in [TypedChain((), (label,))] if chain_text(ontology, c) in pool]
    out = list(level)
    for _ in range(max_depth):
        level = [n for c in level for n in next_chains(ontology, c) if chain_text(ontology, n) in pool]
        out.extend(level)
    return out


def _fits(labels: Sequence[str], label: str) -> bool:
    return not labels or label in labels or label == ANY_LABEL


def step_labels(rel: RelationType, direction: Direction) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(near labels, far labels) of a step along `rel`: a step out leaves a source; empty means any.

    Example:
        >>> step_labels(RelationType("owns", "owns", "is owned by", "", ("Person",), ("Animal",)), "in")
        (('Animal',), ('Person',))
    """
    if direction == "out":
        return rel.source_labels, rel.target_labels
    return rel.target_labels, rel.source_labels


def next_chains(ontology: Ontology, chain: TypedChain) -> list[TypedChain]:
    """Every one-step extension the ontology allows from the chain's last type label.

    A step out needs the label among the relation's source labels (none listed: any), a step in
    among its target labels; the label reached is each of the other end's labels (`Entity` when
    the ontology lists none). A relation stored both ways round (source and target labels overlap)
    gives both directions.
    """
    here = chain.labels[-1]
    out: list[TypedChain] = []
    directions: tuple[Direction, ...] = ("out", "in")
    for rel in ontology.relation_types:
        for direction in directions:
            near, far = step_labels(rel, direction)
            if not _fits(near, here):
                continue
            for there in far or (ANY_LABEL,):
                out.append(TypedChain(chain.steps + ((rel.type, direction),), chain.labels + (there,)))
    return out


def ontology_fingerprint(ontology: Ontology) -> str:
    """A short hash of what chain texts are made of (relation types, phrases, descriptions, labels).

    Example:
        >>> ontology_fingerprint(Ontology("o")) == ontology_fingerprint(Ontology("o"))
        True
    """
    parts = sorted(
        (r.type, r.phrase, r.inverse_phrase, r.description, tuple(r.source_labels), tuple(r.target_labels))
        for r in ontology.relation_types
    )
    return hashlib.sha256(json.dumps([CHAIN_TEXT_FORMAT, parts]).encode()).hexdigest()[:16]
