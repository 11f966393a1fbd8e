"""The global and hybrid modes: they read the clusters `communities` wrote for the query's community.

- global: the clusters of the community's current run whose summary embeddings are nearest the
  question (an exact scan of a small community's clusters, else the cluster vector index), each with
  its most central entities; `hop_depth` does not apply.
- hybrid: the local path search, then one round trip for the clusters the paths' answers fall in;
  each path scores `local + global_weight x global` (global: the cosine of the best summary among
  its answer's clusters), the paths re-ranked, and the clusters they fall in listed.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from pathrag_gds.errors import InvalidInput, SchemaError
from pathrag_gds.graph import Graph
from pathrag_gds.modes import ModeRequest
from pathrag_gds.ontology import type_labels
from pathrag_gds.provenance import parse_as_of
from pathrag_gds.results import ClusterEntity, ClusterResult, PathRagResult, PathResult
from pathrag_gds.search.context import QueryContext, RoundTripCounter

if TYPE_CHECKING:  # pragma: no cover
    from pathrag_gds.service import PathRag

#: A community with at most this many clusters is scanned exactly (no cluster index lookup).
EXACT_CLUSTER_SCAN = 20000
#: Central entities listed per cluster (global mode).
TOP_ENTITIES = 5
#: Local paths the hybrid mode re-ranks, per path it returns.
HYBRID_POOL = 2


def cluster_count(graph: Graph, community: str | None, counter: RoundTripCounter | None = None) -> int:
    """How many clusters the community's current run has.

    Raises:
        InvalidInput: no community given (clusters belong to one).
        SchemaError: none yet, naming the command that makes them.
    """
    if community is None:
        raise InvalidInput(
            "the global and hybrid modes read one community's clusters: pass community_id (--community ID)"
        )
    rows = graph.read("cluster_state", counter=counter, community=community)
    count = sum(int(n) for lv, n in rows[0]["levels"] if lv is not None) if rows else 0
    if count == 0:
        raise SchemaError(
            f"community {community!r} has no clusters yet: run `python -m pathrag_gds communities "
            f"--community {community}` first (the global and hybrid modes read them)"
        )
    return count


def _cluster(row: dict[str, Any], top: list[ClusterEntity]) -> ClusterResult:
    return ClusterResult(
        id=row["id"],
        level=int(row["level"]),
        title=row["title"],
        summary=row["summary"],
        rating=float(row["rating"]),
        size=int(row["size"]),
        score=round(float(row["score"]), 6),
        top_entities=top,
    )


def search_clusters(service: PathRag, ctx: QueryContext, top: int) -> list[ClusterResult]:
    """The `top` clusters of the query's community nearest the question, with their central entities."""
    s = service.settings
    count = cluster_count(service.graph, ctx.community, ctx.counter)
    rows = service.graph.read(
        "cluster_search",
        counter=ctx.counter,
        community=ctx.community,
        index_name=s.cluster_vector_index,
        k=top * 20,
        qvec=ctx.vector,
        exact=count <= EXACT_CLUSTER_SCAN,
        top=top,
        per_cluster=TOP_ENTITIES,
        entity_label=s.entity_label,
    )
    return [
        _cluster(r, [ClusterEntity(id=e["id"], name=e["name"] or e["id"],
                                   labels=list(type_labels(e["labels"])),
                                   centrality=round(float(e["centrality"] or 0.0), 6)) for e in r["top"]])
        for r in rows
    ]  # fmt: skip


def run_global(service: PathRag, req: ModeRequest) -> PathRagResult:
    """The clusters whose summaries best match the question (no paths)."""
    t_start = time.perf_counter()
    ctx = QueryContext(req.query, community=req.community_id, cancel=req.cancel, as_of=parse_as_of(req.as_of))
    with ctx.timed("embed"):
        ctx.vector = [float(x) for x in service.embedder.encode_question(req.query)]
    with ctx.timed("clusters"):
        clusters = search_clusters(service, ctx, req.top_n)
    ctx.timings["total"] = (time.perf_counter() - t_start) * 1000.0
    ctx.timings["db"] = ctx.counter.seconds * 1000.0
    return PathRagResult(
        query=req.query,
        mode="global",
        scorer="cluster summaries (cosine)",
        community_id=req.community_id,
        paths=[],
        seeds=[],
        clusters=clusters,
        timings_ms={k: round(v, 2) for k, v in ctx.timings.items()},
        round_trips=ctx.counter.count,
    )


