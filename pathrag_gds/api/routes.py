"""The endpoints: health, info, queries (JSON or Server-Sent Events) and sessions."""

from __future__ import annotations

import asyncio
import logging
import platform
import time
import uuid
from collections.abc import AsyncIterator
from importlib import metadata
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request, Response
from fastapi.responses import JSONResponse, StreamingResponse
from fastapi.security import HTTPBearer

from pathrag_gds import __version__
from pathrag_gds.api.app import ApiState, app_state, load_models
from pathrag_gds.api.auth import check_authorization
from pathrag_gds.api.errors import ApiError, error_body, from_pathrag_error, timeout_error
from pathrag_gds.api.models import (
    ERROR_RESPONSES,
    DepthEvent,
    Effective,
    QueryRequest,
    QueryResponse,
    SessionCreate,
    SessionOut,
    path_out,
    query_response,
    resolve,
)
from pathrag_gds.api.runner import SearchJob
from pathrag_gds.api.sse import comment, format_event
from pathrag_gds.errors import InvalidInput, PathRagError, QueryTimeout
from pathrag_gds.results import PathRagResult

log = logging.getLogger(__name__)

#: Seconds between checks for a client that went away (and for the time limit).
POLL_S = 0.2
#: Seconds past the time limit the service may take to notice it before the request answers 504.
GRACE_S = 0.5
#: Seconds between SSE keep-alive comments while a search runs.
KEEPALIVE_S = 10.0

_bearer = HTTPBearer(auto_error=False, description="PATHRAG_API_TOKEN of the server")


def get_state(request: Request) -> ApiState:
    """The app's shared state."""
    return app_state(request.app)


async def require_auth(request: Request, _: Annotated[Any, Depends(_bearer)] = None) -> None:
    """Check `Authorization: Bearer` against the configured token (401 missing, 403 wrong)."""
    check_authorization(request.headers.get("authorization"), get_state(request).settings.api_token)


router = APIRouter()
v1 = APIRouter(prefix="/v1", dependencies=[Depends(require_auth)], responses=ERROR_RESPONSES)


# --- health -------------------------------------------------------------------------------------


@router.get("/healthz", tags=["health"], summary="the process is up")
async def healthz() -> dict[str, str]:
    """Answer 200 while the process runs (liveness)."""
    return {"status": "ok"}


def _readiness(state: ApiState) -> tuple[bool, dict[str, Any]]:
    service = state.service
    checks: dict[str, Any] = {}
    try:
        service.graph.verify()
        checks["database"] = {"ok": True}
    except PathRagError as exc:
        checks["database"] = {"ok": False, "message": str(exc)}
    if checks["database"]["ok"]:
        try:
            info = service.refresh()
            ok = info.index_state == "ONLINE"
            checks["index"] = {
                "ok": ok,
                "state": info.index_state,
                **(
                    {}
                    if ok
                    else {
                        "message": "the vector index is missing or not online: run `python -m "
                        "pathrag_gds index` (or load data first)"
                    }
                ),
            }
        except PathRagError as exc:
            checks["index"] = {"ok": False, "message": str(exc)}
    else:
        checks["index"] = {"ok": False, "message": "unknown while the database is unreachable"}
    try:
        load_models(service)
        checks["models"] = {"ok": True}
    except PathRagError as exc:
        checks["models"] = {"ok": False, "message": str(exc)}
    return all(c["ok"] for c in checks.values()), checks


@router.get("/readyz", tags=["health"], summary="database reachable, models loaded, index present")
async def readyz(request: Request) -> JSONResponse:
    """Answer 200 when the server can answer questions, else 503 naming what is missing."""
    state = get_state(request)
    ready, checks = await asyncio.to_thread(_readiness, state)
    if ready:
        return JSONResponse({"status": "ready", "checks": checks})
    failed = "; ".join(f"{k}: {v.get('message', 'not ready')}" for k, v in checks.items() if not v["ok"])
    body = error_body("not_ready", f"not ready: {failed}")
    body["checks"] = checks
    return JSONResponse(body, status_code=503)


def _version(pkg: str) -> str | None:
    try:
        return metadata.version(pkg)
    except metadata.PackageNotFoundError:
        return None


