"""Two baselines that differ from :class:`~pathrag_gds.service.PathRag` only in how they expand.

Each is an :class:`~pathrag_gds.search.protocols.Expander` of the same search loop, so seeds
(vector index or `seed_ids`), serializer, scorer, beam bookkeeping, ranking and result building
are the service's own, and a benchmark measures the expansion strategy alone:

- :class:`PerNodeExpander` (:class:`PerNodeRag`): the specification's original Step 3 design. Per
  depth, ONE database call per distinct frontier node (`cypher/baseline_node_neighbours.cypher`: all
  its relationships and neighbours, with their embeddings); whitelist, planned steps, no-revisit,
  per-relation cap, the similarity pre-sort and the per-path limit run in Python. It keeps the
  server-side version's semantics (same filters, same order), so its answers should match
  PathRag's and only its cost differs.
- :class:`VarLengthExpander` (:class:`VarLengthRag`): the multi-hop traversal API document's
  approach. At the first depth, from each seed, one `MATCH p=(s)-[*1..k]-(m)` call returning at
  most 30 paths (`cypher/baseline_varlength.cypher`, k = max_depth clamped to 1..3); every path is
  scored, and the walk ends there. It cannot follow chain plans: the search plans none for it.

Example:
    >>> rag = PerNodeRag(settings, graph=g, scorer=sc, embedder=emb)  # doctest: +SKIP
    >>> rag.pathrag("who directed Heat", community_id="metaqa", max_depth=3).round_trips  # doctest: +SKIP
    9
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import Any

import numpy as np

from pathrag_gds.config import Settings
from pathrag_gds.expanders import entity_record
from pathrag_gds.graph import Graph
from pathrag_gds.paths import Direction, Edge, Path
from pathrag_gds.search.context import QueryContext
from pathrag_gds.search.protocols import Child, Expander, Expansion, Frontier
from pathrag_gds.service import PathRag

#: The multi-hop API document: at most 30 paths per seed entity, 1..3 hops.
VARLENGTH_PATHS_PER_SEED = 30
VARLENGTH_MAX_HOPS = 3


def _cosine(qvec: Sequence[float], vectors: list[Any]) -> list[float]:
    """Cosine similarity of the question with each vector (0.0 for a missing one)."""
    q = np.asarray(qvec, dtype=np.float32)
    qn = float(np.linalg.norm(q)) or 1.0
    out = []
    for v in vectors:
        if v is None:
            out.append(0.0)
            continue
        a = np.asarray(v, dtype=np.float32)
        an = float(np.linalg.norm(a)) or 1.0
        out.append(float(a @ q) / (an * qn))
    return out


class PerNodeExpander:
    """One round trip per distinct frontier node; the filters of `cypher/expand.cypher` in Python."""

    follows_plans = True

    def __init__(self, graph: Graph, settings: Settings) -> None:
        self.graph = graph
        self.settings = settings

    def _neighbours(self, ctx: QueryContext, node: str) -> list[dict[str, Any]]:
        s = self.settings
        rows = self.graph.read(
            "baseline_node_neighbours",
            counter=ctx.counter,
            id=node,
            community=s.walk_community(ctx.community),
            pinned=ctx.hidden,
            entity_label=s.entity_label,
            embedding_key=s.embedding_property,
        )
        for r, sim in zip(rows, _cosine(ctx.vector, [r["embedding"] for r in rows]), strict=True):
            r["sim"] = sim
            r["direction"] = "out" if r["src"] == node else "in"
        return rows

    def expand(self, ctx: QueryContext, frontier: Sequence[Frontier], relations: Sequence[str]) -> Expansion:
        """The children of the frontier paths (one round trip per distinct frontier node)."""
        s = self.settings
        allowed = set(relations)
        neighbours: dict[str, list[dict[str, Any]]] = {}
        for f in frontier:
            if f.path.end not in neighbours:
                neighbours[f.path.end] = self._neighbours(ctx, f.path.end)
        out = Expansion([])
        for f in frontier:
            on_path = set(f.path.node_ids)
            rows = [
                r
                for r in neighbours[f.path.end]
                if r["type"] in allowed
                and (f.steps is None or (r["type"], r["direction"]) in f.steps)
                and not (s.no_revisit and r["id"] in on_path)
            ]
            by_type: dict[str, list[dict[str, Any]]] = defaultdict(list)
            for r in sorted(rows, key=lambda r: -r["sim"]):
                by_type[r["type"]].append(r)
            capped = [r for group in by_type.values() for r in group[: s.cap_per_relation]]
            capped.sort(key=lambda r: -r["sim"])
            for r in capped[: s.expand_per_path]:
                nid = r["id"]
                if nid not in ctx.entities and nid not in out.entities:
                    out.entities[nid] = entity_record(s, nid, r["labels"], r["props"])
                direction: Direction = r["direction"]
                edge = Edge(r["type"], r["src"], r["tgt"], direction, dict(r["rel_props"] or {}))
                out.children.append(Child(f.path.extend(edge, nid), f.index, r["sim"]))
        return out


class VarLengthExpander:
    """The whole walk at the first depth: `(s)-[*1..k]-(m)` per seed, at most 30 paths a seed."""

    follows_plans = False

    def __init__(self, graph: Graph, settings: Settings) -> None:
        self.graph = graph
        self.settings = settings

    def expand(self, ctx: QueryContext, frontier: Sequence[Frontier], relations: Sequence[str]) -> Expansion:
        """Every path of 1..k hops from each seed (one round trip per seed); nothing past the seeds."""
        if any(f.path.depth > 0 for f in frontier):
            return Expansion([])  # the first call walked every length already
        s = self.settings
        k = min(max(ctx.max_depth, 1), VARLENGTH_MAX_HOPS)
        out = Expansion([])
        for f in frontier:  # one round trip per seed, as the document's per-entity query
            rows = self.graph.read(
                "baseline_varlength",
                counter=ctx.counter,
                seed=f.path.end,
                community=s.walk_community(ctx.community),
                pinned=ctx.hidden,
                k=k,
                rels=list(relations),
                limit=VARLENGTH_PATHS_PER_SEED,
                entity_label=s.entity_label,
                embedding_key=s.embedding_property,
            )
            for r in rows:
                ids = [n["id"] for n in r["nodes"]]
                for n in r["nodes"]:
                    if n["id"] not in ctx.entities and n["id"] not in out.entities:
                        out.entities[n["id"]] = entity_record(s, n["id"], n["labels"], n["props"])
                p = Path((ids[0],))
                for i, rel in enumerate(r["rels"]):
                    direction: Direction = "out" if rel["src"] == ids[i] else "in"
                    edge = Edge(rel["type"], rel["src"], rel["tgt"], direction, dict(rel["props"] or {}))
                    p = p.extend(edge, ids[i + 1])
                out.children.append(Child(p, f.index))
        return out


class PerNodeRag(PathRag):
    """The beam search with per-node expansion: one round trip per frontier node per depth."""

    name = "per-node"

    def expander(self) -> Expander:
        """A :class:`PerNodeExpander`."""
        return PerNodeExpander(self.graph, self.settings)


class VarLengthRag(PathRag):
    """Variable-length Cypher from each seed (at most 30 paths a seed), every path scored; no beam."""

    name = "var-length"

    def expander(self) -> Expander:
        """A :class:`VarLengthExpander`."""
        return VarLengthExpander(self.graph, self.settings)
