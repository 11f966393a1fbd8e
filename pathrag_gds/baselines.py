"""Two baselines that differ from :class:`~pathrag_gds.service.PathRag` only in how they expand.

Each is an :class:`~pathrag_gds.search.protocols.Expander` of the same search loop, so seeds
(vector index or `seed_ids`), serializer, scorer, beam bookkeeping, ranking and result building
are the service's own, and a benchmark measures the expansion strategy alone:

- :class:`PerNodeExpander` (:class:`PerNodeRag`): the specification's original Step 3 design. Per
  depth, ONE database call per distinct frontier node (`cypher/baseline_node_neighbours.cypher`: all
  its relationships and neighbours, with their embeddings and their degrees along the plan's
  probed steps); the chain plan's steps, whitelist, no-revisit, per-relation cap, the similarity
  pre-sort and the per-path limit run in Python (:mod:`pathrag_gds.baseline_select`).
- :class:`VarLengthExpander` (:class:`VarLengthRag`): the multi-hop traversal API document's
  approach. At the first depth, from each seed, one `MATCH p=(s)-[*1..k]-(m)` call returning every
  path along the seed's plan (`cypher/baseline_varlength.cypher`, k = max_depth clamped to 1..3);
  each depth's children are then taken from those paths with the same filters.

Both walk the same chain plans from the same seeds with the same scorer as the default search, and
keep its semantics (same filters, same order), so their answers match PathRag's and only the cost
of the expansion differs.

Example:
    >>> rag = PerNodeRag(settings, graph=g, scorer=sc, embedder=emb)  # doctest: +SKIP
    >>> rag.pathrag("who directed Heat", community_id="metaqa", max_depth=3).round_trips  # doctest: +SKIP
    9
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from pathrag_gds.baseline_select import (
    Row,
    choose,
    degrees_of,
    held_steps,
    neo4j_cosine,
    plan_probe,
    probe_tokens,
)
from pathrag_gds.config import Settings
from pathrag_gds.expanders import entity_record
from pathrag_gds.graph import Graph
from pathrag_gds.paths import Direction, Edge
from pathrag_gds.search.context import QueryContext
from pathrag_gds.search.protocols import Child, Expander, Expansion, Frontier
from pathrag_gds.search.schema import parse_step, step_token
from pathrag_gds.service import PathRag

#: The multi-hop API document's bound: 1..3 hops.
VARLENGTH_MAX_HOPS = 3
#: At most this many paths a seed; a walk cut there is not used (its frontier is fetched per node).
VARLENGTH_MAX_PATHS = 20000


class PerNodeExpander:
    """One round trip per distinct frontier node; `cypher/expand.cypher`'s filters in Python."""

    follows_plans = True

    def __init__(self, graph: Graph, settings: Settings) -> None:
        self.graph = graph
        self.settings = settings

    def _neighbours(self, ctx: QueryContext, node: str, probe: list[dict[str, str]]) -> list[Row]:
        s = self.settings
        rows = self.graph.read(
            "baseline_node_neighbours",
            counter=ctx.counter,
            id=node,
            community=s.walk_community(ctx.community),
            pinned=ctx.hidden,
            probe=probe,
            entity_label=s.entity_label,
            embedding_key=s.embedding_property,
        )
        for r, sim in zip(rows, neo4j_cosine(ctx.vector, [r["embedding"] for r in rows]), strict=True):
            r["sim"] = sim
            r["direction"] = "out" if r["src"] == node else "in"
            r["degrees"] = degrees_of(probe, r["degrees"])
        return rows

    def expand(self, ctx: QueryContext, frontier: Sequence[Frontier], relations: Sequence[str]) -> Expansion:
        """The children of the frontier paths (one round trip per distinct frontier node)."""
        s = self.settings
        allowed = set(relations)
        probe = probe_tokens(frontier)
        neighbours: dict[str, list[Row]] = {}
        for f in frontier:
            if f.path.end not in neighbours:
                neighbours[f.path.end] = self._neighbours(ctx, f.path.end, probe)
        out = Expansion([])
        for f in frontier:
            for r in choose(s, f, neighbours[f.path.end], allowed):
                nid = r["id"]
                if nid not in ctx.entities and nid not in out.entities:
                    out.entities[nid] = entity_record(s, nid, r["labels"], r["props"])
                direction: Direction = r["direction"]
                edge = Edge(r["type"], r["src"], r["tgt"], direction, dict(r["rel_props"] or {}))
                out.children.append(Child(f.path.extend(edge, nid), f.index, r["sim"], held_steps(f, r)))
        return out


@dataclass
class _Walk:
    """What one seed's variable-length call returned, per (node, hop) the relationships it walked."""

    #: per hop: the step tokens it was limited to (None: any type of `relations`)
    steps: list[list[str] | None]
    relations: frozenset[str]
    #: False when the call hit its path limit (then nothing is served from it)
    complete: bool
    rows: dict[tuple[str, int], list[Row]] = field(default_factory=dict)


