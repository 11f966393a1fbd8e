"""The HTTP API against the real Neo4j with the demo graph: a real uvicorn server on a loopback port.

Each server runs in a thread of the test process (so a test can see the search threads end). The
answers while Neo4j stops and starts again are tested on a private server
(tests/integration/test_local_server.py); the shared server is never stopped.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator, Sequence
from typing import Any

import pytest
import requests
from api_testutil import AUTH, TOKEN, ServerThread, assert_error, slow_service

from pathrag_gds.api import create_app
from pathrag_gds.api.app import app_state
from pathrag_gds.api.runner import THREAD_PREFIX
from pathrag_gds.api.sse import parse_events
from pathrag_gds.config import Settings

pytestmark = pytest.mark.integration

COMMUNITY = "DefaultCommunity_FictionalStories"
QUESTION = "Who owns Bob the Cat?"


def search_threads(request_id: str | None = None) -> list[threading.Thread]:
    prefix = THREAD_PREFIX + (request_id or "")
    return [t for t in threading.enumerate() if t.name.startswith(prefix)]


@pytest.fixture(scope="module")
def demo(demo_community: str, settings: Settings) -> Settings:
    """The demo graph is loaded (and indexed) in the shared database (conftest: read, never reloaded)."""
    assert demo_community == COMMUNITY
    return settings


@pytest.fixture(scope="module")
def server(demo: Settings) -> Iterator[ServerThread]:
    # a shared 2-core machine can be slow: a generous time limit (the limit itself is tested below)
    settings = demo.model_copy(update={"api_token": TOKEN, "api_timeout_s": 300.0})
    with ServerThread(create_app(settings)) as srv:
        deadline = time.monotonic() + 120
        while True:  # models load in the background
            r = srv.get("/readyz", headers={})
            if r.status_code == 200:
                break
            assert time.monotonic() < deadline, r.text
            time.sleep(0.5)
        yield srv


# --- queries ------------------------------------------------------------------------------------------


def test_query_returns_paths_with_context(server: ServerThread) -> None:
    r = server.post(
        "/v1/query",
        {"question": QUESTION, "community_id": COMMUNITY, "hop_depth": 2, "top_n": 5, "seed_n": 5},
    )
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["question"] == QUESTION and r.headers["X-Request-ID"] == body["request_id"]
    assert (body["mode"], body["hop_depth"], body["top_n"], body["community_id"]) == (
        "local",
        2,
        5,
        COMMUNITY,
    )
    assert 1 <= len(body["paths"]) <= 5
    assert any(p["path_length"] >= 1 for p in body["paths"])
    for p in body["paths"]:
        assert 0 <= p["path_length"] <= 2
        assert len(p["path_context"]) == p["path_length"] == len(p["edges"]) == len(p["nodes"]) - 1
        for hop, ctx in enumerate(p["path_context"]):
            assert ctx.count(" -> ") == 2 or ctx.count(" <- ") == 2
            assert ctx.startswith(p["nodes"][hop]["name"]) and ctx.endswith(p["nodes"][hop + 1]["name"])
        assert "model" in p["score_parts"] and isinstance(p["score"], float)
        assert abs(sum(t["contribution"] for t in p["score_breakdown"]) - p["score"]) < 1e-5
    assert body["intent"]["kind"] and "expected_types" in body["intent"]
    scores = [p["score"] for p in body["paths"]]
    assert scores == sorted(scores, reverse=True)
    assert body["answer"] is not None and body["answers"]
    groups = body["detailed_results"]
    assert groups and all(set(g) == {"name", "id", "labels", "neighbors"} for g in groups)
    neighbours = [n for g in groups for n in g["neighbors"]]
    assert neighbours and all(
        set(n) >= {"target", "target_id", "target_labels", "path_length", "path_context"} for n in neighbours
    )
    assert all(len(n["path_context"]) == n["path_length"] for n in neighbours)
    assert {"embed", "seed", "score", "total"} <= set(body["timings_ms"])
    assert body["round_trips"] >= 2 and body["seeds"]
    sources = [s for p in body["paths"] for s in p["sources"]]
    assert sources and all(s["source"] == s["document_key"] == "bob_story" for s in sources), (
        "a source names its document by key, never by the server's file path"
    )


def test_naive_mode_does_not_expand(server: ServerThread) -> None:
    r = server.post(
        "/v1/query", {"question": QUESTION, "mode": "naive", "community_id": COMMUNITY, "seed_n": 5}
    )
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["mode"] == "naive" and body["hop_depth"] == 0
    assert body["paths"] and all(p["path_length"] == 0 for p in body["paths"])
    assert all(g["neighbors"] == [] for g in body["detailed_results"])
    assert "expand" not in body["timings_ms"]


def test_streamed_query_event_by_event(server: ServerThread) -> None:
    body = {"question": QUESTION, "community_id": COMMUNITY, "hop_depth": 2, "seed_n": 5, "stream": True}
    with server.post("/v1/query", body, stream=True) as r:
        assert r.status_code == 200, r.text
        assert r.headers["content-type"].startswith("text/event-stream")
        events = parse_events(r.content.decode("utf-8"))
    kinds = [k for k, _ in events]
    assert kinds[-1] == "result" and "error" not in kinds
    depths = [d for k, d in events if k == "depth"]
    assert [d["depth"] for d in depths] == list(range(len(depths))) and depths[0]["depth"] == 0
    assert 2 <= len(depths) <= 3
    assert all(d["question"] == QUESTION for d in depths)
    assert all(p["path_length"] == d["depth"] for d in depths for p in d["paths"])
    final = events[-1][1]
    assert final["question"] == QUESTION and final["paths"]
    plain = server.post("/v1/query", {k: v for k, v in body.items() if k != "stream"}).json()
    assert [p["path_context"] for p in final["paths"]] == [p["path_context"] for p in plain["paths"]]


@pytest.mark.parametrize("mode", ["global", "hybrid", "mix"])
def test_other_modes(server: ServerThread, demo_clusters: dict[str, Any], mode: str) -> None:
    body = {
        "question": QUESTION,
        "mode": mode,
        "community_id": COMMUNITY,
        "hop_depth": 1,  # multi-hop: test_modes.py (library, CLI) and the streamed mix below
        "top_n": 3,
        "seed_n": 5,
    }
    r = server.post("/v1/query", body)
    assert r.status_code == 200, r.text
    out = r.json()
    assert out["mode"] == mode and out["hop_depth"] == (0 if mode == "global" else 1)
    assert out["answer"] and out["answer_detail"]["text"] == out["answer"]
    if mode == "global":
        assert out["paths"] == [] and 1 <= len(out["clusters"]) <= 3
        assert out["answer"].startswith(out["clusters"][0]["title"])
        assert all(c["top_entities"] and 0 <= c["rating"] <= 10 for c in out["clusters"])
    else:
        assert (
            out["paths"] and out["answer_detail"]["entity"] == out["paths"][0]["answer_candidates"][0]["name"]
        )
    if mode == "hybrid":
        cluster_ids = {c["id"] for c in out["clusters"]}
        assert all({"local", "global", "combined"} <= set(p["score_parts"]) for p in out["paths"])
        assert all(set(p["related"]) <= cluster_ids for p in out["paths"])
    if mode == "mix":
        assert all(p["reason"] for p in out["paths"])
        parts = [p["score_parts"] for p in out["paths"]]
        assert all(abs(s["combined"] - (0.7 * s["vector"] + 0.3 * s["graph"])) < 1e-5 for s in parts)


def test_streamed_mix_sends_the_answer_in_the_final_event(
    server: ServerThread, demo_clusters: dict[str, Any]
) -> None:
    body = {
        "question": QUESTION,
        "mode": "mix",
        "community_id": COMMUNITY,
        "hop_depth": 2,
        "seed_n": 5,
        "stream": True,
    }
    with server.post("/v1/query", body, stream=True) as r:
        assert r.status_code == 200, r.text
        events = parse_events(r.content.decode("utf-8"))
    assert [k for k, _ in events] == ["depth", "depth", "result"]
    final = events[-1][1]
    assert final["mode"] == "mix" and final["answer"] and final["answer_detail"]["entity"]
    assert [p["score"] for p in final["paths"]] == sorted((p["score"] for p in final["paths"]), reverse=True)


# --- sessions -----------------------------------------------------------------------------------------


def test_session_create_query_delete(server: ServerThread) -> None:
    r = server.post("/v1/sessions", {"mode": "local", "hop_depth": 1, "seed_n": 5, "community_id": COMMUNITY})
    assert r.status_code == 201, r.text
    s = r.json()
    sid = s["session_id"]
    assert (s["database_name"], s["hop_depth"], s["community_id"]) == ("neo4j", 1, COMMUNITY)
    r = server.post(f"/v1/sessions/{sid}/query", {"question": QUESTION})
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["session_id"] == sid and body["hop_depth"] == 1 and body["community_id"] == COMMUNITY
    assert body["paths"] and all(p["path_length"] <= 1 for p in body["paths"])
    r = server.post(f"/v1/sessions/{sid}/query", {"question": QUESTION, "hop_depth": 2})
    assert r.status_code == 200 and r.json()["hop_depth"] == 2
    assert requests.delete(f"{server.url}/v1/sessions/{sid}", headers=AUTH, timeout=10).status_code == 204
    assert_error(server.post(f"/v1/sessions/{sid}/query", {"question": QUESTION}), 404, "session_not_found")
    r = requests.delete(f"{server.url}/v1/sessions/{sid}", headers=AUTH, timeout=10)
    assert_error(r, 404, "session_not_found", "POST /v1/sessions")


def test_session_expires(demo: Settings) -> None:
    settings = demo.model_copy(update={"api_session_ttl_s": 0.5})
    with ServerThread(create_app(settings, warm_up=False)) as srv:
        sid = srv.post("/v1/sessions", {"hop_depth": 1}, headers={}).json()["session_id"]
        assert srv.get(f"/v1/sessions/{sid}", headers={}).status_code == 200
        time.sleep(0.8)
        r = srv.post(f"/v1/sessions/{sid}/query", {"question": QUESTION}, headers={})
        assert_error(r, 404, "session_not_found", "expired", "POST /v1/sessions")


# --- client errors ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "body", "status", "code", "words"),
    [
        (
            "/v1/query",
            {"question": QUESTION, "mode": "bogus"},
            422,
            "invalid_request",
            ["local", "global", "hybrid", "mix", "naive"],
        ),
        (
            "/v1/query",
            {"question": QUESTION, "mode": "mix", "vector_weight": 1.5},
            422,
            "invalid_request",
            ["vector_weight", "less than or equal to 1"],
        ),
        (
            "/v1/query",
            {"question": QUESTION, "hop_depth": 0},
            422,
            "invalid_request",
            ["hop_depth", "1 and 6"],
        ),
        (
            "/v1/query",
            {"question": QUESTION, "hop_depth": 7},
            422,
            "invalid_request",
            ["hop_depth", "1 and 6"],
        ),
        ("/v1/query", {"question": QUESTION, "top_n": 0}, 422, "invalid_request", ["top_n"]),
        ("/v1/query", {"question": QUESTION, "top_n": 51}, 422, "invalid_request", ["top_n", "50"]),
        ("/v1/query", {"question": QUESTION, "seed_n": 101}, 422, "invalid_request", ["seed_n", "100"]),
        ("/v1/query", {"question": "   "}, 422, "invalid_request", ["question", "empty"]),
        ("/v1/query", {"question": "x" * 1001}, 422, "invalid_request", ["1000"]),
        ("/v1/query", {"mode": "local"}, 422, "invalid_request", ["question"]),
        ("/v1/query", {"question": QUESTION, "hop": 2}, 422, "invalid_request", ["hop", "unknown field"]),
        ("/v1/query", {"question": QUESTION, "uri": "bolt://10.0.0.1:7687"}, 422, "invalid_request", ["uri"]),
        (
            "/v1/query",
            {"question": QUESTION, "community_id": "Nope"},
            404,
            "community_not_found",
            ["no community 'Nope'", "/v1/info"],
        ),
        (
            "/v1/sessions",
            {"connection_details": {"uri": "bolt://169.254.169.254:7687", "user": "neo4j", "password": "x"}},
            422,
            "invalid_request",
            ["connection_details", "configuration"],
        ),
        ("/v1/sessions", {"database_name": "other"}, 422, "invalid_request", ["database_name", "neo4j"]),
        ("/v1/sessions", {"community_id": "Nope"}, 404, "community_not_found", ["no community 'Nope'"]),
        ("/v1/sessions/nope/query", {"question": QUESTION}, 404, "session_not_found", ["POST /v1/sessions"]),
        ("/v1/nothing", {}, 404, "not_found", ["/docs"]),
    ],
)
def test_client_errors(
    server: ServerThread, path: str, body: Any, status: int, code: str, words: Sequence[str]
) -> None:
    assert_error(server.post(path, body), status, code, *words)


def test_body_size_and_json_errors(server: ServerThread) -> None:
    big = json.dumps({"question": "a" * 20000})
    r = requests.post(
        server.url + "/v1/query", data=big, headers={**AUTH, "Content-Type": "application/json"}, timeout=10
    )
    assert_error(r, 413, "payload_too_large", "16384")

    def chunks() -> Iterator[bytes]:  # no Content-Length: the limit still holds
        yield b'{"question": "'
        for _ in range(20):
            yield b"a" * 1000
        yield b'"}'

    r = requests.post(
        server.url + "/v1/query",
        data=chunks(),
        headers={**AUTH, "Content-Type": "application/json"},
        timeout=10,
    )
    assert_error(r, 413, "payload_too_large")
    r = requests.post(
        server.url + "/v1/query",
        data="{nope",
        headers={**AUTH, "Content-Type": "application/json"},
        timeout=10,
    )
    assert_error(r, 422, "invalid_request", "JSON")
    r = requests.get(server.url + "/v1/query", headers=AUTH, timeout=10)
    assert_error(r, 405, "method_not_allowed")


def test_auth(server: ServerThread) -> None:
    r = server.post("/v1/query", {"question": QUESTION}, headers={})
    assert_error(r, 401, "unauthorized", "Bearer")
    assert r.headers["WWW-Authenticate"] == "Bearer"
    assert_error(
        server.post("/v1/query", {"question": QUESTION}, headers={"Authorization": f"Basic {TOKEN}"}),
        401,
        "unauthorized",
    )
    assert_error(
        server.post("/v1/query", {"question": QUESTION}, headers={"Authorization": "Bearer wrong"}),
        403,
        "forbidden",
    )
    assert_error(
        server.post("/v1/sessions", {}, headers={"Authorization": f"Bearer {TOKEN}x"}), 403, "forbidden"
    )
    assert_error(server.get("/v1/info", headers={}), 401, "unauthorized")
    assert server.get("/healthz", headers={}).json() == {"status": "ok"}
    assert server.get("/docs", headers={}).status_code == 200


def test_health_and_info(server: ServerThread) -> None:
    r = server.get("/readyz", headers={})
    assert r.status_code == 200 and r.json()["status"] == "ready", r.text
    assert all(c["ok"] for c in r.json()["checks"].values())
    info = server.get("/v1/info").json()
    assert info["versions"]["pathrag_gds"] and info["versions"]["neo4j_server"].startswith("Neo4j/")
    assert info["graph"]["entities"] >= 45 and info["graph"]["relationships"] >= 98
    assert COMMUNITY in {c["id"] for c in info["graph"]["communities"]}
    assert info["model"]["embedding_model"] and info["database"]["index_state"] == "ONLINE"
    assert info["limits"]["max_hop_depth"] == 6
    spec = server.get("/openapi.json", headers={}).json()
    assert {"/v1/query", "/v1/sessions", "/v1/sessions/{session_id}/query", "/readyz"} <= set(spec["paths"])


# --- time limit, disconnect, saturation ---------------------------------------------------------------


def test_time_limit_answers_504(demo: Settings) -> None:
    settings = demo.model_copy(update={"api_timeout_s": 0.3})
    service = slow_service(settings, 0.2)
    with ServerThread(create_app(settings, service)) as srv:
        t0 = time.monotonic()
        r = srv.post(
            "/v1/query", {"question": QUESTION, "community_id": COMMUNITY, "hop_depth": 6}, headers={}
        )
        assert_error(r, 504, "timeout", "time limit", "0.3")
        assert time.monotonic() - t0 < 5
        deadline = time.monotonic() + 5
        while search_threads() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not search_threads()


def test_client_disconnect_stops_streamed_search(demo: Settings) -> None:
    settings = demo.model_copy(update={"api_timeout_s": 300.0})
    service = slow_service(settings, 0.5)
    app = create_app(settings, service)
    runner = app_state(app).runner
    with ServerThread(app) as srv:
        body = {"question": QUESTION, "community_id": COMMUNITY, "hop_depth": 6, "seed_n": 30, "stream": True}
        r = srv.post("/v1/query", body, headers={}, stream=True)
        assert r.status_code == 200
        request_id = r.headers["X-Request-ID"]
        lines = r.iter_lines(decode_unicode=True)
        seen_depth = False
        for line in lines:  # read until the first depth event: the search is under way
            if line.startswith("event: depth"):
                seen_depth = True
                break
        assert seen_depth
        assert search_threads(request_id), "the search should still run (6 depths at 0.5 s each)"
        r.close()  # the client goes away
        t_close = time.monotonic()
        while search_threads(request_id) and time.monotonic() - t_close < 5:
            time.sleep(0.05)
        assert not search_threads(request_id), "the search thread outlived its client"
        assert time.monotonic() - t_close < 3.0
        assert runner.stats.cancelled == 1 and runner.stats.completed == 0
        assert runner.stats.running == 0 and runner.stats.queued == 0


def test_saturation_queues_then_refuses_with_429(demo: Settings) -> None:
    settings = demo.model_copy(update={"api_max_concurrency": 1, "api_max_queue": 1, "api_timeout_s": 300.0})
    service = slow_service(settings, 0.3)
    with ServerThread(create_app(settings, service)) as srv:
        body = {"question": QUESTION, "community_id": COMMUNITY, "hop_depth": 1, "seed_n": 5}
        results: list[Any] = []

        def ask() -> None:
            results.append(srv.post("/v1/query", body, headers={}))

        threads = [threading.Thread(target=ask) for _ in range(4)]
        for t in threads:
            t.start()
            time.sleep(0.05)
        for t in threads:
            t.join(60)
        codes = sorted(r.status_code for r in results)
        assert codes.count(200) >= 2 and set(codes) <= {200, 429}, codes
        busy = [r for r in results if r.status_code == 429]
        assert busy, codes
        assert_error(busy[0], 429, "busy", "retry")
        assert busy[0].headers["Retry-After"]


# --- database down and recovery -----------------------------------------------------------------------


def test_unreachable_database_answers_503(demo: Settings) -> None:
    settings = demo.model_copy(update={"neo4j_uri": "bolt://127.0.0.1:1", "external_db": True})
    with ServerThread(create_app(settings, warm_up=False)) as srv:
        t0 = time.monotonic()
        r = srv.post("/v1/query", {"question": QUESTION}, headers={})
        assert_error(r, 503, "database_unavailable", "cannot reach Neo4j", "127.0.0.1:1", "NEO4J_URI")
        assert time.monotonic() - t0 < 10
        r = srv.get("/readyz", headers={})
        assert r.status_code == 503 and r.json()["checks"]["database"]["ok"] is False
        assert srv.get("/healthz", headers={}).status_code == 200
