"""Server-Sent Events formatting."""

from __future__ import annotations

import json
from typing import Any


def format_event(event: str, data: Any) -> str:
    r"""One SSE event: `event: NAME`, one `data:` line of compact JSON, a blank line.

    JSON never holds a raw newline, so the data fits one line.

    Example:
        >>> format_event("depth", {"depth": 1})
        'event: depth\ndata: {"depth":1}\n\n'
    """
    if not event or any(c in event for c in "\r\n:"):
        raise ValueError(f"invalid SSE event name {event!r}")
    payload = json.dumps(data, separators=(",", ":"), ensure_ascii=False)
    return f"event: {event}\ndata: {payload}\n\n"


def comment(text: str = "keep-alive") -> str:
    """An SSE comment line (ignored by clients; keeps proxies and disconnect checks alive)."""
    return f": {text.replace(chr(10), ' ').replace(chr(13), ' ')}\n\n"


def parse_events(text: str) -> list[tuple[str, Any]]:
    """Parse an SSE stream into `(event, data)` pairs (comments skipped); used by clients and tests."""
    out: list[tuple[str, Any]] = []
    event, data_lines = "message", list[str]()
    for line in text.splitlines():
        if not line:
            if data_lines:
                out.append((event, json.loads("\n".join(data_lines))))
            event, data_lines = "message", []
        elif line.startswith(":"):
            continue
        elif line.startswith("event:"):
            event = line[6:].strip()
        elif line.startswith("data:"):
            data_lines.append(line[5:].removeprefix(" "))
    if data_lines:
        out.append((event, json.loads("\n".join(data_lines))))
    return out