def _info(state: ApiState) -> dict[str, Any]:
    service = state.service
    s = state.settings
    graph = service.graph
    info = service.refresh()
    counts = graph.read("api_graph_counts")
    row = counts[0] if counts else {"entities": 0, "relationships": 0}
    server = graph.driver.get_server_info()
    scorer = service.scorer
    return {
        "versions": {
            "pathrag_gds": __version__,
            "python": platform.python_version(),
            "neo4j_server": server.agent,
            "neo4j_driver": _version("neo4j"),
            "onnxruntime": _version("onnxruntime"),
            "fastapi": _version("fastapi"),
            "uvicorn": _version("uvicorn"),
        },
        "model": {
            "embedding_model": s.embedding_model,
            "quantization": s.quantization,
            "scorer": getattr(scorer, "name", type(scorer).__name__),
        },
        "database": {
            "name": s.neo4j_database,
            "vector_index": s.vector_index,
            "index_state": info.index_state,
        },
        "graph": {
            "entities": row["entities"],
            "relationships": row["relationships"],
            "labels": len(info.labels),
            "relationship_types": len(info.types),
            "communities": [
                {"id": cid, "size": c.get("size"), "ontology_id": c.get("ontology_id")}
                for cid, c in sorted(info.communities.items())
            ],
        },
        "limits": {
            "max_hop_depth": s.api_max_hop_depth,
            "max_top_n": s.api_max_top_n,
            "max_seed_n": s.api_max_seed_n,
            "max_question_chars": s.api_max_question_chars,
            "max_body_bytes": s.api_max_body_bytes,
            "timeout_s": s.api_timeout_s,
            "concurrency": state.runner.concurrency,
            "max_queue": state.runner.max_queue,
            "session_ttl_s": s.api_session_ttl_s,
        },
        "searches": vars(state.runner.stats).copy(),
        "sessions": state.sessions.count(),
    }


@v1.get("/info", tags=["health"], summary="versions, model, graph counts, limits")
async def info(request: Request) -> dict[str, Any]:
    """Versions, the model, graph counts, the limits and live counters."""
    return await asyncio.to_thread(_info, get_state(request))


# --- queries ------------------------------------------------------------------------------------


def _check_community(state: ApiState, community_id: str | None) -> None:
    if community_id is None:
        return
    info = state.service.info
    if community_id not in info.communities:
        info = state.service.refresh()
        if community_id not in info.communities:
            raise InvalidInput(
                f"unknown community {community_id!r}; the graph has {sorted(info.communities) or 'none'}"
            )


def _map_error(state: ApiState, exc: BaseException, request_id: str) -> ApiError:
    if isinstance(exc, ApiError):
        return exc
    if isinstance(exc, QueryTimeout):
        return timeout_error(state.settings.api_timeout_s)
    if isinstance(exc, PathRagError):
        return from_pathrag_error(exc)
    log.error("search %s failed", request_id, exc_info=exc)
    return ApiError(
        500,
        "internal_error",
        f"unexpected server error (request {request_id}; details in the server log): retry, and report it "
        "if it persists",
    )


def _start(state: ApiState, request_id: str, question: str, eff: Effective, stream: bool) -> SearchJob:
    job = SearchJob(
        request_id=request_id,
        question=question,
        options=eff,
        deadline=time.monotonic() + state.settings.api_timeout_s,
        loop=asyncio.get_running_loop(),
        stream=stream,
    )
    state.runner.start(job)
    return job


async def _next(request: Request, state: ApiState, job: SearchJob) -> tuple[str, Any] | None:
    """The job's next event; None while it runs (checked for disconnect and time limit)."""
    try:
        return await asyncio.wait_for(job.queue.get(), timeout=POLL_S)
    except TimeoutError:
        pass
    if await request.is_disconnected():
        job.cancel.set()
        raise ApiError(499, "client_closed", "the client closed the connection")
    if time.monotonic() > job.deadline + GRACE_S:
        job.cancel.set()
        raise timeout_error(state.settings.api_timeout_s)
    return None


async def _collect(request: Request, state: ApiState, job: SearchJob) -> PathRagResult:
    try:
        while True:
            item = await _next(request, state, job)
            if item is None:
                continue
            kind, payload = item
            if kind == "result":
                result: PathRagResult = payload
                return result
            if kind == "error":
                raise _map_error(state, payload, job.request_id)
    finally:
        job.cancel.set()  # no-op when the search is over; stops it when we leave early


