"""Request models of the HTTP API: query options, sessions, and the effective options of a query.

Requests are strict (`extra="forbid"`): a client can never pass connection details (URI, user,
password); a session is bound to a database NAMED in the server's configuration.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from pathrag_gds.api.errors import ApiError
from pathrag_gds.config import Settings
from pathrag_gds.errors import InvalidInput
from pathrag_gds.modes import MODES
from pathrag_gds.provenance import parse_as_of
from pathrag_gds.validation import QueryLimits, check_options, check_question, default_options
from pathrag_gds.validation import has_words as has_words  # re-exported

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

    question: str = Field(
        ...,
        description="the question, in words: at least one letter or digit, at most "
        "PATHRAG_API_MAX_QUESTION_CHARS characters (the CLI's rules, `pathrag_gds.validation`)",
    )
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
    generate: bool | None = Field(
        None,
        description="have the server's answer model (PATHRAG_ANSWER_LLM_URL) write `answer` from the top "
        "paths and their passages: default where one is configured; false: the extractive answer; true "
        "on a server without one: the extractive answer, `answer_detail.reason` saying why",
    )


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
    #: have the answer model write the answer (None: where one is configured); per query only
    generate: bool | None = None


def resolve(
    settings: Settings,
    request: QueryOptions,
    defaults: Effective | None = None,
    *,
    question: str | None = None,
) -> Effective:
    """Fill options from session or server defaults; check them and the question as the CLI does.

    The rules and messages are :func:`pathrag_gds.validation.check_query`'s.

    Raises:
        ApiError: 422 naming the field, its allowed range and what was sent.
    """
    s = settings
    limits = QueryLimits.of(s)
    hop_depth, top_n, seed_n = default_options(s, limits)
    base = defaults or Effective(
        mode="local", hop_depth=hop_depth, top_n=top_n, seed_n=seed_n, community_id=None
    )
    eff = Effective(
        mode=request.mode if request.mode is not None else base.mode,
        hop_depth=request.hop_depth if request.hop_depth is not None else base.hop_depth,
        top_n=request.top_n if request.top_n is not None else base.top_n,
        seed_n=request.seed_n if request.seed_n is not None else base.seed_n,
        community_id=request.community_id if request.community_id is not None else base.community_id,
    )
    try:
        if question is not None:
            check_question(question, limits.question_chars)
        check_options(limits, hop_depth=eff.hop_depth, top_n=eff.top_n, seed_n=eff.seed_n)
    except InvalidInput as exc:
        raise ApiError(422, "invalid_request", str(exc)) from exc
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
    if isinstance(request, QueryRequest):
        eff.generate = request.generate
    if isinstance(request, QueryRequest) and request.as_of is not None:
        try:
            parse_as_of(request.as_of)
        except InvalidInput as exc:
            raise ApiError(422, "invalid_request", str(exc)) from exc
        eff.as_of = request.as_of
    return eff
