"""gzip for the JSON answers and the pages when the client accepts it; small bodies and SSE never (issue 53).

A real uvicorn server on the demo community; raw bytes are read so the encoding is seen as sent.
"""

from __future__ import annotations

import gzip
import json
import time
from collections.abc import Iterator

import pytest
import requests
from api_testutil import AUTH, TOKEN, ServerThread

from pathrag_gds.api import create_app
from pathrag_gds.api.app import GZIP_MIN_BYTES
from pathrag_gds.config import Settings

pytestmark = pytest.mark.integration

QUESTION = "Who owns Bob the Cat?"


@pytest.fixture(scope="module")
def server(demo_community: str, settings: Settings) -> Iterator[ServerThread]:
    s = settings.model_copy(update={"api_token": TOKEN, "api_timeout_s": 300.0})
    with ServerThread(create_app(s)) as srv:
        deadline = time.monotonic() + 120
        while (r := srv.get("/readyz", headers={})).status_code != 200:  # models load in the background
            assert time.monotonic() < deadline, r.text
            time.sleep(0.5)
        yield srv


def _raw(srv: ServerThread, method: str, path: str, encoding: str | None, **kw: object) -> requests.Response:
    headers = {**AUTH, "Accept-Encoding": encoding or "identity"}
    r = requests.request(method, srv.url + path, headers=headers, stream=True, timeout=120, **kw)  # type: ignore[arg-type]
    r.raw.decode_content = False  # the bytes on the wire
    r._content = r.raw.read()
    return r


def test_a_large_json_answer_is_gzipped_when_asked(server: ServerThread, demo_community: str) -> None:
    body = {"question": QUESTION, "community_id": demo_community, "hop_depth": 3, "top_n": 10}
    zipped = _raw(server, "POST", "/v1/query", "gzip", json=body)
    assert zipped.status_code == 200 and zipped.headers["Content-Encoding"] == "gzip"
    assert "Accept-Encoding" in zipped.headers.get("Vary", "")
    answer = json.loads(gzip.decompress(zipped.content))
    assert answer["question"] == QUESTION and answer["paths"]
    plain = _raw(server, "POST", "/v1/query", None, json=body)
    assert "Content-Encoding" not in plain.headers, "not asked: not gzipped"
    assert len(plain.content) > GZIP_MIN_BYTES and len(zipped.content) < len(plain.content) / 3


def test_a_small_json_answer_is_not_gzipped(server: ServerThread) -> None:
    small = _raw(server, "GET", "/healthz", "gzip")
    assert small.status_code == 200 and len(small.content) < GZIP_MIN_BYTES
    assert "Content-Encoding" not in small.headers, small.headers
    json.loads(small.content)


def test_the_pages_are_gzipped_and_the_stream_is_not(server: ServerThread, demo_community: str) -> None:
    for page in ("/ui", "/openapi.json"):  # (/docs itself is under the minimum; its assets are not)
        r = _raw(server, "GET", page, "gzip")
        assert r.status_code == 200 and r.headers.get("Content-Encoding") == "gzip", page
    body = {"question": QUESTION, "community_id": demo_community, "hop_depth": 2, "stream": True}
    stream = _raw(server, "POST", "/v1/query", "gzip", json=body)
    assert stream.headers["Content-Type"].startswith("text/event-stream")
    assert "Content-Encoding" not in stream.headers, "SSE events must not wait in a gzip buffer"
    assert b"event: result" in stream.content
