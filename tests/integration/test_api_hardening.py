"""Issue 26, the HTTP side: tokens scoped to communities, input and protocol checks, server limits,
failure behaviour and the community's tuned model, each against the real Neo4j (demo graph) and a
real uvicorn server on a loopback port (the options of `serve`), with real sockets where the
protocol is the point.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests
from api_testutil import AUTH, TOKEN, ServerThread, assert_error
from pathrag_testutil import run_cli

from pathrag_gds.api import create_app
from pathrag_gds.api.app import app_state
from pathrag_gds.api.sse import parse_events
from pathrag_gds.config import Settings
from pathrag_gds.service import PathRag

pytestmark = pytest.mark.integration

QUESTION = "Who owns Bob the Cat?"
OTHER = "SomeoneElsesCommunity"
ALL_TOKEN = "all-communities-" + TOKEN
DEMO_TOKEN = "demo-community-" + TOKEN
OTHER_TOKEN = "other-community-" + TOKEN
TWO_TOKEN = "two-communities-" + TOKEN


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def wait_ready(srv: ServerThread) -> None:
    deadline = time.monotonic() + 120
    while True:  # models load in the background
        r = srv.get("/readyz", headers={})
        if r.status_code == 200:
            return
        assert time.monotonic() < deadline, r.text
        time.sleep(0.5)


@pytest.fixture(scope="module")
def scoped(
    demo_community: str, settings: Settings, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[ServerThread]:
    """A server with PATHRAG_API_TOKEN and a tokens file: all, the demo only, another only, both."""
    path = tmp_path_factory.mktemp("tokens") / "tokens.yaml"
    path.write_text(
        json.dumps(
            {
                ALL_TOKEN: "*",
                DEMO_TOKEN: [demo_community],
                OTHER_TOKEN: [OTHER],
                TWO_TOKEN: [demo_community, OTHER],
            }
        ),
        encoding="utf-8",
    )
    s = settings.model_copy(update={"api_token": TOKEN, "api_tokens_file": path, "api_timeout_s": 300.0})
    with ServerThread(create_app(s)) as srv:
        wait_ready(srv)
        yield srv


# --- 3: tokens scoped to communities --------------------------------------------------------------


def test_scoped_token_queries_only_its_community(scoped: ServerThread, demo_community: str) -> None:
    body = {"question": QUESTION, "hop_depth": 1, "seed_n": 5}
    r = scoped.post("/v1/query", body, headers=bearer(DEMO_TOKEN))
    assert r.status_code == 200, r.text  # one community: it is the default
    assert r.json()["community_id"] == demo_community and r.json()["paths"]
    r = scoped.post("/v1/query", {**body, "community_id": demo_community}, headers=bearer(DEMO_TOKEN))
    assert r.status_code == 200, r.text
    for token in (ALL_TOKEN, TOKEN):  # "*" in the file, and PATHRAG_API_TOKEN: every community
        r = scoped.post("/v1/query", {**body, "community_id": demo_community}, headers=bearer(token))
        assert r.status_code == 200, r.text
    r = scoped.post("/v1/query", body, headers=bearer(TWO_TOKEN))
    assert_error(r, 422, "invalid_request", "community_id is required", "/v1/info")


def test_forbidden_and_unknown_communities_answer_alike(scoped: ServerThread, demo_community: str) -> None:
    body = {"question": QUESTION, "hop_depth": 1, "seed_n": 5}
    forbidden = scoped.post(
        "/v1/query", {**body, "community_id": demo_community}, headers=bearer(OTHER_TOKEN)
    )
    unknown = scoped.post(
        "/v1/query", {**body, "community_id": "NoSuchCommunity"}, headers=bearer(OTHER_TOKEN)
    )
    allowed_but_absent = scoped.post("/v1/query", body, headers=bearer(OTHER_TOKEN))
    for r, cid in ((forbidden, demo_community), (unknown, "NoSuchCommunity"), (allowed_but_absent, OTHER)):
        assert_error(r, 404, "community_not_found", f"no community '{cid}'")
    texts = {
        r.text.replace(cid, "X") for r, cid in ((forbidden, demo_community), (unknown, "NoSuchCommunity"))
    }
    assert len(texts) == 1, texts  # the same body, but for the id the client sent
    assert demo_community not in unknown.text and demo_community not in allowed_but_absent.text
    # a session cannot open the door either
    r = scoped.post("/v1/sessions", {"community_id": demo_community}, headers=bearer(OTHER_TOKEN))
    assert_error(r, 404, "community_not_found")
    stream = scoped.post(
        "/v1/query", {**body, "community_id": demo_community, "stream": True}, headers=bearer(OTHER_TOKEN)
    )
    assert_error(stream, 404, "community_not_found")


def test_info_lists_only_the_callers_communities(scoped: ServerThread, demo_community: str) -> None:
    everything = scoped.get("/v1/info", headers=bearer(ALL_TOKEN)).json()
    assert demo_community in {c["id"] for c in everything["graph"]["communities"]}
    demo = scoped.get("/v1/info", headers=bearer(DEMO_TOKEN)).json()
    assert [c["id"] for c in demo["graph"]["communities"]] == [demo_community]
    other = scoped.get("/v1/info", headers=bearer(OTHER_TOKEN))
    assert other.status_code == 200 and other.json()["graph"]["communities"] == []
    assert demo_community not in other.text
    assert other.json()["sessions"] is None and other.json()["searches"] is None  # the server's counts
    assert_error(scoped.get("/v1/info", headers=bearer("x" * 30)), 403, "forbidden")


def test_sessions_belong_to_their_token(scoped: ServerThread, demo_community: str) -> None:
    r = scoped.post("/v1/sessions", {"hop_depth": 1, "seed_n": 5}, headers=bearer(DEMO_TOKEN))
    assert r.status_code == 201, r.text
    sid = r.json()["session_id"]
    assert r.json()["community_id"] == demo_community
    for token in (OTHER_TOKEN, ALL_TOKEN):
        assert_error(scoped.get(f"/v1/sessions/{sid}", headers=bearer(token)), 404, "session_not_found")
        r = scoped.post(f"/v1/sessions/{sid}/query", {"question": QUESTION}, headers=bearer(token))
        assert_error(r, 404, "session_not_found")
    r = scoped.post(f"/v1/sessions/{sid}/query", {"question": QUESTION}, headers=bearer(DEMO_TOKEN))
    assert r.status_code == 200 and r.json()["community_id"] == demo_community, r.text
    r = scoped.post(
        f"/v1/sessions/{sid}/query", {"question": QUESTION, "community_id": OTHER}, headers=bearer(DEMO_TOKEN)
    )
    assert_error(r, 404, "community_not_found")
    deleted = requests.delete(f"{scoped.url}/v1/sessions/{sid}", headers=bearer(OTHER_TOKEN), timeout=10)
    assert_error(deleted, 404, "session_not_found")
    deleted = requests.delete(f"{scoped.url}/v1/sessions/{sid}", headers=bearer(DEMO_TOKEN), timeout=10)
    assert deleted.status_code == 204


# --- 4-8: input and protocol -------------------------------------------------------------------------


@pytest.fixture(scope="module")
def server(demo_community: str, settings: Settings) -> Iterator[ServerThread]:
    s = settings.model_copy(update={"api_token": TOKEN, "api_timeout_s": 300.0})
    with ServerThread(create_app(s)) as srv:
        wait_ready(srv)
        yield srv


def raw_post(srv: ServerThread, path: str, data: bytes) -> requests.Response:
    return requests.post(
        srv.url + path, data=data, headers={**AUTH, "Content-Type": "application/json"}, timeout=60
    )


def test_lone_surrogate_is_422_in_queries_and_sessions(server: ServerThread, demo_community: str) -> None:
    body = b'{"question": "Who owns \\ud800 Bob?", "hop_depth": 1}'
    assert_error(raw_post(server, "/v1/query", body), 422, "invalid_request", "surrogate", "valid Unicode")
    stream = b'{"question": "\\udfff", "stream": true}'
    assert_error(raw_post(server, "/v1/query", stream), 422, "invalid_request", "surrogate")
    sid = server.post("/v1/sessions", {"hop_depth": 1, "community_id": demo_community}).json()["session_id"]
    assert_error(raw_post(server, f"/v1/sessions/{sid}/query", body), 422, "invalid_request", "surrogate")
    field = b'{"question": "Who owns Bob?", "community_id": "a\\ud800"}'
    assert_error(raw_post(server, "/v1/query", field), 422, "invalid_request", "community_id", "surrogate")
    key = b'{"question": "Who owns Bob?", "\\ud800": 1}'
    assert_error(raw_post(server, "/v1/query", key), 422, "invalid_request", "field name", "surrogate")


@pytest.mark.parametrize("separator", ["\u2028", "\u2029", "\x85"])
def test_line_separators_do_not_break_the_event_stream(
    server: ServerThread, demo_community: str, separator: str
) -> None:
    question = f"Who owns{separator}Bob the Cat?"
    body = {"question": question, "community_id": demo_community, "hop_depth": 1, "seed_n": 5, "stream": True}
    with server.post("/v1/query", body, stream=True) as r:
        assert r.status_code == 200, r.text
        raw = r.content.decode("utf-8")
    assert separator not in raw  # escaped inside data:
    events = parse_events(raw)
    assert [k for k, _ in events][-1] == "result" and events[-1][1]["question"] == question
    # the documented client: requests.iter_lines(decode_unicode=True), one JSON document per data: line
    with server.post("/v1/query", body, stream=True) as r:
        kinds, datas = [], []
        for line in r.iter_lines(decode_unicode=True):
            if line.startswith("event: "):
                kinds.append(line[7:])
            elif line.startswith("data: "):
                datas.append(json.loads(line[6:]))
    assert kinds[-1] == "result" and len(kinds) == len(datas)
    assert all(d["question"] == question for d in datas)


@pytest.mark.parametrize(
    ("field", "value", "words"),
    [
        ("hop_depth", "1", ["hop_depth", "JSON integer", "string"]),
        ("hop_depth", True, ["hop_depth", "JSON integer", "boolean"]),
        ("hop_depth", 1.0, ["hop_depth", "JSON integer", "number"]),
        ("top_n", "5", ["top_n", "JSON integer"]),
        ("seed_n", False, ["seed_n", "JSON integer"]),
        ("stream", "yes", ["stream", "JSON boolean", "string"]),
        ("stream", 1, ["stream", "JSON boolean", "integer"]),
        ("question", 42, ["question", "JSON string"]),
        ("community_id", 7, ["community_id", "JSON string"]),
    ],
)
def test_types_are_strict(server: ServerThread, field: str, value: Any, words: list[str]) -> None:
    r = server.post("/v1/query", {"question": QUESTION, field: value})
    assert_error(r, 422, "invalid_request", *words)


@pytest.mark.parametrize(
    ("data", "words"),
    [
        (b'{"question": "Who owns Bob\xff?"}', ["not valid UTF-8", "0xff", "offset 26"]),
        (b'{"question": "\xc0\xaf etc"}', ["not valid UTF-8", "0xc0"]),  # overlong "/"
        (b'{"question": "\xe0\x80\xaf"}', ["not valid UTF-8", "0xe0"]),  # overlong, 3 bytes
        (b"[" * 5000 + b"]" * 5000, ["nests deeper than 32"]),
        (b'{"question": ' + b"[" * 5000 + b"]" * 5000 + b"}", ["nests deeper than 32"]),
        (b'{"question": "Who owns Bob?", "x": ' + b'{"a":' * 40 + b"1" + b"}" * 41, ["nests deeper"]),
        (b'{"question": "Who owns Bob?",}', ["not valid JSON", "line 1 column"]),
    ],
)
def test_unparseable_bodies_say_what_is_wrong(server: ServerThread, data: bytes, words: list[str]) -> None:
    r = raw_post(server, "/v1/query", data)
    err = assert_error(r, 422, "invalid_request", *words)
    assert "error parsing the body" not in err["message"]


@pytest.mark.parametrize(
    "question", ["\u200b\u200b\u200b", "\x00", "\x00\x00 \u200b", "?!...", " -- ? -- ", "\ufeff"]
)
def test_wordless_questions_are_empty(server: ServerThread, question: str) -> None:
    assert_error(server.post("/v1/query", {"question": question}), 422, "invalid_request", "empty question")


# --- 10: slow clients, half-open connections, huge headers (real sockets) ------------------------------


@pytest.fixture(scope="module")
def strict_server(demo_community: str, settings: Settings) -> Iterator[ServerThread]:
    s = settings.model_copy(
        update={"api_read_timeout_s": 1.0, "api_keepalive_s": 1.0, "api_max_header_bytes": 8192}
    )
    with ServerThread(create_app(s, warm_up=False)) as srv:
        yield srv


def connect(srv: ServerThread) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", srv.port), timeout=10)
    sock.settimeout(10)
    return sock


def read_all(sock: socket.socket) -> bytes:
    """Everything the server sends until it closes the connection (10 s at most)."""
    out = b""
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            chunk = sock.recv(65536)
        except (ConnectionResetError, TimeoutError):
            break
        if not chunk:
            break
        out += chunk
    return out


def test_half_open_connections_are_closed_with_408(strict_server: ServerThread) -> None:
    socks = [connect(strict_server) for _ in range(50)]
    t0 = time.monotonic()
    answers = [read_all(s) for s in socks]
    assert time.monotonic() - t0 < 5
    assert all(a.startswith(b"HTTP/1.1 408 ") for a in answers), answers[0]
    body = json.loads(answers[0].split(b"\r\n\r\n", 1)[1])
    assert (
        body["error"]["code"] == "request_timeout"
        and "PATHRAG_API_READ_TIMEOUT_S" in body["error"]["message"]
    )
    for s in socks:
        s.close()


def test_slow_headers_are_cut_off(strict_server: ServerThread) -> None:
    sock = connect(strict_server)
    request = b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: " + b"a" * 40 + b"\r\n\r\n"
    t0 = time.monotonic()
    sent = 0
    with pytest.raises(OSError):  # the server closes the connection under the trickle
        for i in range(len(request)):
            sock.sendall(request[i : i + 1])
            sent += 1
            time.sleep(0.3)
    assert sent < len(request) and time.monotonic() - t0 < 5
    sock.close()


def test_slow_body_is_cut_off(strict_server: ServerThread) -> None:
    sock = connect(strict_server)
    body = b'{"question": "Who owns Bob the Cat?"}'
    head = (
        f"POST /v1/query HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\n\r\n"
    ).encode()
    sock.sendall(head)
    t0 = time.monotonic()
    with pytest.raises(OSError):
        for i in range(len(body)):
            sock.sendall(body[i : i + 1])
            time.sleep(0.3)
    assert time.monotonic() - t0 < 5
    sock.close()


def test_idle_keep_alive_connection_closes(strict_server: ServerThread) -> None:
    sock = connect(strict_server)
    sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
    t0 = time.monotonic()
    answer = read_all(sock)  # the answer, then the close after the keep-alive second
    assert answer.startswith(b"HTTP/1.1 200 ") and time.monotonic() - t0 < 4
    sock.close()


@pytest.mark.parametrize("size", [9000, 100_000, 8 * 1024 * 1024])
def test_oversized_headers_get_431(strict_server: ServerThread, size: int) -> None:
    sock = connect(strict_server)
    request = b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: " + b"a" * size + b"\r\n\r\n"
    with contextlib.suppress(OSError):  # the server may close before all 8 MB are sent
        sock.sendall(request)
    answer = read_all(sock)
    sock.close()
    if answer:  # 8 MB: the kernel may reset the connection before the client reads the answer
        assert answer.startswith(b"HTTP/1.1 431 "), answer[:200]
        assert b"headers_too_large" in answer and b"8192" in answer
    else:
        assert size > 100_000
    # a normal request still works
    assert requests.get(strict_server.url + "/healthz", timeout=10).status_code == 200


def test_headers_within_the_limit_pass(strict_server: ServerThread) -> None:
    r = requests.get(strict_server.url + "/healthz", headers={"X-Fine": "a" * 4000}, timeout=10)
    assert r.status_code == 200


# --- 11: no token, loopback Host names only ---------------------------------------------------------


@pytest.mark.parametrize(
    ("host", "ok"),
    [
        ("127.0.0.1:{port}", True),
        ("localhost:{port}", True),
        ("[::1]:{port}", True),
        ("localhost", True),
        ("evil.example:{port}", False),
        ("127.0.0.1.nip.io:{port}", False),
        ("10.0.0.5", False),
    ],
)
def test_tokenless_server_answers_only_loopback_hosts(
    strict_server: ServerThread, host: str, ok: bool
) -> None:
    h = host.format(port=strict_server.port)
    r = requests.get(strict_server.url + "/healthz", headers={"Host": h}, timeout=10)
    if ok:
        assert r.status_code == 200, r.text
    else:
        assert_error(r, 400, "bad_host", "loopback", "PATHRAG_API_TOKEN")
        r = requests.post(
            strict_server.url + "/v1/query", json={"question": QUESTION}, headers={"Host": h}, timeout=10
        )
        assert_error(r, 400, "bad_host")


def test_server_with_a_token_accepts_other_host_names(server: ServerThread) -> None:
    r = requests.get(server.url + "/v1/info", headers={**AUTH, "Host": "pathrag.example.com"}, timeout=30)
    assert r.status_code == 200, r.text


# --- 12 and 13: /readyz and a database that is down ---------------------------------------------------


def test_readyz_is_cached(server: ServerThread) -> None:
    graph = app_state(server.app).service.graph
    calls: list[str] = []
    real_read = graph.read

    def counting_read(name: str, *args: Any, **kw: Any) -> Any:  # the real read, counted
        calls.append(name)
        return real_read(name, *args, **kw)

    graph.read = counting_read  # type: ignore[method-assign]
    try:
        time.sleep(1.6)  # past the cached verdict of earlier tests
        t0 = time.monotonic()
        codes = [requests.get(server.url + "/readyz", timeout=10).status_code for _ in range(30)]
        elapsed = time.monotonic() - t0
    finally:
        graph.read = real_read  # type: ignore[method-assign]
    assert set(codes) == {200}
    assert 1 <= len(calls) <= 1 + int(elapsed / 1.5) + 1, (calls, elapsed)


@pytest.fixture()
def down(demo_community: str, settings: Settings) -> Iterator[ServerThread]:
    """A server whose Neo4j is a closed port (nothing listens on 127.0.0.1:1)."""
    s = settings.model_copy(update={"neo4j_uri": "bolt://127.0.0.1:1", "external_db": True})
    with ServerThread(create_app(s, warm_up=False)) as srv:
        yield srv


def test_readyz_503_shows_no_database_address(down: ServerThread) -> None:
    r = requests.get(down.url + "/readyz", timeout=30)
    assert_error(r, 503, "not_ready", "Neo4j", "NEO4J_URI")
    assert "127.0.0.1:1" not in r.text and "bolt://" not in r.text
    assert r.json()["checks"]["database"]["ok"] is False


def test_database_down_answers_503_at_once(down: ServerThread) -> None:
    body = {"question": QUESTION, "hop_depth": 1}
    t0 = time.monotonic()
    first = down.post("/v1/query", body, headers={})
    assert_error(first, 503, "database_unavailable", "cannot reach Neo4j")
    assert time.monotonic() - t0 < 10
    times: list[float] = []
    results: list[requests.Response] = []
    lock = threading.Lock()

    def ask() -> None:
        t = time.monotonic()
        r = down.post("/v1/query", body, headers={})
        with lock:
            times.append(time.monotonic() - t)
            results.append(r)

    threads = [threading.Thread(target=ask) for _ in range(20)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert len(results) == 20
    for r in results:
        assert_error(r, 503, "database_unavailable", "answers 503 at once", "checks Neo4j every")
    assert max(times) < 2.0, times
    assert app_state(down.app).runner.stats.running == 0


# --- 14: the community's tuned model, the same over HTTP, the CLI and the library ------------------------


#: The cascade is opt-in (`PATHRAG_CASCADE_K` > 0): these tests turn it on to check that every surface
#: picks the community's tuned cross-encoder the same way.
CASCADE_K = 30


@pytest.fixture(scope="module")
def cascade_server(demo_community: str, settings: Settings) -> Iterator[ServerThread]:
    s = settings.model_copy(update={"api_token": TOKEN, "api_timeout_s": 300.0, "cascade_k": CASCADE_K})
    with ServerThread(create_app(s)) as srv:
        wait_ready(srv)
        yield srv


@pytest.mark.parametrize("question", [QUESTION, "Who are Bob's friends?"])
def test_cli_library_and_http_give_the_same_paths(
    cascade_server: ServerThread, demo_community: str, settings: Settings, question: str
) -> None:
    tuned = Path(settings.models_dir) / f"tuned-{demo_community}" / "manifest.json"
    assert tuned.is_file(), "the demo's tuned cross-encoder ships in models/"
    proc = run_cli(
        "query", question, "--community", demo_community, "--json",
        env={**os.environ, "PATHRAG_CASCADE_K": str(CASCADE_K)},
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    cli = json.loads(proc.stdout)
    cascade = settings.model_copy(update={"cascade_k": CASCADE_K})
    lib = PathRag(cascade).pathrag(question, community_id=demo_community).model_dump(mode="json")
    server = cascade_server
    r = server.post("/v1/query", {"question": question, "community_id": demo_community})
    assert r.status_code == 200, r.text
    http = r.json()
    assert cli["scorer"] == lib["scorer"] == http["scorer"] and http["scorer"].startswith("cascade:")

    def paths(ps: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
        return [
            (tuple(n["id"] for n in p["nodes"]), tuple(p["path_context"]), round(p["score"], 5)) for p in ps
        ]

    assert paths(cli["paths"]) == paths(lib["paths"]) == paths(http["paths"])
    assert set(cli) == set(http), "`query --json` is the HTTP API's QueryResponse"
    assert cli["answer"] == http["answer"] == (lib["answer"]["text"] if lib["answer"] else None)
    assert cli["answer_detail"] == http["answer_detail"] == lib["answer"]
    best = lib["paths"][0]["answer_candidates"][0]["name"] if lib["paths"] else None
    assert (http["answer_detail"] or {}).get("entity") == best


def test_demo_json_prints_the_result_alone_on_stdout(demo_community: str) -> None:
    """`demo --json | jq`: the server's, the load's and the warm-up's reports go to stderr."""
    proc = run_cli("demo", "--json")
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert result["paths"] and result["paths"][0]["answer_candidates"][0]["name"] == "Whiskerville"
    assert f"community {demo_community}" in proc.stderr and "warmed up the search queries" in proc.stderr
