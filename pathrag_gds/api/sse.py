"""Server-Sent Events formatting."""

from __future__ import annotations

import json
import re
from typing import Any

#: Line breaks of `str.splitlines()` that `json.dumps(ensure_ascii=False)` leaves raw.
_LINE_BREAKS = {c: f"\\u{c:04x}" for c in (0x85, 0x2028, 0x2029)}


def format_event(event: str, data: Any) -> str:
    r"""One SSE event: `event: NAME`, one `data:` line of compact JSON, a blank line.

    JSON never holds a raw newline; the other characters that `str.splitlines()` (hence
    `requests.iter_lines(decode_unicode=True)`) breaks lines at and JSON leaves raw (U+0085, U+2028,
    U+2029) are written as `\uXXXX` escapes, so the data fits one line for every client.

    Example:
        >>> format_event("depth", {"depth": 1})
        'event: depth\ndata: {"depth":1}\n\n'
    """
    if not event or any(c in event for c in "\r\n:"):
        raise ValueError(f"invalid SSE event name {event!r}")
    payload = json.dumps(data, separators=(",", ":"), ensure_ascii=False).translate(_LINE_BREAKS)
    return f"event: {event}\ndata: {payload}\n\n"


def comment(text: str = "keep-alive") -> str:
    """An SSE comment line (ignored by clients; keeps proxies and disconnect checks alive)."""
    return f": {text.replace(chr(10), ' ').replace(chr(13), ' ')}\n\n"


def parse_events(text: str) -> list[tuple[str, Any]]:
    """Parse an SSE stream into `(event, data)` pairs (comments skipped); used by clients and tests."""
    out: list[tuple[str, Any]] = []
    event, data_lines = "message", list[str]()
    for line in re.split(r"\r\n|\r|\n", text):  # SSE's own line ends only
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
