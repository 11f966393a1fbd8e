"""Request guards that run before FastAPI parses anything: body size and JSON, and the Host rule.

- :class:`BodyGuard` refuses bodies over the size limit (413), and bodies FastAPI would answer with a
  bare "There was an error parsing the body" or a 500: invalid UTF-8 (overlong forms included), JSON
  nested deeper than :data:`MAX_JSON_DEPTH`, malformed JSON, an integer longer than Python reads
  (422, saying what is wrong and where).
- :class:`LoopbackHostOnly` (installed when the server has no token) answers 400 to a `Host` header
  that is not a loopback name, so a web page cannot reach the tokenless server by DNS rebinding.
"""

from __future__ import annotations

import json
import logging
import sys

from fastapi.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from pathrag_gds.api.auth import host_name, is_loopback
from pathrag_gds.api.errors import error_body

log = logging.getLogger(__name__)

#: Deepest JSON nesting accepted (a query body is a flat object).
MAX_JSON_DEPTH = 32


def json_body_problem(body: bytes, max_depth: int = MAX_JSON_DEPTH) -> str | None:
    r"""What is wrong with a JSON request body, as a message saying what to send; None when fine.

    Example:
        >>> json_body_problem(b'{"question": "Who owns Bob?"}') is None
        True
        >>> json_body_problem(b'{"q": "\xc0\xaf"}')[:40]
        'the body is not valid UTF-8 (byte 0xc0 a'
    """
    if not body:
        return None  # FastAPI answers "field required"
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as exc:
        return (
            f"the body is not valid UTF-8 (byte 0x{body[exc.start]:02x} at offset {exc.start}: "
            f"{exc.reason}): send JSON encoded as UTF-8"
        )
    depth = deepest = 0
    in_string = escaped = False
    for c in text:
        if in_string:
            if escaped:
                escaped = False
            elif c == "\\":
                escaped = True
            elif c == '"':
                in_string = False
        elif c == '"':
            in_string = True
        elif c in "[{":
            depth += 1
            deepest = max(deepest, depth)
            if deepest > max_depth:
                return (
                    f"the JSON nests deeper than {max_depth} levels: send a flat object such as "
                    '{"question": "..."}'
                )
        elif c in "]}":
            depth -= 1
    try:
        json.loads(text)
    except json.JSONDecodeError as exc:
        return (
            f"the body is not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno}): send a "
            'JSON object such as {"question": "..."}'
        )
    except ValueError:  # an integer past Python's digit limit: not a JSONDecodeError
        limit = sys.get_int_max_str_digits()
        log.warning("refused a JSON body holding an integer of more than %d digits", limit)
        return (
            f"the body holds an integer of more than {limit} digits: send numbers within the ranges "
            "of the schema (see /docs)"
        )
    return None


def _is_json(scope: Scope) -> bool:
    """True when FastAPI would parse the body as JSON (no Content-Type, or a JSON one)."""
    for name, value in scope.get("headers") or []:
        if name == b"content-type":
            return b"json" in value.lower()
    return True


async def _answer(send: Send, status: int, code: str, message: str) -> None:
    await JSONResponse(error_body(code, message), status_code=status)({"type": "http"}, _no_receive, send)


async def _no_receive() -> Message:
    return {"type": "http.disconnect"}


class BodyGuard:
    """ASGI middleware: bodies over `max_bytes` get 413 (declared or streamed); bad JSON gets 422."""

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def _too_large(self, send: Send) -> None:
        await _answer(
            send,
            413,
            "payload_too_large",
            f"the request body is larger than {self.max_bytes} bytes: shorten the question",
        )

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Pass the request on with its body, or answer 413 / 422."""
        if scope["type"] != "http" or scope["method"] in ("GET", "HEAD", "DELETE", "OPTIONS"):
            await self.app(scope, receive, send)
            return
        headers = dict(scope.get("headers") or [])
        declared = headers.get(b"content-length")
        if declared is not None:
            try:
                size = int(declared)
            except ValueError:
                size = self.max_bytes + 1
            if size > self.max_bytes:
                await self._too_large(send)
                return
        chunks: list[bytes] = []
        total = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":
                return  # client went away before sending its body
            chunk = message.get("body", b"")
            total += len(chunk)
            if total > self.max_bytes:
                await self._too_large(send)
                return
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        body = b"".join(chunks)
        if _is_json(scope):
            problem = json_body_problem(body)
            if problem is not None:
                await _answer(send, 422, "invalid_request", f"invalid request: {problem}")
                return
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)


class LoopbackHostOnly:
    """ASGI middleware: answer 400 unless the `Host` header names a loopback address or `localhost`."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Pass loopback-addressed requests on; refuse the others."""
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        host = next((v.decode("latin-1") for k, v in scope.get("headers") or [] if k == b"host"), "")
        if host and is_loopback(host_name(host)):
            await self.app(scope, receive, send)
            return
        shown = repr(host[:100]) if host else "missing"
        await _answer(
            send,
            400,
            "bad_host",
            f"Host header {shown} is not a loopback name: without a token the server answers only to "
            "127.0.0.1, [::1] or localhost; use one of them, or start the server with PATHRAG_API_TOKEN",
        )
