"""Issue 54, the HTTP side: huge JSON integers, per-token session limits, what a scoped token's
/v1/info shows, and two HTTP framing edge cases; each against the real Neo4j (demo graph) and a
real uvicorn server on a loopback port (the options of `serve`), raw sockets where framing is the point.
"""

from __future__ import annotations

import contextlib
import json
import logging
import secrets
import socket
import time
from collections.abc import Iterator
from typing import Any

import pytest
import requests
from api_testutil import TOKEN, ServerThread, assert_error

from pathrag_gds.api import create_app
from pathrag_gds.config import Settings
from pathrag_gds.datasets.loader import community_counts
from pathrag_gds.graph import Graph

pytestmark = pytest.mark.integration

UID = secrets.token_hex(4)
A_TOKEN = f"tenant-a-{UID}-" + TOKEN
B_TOKEN = f"tenant-b-{UID}-" + TOKEN
ALL_TOKEN = f"tenant-all-{UID}-" + TOKEN
NONE_TOKEN = f"tenant-none-{UID}-" + TOKEN
NO_SUCH_COMMUNITY = f"t54-absent-{UID}"
PER_TOKEN = 2
GLOBAL = 5


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


@pytest.fixture(scope="module")
def demo(demo_community: str) -> str:
    """The demo community (shared; conftest: loaded only when missing, never reloaded)."""
    return demo_community


