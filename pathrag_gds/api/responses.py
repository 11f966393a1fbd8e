"""Response models of the HTTP API, the conversion of a search result, and the error bodies."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from pathrag_gds.answer import Answer
from pathrag_gds.api.requests import Effective
from pathrag_gds.results import (
    AnswerCandidate,
    ClusterResult,
    DepthStat,
    EdgeOut,
    NodeOut,
    PathRagResult,
    PathResult,
    ScoreTerm,
    Seed,
)

#: Neighbours listed per seed entity in `detailed_results`.
MAX_NEIGHBORS_PER_SEED = 30


class PathOut(BaseModel):
    """One path of the answer."""

    rank: int
    score: float
    score_parts: dict[str, float]
    score_breakdown: list[ScoreTerm] = Field(
        default_factory=list, description="the score term by term: weight x value, summing to `score`"
    )
    path_length: int = Field(description="hops on the path (0 = a seed entity alone)")
    path_context: list[str] = Field(description="`A -> REL -> B`, one string per hop")
    text: str
    nodes: list[NodeOut]
    edges: list[EdgeOut]
    answer_candidates: list[AnswerCandidate]
    sources: list[dict[str, Any]] = Field(default_factory=list)
    chain: list[str] = Field(
        default_factory=list, description="the relation chain walked: `type:out` / `type:in` per hop"
    )
    reason: str = Field("", description="mix: how the result was found (vector match, or the expansion rule)")
    related: list[str] = Field(
        default_factory=list,
        description="mix: the results it was expanded from, or inherited from; hybrid: its cluster",
    )


class Neighbor(BaseModel):
    """An entity reached from a seed entity."""

    target: str
    target_id: str
    target_labels: list[str]
    path_length: int
    path_context: list[str]
    score: float


class SeedGroup(BaseModel):
    """The paths of one seed entity, as neighbours (the document's `detailed_results`)."""

    name: str
    id: str
    labels: list[str]
    neighbors: list[Neighbor]


class QueryResponse(BaseModel):
    """The answer to one question."""

    question: str = Field(description="the question, echoed")
    request_id: str
    session_id: str | None = None
    database_name: str
    mode: str
    hop_depth: int
    top_n: int
    seed_n: int
    community_id: str | None
    answer: str | None = Field(
        description="the answer: where the server has an answer model (PATHRAG_ANSWER_LLM_URL), the text "
        "it wrote from the top paths and their passages (`answer_detail.generated`); else, and whenever "
        "it fails, the extractive answer: the #1 path's answer, the path in words and a supporting "
        "source sentence (global: the best cluster's title and summary); or null"
    )
    answer_detail: Answer | None = Field(
        None, description="the parts of `answer`: whether it was generated, by which model, or why not"
    )
    answers: list[AnswerCandidate] = Field(description="answer candidates of all paths, best first")
    paths: list[PathOut]
    detailed_results: list[SeedGroup]
    seeds: list[Seed]
    clusters: list[ClusterResult] = Field(
        default_factory=list,
        description="global and hybrid: the clusters that match, with their central entities",
    )
    scorer: str
    scoring: str | None = Field(None, description="the scoring mode of the paths (`option-d` or `a3`)")
    intent: dict[str, Any] | None = Field(
        None, description="what the question was read as asking: kind, expected types, hinted relations"
    )
    timings_ms: dict[str, float]
    round_trips: int
    depths: list[DepthStat]
    explored: int


class DepthEvent(BaseModel):
    """A streamed event: one depth's best paths, as soon as they are scored."""

    question: str
    request_id: str
    depth: int
    paths: list[PathOut]


class PathsEvent(BaseModel):
    """A streamed event: the final paths, best first, before the answer model writes the answer."""

    question: str
    request_id: str
    paths: list[PathOut]


class AnswerTokenEvent(BaseModel):
    """A streamed event: the next piece of the answer, as the answer model writes it."""

    request_id: str
    index: int = Field(description="0 for the first piece, then 1, 2, ...")
    token: str = Field(description="the piece of text; the pieces joined are the answer as written so far")


class AnswerEvent(BaseModel):
    """A streamed event: the answer once written, or the extractive one where the model failed."""

    request_id: str
    answer: str | None = Field(description="as `answer` of the result: replaces the pieces streamed")
    answer_detail: Answer | None = Field(description="its parts: `generated`, `model`, `reason`, `passages`")


def path_out(p: PathResult) -> PathOut:
    """A service path as an API path."""
    return PathOut(
        rank=p.rank,
        score=p.score,
        score_parts=p.score_parts,
        score_breakdown=p.score_breakdown,
        path_length=p.depth,
        path_context=p.path_context,
        text=p.text,
        nodes=p.nodes,
        edges=p.edges,
        answer_candidates=p.answer_candidates,
        sources=[s.model_dump() for s in p.sources],
        chain=p.chain,
        reason=p.reason,
        related=p.related,
    )


def detailed_results(paths: list[PathResult], limit: int = MAX_NEIGHBORS_PER_SEED) -> list[SeedGroup]:
    """Group paths by their seed (first) entity: each other end is a neighbour, best path kept.

    Seeds come in the order of their best path; neighbours best first, at most `limit` a seed.
    """
    groups: dict[str, SeedGroup] = {}
    seen: dict[str, set[str]] = {}
    for p in sorted(paths, key=lambda x: x.rank):
        if not p.nodes:
            continue
        head = p.nodes[0]
        group = groups.get(head.id)
        if group is None:
            group = groups[head.id] = SeedGroup(name=head.name, id=head.id, labels=head.labels, neighbors=[])
            seen[head.id] = set()
        if p.depth == 0:
            continue
        end = p.nodes[-1]
        if end.id in seen[head.id] or len(group.neighbors) >= limit:
            continue
        seen[head.id].add(end.id)
        group.neighbors.append(
            Neighbor(
                target=end.name,
                target_id=end.id,
                target_labels=end.labels,
                path_length=p.depth,
                path_context=p.path_context,
                score=p.score,
            )
        )
    return list(groups.values())


def query_response(
    result: PathRagResult,
    eff: Effective,
    *,
    question: str,
    request_id: str,
    database_name: str,
    session_id: str | None = None,
) -> QueryResponse:
    """Build the API answer from a service result."""
    answers: list[AnswerCandidate] = []
    seen: set[str] = set()
    for p in result.paths:
        for a in p.answer_candidates:
            if a.id not in seen:
                seen.add(a.id)
                answers.append(a)
    answer = result.answer
    return QueryResponse(
        question=question,
        request_id=request_id,
        session_id=session_id,
        database_name=database_name,
        mode=eff.mode,
        hop_depth=eff.hop_depth,
        top_n=eff.top_n,
        seed_n=eff.seed_n,
        community_id=eff.community_id,
        answer=answer.text if answer else None,
        answer_detail=answer,
        answers=answers,
        paths=[path_out(p) for p in result.paths],
        detailed_results=detailed_results(result.paths),
        seeds=result.seeds,
        clusters=result.clusters,
        scorer=result.scorer,
        scoring=result.scoring,
        intent=result.intent,
        timings_ms=result.timings_ms,
        round_trips=result.round_trips,
        depths=result.depths,
        explored=result.explored,
    )


class ErrorDetail(BaseModel):
    """What went wrong and what to do."""

    code: str
    message: str


class ErrorOut(BaseModel):
    """The body of every error response."""

    error: ErrorDetail


#: OpenAPI `responses=` for the error statuses of the query routes.
ERROR_RESPONSES: dict[int | str, dict[str, Any]] = {
    status: {"model": ErrorOut, "description": text}
    for status, text in {
        401: "missing or malformed bearer token",
        403: "wrong bearer token",
        404: "unknown or expired session",
        413: "request body too large",
        422: "invalid request (field, range, mode, connection details)",
        429: "server busy (too many searches waiting) or too many sessions",
        503: "database unreachable, models or vector index missing",
        504: "the request ran past the server's time limit",
    }.items()
}
