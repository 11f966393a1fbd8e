"""The health endpoints: liveness (`/healthz`), readiness (`/readyz`) and `/v1/info`.

`router` holds the open endpoints; `v1` the ones under `/v1`, which `routes` mounts behind the
token check with the other `/v1` routes.
"""

from __future__ import annotations

import asyncio
import logging
import platform
import time
from importlib import metadata
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

from pathrag_gds import __version__
from pathrag_gds.api.auth import Caller
from pathrag_gds.api.deps import get_caller, get_state
from pathrag_gds.api.errors import error_body
from pathrag_gds.api.info import InfoOut, mode_infos, query_defaults
from pathrag_gds.api.state import ApiState, load_models
from pathrag_gds.catalog import community_state
from pathrag_gds.errors import ModelError
from pathrag_gds.ontology import type_labels

log = logging.getLogger(__name__)

#: Seconds a /readyz verdict is reused (it costs one database call and is open to everyone).
READY_CACHE_S = 1.5

router = APIRouter()
v1 = APIRouter()


@router.get("/healthz", tags=["health"], summary="the process is up")
async def healthz() -> dict[str, str]:
    """Answer 200 while the process runs (liveness)."""
    return {"status": "ok"}


#: What /readyz says about a failed check: no address, path or credential (it needs no token).
_NOT_READY = {
    "database": "Neo4j cannot be reached or refused the connection: start it or fix NEO4J_URI / "
    "NEO4J_PASSWORD (the server log names the address and the cause)",
    "index": "the vector index is missing or not online: run `python -m pathrag_gds index` (or load "
    "data first)",
    "models": "the model files are missing or unusable: see the server log for which, then fix "
    "PATHRAG_MODELS_DIR or restore the files",
}


def _readiness(state: ApiState) -> tuple[bool, dict[str, Any]]:
    """One database call at most (the index state); none while the gate knows Neo4j is down."""
    service = state.service
    s = state.settings
    checks: dict[str, Any] = {}
    if state.gate.is_down:
        checks["database"] = {"ok": False, "message": _NOT_READY["database"]}
        checks["index"] = {"ok": False, "message": "unknown while the database is unreachable"}
    else:
        try:
            rows = service.graph.read("index_state", index_name=s.vector_index)
            checks["database"] = {"ok": True}
            index_state = rows[0]["state"] if rows else None
            ok = index_state == "ONLINE"
            checks["index"] = {"ok": ok, "state": index_state}
            if not ok:
                checks["index"]["message"] = _NOT_READY["index"]
        except Exception as exc:
            state.gate.guard(exc)
            log.warning("readiness: the database check failed: %s", exc)
            checks["database"] = {"ok": False, "message": _NOT_READY["database"]}
            checks["index"] = {"ok": False, "message": "unknown while the database is unreachable"}
    try:
        load_models(service)
        checks["models"] = {"ok": True}
    except ModelError as exc:
        log.warning("readiness: %s", exc)
        checks["models"] = {"ok": False, "message": _NOT_READY["models"]}
    return all(c["ok"] for c in checks.values()), checks


async def _cached_readiness(state: ApiState) -> tuple[bool, dict[str, Any]]:
    """The readiness verdict, computed at most once per :data:`READY_CACHE_S` (shared by callers)."""
    async with state.readiness_lock:
        cached = state.readiness
        if cached is None or time.monotonic() - cached[0] > READY_CACHE_S:
            ready, checks = await asyncio.to_thread(_readiness, state)
            cached = state.readiness = (time.monotonic(), ready, checks)
    return cached[1], cached[2]


@router.get("/readyz", tags=["health"], summary="database reachable, models loaded, index present")
async def readyz(request: Request) -> JSONResponse:
    """Answer 200 when the server can answer questions, else 503 naming what is missing.

    The verdict is reused for 1.5 s; it shows no database address (the endpoint needs no token).
    """
    state = get_state(request)
    ready, checks = await _cached_readiness(state)
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


def _info(state: ApiState, caller: Caller) -> InfoOut:
    state.gate.check()
    try:
        return InfoOut.model_validate(_info_rows(state, caller))
    except Exception as exc:
        state.gate.guard(exc)
        raise


def _info_rows(state: ApiState, caller: Caller) -> dict[str, Any]:
    service = state.service
    s = state.settings
    graph = service.graph
    info = service.refresh()
    counts = graph.read("api_graph_counts")
    row = counts[0] if counts else {"entities": 0, "relationships": 0}
    server = graph.driver.get_server_info()
    scorer = service.scorer
    mine = {cid: c for cid, c in sorted(info.communities.items()) if caller.may(cid)}
    out: dict[str, Any] = {
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
                {
                    "id": cid,
                    "size": c.get("size"),
                    "ontology_id": c.get("ontology_id"),
                    **community_state(info, cid).summary(s.load_stale_s),
                }
                for cid, c in mine.items()
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
            "max_queue_per_token": state.runner.max_queue_per_owner,
            "session_ttl_s": s.api_session_ttl_s,
            "max_sessions": state.sessions.max_sessions,
            "max_sessions_per_token": state.sessions.max_per_owner,
        },
        "defaults": query_defaults(s),
        "modes": mode_infos(),
        "searches": vars(state.runner.stats).copy(),
        "sessions": state.sessions.count(),
    }
    if caller.communities is not None:  # a scoped token sees its communities, not the whole server
        rows = (
            graph.read("api_community_schema", community_ids=sorted(mine), entity_label=s.entity_label)
            if mine
            else []
        )
        held = rows[0] if rows else {"labels": [], "types": []}
        out["graph"].update(
            entities=sum(int(c.get("size") or 0) for c in mine.values()),
            relationships=None,
            labels=len(type_labels(held["labels"])),
            relationship_types=len(held["types"]),
        )
        del out["searches"], out["sessions"]
    return out


@v1.get("/info", response_model=InfoOut, tags=["health"], summary="versions, model, graph counts, limits")
async def info(request: Request) -> InfoOut:
    """Versions, the model, graph counts, the limits, the query defaults and modes, live counters.

    `defaults` is what a question that names no option runs with (`hop_depth` the server's depth);
    `modes` lists every mode with what it does and whether it reads `hop_depth`.

    A token scoped to some communities sees only those: their entity count, and the labels and
    relationship types their entities carry.
    """
    return await asyncio.to_thread(_info, get_state(request), get_caller(request))