def _answer_id(p: PathResult) -> str:
    return p.answer_candidates[0].id if p.answer_candidates else p.nodes[-1].id


def rerank(
    paths: list[PathResult], cluster_rows: list[dict[str, Any]], weight: float, top_n: int
) -> list[PathResult]:
    """Paths scored `local + weight x global` (their answer's best cluster, in `related`), best first. Pure.

    Example:
        >>> from pathrag_gds.results import NodeOut
        >>> def path(i, score):
        ...     node = NodeOut(id=str(i), name=str(i), labels=[])
        ...     return PathResult(rank=i, score=score, depth=0, key=str(i), text="", path_context=[],
        ...                       nodes=[node], edges=[], answer_candidates=[])
        >>> rows = [{"entity": "2", "id": "c", "score": 0.9}]
        >>> [(p.key, p.score, p.related) for p in rerank([path(1, 1.0), path(2, 0.95)], rows, 0.1, 2)]
        [('2', 1.04, ['c']), ('1', 1.0, [])]
    """
    by_entity: dict[str, list[dict[str, Any]]] = {}
    for r in cluster_rows:
        by_entity.setdefault(r["entity"], []).append(r)
    out = []
    for p in paths:
        mine = sorted(by_entity.get(_answer_id(p), []), key=lambda r: (-float(r["score"]), r["id"]))
        best = float(mine[0]["score"]) if mine else 0.0
        local = p.score
        score = round(local + weight * best, 6)
        parts = {**p.score_parts, "local": local, "global": round(best, 6), "combined": score}
        out.append(
            p.model_copy(
                update={"score": score, "score_parts": parts, "related": [r["id"] for r in mine[:1]]}
            )
        )
    out.sort(key=lambda p: (-p.score, p.rank))
    return [p.model_copy(update={"rank": i}) for i, p in enumerate(out[:top_n], start=1)]


def run_hybrid(service: PathRag, req: ModeRequest) -> PathRagResult:
    """Local paths re-ranked with the clusters their answers fall in, and those clusters."""
    counter = RoundTripCounter()
    cluster_count(service.graph, req.community_id, counter)
    local = service.pathrag(
        req.query,
        community_id=req.community_id,
        ontology_id=req.ontology_id,
        top_n=min(req.top_n * HYBRID_POOL, 100),
        max_depth=req.max_depth,
        seed_n=req.seed_n,
        mode=req.scoring,
        relations=req.relations,
        seed_ids=req.seed_ids,
        on_depth=req.on_depth,
        cancel=req.cancel,
        timeout=req.timeout,
        generate=False,  # the hybrid result is answered once, by the caller's `pathrag`
        as_of=req.as_of,
    )
    t0 = time.perf_counter()
    qvec = [float(x) for x in service.embedder.encode_question(req.query)]
    rows = service.graph.read(
        "cluster_of_entities",
        counter=counter,
        community=req.community_id,
        ids=sorted({_answer_id(p) for p in local.paths}),
        qvec=qvec,
    )
    paths = rerank(local.paths, rows, req.weights.global_, req.top_n)
    wanted = {c for p in paths for c in p.related}
    seen: dict[str, ClusterResult] = {}
    for r in sorted(rows, key=lambda r: -float(r["score"])):
        if r["id"] in wanted and r["id"] not in seen:
            seen[r["id"]] = _cluster(r, [])
    for p in paths:
        ans = _answer_id(p)
        node = next(n for n in p.nodes if n.id == ans)
        for cid in p.related:
            members = seen[cid].top_entities
            if all(m.id != ans for m in members):
                members.append(ClusterEntity(id=ans, name=node.name, labels=node.labels))
    timings = dict(local.timings_ms)
    timings["clusters"] = round((time.perf_counter() - t0) * 1000.0, 2)
    timings["total"] = round(timings.get("total", 0.0) + timings["clusters"], 2)
    timings["db"] = round(timings.get("db", 0.0) + counter.seconds * 1000.0, 2)
    return local.model_copy(
        update={
            "mode": "hybrid",
            "paths": paths,
            "clusters": list(seen.values())[: max(req.top_n, 1)],
            "timings_ms": timings,
            "round_trips": local.round_trips + counter.count,
        }
    )
