"""How `serve` runs uvicorn: h11 with a header-size limit, keep-alive and whole-request time limits.

uvicorn on its own (httptools, its default when installed) accepts headers of any size and waits
forever for a client that sends one byte every few seconds or nothing at all. Here:

- the HTTP parser is h11 with `PATHRAG_API_MAX_HEADER_BYTES` as its limit: larger request lines or
  headers get 431, malformed ones 400 (JSON, in the API's error shape);
- :class:`GuardedH11Protocol` gives a client `PATHRAG_API_READ_TIMEOUT_S` to send a whole request
  (headers and body) from the moment it connects or its previous answer ends; a slower one gets 408
  and the connection is closed (half-open and trickling connections included);
- an idle keep-alive connection closes after `PATHRAG_API_KEEPALIVE_S`;
- a request with both `Content-Length` and `Transfer-Encoding` gets 400 and the connection is
  closed (h11 would read it as chunked and serve the bytes after the chunks as a next request:
  request smuggling past a proxy that goes by `Content-Length`);
- an answer sent before the request body was read whole (413 for an oversized body) ends the
  connection: the server shuts its sending side at once and discards what still arrives for at most
  :data:`LINGER_S` (so the client reads the answer instead of a reset), instead of reading the
  upload on.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import h11
import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol

from pathrag_gds.api.errors import error_body
from pathrag_gds.config import Settings

#: uvicorn Config attribute holding the whole-request time limit (set by :func:`uvicorn_config`).
READ_TIMEOUT_ATTR = "pathrag_read_timeout_s"
DEFAULT_READ_TIMEOUT_S = 10.0
#: Seconds a connection answered before its body was read keeps discarding input before it closes.
LINGER_S = 1.0

#: The 400 of a request that frames its body twice.
AMBIGUOUS_LENGTH = (
    "the request has both Content-Length and Transfer-Encoding headers, which frame its body two "
    "ways: send one of them"
)


class StrictH11Connection(h11.Connection):
    """h11's server connection that refuses a request framing its body two ways (RFC 9112 6.3).

    `refusal` holds the message of the refused request, for the 400 answer.
    """

    refusal: str | None = None

    def next_event(self) -> h11.Event | type[h11.NEED_DATA] | type[h11.PAUSED]:
        """h11's next event; a `Request` with both body headers raises `RemoteProtocolError` (400)."""
        event = super().next_event()
        if isinstance(event, h11.Request):
            names = {name for name, _ in event.headers}
            if b"content-length" in names and b"transfer-encoding" in names:
                self.refusal = AMBIGUOUS_LENGTH
                raise h11.RemoteProtocolError(AMBIGUOUS_LENGTH, error_status_hint=400)
        return event


def _raw_response(status: int, reason: str, code: str, message: str) -> bytes:
    body = json.dumps(error_body(code, message)).encode("utf-8")
    head = (
        f"HTTP/1.1 {status} {reason}\r\ncontent-type: application/json\r\nconnection: close\r\n"
        f"content-length: {len(body)}\r\n\r\n"
    )
    return head.encode("ascii") + body


