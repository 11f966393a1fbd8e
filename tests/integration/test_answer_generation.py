"""Generated answers against a REAL local server speaking the OpenAI chat-completions stream protocol.

The answer model is `FakeChatServer` (tests/llm_testutil.py): stdlib `http.server` on a loopback
port, streaming `data: {...}` chunks and `data: [DONE]` over chunked HTTP/1.1, its answer built
from the prompt's `Path 1` line, so each test knows what the model was told. The search runs on the
demo graph in the shared Neo4j (read only); the library, the CLI, the HTTP API's JSON and its SSE
stream are checked, then the fallback to the extractive answer when the model's server answers
500, breaks its stream, hangs, or is down.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Iterator
from typing import Any

import pytest
from api_testutil import TOKEN, ServerThread
from llm_testutil import MODEL, FakeChatServer, expected_answer
from pathrag_testutil import free_port, run_cli

from pathrag_gds.answer import extractive_answer
from pathrag_gds.answer_prompt import path_words
from pathrag_gds.api import create_app
from pathrag_gds.api.sse import parse_events
from pathrag_gds.config import Settings
from pathrag_gds.graph import Graph
from pathrag_gds.results import PathRagResult
from pathrag_gds.service import PathRag

pytestmark = pytest.mark.integration

COMMUNITY = "DefaultCommunity_FictionalStories"
QUESTION = "Who owns Bob the Cat?"
OPTS: dict[str, Any] = {"community_id": COMMUNITY, "max_depth": 2, "top_n": 3, "seed_n": 5}
BODY: dict[str, Any] = {
    "question": QUESTION,
    "community_id": COMMUNITY,
    "hop_depth": 2,
    "top_n": 3,
    "seed_n": 5,
}


@pytest.fixture(scope="module")
def demo(graph: Graph, settings: Settings) -> Settings:
    """The demo graph is loaded (and indexed) in the shared database (as in test_api.py)."""
    rows = graph.read("graph_info", index_name=settings.vector_index)
    ids = {c["id"] for c in rows[0]["communities"]} if rows else set()
    state = graph.read("index_state", index_name=settings.vector_index)
    if COMMUNITY not in ids or not state or state[0]["state"] != "ONLINE":
        proc = run_cli("load", "demo", timeout=None)
        assert proc.returncode == 0, proc.stdout + proc.stderr
    return settings


@pytest.fixture(scope="module")
def llm() -> Iterator[FakeChatServer]:
    with FakeChatServer() as srv:
        yield srv


@pytest.fixture(autouse=True)
def _llm_ok(llm: FakeChatServer) -> Iterator[None]:
    llm.mode = "ok"
    yield
    llm.mode = "ok"


@pytest.fixture(scope="module")
def gen_settings(demo: Settings, llm: FakeChatServer) -> Settings:
    return demo.model_copy(
        update={
            "answer_llm_url": llm.url,
            "answer_llm_model": MODEL,
            "answer_llm_timeout_s": 20.0,
            "api_token": TOKEN,
            "api_timeout_s": 300.0,  # a shared 2-core machine can be slow
        }
    )


@pytest.fixture(scope="module")
def service(gen_settings: Settings) -> PathRag:
    return PathRag(gen_settings)


@pytest.fixture(scope="module")
def plain(service: PathRag) -> PathRagResult:
    """The search's result without the answer model."""
    result = service.pathrag(QUESTION, **OPTS, generate=False)
    assert result.paths and result.answer is not None
    return result


@pytest.fixture(scope="module")
def server(gen_settings: Settings, service: PathRag) -> Iterator[ServerThread]:
    with ServerThread(create_app(gen_settings, service)) as srv:
        deadline = time.monotonic() + 120
        while srv.get("/readyz", headers={}).status_code != 200:
            assert time.monotonic() < deadline, "the API did not get ready"
            time.sleep(0.5)
        yield srv


def _prompt(llm: FakeChatServer) -> str:
    content: str = llm.requests[-1]["body"]["messages"][-1]["content"]
    return content


def _stream(server: ServerThread, body: dict[str, Any]) -> list[tuple[str, Any]]:
    with server.post("/v1/query", {**body, "stream": True}, stream=True) as r:
        assert r.status_code == 200, r.text
        return parse_events(r.content.decode("utf-8"))


# --- the library ----------------------------------------------------------------------------------