class VarLengthExpander:
    """The whole walk at the first depth: `(s)-[*1..k]-(m)` per seed; the beam walks through it.

    One round trip per seed returns every path of 1..k hops along the seed's chain plan (its
    chains' steps hop by hop) or, for a seed without a plan, along the whitelist; each depth then
    takes its children from those paths with the filters of `cypher/expand.cypher`
    (:func:`~pathrag_gds.baseline_select.choose`), so the search keeps the same paths as the
    default one. What the fetched walk cannot answer (a step past the plan, a walk cut at
    `VARLENGTH_MAX_PATHS`) is fetched per node (:class:`PerNodeExpander`; `fallbacks` counts them).
    """

    follows_plans = True

    def __init__(self, graph: Graph, settings: Settings) -> None:
        self.graph = graph
        self.settings = settings
        self.per_node = PerNodeExpander(graph, settings)
        self.fallbacks = 0
        self._ctx: QueryContext | None = None
        self._walks: dict[str, _Walk] = {}

    def _plan_steps(self, ctx: QueryContext, seed: str, k: int) -> list[list[str] | None]:
        plan = ctx.plans.get(seed)
        if plan is None:
            return [None] * k
        chains = list(plan.reserve or plan.probs)
        return [sorted({step_token(c[i]) for c in chains if len(c) > i}) for i in range(k)]

    def _fetch(
        self, ctx: QueryContext, seed: str, relations: Sequence[str], probe: list[dict[str, str]]
    ) -> _Walk:
        s = self.settings
        k = min(max(ctx.max_depth, 1), VARLENGTH_MAX_HOPS)
        steps = self._plan_steps(ctx, seed, k)
        rels = set(relations)
        if all(x is not None for x in steps):
            rels &= {parse_step(t)[0] for x in steps for t in x or ()}
        found = self.graph.read(
            "baseline_varlength",
            counter=ctx.counter,
            seed=seed,
            community=s.walk_community(ctx.community),
            pinned=ctx.hidden,
            k=k,
            rels=sorted(rels),
            steps=steps,
            limit=VARLENGTH_MAX_PATHS,
            qvec=ctx.vector,
            probe=probe,
            entity_label=s.entity_label,
            embedding_key=s.embedding_property,
        )
        got = found[0] if found else {"paths": [], "nodes": []}
        walk = _Walk(steps, frozenset(relations), len(got["paths"]) < VARLENGTH_MAX_PATHS)
        nodes = {n["id"]: n for n in got["nodes"]}
        seen: set[tuple[str, ...]] = set()
        for p in got["paths"]:
            ids = p["ids"]
            for i, rel in enumerate(p["rels"]):
                here, there = ids[i], ids[i + 1]
                direction = "out" if rel["src"] == here else "in"
                key = (here, str(i), rel["src"], rel["type"], rel["tgt"], direction)
                if key in seen:
                    continue
                seen.add(key)
                n = nodes[there]
                walk.rows.setdefault((here, i), []).append(
                    {
                        "type": rel["type"],
                        "src": rel["src"],
                        "tgt": rel["tgt"],
                        "rel_props": rel["props"],
                        "id": there,
                        "direction": direction,
                        "sim": float(n["sim"]),
                        "labels": n["labels"],
                        "props": n["props"],
                        "degrees": degrees_of(probe, n["degrees"]),
                    }
                )
        return walk

    @staticmethod
    def _serves(walk: _Walk, f: Frontier, relations: Sequence[str]) -> bool:
        """Does `walk` hold every child `f` may have (else it is fetched per node)?"""
        d = f.path.depth
        if not walk.complete or d >= len(walk.steps) or not set(relations) <= walk.relations:
            return False
        allowed = walk.steps[d]
        if allowed is None:
            return True
        return f.steps is not None and {step_token(x) for x in f.steps} <= set(allowed)

    def expand(self, ctx: QueryContext, frontier: Sequence[Frontier], relations: Sequence[str]) -> Expansion:
        """The children of the frontier paths: from each seed's walk, fetched at the first depth."""
        s = self.settings
        if self._ctx is not ctx:
            self._ctx, self._walks = ctx, {}
        probe = plan_probe(ctx)
        allowed = set(relations)
        out = Expansion([])
        by_parent: dict[int, list[Child]] = {}
        rest: list[Frontier] = []
        for f in frontier:
            if f.path.depth == 0 and f.path.start not in self._walks:
                self._walks[f.path.start] = self._fetch(ctx, f.path.start, relations, probe)
            walk = self._walks.get(f.path.start)
            if walk is None or not self._serves(walk, f, relations):
                rest.append(f)
                continue
            kids = by_parent.setdefault(f.index, [])
            for r in choose(s, f, walk.rows.get((f.path.end, f.path.depth), []), allowed):
                nid = r["id"]
                if nid not in ctx.entities and nid not in out.entities:
                    out.entities[nid] = entity_record(s, nid, r["labels"], r["props"])
                direction: Direction = r["direction"]
                edge = Edge(r["type"], r["src"], r["tgt"], direction, dict(r["rel_props"] or {}))
                kids.append(Child(f.path.extend(edge, nid), f.index, r["sim"], held_steps(f, r)))
        if rest:
            self.fallbacks += len({f.path.end for f in rest})
            more = self.per_node.expand(ctx, rest, relations)
            for eid, rec in more.entities.items():
                out.entities.setdefault(eid, rec)
            for c in more.children:
                by_parent.setdefault(c.parent, []).append(c)
        out.children = [c for f in frontier for c in by_parent.get(f.index, [])]
        return out


class PerNodeRag(PathRag):
    """The beam search with per-node expansion: one round trip per frontier node per depth."""

    name = "per-node"

    def expander(self) -> Expander:
        """A :class:`PerNodeExpander`."""
        return PerNodeExpander(self.graph, self.settings)


class VarLengthRag(PathRag):
    """The beam search fed by one variable-length Cypher call per seed (the whole walk at depth 1)."""

    name = "var-length"

    def expander(self) -> Expander:
        """A :class:`VarLengthExpander`."""
        return VarLengthExpander(self.graph, self.settings)