class GuardedH11Protocol(H11Protocol):
    """uvicorn's h11 protocol with a time limit on receiving each request, and JSON 400/431 answers."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.read_timeout_s = float(getattr(self.config, READ_TIMEOUT_ATTR, DEFAULT_READ_TIMEOUT_S))
        self.max_header_bytes = self.config.h11_max_incomplete_event_size or 16 * 1024  # h11's default
        self.conn = StrictH11Connection(h11.SERVER, self.max_header_bytes)
        self._read_timer: asyncio.TimerHandle | None = None
        self._linger_timer: asyncio.TimerHandle | None = None
        self._lingering = False

    # -- the whole-request time limit --------------------------------------------------------------

    def _arm(self) -> None:
        self._disarm()
        self._read_timer = self.loop.call_later(self.read_timeout_s, self._read_timed_out)

    def _disarm(self) -> None:
        if self._read_timer is not None:
            self._read_timer.cancel()
            self._read_timer = None

    def _receiving(self) -> bool:
        """True while the current request has not been received whole."""
        return self.conn.their_state in (h11.IDLE, h11.SEND_BODY)

    def _read_timed_out(self) -> None:
        self._read_timer = None
        if self.transport.is_closing() or not self._receiving():
            return
        if self.cycle is None or self.cycle.response_complete or not self.cycle.response_started:
            if self.cycle is not None:
                self.cycle.disconnected = True  # the app must not answer on a closed connection
                self.cycle.message_event.set()
            self.transport.write(
                _raw_response(
                    408,
                    "Request Timeout",
                    "request_timeout",
                    f"the request did not arrive whole within {self.read_timeout_s:g} s: send it at once "
                    "(PATHRAG_API_READ_TIMEOUT_S sets the limit)",
                )
            )
        self.transport.close()

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        """Start the clock for the first request."""
        super().connection_made(transport)
        self._arm()

    def data_received(self, data: bytes) -> None:
        """Refuse oversized headers, feed h11, stop the clock once the request is in.

        h11 limits only an incomplete head: a large head that arrives in one read would pass. Once
        the connection was answered before its body arrived, what still arrives is dropped.
        """
        if self._lingering:
            return
        if self.conn.their_state is h11.IDLE and not self.transport.is_closing():
            head = self.conn.trailing_data[0] + data
            end = head.find(b"\r\n\r\n")
            if (end + 4 if end >= 0 else len(head)) > self.max_header_bytes:
                self._disarm()
                self._send_431()
                return
        super().data_received(data)
        if not self._receiving():
            self._disarm()

    def on_response_complete(self) -> None:
        """Start the clock for the next request on this connection, or end it when its body is unread."""
        if self.conn.their_state is h11.SEND_BODY and not self.transport.is_closing():
            self._close_unread()
            return
        if not self.transport.is_closing():
            self._arm()
        super().on_response_complete()
        if not self._receiving():
            self._disarm()

    def connection_lost(self, exc: Exception | None) -> None:
        """Stop the clocks."""
        self._disarm()
        if self._linger_timer is not None:
            self._linger_timer.cancel()
            self._linger_timer = None
        super().connection_lost(exc)

    def _close_unread(self) -> None:
        """End a connection answered before its request body was read whole.

        The answer is out: shut the sending side at once (the client reads the answer, then the end),
        drop what still arrives and close after :data:`LINGER_S` or when the client closes. Closing
        at once with unread input would reset the connection, and the client might lose the answer.
        """
        self.server_state.total_requests += 1
        self._disarm()
        self._lingering = True
        self.flow.resume_reading()
        if self.transport.can_write_eof():
            self.transport.write_eof()
            self._linger_timer = self.loop.call_later(LINGER_S, self.transport.close)
        else:  # TLS: no half-close
            self.transport.close()

    # -- malformed or oversized requests -----------------------------------------------------------

    def send_400_response(self, msg: str) -> None:
        """Answer a request h11 cannot parse or refuses: 431 when its headers are too large, else 400."""
        refusal = getattr(self.conn, "refusal", None)
        if refusal is None and len(self.conn.trailing_data[0]) >= self.max_header_bytes:
            self._send_431()
            return
        out = _raw_response(
            400,
            "Bad Request",
            "bad_request",
            refusal or "malformed HTTP request (request line or headers): send a valid HTTP/1.1 request",
        )
        self.transport.write(out)
        self.transport.close()

    def _send_431(self) -> None:
        self.transport.write(
            _raw_response(
                431,
                "Request Header Fields Too Large",
                "headers_too_large",
                f"the request line and headers are larger than {self.max_header_bytes} bytes: send "
                "fewer or shorter headers",
            )
        )
        self.transport.close()


def uvicorn_config(app: Any, settings: Settings, **kwargs: Any) -> uvicorn.Config:
    """A uvicorn Config for the API with the limits of `settings` (`kwargs`: host, port, ...)."""
    config = uvicorn.Config(
        app,
        http=GuardedH11Protocol,
        h11_max_incomplete_event_size=settings.api_max_header_bytes,
        timeout_keep_alive=settings.api_keepalive_s,  # type: ignore[arg-type]
        **kwargs,
    )
    setattr(config, READ_TIMEOUT_ATTR, settings.api_read_timeout_s)
    return config
