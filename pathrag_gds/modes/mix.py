"""The mix mode: vector results and graph-expansion results, scored with graph-score inheritance.

1. Vector results: the question's seed entities (entity vector index, or the given `seed_ids`) and,
   where the graph has chunks, the entities of the nearest chunks; each with its cosine.
2. Graph expansion from the best `mix_expand_n` of them, depth 1..max_depth, the whole frontier one
   hop per round trip (`cypher/expand.cypher`, as the local search); a reached entity scores the
   best rule of the table in the settings (:mod:`~pathrag_gds.modes.rules`), records the vector
   result it was reached from, and carries its own cosine as its vector score; the frontier keeps
   the `beam_width` best walks.
3. Inheritance and combined scores (:mod:`~pathrag_gds.modes.inheritance`); the top-N become paths
   (a vector result: the entity alone; a graph result: the walk that reached it) whose score parts
   are `vector`, `graph`, `inherited` and `combined`, with the reason and the related results.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from pathrag_gds.beam import ScoredPath
from pathrag_gds.catalog import relation_whitelist
from pathrag_gds.modes import ModeRequest
from pathrag_gds.modes.inheritance import Hit, combine_and_rank
from pathrag_gds.modes.rules import graph_score
from pathrag_gds.ontology import Ontology
from pathrag_gds.paths import EntityRecord, Path
from pathrag_gds.provenance import chunk_seed_rows, parse_as_of
from pathrag_gds.results import DepthStat, PathRagResult, PathResult, Seed
from pathrag_gds.search.context import QueryContext
from pathrag_gds.search.protocols import Frontier

if TYPE_CHECKING:  # pragma: no cover
    from pathrag_gds.service import PathRag

#: The name the results give as their scorer.
SCORER = "mix: vector + graph with inheritance"


def reason(path: Path, shape: str, entities: dict[str, EntityRecord], ontology: Ontology) -> str:
    """Why a graph result is there, in words: the rule it matched and the relation walked.

    Example:
        >>> from pathrag_gds.paths import Edge
        >>> ents = {"b": EntityRecord("b", ("Animal",), "Bob"), "r": EntityRecord("r", ("Animal",), "Rex"),
        ...         "w": EntityRecord("w", ("Place",), "Town")}
        >>> hops = (Edge("lives_in", "b", "w", "out"), Edge("lives_in", "r", "w", "in"))
        >>> walk = Path(("b", "w", "r"), hops)
        >>> reason(walk, "shared", ents, Ontology("o"))
        'shares Town with Bob (lives in)'
    """
    start = entities[path.start].name
    phrases = " > ".join(ontology.relation(e.type).phrase for e in path.edges)
    if shape == "neighbour":
        return f"neighbour of {start} ({phrases})"
    if shape == "shared":
        middle = entities[path.node_ids[1]].name
        return f"shares {middle} with {start} ({ontology.relation(path.edges[0].type).phrase})"
    if shape == "same_type":
        return f"a {entities[path.end].label} like {start}, {path.depth} hops away ({phrases})"
    return f"{path.depth} hops from {start} ({phrases})"


def _vector_hits(service: PathRag, ctx: QueryContext, req: ModeRequest) -> tuple[dict[str, Hit], list[Seed]]:
    """The vector results: seed entities, and the entities of the nearest chunks (where there are any).

    Each is scored by its own embedding's cosine to the question.
    """
    s = service.settings
    if req.seed_ids is not None:
        seeds = service._seeds_by_id(ctx, req.seed_ids, req.community_id)
    else:
        seeds = service._seeds(ctx, req.seed_n, req.community_id)
    hits = {sd.id: Hit(sd.id, vector=sd.similarity, from_vector=True, reason="vector match") for sd in seeds}
    if req.seed_ids is None and s.chunk_label in service.info.labels:
        rows = chunk_seed_rows(
            service.graph,
            ctx.vector,
            community=req.community_id,
            as_of=ctx.as_of,
            seed_n=s.mix_expand_n,
            counter=ctx.counter,
            hidden=ctx.hidden,
        )
        chunk_score = {str(r["id"]): float(r["score"]) for r in rows}
        new = [eid for eid in chunk_score if eid not in hits]
        for sd in service._seeds_by_id(ctx, new, req.community_id) if new else []:
            hits[sd.id] = Hit(sd.id, vector=sd.similarity, from_vector=True, reason="vector match")
        for eid, score in chunk_score.items():
            if eid in hits:
                hits[eid].reason += f" (and a chunk that mentions it, {score:.3f})"
    ents = ctx.entities
    out = [
        Seed(id=h.id, name=ents[h.id].name, labels=list(ents[h.id].labels), similarity=h.vector)
        for h in hits.values()
    ]
    return hits, out


def _expand(
    service: PathRag, ctx: QueryContext, req: ModeRequest, vector_hits: list[Hit], relations: list[str]
) -> tuple[list[Hit], list[DepthStat], int]:
    """Graph results of the walks from the best vector results, depth by depth (one round trip each)."""
    s = service.settings
    starts = sorted(vector_hits, key=lambda h: (-h.vector, h.id))[: s.mix_expand_n]
    expander = service.expander()
    ontology = service.ontology_for(req.community_id, req.ontology_id)
    frontier = [Frontier(i, Path((h.id,))) for i, h in enumerate(starts)]
    hits: list[Hit] = []
    depths: list[DepthStat] = []
    explored = 0
    for depth in range(1, req.max_depth + 1):
        if not frontier:
            break
        ctx.check()
        t0 = time.perf_counter()
        with ctx.timed("expand"):
            grown = expander.expand(ctx, frontier, relations)
        ctx.entities.update(grown.entities)
        walks = []
        for child in grown.children:
            p = child.path
            sim = float(child.sim or 0.0)
            ctx.sims.setdefault(p.end, sim)
            score, shape = graph_score(
                p, ctx.entities[p.start].labels, ctx.entities[p.end].labels, s.mix_graph_rules
            )
            walks.append((score, sim, p))
            if score > 0:
                why = reason(p, shape, ctx.entities, ontology)
                hits.append(Hit(p.end, vector=sim, graph=score, reason=why, related=[p.start], path=p))
        explored += len(walks)
        walks.sort(key=lambda w: (-w[0], -w[1], w[2].key))
        kept = walks[: s.beam_width]
        depths.append(
            DepthStat(
                depth=depth,
                beam_in=len(frontier),
                candidates=len(walks),
                scored=len(walks),
                kept=len(kept),
                seconds=round(time.perf_counter() - t0, 4),
            )
        )
        frontier = [Frontier(i, w[2]) for i, w in enumerate(kept)]
        if req.on_depth is not None:
            req.on_depth(depth, _paths(service, ctx, req, vector_hits, hits, with_sources=False))
    return hits, depths, explored


def _paths(
    service: PathRag,
    ctx: QueryContext,
    req: ModeRequest,
    vector_hits: list[Hit],
    graph_hits: list[Hit],
    *,
    with_sources: bool,
) -> list[PathResult]:
    w = req.weights
    ranked = combine_and_rank(
        vector_hits, graph_hits, vector_weight=w.vector, graph_weight=w.graph, factor=w.inheritance
    )[: req.top_n]
    scored = [
        ScoredPath(
            h.path or Path((h.id,)),
            h.combined,
            parts={"vector": h.vector, "graph": h.graph, "inherited": h.inherited, "combined": h.combined},
        )
        for h in ranked
    ]
    ontology = service.ontology_for(req.community_id, req.ontology_id)
    paths = service._results(ctx, scored, ontology, with_sources=with_sources)
    for p, h in zip(paths, ranked, strict=True):
        p.reason = h.reason
        if h.from_vector and h.inherited > 0:
            p.reason += f"; inherits {h.inherited:.3f} from {len(h.related)} graph result(s)"
        p.related = list(h.related)
    return paths


def run_mix(service: PathRag, req: ModeRequest) -> PathRagResult:
    """Answer one question in the mix mode (see the module docstring)."""
    t_start = time.perf_counter()
    ontology = service.ontology_for(req.community_id, req.ontology_id)
    relations = relation_whitelist(service.info, ontology, req.relations)
    ctx = QueryContext(
        req.query,
        community=req.community_id,
        max_depth=req.max_depth,
        deadline=(time.monotonic() + req.timeout) if req.timeout else None,
        cancel=req.cancel,
        as_of=parse_as_of(req.as_of),
    )
    with ctx.timed("embed"):
        ctx.vector = [float(x) for x in service.embedder.encode_question(req.query)]
    with ctx.timed("seed"):
        vector_hits, seeds = _vector_hits(service, ctx, req)
    with ctx.timed("intent"):
        ctx.intent = service.intent(req.query, ontology, ctx.entities.values())
        ctx.topics = set(ctx.intent.named)
        ctx.named = ctx.topics | set(ctx.intent.described)
    graph_hits, depths, explored = _expand(service, ctx, req, list(vector_hits.values()), relations)
    with ctx.timed("sources"):
        paths = _paths(service, ctx, req, list(vector_hits.values()), graph_hits, with_sources=True)
    ctx.timings["total"] = (time.perf_counter() - t_start) * 1000.0
    ctx.timings["db"] = ctx.counter.seconds * 1000.0
    return PathRagResult(
        query=req.query,
        mode="mix",
        scorer=SCORER,
        community_id=req.community_id,
        paths=paths,
        seeds=seeds,
        timings_ms={k: round(v, 2) for k, v in ctx.timings.items()},
        round_trips=ctx.counter.count,
        depths=depths,
        explored=explored,
    )