@pytest.fixture(scope="module")
def tenants(
    demo: str, settings: Settings, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[ServerThread]:
    """Two tokens of the demo community, one of every community, one of a community that does not exist."""
    path = tmp_path_factory.mktemp("tokens") / "tokens.json"
    scopes = {A_TOKEN: [demo], B_TOKEN: [demo], ALL_TOKEN: "*", NONE_TOKEN: [NO_SUCH_COMMUNITY]}
    path.write_text(json.dumps(scopes), encoding="utf-8")
    s = settings.model_copy(
        update={
            "api_tokens_file": path,
            "api_max_sessions": GLOBAL,
            "api_max_sessions_per_token": PER_TOKEN,
            "api_timeout_s": 300.0,
        }
    )
    with ServerThread(create_app(s, warm_up=False)) as srv:
        yield srv


# --- 1: a JSON integer past Python's digit limit ----------------------------------------------------------


class _Records(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@contextlib.contextmanager
def server_log() -> Iterator[list[logging.LogRecord]]:
    """Every record the app and uvicorn log meanwhile (uvicorn's loggers do not reach the root)."""
    handler = _Records()
    loggers = [logging.getLogger(), logging.getLogger("uvicorn")]
    for lg in loggers:
        lg.addHandler(handler)
    try:
        yield handler.records
    finally:
        for lg in loggers:
            lg.removeHandler(handler)


def test_huge_integer_anywhere_is_422_with_one_log_line(tenants: ServerThread) -> None:
    digits = b"9" * 5000
    bodies = [
        ("/v1/query", b'{"question": "Who owns Bob?", "top_n": ' + digits + b"}"),
        ("/v1/query", b'{"question": "Who owns Bob?", "x": [1, {"y": -' + digits + b"}]}"),
        ("/v1/query", b'{"question": "Who owns Bob?", "stream": true, "seed_n": ' + digits + b"}"),
        ("/v1/sessions", b'{"hop_depth": ' + digits + b"}"),
    ]
    with server_log() as records:
        for path, data in bodies:  # no token: the body is refused before authentication
            r = requests.post(
                tenants.url + path, data=data, headers={"Content-Type": "application/json"}, timeout=30
            )
            assert_error(r, 422, "invalid_request", "integer of more than 4300 digits", "/docs")
    assert not [r for r in records if r.exc_info or "Traceback" in r.getMessage()]
    lines = [r.getMessage() for r in records if "digits" in r.getMessage()]
    assert len(lines) == len(bodies), lines
    assert all("\n" not in line and len(line) < 200 for line in lines), lines


# --- 2: sessions are limited per token, under a global ceiling -------------------------------------------


def test_one_token_cannot_take_the_others_sessions(tenants: ServerThread) -> None:
    opened: list[tuple[str, str]] = []

    def open_session(token: str) -> requests.Response:
        r = tenants.post("/v1/sessions", {"hop_depth": 1}, headers=bearer(token))
        if r.status_code == 201:
            opened.append((token, r.json()["session_id"]))
        return r

    try:
        for _ in range(PER_TOKEN):
            assert open_session(A_TOKEN).status_code == 201
        r = open_session(A_TOKEN)
        err = assert_error(r, 429, "too_many_sessions", "this token", f"own maximum of {PER_TOKEN}", "DELETE")
        assert "global" not in err["message"] and r.headers["Retry-After"] == "60"
        for _ in range(PER_TOKEN):  # A at its limit locks nobody else out
            assert open_session(B_TOKEN).status_code == 201, "B was locked out by A's sessions"
        assert open_session(ALL_TOKEN).status_code == 201  # 5 of 5 now
        r = open_session(ALL_TOKEN)  # its own limit is not reached: the server's is
        err = assert_error(
            r, 429, "too_many_sessions", f"global maximum of {GLOBAL}", "all tokens", "this token holds 1"
        )
        assert "own maximum" not in err["message"]
        token, sid = opened.pop(0)
        assert requests.delete(f"{tenants.url}/v1/sessions/{sid}", headers=bearer(token), timeout=10).ok
        assert open_session(ALL_TOKEN).status_code == 201
        info = tenants.get("/v1/info", headers=bearer(A_TOKEN)).json()
        assert info["limits"]["max_sessions_per_token"] == PER_TOKEN
    finally:
        for token, sid in opened:
            requests.delete(f"{tenants.url}/v1/sessions/{sid}", headers=bearer(token), timeout=10)


# --- 7: a scoped token's /v1/info counts only what its communities hold ----------------------------------


def test_scoped_info_shows_only_its_communities_labels_and_types(
    tenants: ServerThread, demo: str, graph: Graph
) -> None:
    held = community_counts(graph, demo)
    assert held is not None
    whole = tenants.get("/v1/info", headers=bearer(ALL_TOKEN)).json()["graph"]
    scoped = tenants.get("/v1/info", headers=bearer(A_TOKEN)).json()["graph"]
    assert [c["id"] for c in scoped["communities"]] == [demo]
    assert scoped["labels"] == len(held["labels"]) and scoped["relationship_types"] == len(
        held["relationships"]
    ), scoped
    assert scoped["entities"] == held["entities"] and scoped["relationships"] is None
    assert whole["labels"] > scoped["labels"] and whole["relationship_types"] > scoped["relationship_types"]
    nothing = tenants.get("/v1/info", headers=bearer(NONE_TOKEN)).json()["graph"]
    assert nothing == {
        "entities": 0,
        "relationships": None,
        "labels": 0,
        "relationship_types": 0,
        "communities": [],
    }


def test_examples_only_for_a_community_the_token_may_query(tenants: ServerThread, demo: str) -> None:
    mine = tenants.get(f"/v1/communities/{demo}/examples", headers=bearer(A_TOKEN))
    assert mine.status_code == 200 and mine.json()["community_id"] == demo and mine.json()["questions"]
    for token, community in ((NONE_TOKEN, demo), (A_TOKEN, NO_SUCH_COMMUNITY)):
        other = tenants.get(f"/v1/communities/{community}/examples", headers=bearer(token))
        assert other.status_code == 404 and other.json()["error"]["code"] == "community_not_found", other.text


# --- 9: HTTP framing: Content-Length with chunked, chunked bodies over the limit -------------------------


def connect(srv: ServerThread) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", srv.port), timeout=15)
    sock.settimeout(15)
    return sock


def read_all(sock: socket.socket, limit_s: float = 15.0) -> tuple[bytes, float]:
    """Everything the server sends until it closes the connection, and how long that took."""
    out = b""
    t0 = time.monotonic()
    while time.monotonic() - t0 < limit_s:
        try:
            chunk = sock.recv(65536)
        except (ConnectionResetError, TimeoutError):
            break
        if not chunk:
            break
        out += chunk
    return out, time.monotonic() - t0


def error_of(answer: bytes) -> dict[str, Any]:
    error: dict[str, Any] = json.loads(answer.split(b"\r\n\r\n", 1)[1])["error"]
    return error


@pytest.mark.parametrize(
    "framing",
    [
        b"Content-Length: {n}\r\nTransfer-Encoding: chunked\r\n",
        b"transfer-encoding: chunked\r\ncontent-length: {n}\r\n",
        b"Content-Length: 0\r\nTransfer-Encoding: chunked\r\n",
    ],
)
def test_content_length_with_chunked_is_refused(tenants: ServerThread, framing: bytes) -> None:
    auth = f"Authorization: Bearer {ALL_TOKEN}\r\n".encode()
    sneaked = b"GET /v1/info HTTP/1.1\r\nHost: 127.0.0.1\r\n" + auth + b"\r\n"
    body = b"0\r\n\r\n" + sneaked  # chunked: an empty body, then a second request
    head = b"POST /v1/query HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n" + auth
    sock = connect(tenants)
    sock.sendall(head + framing.replace(b"{n}", str(len(body)).encode()) + b"\r\n" + body)
    answer, took = read_all(sock)
    sock.close()
    assert answer.startswith(b"HTTP/1.1 400 "), answer[:200]
    assert answer.count(b"HTTP/1.1 ") == 1, answer  # the sneaked request is not served
    err = error_of(answer)
    assert err["code"] == "bad_request" and "Content-Length and Transfer-Encoding" in err["message"]
    assert took < 2, took  # closed at once


def test_chunked_request_keeps_its_connection(tenants: ServerThread) -> None:
    """Chunked alone is fine: answered, and the connection serves the next request."""
    body = b'{"question": " "}'
    chunked = f"{len(body):x}\r\n".encode() + body + b"\r\n0\r\n\r\n"
    head = (
        b"POST /v1/query HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        b"Transfer-Encoding: chunked\r\n" + f"Authorization: Bearer {ALL_TOKEN}\r\n\r\n".encode()
    )
    sock = connect(tenants)
    sock.sendall(head + chunked + b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
    answer, _ = read_all(sock)
    sock.close()
    assert answer.startswith(b"HTTP/1.1 422 ") and b"HTTP/1.1 200 " in answer, answer


def _over_limit_upload(tenants: ServerThread, head: bytes, chunk: bytes) -> socket.socket:
    sock = connect(tenants)
    sock.sendall(
        b"POST /v1/query HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        + f"Authorization: Bearer {ALL_TOKEN}\r\n".encode()
        + head
        + b"\r\n"
    )
    for _ in range(20):  # 20 KiB: over the 16 KiB limit, and the upload is not finished
        sock.sendall(chunk)
    return sock


CHUNK = b"400\r\n" + b"a" * 1024 + b"\r\n"


@pytest.mark.parametrize(
    ("head", "chunk"),
    [(b"Transfer-Encoding: chunked\r\n", CHUNK), (b"Content-Length: 1000000\r\n", b"a" * 1024)],
    ids=["chunked", "content-length"],
)
def test_body_over_the_limit_gets_413_and_the_connection_ends_at_once(
    tenants: ServerThread, head: bytes, chunk: bytes
) -> None:
    sock = _over_limit_upload(tenants, head, chunk)
    answer, took = read_all(sock)
    sock.close()
    assert answer.startswith(b"HTTP/1.1 413 "), answer[:200]
    assert error_of(answer)["code"] == "payload_too_large"
    assert took < 2, took  # the server's side ends with the answer, not after reading on


def test_upload_going_on_after_413_is_not_read_on(tenants: ServerThread) -> None:
    sock = _over_limit_upload(tenants, b"Transfer-Encoding: chunked\r\n", CHUNK)
    t0 = time.monotonic()
    with pytest.raises(OSError):  # the server stops taking the upload within a second or so
        while time.monotonic() - t0 < 5:
            sock.sendall(CHUNK)
            time.sleep(0.05)
    assert time.monotonic() - t0 < 4
    sock.close()


def test_a_client_uploading_on_reads_the_413(tenants: ServerThread) -> None:
    """A client that sends its whole (chunked) upload before reading still gets the answer, not a reset."""

    def chunks() -> Iterator[bytes]:
        yield b'{"question": "'
        for _ in range(256):
            yield b"a" * 1024
        yield b'"}'

    r = requests.post(
        tenants.url + "/v1/query",
        data=chunks(),
        headers={**bearer(ALL_TOKEN), "Content-Type": "application/json"},
        timeout=30,
    )
    assert_error(r, 413, "payload_too_large")
