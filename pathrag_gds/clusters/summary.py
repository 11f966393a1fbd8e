"""Extractive cluster summaries, no LLM: central entities, common relations, best source sentences. Pure.

:func:`clusters_of` turns GDS's levels into clusters (too small ones and ones that repeat a finer
level's members left out); :func:`summarize` writes each one's title, summary and rating from what
the graph holds:

- title: the names of its most central members (PageRank);
- summary: its size and types, its most central members, the facts that join them (relationships
  between members, phrased by the ontology), its commonest relation phrases, and the sentences of
  the chunks that mention its members best (most member names, weighted by centrality);
- rating (0-10): its share of PageRank, against the largest cluster of its level;
- profile (what is embedded): the central members' names, the relation phrases, the sentences.

Example:
    >>> ents = {"b": Member("b", "Bob", ("Animal",)), "j": Member("j", "Jane", ("Person",)),
    ...         "w": Member("w", "Whiskerville", ("Place",))}
    >>> facts = Facts(ents, [("j", "owns", "b"), ("b", "lives_in", "w")], [])
    >>> [c.members for c in clusters_of([{"b": 0, "j": 0, "w": 0}], min_size=3)]
    [('b', 'j', 'w')]
    >>> s = summarize(clusters_of([{"b": 0, "j": 0, "w": 0}], 3), facts, {"b": 2.0, "j": 1.0, "w": 1.0})[0]
    >>> s.title, s.rating
    ('Bob, Jane, Whiskerville', 10.0)
    >>> s.summary.split(". ")[1]
    'Most central: Bob (Animal), Jane (Person), Whiskerville (Place)'
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from pathrag_gds.sentences import best_sentences

#: Members named in a title, listed as most central, and facts and sentences quoted in a summary.
TITLE_MEMBERS = 3
CENTRAL_MEMBERS = 5
FACTS = 3
RELATION_PHRASES = 3
SENTENCES = 2


@dataclass(frozen=True)
class Member:
    """An entity as a summary names it."""

    id: str
    name: str
    labels: tuple[str, ...] = ()


@dataclass
class Facts:
    """What summaries are written from: the entities, their relationships, the chunks about them."""

    entities: Mapping[str, Member]
    #: (source id, relationship type, target id) between entities of the community
    edges: Sequence[tuple[str, str, str]]
    #: (chunk text, ids of the entities it mentions)
    chunks: Sequence[tuple[str, Sequence[str]]]


@dataclass(frozen=True)
class Cluster:
    """A group of entities at one level of the hierarchy."""

    level: int
    number: int
    members: tuple[str, ...]


@dataclass
class Summary:
    """A cluster with its extractive title, summary, rating and members' centrality."""

    cluster: Cluster
    title: str
    summary: str
    rating: float
    centrality: dict[str, float]
    #: what is embedded for the global search: the central members' names, the commonest relation
    #: phrases and the quoted sentences (a third of the summary's tokens on MetaQA: embedding is
    #: most of a run's time)
    profile: str = ""


def clusters_of(levels: Sequence[Mapping[str, int]], min_size: int) -> list[Cluster]:
    """The clusters of every level, finest first, without small ones and repeats of a finer level."""
    seen: set[frozenset[str]] = set()
    out = []
    for level, assignment in enumerate(levels):
        groups: dict[int, list[str]] = {}
        for eid, number in assignment.items():
            groups.setdefault(number, []).append(eid)
        for number in sorted(groups):
            members = frozenset(groups[number])
            if len(members) < min_size or members in seen:
                continue
            seen.add(members)
            out.append(Cluster(level, number, tuple(sorted(members))))
    return out


def _types(members: Sequence[Member]) -> str:
    counts = Counter(m.labels[0] if m.labels else "Entity" for m in members)
    return ", ".join(f"{label} {n}" for label, n in counts.most_common(3))


def summarize(
    clusters: Sequence[Cluster],
    facts: Facts,
    pagerank: Mapping[str, float],
    phrase: Callable[[str], str] = lambda t: t.replace("_", " ").lower(),
) -> list[Summary]:
    """Title, summary and rating of each cluster (see the module docstring).

    Args:
        clusters: the clusters (:func:`clusters_of`).
        facts: the community's entities, relationships and chunks.
        pagerank: entity id -> PageRank (absent: 0).
        phrase: a relationship type in words (the ontology's phrase).
    """
    out_edges: dict[str, list[tuple[str, str]]] = {}
    for src, rel, tgt in facts.edges:
        out_edges.setdefault(src, []).append((rel, tgt))
    chunks_of: dict[str, list[int]] = {}
    for i, (_, mentioned) in enumerate(facts.chunks):
        for eid in mentioned:
            chunks_of.setdefault(eid, []).append(i)
    mass = {c: sum(pagerank.get(m, 0.0) for m in c.members) for c in clusters}
    top_mass: dict[int, float] = {}
    for c, m in mass.items():
        top_mass[c.level] = max(top_mass.get(c.level, 0.0), m)
    result = []
    for c in clusters:
        members = set(c.members)
        central = sorted(c.members, key=lambda m: (-pagerank.get(m, 0.0), facts.entities[m].name))
        ents = [facts.entities[m] for m in central]
        inside = [(s, r, t) for s in central for r, t in out_edges.get(s, []) if t in members]
        rel_counts = Counter(r for _, r, _ in inside)
        weight = {m: pagerank.get(m, 0.0) for m in central[: CENTRAL_MEMBERS * 2]}
        key_facts = sorted(inside, key=lambda e: -(weight.get(e[0], 0.0) + weight.get(e[2], 0.0)))[:FACTS]
        chunk_ids = sorted({i for m in weight for i in chunks_of.get(m, [])})
        sentences = best_sentences(
            [facts.chunks[i] for i in chunk_ids],
            weight,
            {m: facts.entities[m].name for m in weight},
            SENTENCES,
        )
        parts = [
            f"{len(members)} entities ({_types(ents)})",
            "Most central: "
            + ", ".join(f"{e.name} ({e.labels[0]})" if e.labels else e.name for e in ents[:CENTRAL_MEMBERS]),
        ]
        if key_facts:
            parts.append(
                "Facts: "
                + "; ".join(
                    f"{facts.entities[s].name} {phrase(r)} {facts.entities[t].name}" for s, r, t in key_facts
                )
            )
        if rel_counts:
            parts.append(
                "Commonest relations: "
                + ", ".join(f"{phrase(r)} ({n})" for r, n in rel_counts.most_common(RELATION_PHRASES))
            )
        summary = ". ".join(parts) + "."
        if sentences:
            summary += " From the text: " + " ".join(f'"{s}"' for s in sentences)
        profile = [", ".join(e.name for e in ents[:CENTRAL_MEMBERS])]
        profile.append(", ".join(phrase(r) for r, _ in rel_counts.most_common(RELATION_PHRASES)))
        peak = top_mass.get(c.level, 0.0)
        result.append(
            Summary(
                cluster=c,
                title=", ".join(e.name for e in ents[:TITLE_MEMBERS]),
                summary=summary,
                rating=round(10.0 * mass[c] / peak, 1) if peak > 0 else 0.0,
                centrality={m: pagerank.get(m, 0.0) for m in c.members},
                profile=". ".join(p for p in profile if p) + ". " + " ".join(sentences),
            )
        )
    return result
