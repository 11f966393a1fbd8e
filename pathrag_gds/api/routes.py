"""The endpoints: queries (JSON or Server-Sent Events) and sessions, mounted with the health endpoints."""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
from collections.abc import AsyncIterator
from typing import Any

from fastapi import APIRouter, Depends, Request, Response
from fastapi.responses import JSONResponse, StreamingResponse

from pathrag_gds.api import health
from pathrag_gds.api.auth import Caller
from pathrag_gds.api.deps import get_caller, get_state, require_auth
from pathrag_gds.api.errors import ApiError, error_body, from_pathrag_error, timeout_error
from pathrag_gds.api.examples import ExamplesOut, community_examples
from pathrag_gds.api.requests import NO_HOPS, Effective, QueryRequest, SessionCreate, SessionOut, resolve
from pathrag_gds.api.responses import (
    ERROR_RESPONSES,
    AnswerEvent,
    AnswerTokenEvent,
    DepthEvent,
    PathsEvent,
    QueryResponse,
    path_out,
    query_response,
)
from pathrag_gds.api.runner import SearchJob
from pathrag_gds.api.sse import comment, format_event
from pathrag_gds.api.state import ApiState
from pathrag_gds.errors import InvalidInput, PathRagError, QueryTimeout
from pathrag_gds.results import PathRagResult

log = logging.getLogger(__name__)

#: Seconds between checks for a client that went away (and for the time limit).
POLL_S = 0.2
#: Seconds past the time limit the service may take to notice it before the request answers 504.
GRACE_S = 0.5
#: Seconds between SSE keep-alive comments while a search runs.
KEEPALIVE_S = 10.0
#: Least seconds between two re-reads of the communities prompted by unknown community ids.
COMMUNITY_REREAD_S = 1.0

router = APIRouter()
router.include_router(health.router)
v1 = APIRouter(prefix="/v1", dependencies=[Depends(require_auth)], responses=ERROR_RESPONSES)
v1.include_router(health.v1)


# --- queries ------------------------------------------------------------------------------------


def community_not_found(community_id: str) -> ApiError:
    """The 404 of a community that does not exist or that the caller may not query (alike)."""
    shown = community_id if len(community_id) <= 200 else community_id[:200] + "..."
    return ApiError(
        404,
        "community_not_found",
        f"no community {shown!r} is available to this token: check the id (GET /v1/info lists the "
        "communities you may query)",
    )


def _check_community(state: ApiState, caller: Caller, community_id: str | None) -> str | None:
    """The community a request runs in: checked to exist and to be the caller's.

    A token scoped to one community defaults to it; one scoped to several must name one. An
    unknown and a forbidden community get the same 404 (both re-read the communities, at most once
    a second, so they also take alike long).

    Raises:
        ApiError: 404 community_not_found; 422 when a scoped token names no community.
    """
    if community_id is None:
        if caller.communities is None:
            return None
        if len(caller.communities) != 1:
            raise ApiError(
                422,
                "invalid_request",
                "community_id is required: this token may query several communities; pass one of them "
                "(GET /v1/info lists them)",
            )
        (community_id,) = caller.communities
    state.gate.check()
    try:
        known = state.service.info.communities
        if not (caller.may(community_id) and community_id in known):
            now = time.monotonic()
            if now - state.communities_read_at >= COMMUNITY_REREAD_S:
                state.communities_read_at = now
                known = state.service.refresh().communities
    except Exception as exc:
        state.gate.guard(exc)
        raise
    if not (caller.may(community_id) and community_id in known):
        raise community_not_found(community_id)
    return community_id


def _map_error(state: ApiState, exc: BaseException, request_id: str) -> ApiError:
    if isinstance(exc, ApiError):
        return exc
    if isinstance(exc, InvalidInput) and str(exc).startswith("unknown community"):
        return community_not_found(str(exc).split("'")[1] if "'" in str(exc) else "?")
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


