"""The FastAPI application: `create_app(settings)`.

The app holds one `PathRag` service (thread-safe, shared), a `SearchRunner` bounding concurrent
searches, and a session store (`pathrag_gds.api.sessions`). Models and graph facts load in the
background at start-up; `/readyz` says when the server can answer.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.middleware.gzip import GZipMiddleware
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from pathrag_gds import __version__
from pathrag_gds.api.auth import TokenTable
from pathrag_gds.api.dbgate import DatabaseGate
from pathrag_gds.api.docs_pages import install_docs, offline_docs
from pathrag_gds.api.errors import ApiError, error_body, from_pathrag_error, validation_message
from pathrag_gds.api.explorer import router as explorer_router
from pathrag_gds.api.guards import BodyGuard, LoopbackHostOnly
from pathrag_gds.api.interrupt import ApiPathRag
from pathrag_gds.api.routes import router
from pathrag_gds.api.runner import SearchRunner
from pathrag_gds.api.sessions import session_store
from pathrag_gds.api.state import ApiState, app_state, load_models, warm_up_state
from pathrag_gds.config import Settings
from pathrag_gds.errors import PathRagError
from pathrag_gds.service import PathRag

#: `app_state` and `load_models` are imported from here by callers of old; they live in `api.state`.
__all__ = ["ApiState", "app_state", "create_app", "create_app_from_env", "load_models"]

log = logging.getLogger(__name__)

#: Responses from this size on are gzipped (when the client sends `Accept-Encoding: gzip`).
GZIP_MIN_BYTES = 1024
#: zlib level: 5 gives most of 9's ratio on JSON for about a third of the CPU.
GZIP_LEVEL = 5


_STATUS_CODES = {
    400: "bad_request",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    413: "payload_too_large",
    415: "unsupported_media_type",
}


def _install_error_handlers(app: FastAPI) -> None:
    def respond(err: ApiError) -> JSONResponse:
        return JSONResponse(error_body(err.code, err.message), status_code=err.status, headers=err.headers)

    async def api_error(_: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, ApiError)
        return respond(exc)

    async def pathrag_error(_: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, PathRagError)
        return respond(from_pathrag_error(exc))

    async def invalid(_: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, RequestValidationError)
        return respond(ApiError(422, "invalid_request", validation_message(list(exc.errors()))))

    async def http_error(request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, StarletteHTTPException)
        code = _STATUS_CODES.get(exc.status_code, "http_error")
        if exc.status_code == 404:
            message = f"no such endpoint {request.url.path}: see /docs for the API"
        elif exc.status_code == 405:
            message = f"{request.method} is not allowed on {request.url.path}: see /docs for the API"
        else:
            message = f"{exc.detail}: see /docs for the API"
        return JSONResponse(
            error_body(code, message), status_code=exc.status_code, headers=dict(exc.headers or {})
        )

    async def unexpected(request: Request, exc: Exception) -> JSONResponse:
        log.error("unexpected error on %s %s", request.method, request.url.path, exc_info=exc)
        return respond(
            ApiError(
                500,
                "internal_error",
                "unexpected server error (details are in the server log): retry, and report it if it "
                "persists",
            )
        )

    app.add_exception_handler(ApiError, api_error)
    app.add_exception_handler(PathRagError, pathrag_error)
    app.add_exception_handler(RequestValidationError, invalid)
    app.add_exception_handler(StarletteHTTPException, http_error)
    app.add_exception_handler(Exception, unexpected)


def sessions_per_token(settings: Settings, tokens: int) -> int:
    """Live sessions one token may hold: the setting, or an equal share of the global ceiling.

    Example:
        >>> sessions_per_token(Settings(api_max_sessions=1000), 4)
        250
        >>> sessions_per_token(Settings(api_max_sessions=1000, api_max_sessions_per_token=50), 4)
        50
    """
    if settings.api_max_sessions_per_token:
        return min(settings.api_max_sessions_per_token, settings.api_max_sessions)
    return max(1, settings.api_max_sessions // max(1, tokens))


def queue_per_token(settings: Settings, tokens: int) -> int:
    """Searches one token may keep waiting: the setting, or an equal share of the whole queue.

    Example:
        >>> queue_per_token(Settings(api_max_queue=64), 2), queue_per_token(Settings(api_max_queue=64), 0)
        (32, 64)
    """
    if settings.api_max_queue_per_token:
        return min(settings.api_max_queue_per_token, settings.api_max_queue)
    return max(1, settings.api_max_queue // max(1, tokens))


def create_app(settings: Settings, service: PathRag | None = None, *, warm_up: bool = True) -> FastAPI:
    """Build the HTTP application.

    Args:
        settings: all knobs (API limits, tokens, database).
        service: the search service; one is built from `settings` when omitted (each query then
            uses its community's scorer, as the CLI and the library do).
        warm_up: load models and graph facts in the background at start-up.

    Returns:
        The FastAPI app; serve it with uvicorn (`python -m pathrag_gds serve`).

    Raises:
        ConfigError: `PATHRAG_API_TOKENS_FILE` is unusable.
    """
    tokens = TokenTable.from_settings(settings)
    if service is None:
        # Fail fast when Neo4j is unreachable (503) instead of letting the driver retry for 30 s.
        svc_settings = settings.model_copy(update={"neo4j_retry_s": settings.api_db_retry_s})
        service = ApiPathRag(svc_settings)
    concurrency = settings.api_max_concurrency or os.cpu_count() or 1
    probe_service = service

    def probe() -> None:
        probe_service.graph.verify()

    gate = DatabaseGate(probe, target=f"Neo4j at {settings.neo4j_uri}")
    state = ApiState(
        settings=settings,
        tokens=tokens,
        service=service,
        runner=SearchRunner(
            service,
            concurrency,
            settings.api_max_queue,
            gate,
            max_queue_per_owner=queue_per_token(settings, len(tokens)),
        ),
        sessions=session_store(
            settings, lambda: probe_service.graph, max_per_owner=sessions_per_token(settings, len(tokens))
        ),
        gate=gate,
    )

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        if warm_up:
            threading.Thread(target=warm_up_state, args=(state,), name="pathrag-warmup", daemon=True).start()
        state.gate.start()
        try:
            yield
        finally:
            state.runner.cancel_all()
            state.gate.close()
            state.sessions.close()

    offline = offline_docs()
    app = FastAPI(
        title="pathrag_gds",
        version=__version__,
        description=(
            "Multi-hop path retrieval over a Neo4j knowledge graph: seeds from a vector index, a beam "
            "expanded inside Neo4j one round trip per depth, paths scored by a small ONNX model. "
            "Send `Authorization: Bearer <token>` when the server has tokens (PATHRAG_API_TOKEN, "
            "PATHRAG_API_TOKENS_FILE); a token may query only the communities it was given."
        ),
        lifespan=lifespan,
        # /docs and /redoc: ours (api/docs_pages.py), their assets served from here, not a CDN
        docs_url=None if offline else "/docs",
        redoc_url=None if offline else "/redoc",
    )
    app.state.api = state
    _install_error_handlers(app)
    install_docs(app)
    app.include_router(router)
    app.include_router(explorer_router)  # the path explorer page at /ui
    # JSON answers and the pages, gzipped for a client that accepts it (SSE is never: it would
    # hold events back); small bodies are not worth it
    app.add_middleware(GZipMiddleware, minimum_size=GZIP_MIN_BYTES, compresslevel=GZIP_LEVEL)
    app.add_middleware(BodyGuard, max_bytes=settings.api_max_body_bytes)
    if not tokens.enabled:  # tokenless: loopback only, and no DNS rebinding onto it
        app.add_middleware(LoopbackHostOnly)
    return app


def create_app_from_env() -> FastAPI:
    """App factory for `uvicorn --factory` (several workers): settings from the environment."""
    return create_app(Settings.from_env())
