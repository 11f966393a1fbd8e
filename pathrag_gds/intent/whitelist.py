"""The relation whitelist per intent and depth: walk only relations from which an expected type is in reach.

Off by default (`Settings.intent_whitelist`); the ontology's source and target types say what is in reach.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Iterable, Sequence

from pathrag_gds.intent.model import Intent
from pathrag_gds.ontology import Ontology


def type_distances(ontology: Ontology, targets: Iterable[str]) -> dict[str, int]:
    """Hops in the ontology's type graph (relations read both ways) from each type to `targets`.

    Example:
        >>> from pathrag_gds.ontology import RelationType
        >>> lives = RelationType("lives_in", "lives in", "", "", ("Person",), ("City",))
        >>> owns = RelationType("owns", "owns", "", "", ("Person",), ("Pet",))
        >>> type_distances(Ontology("o", relation_types=(lives, owns)), ["City"])
        {'City': 0, 'Person': 1, 'Pet': 2}
    """
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