async def _sse(
    request: Request, state: ApiState, job: SearchJob, eff: Effective, session_id: str | None
) -> AsyncIterator[str]:
    last = time.monotonic()
    try:
        yield comment(f"request {job.request_id}")
        while True:
            try:
                item = await _next(request, state, job)
            except ApiError as err:
                if err.status == 499:
                    return  # nobody listens any more
                yield format_event("error", error_body(err.code, err.message))
                return
            if item is None:
                if time.monotonic() - last > KEEPALIVE_S:
                    last = time.monotonic()
                    yield comment()
                continue
            last = time.monotonic()
            kind, payload = item
            if kind == "depth":
                depth, paths = payload
                event = DepthEvent(
                    question=job.question,
                    request_id=job.request_id,
                    depth=depth,
                    paths=[path_out(p) for p in paths],
                )
                yield format_event("depth", event.model_dump(mode="json"))
            elif kind == "result":
                resp = query_response(
                    payload,
                    eff,
                    question=job.question,
                    request_id=job.request_id,
                    database_name=state.database_name,
                    session_id=session_id,
                )
                yield format_event("result", resp.model_dump(mode="json"))
                return
            elif kind == "error":
                failure = _map_error(state, payload, job.request_id)
                if failure.status != 499:
                    yield format_event("error", error_body(failure.code, failure.message))
                return
    finally:
        job.cancel.set()  # client gone or stream over: the search stops at its next step


async def _answer(
    request: Request, state: ApiState, body: QueryRequest, eff: Effective, session_id: str | None
) -> Response:
    request_id = uuid.uuid4().hex[:16]
    headers = {"X-Request-ID": request_id}
    if body.stream:
        await asyncio.to_thread(_check_community, state, eff.community_id)
        job = _start(state, request_id, body.question, eff, stream=True)
        return StreamingResponse(
            _sse(request, state, job, eff, session_id),
            media_type="text/event-stream",
            headers={**headers, "Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
        )
    job = _start(state, request_id, body.question, eff, stream=False)
    result = await _collect(request, state, job)
    resp = query_response(
        result,
        eff,
        question=body.question,
        request_id=request_id,
        database_name=state.database_name,
        session_id=session_id,
    )
    return JSONResponse(resp.model_dump(mode="json"), headers=headers)


_QUERY_RESPONSES: dict[int | str, dict[str, Any]] = {
    200: {
        "description": "the paths (JSON), or with `stream: true` Server-Sent Events: `depth` events "
        "(that depth's best paths), then one `result` event (the full answer) or one `error` event",
        "content": {"text/event-stream": {}},
    }
}


@v1.post(
    "/query",
    summary="ask a question",
    response_model=QueryResponse,
    tags=["query"],
    responses=_QUERY_RESPONSES,
)
async def query(body: QueryRequest, request: Request) -> Response:
    """Answer a question with ranked graph paths (JSON, or SSE with `stream: true`)."""
    state = get_state(request)
    eff = resolve(state.settings, body, question=body.question)
    return await _answer(request, state, body, eff, None)


# --- sessions -----------------------------------------------------------------------------------


@v1.post("/sessions", status_code=201, response_model=SessionOut, tags=["sessions"], summary="open a session")
async def create_session(body: SessionCreate, request: Request) -> SessionOut:
    """Open a session: defaults (mode, hop_depth, community) for its queries, on a configured database."""
    state = get_state(request)
    if body.database_name is not None and body.database_name != state.database_name:
        raise ApiError(
            422,
            "invalid_request",
            f"unknown database_name {body.database_name!r}: this server serves {state.database_name!r} "
            "(named in its configuration)",
        )
    if body.database_type is not None and body.database_type.lower() != "neo4j":
        raise ApiError(422, "invalid_request", f"database_type must be 'neo4j' (got {body.database_type!r})")
    eff = resolve(state.settings, body)
    await asyncio.to_thread(_check_community, state, eff.community_id)
    return state.sessions.create(state.database_name, eff)


@v1.get("/sessions/{session_id}", response_model=SessionOut, tags=["sessions"], summary="a session")
async def get_session(session_id: str, request: Request) -> SessionOut:
    """A live session and its defaults (extends its life)."""
    return get_state(request).sessions.touch(session_id)


@v1.post(
    "/sessions/{session_id}/query",
    summary="ask within a session",
    response_model=QueryResponse,
    tags=["query"],
    responses=_QUERY_RESPONSES,
)
async def session_query(session_id: str, body: QueryRequest, request: Request) -> Response:
    """Answer a question with the session's defaults (the request's fields override them)."""
    state = get_state(request)
    session = state.sessions.touch(session_id)
    defaults = Effective(
        mode=session.mode,
        hop_depth=session.hop_depth if session.mode != "naive" else 1,
        top_n=session.top_n,
        seed_n=session.seed_n,
        community_id=session.community_id,
    )
    eff = resolve(state.settings, body, defaults, question=body.question)
    return await _answer(request, state, body, eff, session_id)


@v1.delete("/sessions/{session_id}", status_code=204, tags=["sessions"], summary="close a session")
async def delete_session(session_id: str, request: Request) -> Response:
    """Delete a session."""
    get_state(request).sessions.delete(session_id)
    return Response(status_code=204)


router.include_router(v1)
