"""Bearer-token check (constant-time) and the loopback rule of `serve`."""

from __future__ import annotations

import hmac
import ipaddress

from pathrag_gds.api.errors import ApiError

#: Shortest token accepted when the server listens beyond loopback.
MIN_TOKEN_CHARS = 16


def tokens_match(given: str, expected: str) -> bool:
    """Compare two tokens in constant time (no early exit on the first differing byte)."""
    return hmac.compare_digest(given.encode("utf-8"), expected.encode("utf-8"))


def check_authorization(header: str | None, token: str | None) -> None:
    """Check an `Authorization` header against the configured token.

    No configured token means no check (the server then listens on loopback only).

    Raises:
        ApiError: 401 when the header is missing or not `Bearer ...`, 403 when the token is wrong.
    """
    if token is None:
        return
    challenge = {"WWW-Authenticate": "Bearer"}
    if not header:
        raise ApiError(
            401,
            "unauthorized",
            "missing Authorization header: send 'Authorization: Bearer <token>'",
            challenge,
        )
    scheme, _, given = header.partition(" ")
    if scheme.lower() != "bearer" or not given.strip():
        raise ApiError(401, "unauthorized", "the Authorization header must be 'Bearer <token>'", challenge)
    if not tokens_match(given.strip(), token):
        raise ApiError(
            403, "forbidden", "the bearer token is wrong: use the token the server was started with"
        )


def is_loopback(host: str) -> bool:
    """True when `host` is a loopback address or `localhost`."""
    if host.lower() in {"localhost", "localhost.localdomain"}:
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def check_listen(host: str, token: str | None) -> None:
    """Refuse to listen beyond loopback without a (long enough) token.

    Raises:
        ApiError: with a message saying to set PATHRAG_API_TOKEN or bind to 127.0.0.1.
    """
    if is_loopback(host):
        return
    if not token:
        raise ApiError(
            500,
            "config_error",
            f"refusing to listen on {host} without a token: set PATHRAG_API_TOKEN (at least "
            f"{MIN_TOKEN_CHARS} random characters) or use --host 127.0.0.1",
        )
    if len(token) < MIN_TOKEN_CHARS:
        raise ApiError(
            500,
            "config_error",
            f"PATHRAG_API_TOKEN is {len(token)} characters; use at least {MIN_TOKEN_CHARS} random characters "
            f"to listen on {host}",
        )
