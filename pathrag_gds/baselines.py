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

from collections.abc import Sequence

from pathrag_gds.baseline_select import Row, choose, degrees_of, held_steps, neo4j_cosine, probe_tokens
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
