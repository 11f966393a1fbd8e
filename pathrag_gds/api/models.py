"""Request and response models of the HTTP API, and the conversion of a search result.

Requests are strict (`extra="forbid"`): a client can never pass connection details (URI, user,
password); a session is bound to a database NAMED in the server's configuration.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from pathrag_gds.answer import Answer
from pathrag_gds.api.errors import ApiError
from pathrag_gds.config import Settings
from pathrag_gds.errors import InvalidInput
from pathrag_gds.modes import MODES
from pathrag_gds.provenance import parse_as_of
from pathrag_gds.results import (
    AnswerCandidate,
    ClusterResult,
    DepthStat,
    EdgeOut,
    NodeOut,
    PathRagResult,
    PathResult,
    Seed,
)

#: Query modes (`pathrag_gds.modes`): `local` walks the graph (the beam search), `global` reads the
#: cluster summaries, `hybrid` ranks paths with their clusters, `mix` scores vector and graph results
#: with inheritance, `naive` scores vector seeds only.
VALID_MODES = MODES
#: Modes to which `hop_depth` does not apply.
NO_HOPS = ("global", "naive")

#: Fields that would let a client point the server at another database (server-side request forgery).
FORBIDDEN_FIELDS = frozenset(
    {
        "connection_details",
        "connection",
        "uri",
        "url",
        "neo4j_uri",
        "database_uri",
        "host",
        "port",
        "user",
        "username",
        "password",
        "credentials",
    }
)

#: Neighbours listed per seed entity in `detailed_results`.
MAX_NEIGHBORS_PER_SEED = 30


def _refuse_connection_fields(data: Any) -> Any:
    if isinstance(data, Mapping):
        bad = sorted(k for k in data if isinstance(k, str) and k.lower() in FORBIDDEN_FIELDS)
        if bad:
            raise ValueError(
                f"{', '.join(bad)} not accepted: the server queries only the database named in its own "
                "configuration; pass database_name (optional) instead"
            )
    return data


def _refuse_surrogates(data: Any) -> Any:
    r"""Refuse strings holding a lone UTF-16 surrogate (`"\ud800"` in JSON): they are not text."""
    if isinstance(data, Mapping):
        for key, value in data.items():
            for text in (key, value):
                if not isinstance(text, str):
                    continue
                try:
                    text.encode("utf-8")
                except UnicodeEncodeError as exc:
                    bad = text[exc.start]
                    where = "a field name" if text is key else str(key)
                    raise ValueError(
                        f"{where} holds an unpaired UTF-16 surrogate (\\u{ord(bad):04x} at character "
                        f"{exc.start}), which is not text: send valid Unicode"
                    ) from None
    return data


def has_words(text: str) -> bool:
    """True when `text` holds a letter or a digit (not only spaces, punctuation, symbols, controls)."""
    return any(unicodedata.category(c)[0] in "LN" for c in text)


def _check_mode(v: str | None) -> str | None:
    if v is not None and v not in VALID_MODES:
        raise ValueError(f"mode must be one of {', '.join(VALID_MODES)} (got {v!r})")
    return v


class QueryOptions(BaseModel):
    """Search options shared by queries and sessions (all optional: server or session defaults).

    Strict types: `"1"`, `true` or `1.0` are not integers, `"yes"` is not a boolean (422).
    """

    model_config = ConfigDict(extra="forbid", strict=True)

    mode: str | None = Field(
        None,
        description="`local` (beam search over the graph), `global` (cluster summaries), `hybrid` (paths "
        "with their clusters), `mix` (vector + graph results with inheritance) or `naive` (seeds only)",
    )
    hop_depth: int | None = Field(
        None,
        description="longest path in hops (1..PATHRAG_API_MAX_HOP_DEPTH); ignored by `global` and `naive`",
    )
    top_n: int | None = Field(None, description="paths to return")
    seed_n: int | None = Field(None, description="seed entities taken from the vector index")
    community_id: str | None = Field(None, max_length=200, description="confine the search to one community")

    @field_validator("mode")
    @classmethod
    def _mode(cls, v: str | None) -> str | None:
        return _check_mode(v)

    @model_validator(mode="before")
    @classmethod
    def _no_connection(cls, data: Any) -> Any:
        return _refuse_surrogates(_refuse_connection_fields(data))


class QueryRequest(QueryOptions):
    """`POST /v1/query` and `POST /v1/sessions/{id}/query`."""

    question: str = Field(..., description="the question, in words")
    stream: bool = Field(False, description="answer with Server-Sent Events, one per depth, then the result")
    as_of: str | None = Field(
        None,
        max_length=64,
        description="cite the document versions valid at this ISO 8601 moment (default: the current ones)",
    )
    vector_weight: float | None = Field(None, ge=0.0, le=1.0, description="mix: weight of the vector score")
    graph_weight: float | None = Field(None, ge=0.0, le=1.0, description="mix: weight of the graph score")
    inheritance_factor: float | None = Field(
        None,
        ge=0.0,
        le=1.0,
        description="mix: share of the related graph results' mean score a vector result inherits",
    )
    global_weight: float | None = Field(
        None,
        ge=0.0,
        le=1.0,
        description="hybrid: weight of the cluster summary's match added to a path's score",
    )

    @field_validator("question")
    @classmethod
    def _question(cls, v: str) -> str:
        if not has_words(v):
            raise ValueError(
                "empty question: it has no letters or digits (only spaces, punctuation, symbols or "
                "control characters); pass a question in words"
            )
        return v


class SessionCreate(QueryOptions):
    """`POST /v1/sessions`: defaults for the session's queries, bound to a configured database."""

    database_name: str | None = Field(
        None, description="a database named in the server's configuration (default: the configured one)"
    )
    database_type: str | None = Field(None, description="`neo4j` (the only kind served)")