def test_the_library_answer_is_written_from_the_top_path_and_its_numbered_passages(
    service: PathRag, llm: FakeChatServer, plain: PathRagResult
) -> None:
    before = len(llm.requests)
    tokens: list[str] = []
    result = service.pathrag(QUESTION, **OPTS, on_answer_token=tokens.append)
    assert len(llm.requests) == before + 1
    sent = llm.requests[-1]
    assert sent["path"] == "/v1/chat/completions"
    assert sent["body"]["stream"] is True and sent["body"]["model"] == MODEL
    prompt = _prompt(llm)
    top = result.paths[0]
    words = " ".join(path_words(top).split())
    assert QUESTION in prompt and f"Path 1: {words}" in prompt, prompt
    answer = result.answer
    assert answer is not None and answer.generated and answer.model == MODEL and answer.reason is None
    assert answer.text == expected_answer(prompt) and words in answer.text
    assert len(tokens) > 3 and "".join(tokens).strip() == answer.text
    cited = list(dict.fromkeys(s.id for p in result.paths for s in p.sources))[:8]
    assert cited and answer.passages == cited
    assert all(f"[{n}] " in prompt for n in range(1, len(cited) + 1))
    assert answer.entity == top.answer_candidates[0].name  # the extractive parts stay
    # the same search without the model: the extractive answer, and no call
    assert [p.key for p in plain.paths] == [p.key for p in result.paths]
    assert plain.answer is not None and not plain.answer.generated and plain.answer.model is None
    assert plain.answer.text == extractive_answer(result.paths, result.clusters).text  # type: ignore[union-attr]
    assert len(llm.requests) == before + 1


@pytest.mark.parametrize(
    ("mode", "reason"),
    [
        ("500", 'answered HTTP 500: {"error": {"message": "model exploded"}}'),
        ("malformed", "malformed chunk from the answer model (not JSON)"),
        ("hang", "the answer model sent nothing for 1 s"),
        ("down", "cannot reach the answer model at http://127.0.0.1:"),
    ],
)
def test_the_library_falls_back_to_the_extractive_answer_and_says_why(
    gen_settings: Settings,
    llm: FakeChatServer,
    plain: PathRagResult,
    caplog: pytest.LogCaptureFixture,
    mode: str,
    reason: str,
) -> None:
    update: dict[str, Any] = {"answer_llm_timeout_s": 1.0}
    if mode == "down":
        update["answer_llm_url"] = f"http://127.0.0.1:{free_port()}/v1"
    else:
        llm.mode, llm.hang_s = mode, 3.0
    tokens: list[str] = []
    with caplog.at_level(logging.WARNING, logger="pathrag_gds.answer_llm"):
        t0 = time.monotonic()
        result = PathRag(gen_settings.model_copy(update=update)).answer(plain, on_token=tokens.append)
        took = time.monotonic() - t0
    answer, extractive = result.answer, plain.answer
    assert answer is not None and extractive is not None
    assert not answer.generated and answer.model == MODEL and reason in (answer.reason or ""), answer.reason
    assert answer.text == extractive.text and answer.entity == extractive.entity and answer.passages == []
    assert tokens == ([] if mode in ("500", "down") else ["Written "])
    assert any("giving the extractive answer" in r.getMessage() for r in caplog.records)
    assert took < 2.5, "the timeout bounds the wait"


# --- the CLI --------------------------------------------------------------------------------------


