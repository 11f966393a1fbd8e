"""What every route depends on: the app's shared state, the bearer-token check, the caller."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import Depends, Request
from fastapi.security import HTTPBearer

from pathrag_gds.api.auth import Caller
from pathrag_gds.api.state import ApiState, app_state

_bearer = HTTPBearer(auto_error=False, description="a token of PATHRAG_API_TOKEN or PATHRAG_API_TOKENS_FILE")


def get_state(request: Request) -> ApiState:
    """The app's shared state."""
    return app_state(request.app)


async def require_auth(request: Request, _: Annotated[Any, Depends(_bearer)] = None) -> None:
    """Check `Authorization: Bearer` against the configured tokens (401 missing, 403 wrong)."""
    request.state.caller = get_state(request).tokens.authenticate(request.headers.get("authorization"))


def get_caller(request: Request) -> Caller:
    """Who sent the request (set by :func:`require_auth`)."""
    caller: Caller = request.state.caller
    return caller
