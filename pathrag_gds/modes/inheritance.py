"""Hybrid vector + graph scores with graph-score inheritance (graph-score-inheritance.md). Pure.

Vector results and graph-expansion results are merged by id. A graph result that is also a vector
result merges into it (its graph score: the larger of the two). A graph result found by expanding
from vector result A records A as related; each vector result then inherits
`factor x mean(graph scores of the results expanded from it)`, its graph score becomes the larger of
its own and the inherited one, and every result's `combined = w_v x vector + w_g x graph`.

Example (the spec's worked example: two same-city results of graph score 0.8 each):
    >>> a = Hit("A", vector=0.641, from_vector=True)
    >>> x = Hit("X", graph=0.8, related=["A"]); y = Hit("Y", graph=0.8, related=["A"])
    >>> ranked = combine_and_rank([a], [x, y], vector_weight=0.7, graph_weight=0.3, factor=0.5)
    >>> top = ranked[0]
    >>> top.id, top.inherited, top.graph, round(top.combined, 4)
    ('A', 0.4, 0.4, 0.5687)
    >>> top.related
    ['X', 'Y']
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from pathrag_gds.paths import Path


@dataclass
class Hit:
    """One result of the mix mode, with its score breakdown and why it is there."""

    id: str
    #: cosine of its embedding to the question
    vector: float = 0.0
    #: its graph score: from the expansion rules, or inherited (the larger)
    graph: float = 0.0
    #: what it inherited from the graph results expanded from it (vector results only)
    inherited: float = 0.0
    combined: float = 0.0
    #: found by the vector search (entity or chunk index), not only by expansion
    from_vector: bool = False
    #: how it was found: `vector match`, or the expansion rule and relation
    reason: str = ""
    #: a graph result: the vector results it was expanded from; a vector result: the graph results
    #: it inherited from
    related: list[str] = field(default_factory=list)
    #: the walk from a vector result that reached it (None: a vector result itself)
    path: Path | None = None


def merge_graph_hits(hits: Sequence[Hit]) -> list[Hit]:
    """One graph result per id: the best graph score (then vector score) keeps its path and reason.

    The vector results it was reached from are all kept, in order.
    """
    best: dict[str, Hit] = {}
    for h in hits:
        old = best.get(h.id)
        if old is None:
            best[h.id] = Hit(h.id, h.vector, h.graph, reason=h.reason, related=list(h.related), path=h.path)
            continue
        related = old.related + [r for r in h.related if r not in old.related]
        if (h.graph, h.vector) > (old.graph, old.vector):
            best[h.id] = Hit(h.id, h.vector, h.graph, reason=h.reason, related=related, path=h.path)
        else:
            old.related = related
    return list(best.values())


def combine_and_rank(
    vector_hits: Sequence[Hit],
    graph_hits: Sequence[Hit],
    *,
    vector_weight: float,
    graph_weight: float,
    factor: float,
) -> list[Hit]:
    """Merge by id, apply inheritance, compute combined scores; best first (ties: vector, then id).

    `vector_hits` are taken as they are (their `graph` may be set); `graph_hits` are merged by id
    first (:func:`merge_graph_hits`). The returned hits are new objects.
    """
    results: dict[str, Hit] = {}
    inheritance: dict[str, list[Hit]] = {}
    for v in vector_hits:
        results[v.id] = Hit(v.id, v.vector, v.graph, from_vector=True, reason=v.reason or "vector match")
        inheritance[v.id] = []
    for g in merge_graph_hits(graph_hits):
        if g.id in results:  # a graph result that the vector search found too: direct merge
            hit = results[g.id]
            hit.graph = max(hit.graph, g.graph)
            continue
        results[g.id] = g
        for seed in g.related:
            if seed in inheritance:
                inheritance[seed].append(g)
    for seed, related in inheritance.items():
        if related:
            hit = results[seed]
            hit.inherited = factor * sum(r.graph for r in related) / len(related)
            hit.graph = max(hit.graph, hit.inherited)
            hit.related = [r.id for r in related]
    for hit in results.values():
        hit.combined = vector_weight * hit.vector + graph_weight * hit.graph
    return sorted(results.values(), key=lambda h: (-h.combined, -h.vector, h.id))
