"""HTTP errors: every error is `{"error": {"code": ..., "message": ...}}`, never a stack trace."""

from __future__ import annotations

import json
import logging
from typing import Any

from pathrag_gds.errors import (
    ConfigError,
    DatabaseUnavailable,
    InvalidInput,
    LoadIncomplete,
    ModelError,
    PathRagError,
    QueryCancelled,
    QueryTimeout,
    SchemaError,
)

log = logging.getLogger(__name__)

#: HTTP status and error code for each error a user (or the environment) can cause.
ERROR_STATUS: dict[type[PathRagError], tuple[int, str]] = {
    InvalidInput: (422, "invalid_input"),
    LoadIncomplete: (409, "load_incomplete"),
    SchemaError: (503, "schema_error"),
    DatabaseUnavailable: (503, "database_unavailable"),
    ModelError: (503, "model_unavailable"),
    ConfigError: (500, "config_error"),
    QueryTimeout: (504, "timeout"),
    QueryCancelled: (499, "cancelled"),
}


class ApiError(Exception):
    """An error answered with `status` and a JSON body naming `code` and what to do.

    Args:
        status: the HTTP status.
        code: a short machine-readable code (`invalid_request`, `unauthorized`, ...).
        message: one sentence for a human, saying what to do.
        headers: extra response headers (e.g. `WWW-Authenticate`, `Retry-After`).
    """

    def __init__(self, status: int, code: str, message: str, headers: dict[str, str] | None = None):
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.headers = headers or {}


def error_body(code: str, message: str, **extra: Any) -> dict[str, Any]:
    """The JSON body of an error response (a lone surrogate echoed from the request is escaped)."""
    message = message.encode("utf-8", "backslashreplace").decode("utf-8")
    body: dict[str, Any] = {"error": {"code": code, "message": message}}
    body["error"].update(extra)
    return body


def from_pathrag_error(exc: PathRagError) -> ApiError:
    """Map a `pathrag_gds.errors` exception to its HTTP status and code (message kept)."""
    for cls in type(exc).__mro__:
        if cls in ERROR_STATUS:
            status, code = ERROR_STATUS[cls]
            return ApiError(status, code, str(exc))
    return ApiError(500, "internal_error", str(exc))


def timeout_error(seconds: float) -> ApiError:
    """The 504 answer of a request that ran past the server's time limit."""
    return ApiError(
        504,
        "timeout",
        f"the request ran past the server's time limit of {seconds:g} s: lower hop_depth or seed_n, "
        "or retry when the server is less busy (PATHRAG_API_TIMEOUT_S sets the limit)",
    )


#: pydantic's strict-type error types and the JSON type they want.
_STRICT_TYPES = {"int_type": "integer", "bool_type": "boolean (true or false)", "string_type": "string"}


def _json_kind(value: Any) -> str:
    """How a parsed JSON value reads in a message: its type, and the value when short."""
    kinds = {bool: "a boolean", int: "an integer", float: "a number", str: "a string", list: "an array"}
    kind = "null" if value is None else kinds.get(type(value), "an object")
    if isinstance(value, (bool, int, float, str)):
        shown = json.dumps(value, ensure_ascii=True)
        return f"{kind} ({shown if len(shown) <= 40 else shown[:40] + '...'})"
    return kind


def validation_message(errors: list[Any]) -> str:
    """One readable sentence from pydantic/FastAPI validation errors."""
    parts = []
    for err in errors[:5]:
        loc = [str(x) for x in err.get("loc", ()) if x not in ("body",)]
        where = ".".join(loc) or "body"
        msg = str(err.get("msg", "invalid"))
        msg = msg.removeprefix("Value error, ")
        kind = _STRICT_TYPES.get(str(err.get("type")))
        if kind is not None:
            msg = f"must be a JSON {kind}, not {_json_kind(err.get('input'))} (types are strict)"
        elif err.get("type") == "extra_forbidden":
            msg = "unknown field"
        elif err.get("type") == "json_invalid":
            where, msg = "body", "not valid JSON"
        parts.append(f"{where}: {msg}")
    return "invalid request: " + "; ".join(parts) + ". Fix the request (see /docs for the schema)."
