"""`cypher/expand.cypher`'s per-path filters, in Python, for the expansion baselines.

The baselines (:mod:`pathrag_gds.baselines`) fetch a frontier node's relationships another way (one
round trip per node, or variable-length paths per seed), then choose a frontier path's children
here exactly as the server-side expander does, so that their answers match and only the expansion
differs:

- the whitelist (`relations`) and, for a path on a chain plan, its planned steps (`Frontier.steps`);
- no-revisit: a free path never revisits a node on it; a planned path never returns to its topic
  nor walks back along a relationship it walked;
- the per-group cap: groups are relationship types (free path: `cap_per_relation` each) or planned
  steps (`min(cap_per_relation, expand_per_path)` each), pre-sorted by similarity to the question;
  a free path keeps at most `expand_per_path` in all, a planned one every step's share;
- the probe (`Frontier.probe`): which of the next steps asked about the neighbour has, the
  relationship just walked not counted (:func:`held_steps`);
- the similarity is Neo4j's `vector.similarity.cosine`, `(1 + cos) / 2` (:func:`neo4j_cosine`).

Example:
    >>> from pathrag_gds.config import Settings
    >>> from pathrag_gds.paths import Path
    >>> row = {"type": "r", "src": "a", "tgt": "b", "id": "b", "direction": "out", "sim": 0.9}
    >>> [r["id"] for r in choose(Settings(), Frontier(0, Path(("a",))), [row], {"r"})]
    ['b']
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection, Mapping, Sequence
from typing import Any, cast

import numpy as np

from pathrag_gds.config import Settings
from pathrag_gds.paths import edge_key
from pathrag_gds.search.context import QueryContext
from pathrag_gds.search.protocols import Frontier
from pathrag_gds.search.schema import Step

#: One relationship of a frontier node: type, src, tgt, id (the neighbour), direction ('out' when
#: the frontier node is its source), sim, and optionally rel_props, labels, props, degrees.
Row = dict[str, Any]


def neo4j_cosine(qvec: Sequence[float], vectors: Sequence[Any]) -> list[float]:
    """Neo4j's `vector.similarity.cosine` of the question with each vector: `(1 + cos) / 2`.

    A missing vector scores 0.0 (as `coalesce(..., 0.0)` in `cypher/expand.cypher`).

    Example:
        >>> neo4j_cosine([1.0, 0.0], [[1.0, 0.0], [-1.0, 0.0], None])
        [1.0, 0.0, 0.0]
    """
    q = np.asarray(qvec, dtype=np.float64)
    qn = float(np.linalg.norm(q)) or 1.0
    out = []
    for v in vectors:
        if v is None:
            out.append(0.0)
            continue
        a = np.asarray(v, dtype=np.float64)
        an = float(np.linalg.norm(a)) or 1.0
        out.append((1.0 + float(a @ q) / (an * qn)) / 2.0)
    return out


def probe_tokens(frontier: Sequence[Frontier]) -> list[dict[str, str]]:
    """Every step any frontier path's probe asks about, as `{t: type, d: direction}` (sorted)."""
    steps: set[Step] = set()
    for f in frontier:
        for v in (f.probe or {}).values():
            steps.update(v)
    return [{"t": t, "d": d} for t, d in sorted(steps)]


def plan_probe(ctx: QueryContext) -> list[dict[str, str]]:
    """Every step of every chain the query's plans hold in reserve, as `{t: type, d: direction}`.

    What a walk fetched at the first depth must know of each node to answer any later probe.
    """
    steps: set[Step] = set()
    for plan in ctx.plans.values():
        for chain in plan.reserve or plan.probs:
            steps.update(chain)
    return [{"t": t, "d": d} for t, d in sorted(steps)]


def degrees_of(probe: Sequence[Mapping[str, str]], counts: Sequence[int]) -> dict[Step, int]:
    """The neighbour's degree per probed step, from the counts a query returned in `probe`'s order."""
    return {cast(Step, (p["t"], p["d"])): int(c) for p, c in zip(probe, counts, strict=True)}


def choose(settings: Settings, f: Frontier, rows: Sequence[Row], relations: Collection[str]) -> list[Row]:
    """The rows that become `f`'s children, in `cypher/expand.cypher`'s order (see the module)."""
    s = settings
    planned = f.steps is not None
    on_path = set(f.path.node_ids)
    first = f.path.node_ids[0]
    walked = set(f.path.edge_keys)
    kept = []
    for r in rows:
        step = (r["type"], r["direction"])
        if r["type"] not in relations or (f.steps is not None and step not in f.steps):
            continue
        if s.no_revisit:
            if not planned and r["id"] in on_path:
                continue
            if planned and (r["id"] == first or edge_key(r["src"], r["type"], r["tgt"]) in walked):
                continue
        kept.append(r)
    per_group = (
        s.cap_per_relation if not planned or s.cap_per_relation < s.expand_per_path else s.expand_per_path
    )
    groups: dict[Any, list[Row]] = defaultdict(list)
    for r in sorted(kept, key=lambda r: -r["sim"]):
        groups[(r["type"], r["direction"]) if planned else r["type"]].append(r)
    capped = [r for g in groups.values() for r in g[:per_group]]
    capped.sort(key=lambda r: -r["sim"])
    return capped if planned else capped[: s.expand_per_path]


def held_steps(f: Frontier, r: Row) -> frozenset[Step] | None:
    """Of the steps `f.probe` asks about after `r`'s step, those `r`'s neighbour has (None: not asked).

    The relationship just walked is not counted: a neighbour reached along `t:in` has `t:out` only
    if it has another such relationship. `r["degrees"]`: the neighbour's degree per probed step.

    Example:
        >>> from pathrag_gds.paths import Path
        >>> step = ("r", "out")
        >>> f = Frontier(0, Path(("a",)), frozenset({step}), {step: frozenset({("r", "in")})})
        >>> row = {"type": "r", "src": "a", "tgt": "b", "id": "b", "direction": "out"}
        >>> held_steps(f, {**row, "degrees": {("r", "in"): 1}})  # only the relationship just walked
        frozenset()
    """
    if f.probe is None:
        return None
    degrees: Mapping[Step, int] = r.get("degrees") or {}
    out = set()
    for t, d in f.probe.get((r["type"], r["direction"]), ()):
        walked_here = t == r["type"] and r["src" if d == "out" else "tgt"] == r["id"]
        if degrees.get((t, d), 0) > (1 if walked_here else 0):
            out.add((t, d))
    return frozenset(out)