class SessionOut(BaseModel):
    """A session and its defaults."""

    session_id: str
    database_name: str
    mode: str
    hop_depth: int
    top_n: int
    seed_n: int
    community_id: str | None
    ttl_s: float
    expires_at: float


class Effective(BaseModel):
    """The options a search runs with, after defaults and limits."""

    mode: str
    hop_depth: int
    top_n: int
    seed_n: int
    community_id: str | None
    #: document versions valid at this ISO 8601 moment (None: the current ones); per query only
    as_of: str | None = None
    #: mix / hybrid weights given with the query (`vector`, `graph`, `inheritance`, `global`); per query only
    weights: dict[str, float] = Field(default_factory=dict)


def resolve(
    settings: Settings,
    request: QueryOptions,
    defaults: Effective | None = None,
    *,
    question: str | None = None,
) -> Effective:
    """Fill options from session or server defaults and check them against the configured limits.

    Raises:
        ApiError: 422 naming the field, its allowed range and what was sent.
    """
    s = settings
    base = defaults or Effective(
        mode="local",
        hop_depth=min(s.max_depth, s.api_max_hop_depth) or 1,
        top_n=min(s.top_n, s.api_max_top_n),
        seed_n=min(s.seed_n, s.api_max_seed_n),
        community_id=None,
    )
    eff = Effective(
        mode=request.mode if request.mode is not None else base.mode,
        hop_depth=request.hop_depth if request.hop_depth is not None else base.hop_depth,
        top_n=request.top_n if request.top_n is not None else base.top_n,
        seed_n=request.seed_n if request.seed_n is not None else base.seed_n,
        community_id=request.community_id if request.community_id is not None else base.community_id,
    )
    checks = (
        ("hop_depth", eff.hop_depth, 1, s.api_max_hop_depth),
        ("top_n", eff.top_n, 1, s.api_max_top_n),
        ("seed_n", eff.seed_n, 1, s.api_max_seed_n),
    )
    for name, value, lo, hi in checks:
        if not lo <= value <= hi:
            raise ApiError(
                422,
                "invalid_request",
                f"{name} must be between {lo} and {hi} (got {value}): send a value in range",
            )
    if eff.mode in NO_HOPS:
        eff.hop_depth = 0  # naive: vector seeds only, scored, no expansion; global: cluster summaries
    if isinstance(request, QueryRequest):
        given = {
            "vector": request.vector_weight,
            "graph": request.graph_weight,
            "inheritance": request.inheritance_factor,
            "global": request.global_weight,
        }
        eff.weights = {k: v for k, v in given.items() if v is not None}
    if isinstance(request, QueryRequest) and request.as_of is not None:
        try:
            parse_as_of(request.as_of)
        except InvalidInput as exc:
            raise ApiError(422, "invalid_request", str(exc)) from exc
        eff.as_of = request.as_of
    if question is not None and len(question) > s.api_max_question_chars:
        raise ApiError(
            422,
            "invalid_request",
            f"the question is {len(question)} characters; keep it to {s.api_max_question_chars} or fewer",
        )
    return eff


# --- responses ------------------------------------------------------------------------------------


class PathOut(BaseModel):
    """One path of the answer."""

    rank: int
    score: float
    score_parts: dict[str, float]
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
        description="the extractive answer: the #1 path's answer, the path in words and a supporting "
        "source sentence (global: the best cluster's title and summary), or null"
    )
    answer_detail: Answer | None = Field(None, description="the parts of `answer`")
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


def path_out(p: PathResult) -> PathOut:
    """A service path as an API path."""
    return PathOut(
        rank=p.rank,
        score=p.score,
        score_parts=p.score_parts,
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