def _start(
    state: ApiState, request_id: str, question: str, eff: Effective, stream: bool, owner: str
) -> SearchJob:
    state.gate.check()  # Neo4j known down: 503 now, no slot taken
    job = SearchJob(
        request_id=request_id,
        question=question,
        options=eff,
        deadline=time.monotonic() + state.settings.api_timeout_s,
        loop=asyncio.get_running_loop(),
        stream=stream,
        owner=owner,
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
    if state.gate.is_down:  # Neo4j went away under the search: answer now, not after the driver
        job.cancel.set()
        try:
            state.gate.check()
        except PathRagError as exc:
            raise from_pathrag_error(exc) from None
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
    tokens = 0
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
            elif kind == "paths":
                final = PathsEvent(
                    question=job.question,
                    request_id=job.request_id,
                    paths=[path_out(p) for p in payload.paths],
                )
                yield format_event("paths", final.model_dump(mode="json"))
            elif kind == "answer_token":
                piece = AnswerTokenEvent(request_id=job.request_id, index=tokens, token=payload)
                tokens += 1
                yield format_event("answer_token", piece.model_dump(mode="json"))
            elif kind == "result":
                if payload.generated_answer is not None:  # the answer model was asked
                    written = payload.answer
                    done = AnswerEvent(
                        request_id=job.request_id,
                        answer=written.text if written else None,
                        answer_detail=written,
                    )
                    yield format_event("answer", done.model_dump(mode="json"))
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
    caller = get_caller(request)
    eff.community_id = await asyncio.to_thread(_check_community, state, caller, eff.community_id)
    if body.stream:
        job = _start(state, request_id, body.question, eff, stream=True, owner=caller.owner)
        return StreamingResponse(
            _sse(request, state, job, eff, session_id),
            media_type="text/event-stream",
            headers={**headers, "Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
        )
    job = _start(state, request_id, body.question, eff, stream=False, owner=caller.owner)
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
        "(that depth's best paths); where the answer model writes the answer (PATHRAG_ANSWER_LLM_URL, "
        "`generate`), then one `paths` event (the final paths), `answer_token` events (`index`, "
        "`token`: the answer piece by piece) and one `answer` event (the answer once written, or the "
        "extractive one with `answer_detail.reason` where the model failed: it replaces the pieces); "
        "then one `result` event (the full answer) or one `error` event",
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


def _examples(state: ApiState, caller: Caller, community_id: str) -> ExamplesOut:
    checked = _check_community(state, caller, community_id) or community_id
    try:
        ontology = state.service.ontology_for(checked, None)
        return community_examples(state.service.graph, ontology, checked)
    except Exception as exc:
        state.gate.guard(exc)
        raise


@v1.get(
    "/communities/{community_id}/examples",
    response_model=ExamplesOut,
    tags=["query"],
    summary="example questions of a community",
)
async def examples(community_id: str, request: Request) -> ExamplesOut:
    """A few questions to ask the community (the explorer shows them before the first question).

    From the evaluation file the package ships for it, else written from its edges and the
    ontology's phrases ("Which Person owns Bob the Cat?"). 404 for a community the token may not query.
    """
    return await asyncio.to_thread(_examples, get_state(request), get_caller(request), community_id)


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
    caller = get_caller(request)
    eff.community_id = await asyncio.to_thread(_check_community, state, caller, eff.community_id)
    return await asyncio.to_thread(state.sessions.create, state.database_name, eff, caller.owner)


@v1.get("/sessions/{session_id}", response_model=SessionOut, tags=["sessions"], summary="a session")
async def get_session(session_id: str, request: Request) -> SessionOut:
    """A live session and its defaults (extends its life)."""
    return await asyncio.to_thread(get_state(request).sessions.touch, session_id, get_caller(request).owner)


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
    session = await asyncio.to_thread(state.sessions.touch, session_id, get_caller(request).owner)
    defaults = Effective(
        mode=session.mode,
        hop_depth=session.hop_depth if session.mode not in NO_HOPS else 1,
        top_n=session.top_n,
        seed_n=session.seed_n,
        community_id=session.community_id,
    )
    eff = resolve(state.settings, body, defaults, question=body.question)
    return await _answer(request, state, body, eff, session_id)


@v1.delete("/sessions/{session_id}", status_code=204, tags=["sessions"], summary="close a session")
async def delete_session(session_id: str, request: Request) -> Response:
    """Delete a session."""
    await asyncio.to_thread(get_state(request).sessions.delete, session_id, get_caller(request).owner)
    return Response(status_code=204)


router.include_router(v1)