def test_the_cli_prints_the_written_answer_after_the_paths(llm: FakeChatServer) -> None:
    env = {**os.environ, "PATHRAG_ANSWER_LLM_URL": llm.url, "PATHRAG_ANSWER_LLM_MODEL": MODEL}
    args = ("query", QUESTION, "--community", COMMUNITY, "--max-depth", "2", "--top-n", "3", "--seed-n", "5")
    before = len(llm.requests)
    proc = run_cli(*args, env=env, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    out = " ".join(proc.stdout.split())
    written = expected_answer(_prompt(llm))
    assert len(llm.requests) == before + 1
    assert f"answer (written by {MODEL}): {written}" in out, out
    assert out.index("written by") > out.index("why (score parts)"), "the answer comes after the paths"
    assert "passages: [1] " in out
    llm.mode = "500"
    failed = run_cli(*args, env=env, timeout=300)
    assert failed.returncode == 0, failed.stdout + failed.stderr
    out = " ".join(failed.stdout.split())
    assert "no generated answer:" in out and "answered HTTP 500" in out and "answer: " in out, out
    quiet = run_cli(*args, "--no-generate", env=env, timeout=300)
    assert quiet.returncode == 0 and "written by" not in quiet.stdout and "answer:" in quiet.stdout
    assert len(llm.requests) == before + 2


# --- the HTTP API ---------------------------------------------------------------------------------


def test_the_json_answer_is_the_written_one_and_says_which_model_wrote_it(
    server: ServerThread, llm: FakeChatServer
) -> None:
    r = server.post("/v1/query", BODY)
    assert r.status_code == 200, r.text
    body = r.json()
    detail = body["answer_detail"]
    assert detail["generated"] is True and detail["model"] == MODEL and detail["reason"] is None
    assert body["answer"] == detail["text"] == expected_answer(_prompt(llm))
    assert " ".join(path_words_of(body["paths"][0]).split()) in body["answer"]
    assert detail["passages"] and detail["entity"] == body["paths"][0]["answer_candidates"][0]["name"]
    before = len(llm.requests)
    off = server.post("/v1/query", {**BODY, "generate": False}).json()
    assert off["answer_detail"]["generated"] is False and off["answer_detail"]["model"] is None
    assert off["answer"] != body["answer"] and off["answer"].startswith(detail["entity"])
    assert len(llm.requests) == before, "generate: false makes no call"


def path_words_of(path: dict[str, Any]) -> str:
    return " ".join(part.strip() for part in path["text"].split("|||") if part.strip())


def test_the_stream_sends_the_paths_then_the_tokens_in_order_then_the_answer(
    server: ServerThread, llm: FakeChatServer
) -> None:
    events = _stream(server, BODY)
    kinds = [k for k, _ in events]
    depths, n = kinds.count("depth"), kinds.count("answer_token")
    assert depths >= 2 and n > 3
    assert kinds == ["depth"] * depths + ["paths"] + ["answer_token"] * n + ["answer", "result"], kinds
    tokens = [d for k, d in events if k == "answer_token"]
    assert [t["index"] for t in tokens] == list(range(n))
    written = expected_answer(_prompt(llm))
    assert "".join(t["token"] for t in tokens).strip() == written
    paths, answer, result = events[depths][1], events[-2][1], events[-1][1]
    assert answer["answer"] == written == result["answer"]
    assert answer["answer_detail"]["generated"] is True and answer["answer_detail"]["model"] == MODEL
    assert answer["answer_detail"] == result["answer_detail"]
    assert [p["path_context"] for p in paths["paths"]] == [p["path_context"] for p in result["paths"]]
    assert all(t["request_id"] == answer["request_id"] == result["request_id"] for t in tokens)


def test_the_stream_without_generation_is_as_before(server: ServerThread, llm: FakeChatServer) -> None:
    before = len(llm.requests)
    kinds = [k for k, _ in _stream(server, {**BODY, "generate": False})]
    assert kinds[-1] == "result" and set(kinds) == {"depth", "result"}
    assert len(llm.requests) == before


def test_the_api_falls_back_when_the_model_fails_or_is_down(
    server: ServerThread, llm: FakeChatServer
) -> None:
    extractive = server.post("/v1/query", {**BODY, "generate": False}).json()["answer"]
    llm.mode = "500"
    body = server.post("/v1/query", BODY).json()
    assert body["answer"] == extractive and body["answer_detail"]["generated"] is False
    assert "answered HTTP 500" in body["answer_detail"]["reason"] and body["answer_detail"]["model"] == MODEL
    events = _stream(server, BODY)
    kinds = [k for k, _ in events]
    assert "answer_token" not in kinds and kinds[-3:] == ["paths", "answer", "result"], kinds
    assert events[-2][1]["answer"] == extractive == events[-1][1]["answer"]
    assert "answered HTTP 500" in events[-2][1]["answer_detail"]["reason"]
    llm.mode = "malformed"  # a piece was streamed, then the stream broke: the answer event replaces it
    events = _stream(server, BODY)
    kinds = [k for k, _ in events]
    assert kinds[-4:] == ["paths", "answer_token", "answer", "result"], kinds
    assert events[-2][1]["answer"] == extractive and "not JSON" in events[-2][1]["answer_detail"]["reason"]
    llm.mode = "ok"
    llm.stop()
    try:
        body = server.post("/v1/query", BODY).json()
        assert body["answer"] == extractive and body["answer_detail"]["generated"] is False
        assert body["answer_detail"]["reason"].startswith("cannot reach the answer model")
        kinds = [k for k, _ in _stream(server, BODY)]
        assert kinds[-3:] == ["paths", "answer", "result"] and "error" not in kinds
    finally:
        llm.start()
    assert server.post("/v1/query", BODY).json()["answer_detail"]["generated"] is True


def test_the_model_writes_out_of_the_search_slot(
    gen_settings: Settings, service: PathRag, llm: FakeChatServer
) -> None:
    """With one search slot, a question asked while the model still writes another's answer is not held up."""
    import threading

    settings = gen_settings.model_copy(update={"api_max_concurrency": 1})
    llm.mode, llm.hang_s = "hang", 6.0  # one token, then silence, then the stream ends without [DONE]
    with ServerThread(create_app(settings, service, warm_up=False)) as srv:
        slow: dict[str, Any] = {}

        def ask() -> None:
            slow["events"] = _stream(srv, BODY)

        before = len(llm.requests)
        writer = threading.Thread(target=ask)
        writer.start()
        deadline = time.monotonic() + 60
        while len(llm.requests) == before:  # the model is asked: the first search is over
            assert time.monotonic() < deadline, "the model was never asked"
            time.sleep(0.05)
        t0 = time.monotonic()
        quick = srv.post("/v1/query", {**BODY, "generate": False})
        took = time.monotonic() - t0
        writer.join(60)
    assert quick.status_code == 200 and quick.json()["paths"], quick.text
    assert took < 5.0, f"the second search waited {took:.1f} s for the slot the model's wait held"
    kinds = [k for k, _ in slow["events"]]
    assert kinds[-4:] == ["paths", "answer_token", "answer", "result"], kinds
    assert "ended before `data: [DONE]`" in slow["events"][-2][1]["answer_detail"]["reason"]
