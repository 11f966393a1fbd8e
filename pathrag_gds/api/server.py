"""How `serve` runs uvicorn: h11 with a header-size limit, keep-alive and whole-request time limits.

uvicorn on its own (httptools, its default when installed) accepts headers of any size and waits
forever for a client that sends one byte every few seconds or nothing at all. Here:

- the HTTP parser is h11 with `PATHRAG_API_MAX_HEADER_BYTES` as its limit: larger request lines or
  headers get 431, malformed ones 400 (JSON, in the API's error shape);
- :class:`GuardedH11Protocol` gives a client `PATHRAG_API_READ_TIMEOUT_S` to send a whole request
  (headers and body) from the moment it connects or its previous answer ends; a slower one gets 408
  and the connection is closed (half-open and trickling connections included);
- an idle keep-alive connection closes after `PATHRAG_API_KEEPALIVE_S`.
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
        self._read_timer: asyncio.TimerHandle | None = None

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

        h11 limits only an incomplete head: a large head that arrives in one read would pass.
        """
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
        """Start the clock for the next request on this connection."""
        if not self.transport.is_closing():
            self._arm()
        super().on_response_complete()
        if not self._receiving():
            self._disarm()

    def connection_lost(self, exc: Exception | None) -> None:
        """Stop the clock."""
        self._disarm()
        super().connection_lost(exc)

    # -- malformed or oversized requests -----------------------------------------------------------

    def send_400_response(self, msg: str) -> None:
        """Answer a request h11 cannot parse: 431 when its headers are too large, else 400 (JSON)."""
        if len(self.conn.trailing_data[0]) >= self.max_header_bytes:
            self._send_431()
            return
        out = _raw_response(
            400,
            "Bad Request",
            "bad_request",
            "malformed HTTP request (request line or headers): send a valid HTTP/1.1 request",
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
