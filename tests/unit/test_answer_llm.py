"""Answer generation without a network: the prompt, the chunk parser, the fallback, settings, API models."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from typing import Any

import pytest
from pydantic import ValidationError

from pathrag_gds import answer_llm
from pathrag_gds.answer_llm import (
    NOT_CONFIGURED,
    AnswerModelError,
    chunk_tokens,
    generate_answer,
    wants_generation,
)
from pathrag_gds.answer_prompt import SYSTEM, build_prompt, path_words
from pathrag_gds.api.requests import QueryRequest, resolve
from pathrag_gds.config import Settings
from pathrag_gds.errors import ConfigError
from pathrag_gds.results import (
    AnswerCandidate,
    ClusterResult,
    NodeOut,
    PathRagResult,
    PathResult,
    SourceChunk,
)

LLM = {"answer_llm_url": "http://127.0.0.1:9/v1", "answer_llm_model": "m1"}


def _path(rank: int, text: str, answer: str, sources: list[SourceChunk]) -> PathResult:
    return PathResult(
        rank=rank,
        score=1.0 / rank,
        depth=1,
        key=f"k{rank}",
        text=text,
        path_context=[f"Bob <- owns <- {answer}"],
        edges=[],
        nodes=[NodeOut(id="b", name="Bob", labels=[]), NodeOut(id=answer.lower(), name=answer, labels=[])],
        answer_candidates=[AnswerCandidate(id=answer.lower(), name=answer, labels=["Person"])],
        sources=sources,
    )


def _chunk(cid: str, text: str, **kw: Any) -> SourceChunk:
    return SourceChunk(id=cid, text=text, entity_id="b", **kw)


PATHS = [
    _path(
        1,
        "Bob is owned by Jane. ||| Jane is a girl.",
        "Jane",
        [_chunk("c1", "Jane named him Bob."), _chunk("c2", "Bob sleeps a lot.")],
    ),
    _path(
        2,
        "Bob is owned by Tom.",
        "Tom",
        [
            _chunk("c2", "Bob sleeps a lot."),
            _chunk(
                "c3",
                "Tom feeds him.",
                document_key="diary",
                document_title="Diary",
                headings=["Diary", "May"],
            ),
        ],
    ),
]


def _result(paths: list[PathResult] = PATHS, clusters: list[ClusterResult] | None = None) -> PathRagResult:
    return PathRagResult(
        query="Who owns  Bob?",
        mode="local",
        scorer="bi",
        paths=paths,
        seeds=[],
        timings_ms={},
        round_trips=2,
        clusters=clusters or [],
    )


def _settings(**kw: Any) -> Settings:
    return Settings.from_env({}, **kw)


# --- the prompt ---------------------------------------------------------------------------------


def test_the_prompt_holds_the_question_the_paths_best_first_and_numbered_passages_once_each() -> None:
    prompt = build_prompt("Who owns  Bob?", PATHS, [])
    system, user = prompt.messages
    assert system == {"role": "system", "content": SYSTEM} and "[1]" in SYSTEM
    assert user["role"] == "user"
    assert user["content"].splitlines() == [
        "Question: Who owns Bob?",
        "",
        "Paths through the knowledge graph, best first:",
        "Path 1: Bob is owned by Jane. Jane is a girl. (may answer: Jane)",
        "Path 2: Bob is owned by Tom. (may answer: Tom)",
        "",
        "Source passages:",
        "[1] Jane named him Bob.",
        "[2] Bob sleeps a lot.",
        "[3] (Diary > May) Tom feeds him.",
    ]
    assert prompt.passages == ["c1", "c2", "c3"]  # c2 of path 2 is not repeated


def test_the_prompt_keeps_to_its_limits_and_cuts_long_passages_at_a_word() -> None:
    long = _chunk("c9", "word " * 600)
    paths = [PATHS[0].model_copy(update={"sources": [long, *PATHS[0].sources]}), PATHS[1]]
    prompt = build_prompt("q", paths, [], max_paths=1, max_passages=2)
    user = prompt.messages[1]["content"]
    assert "Path 2" not in user and "Tom" not in user
    assert prompt.passages == ["c9", "c1"] and "[3]" not in user
    first = next(line for line in user.splitlines() if line.startswith("[1] "))
    assert first.endswith("word…") and len(first) < 1300


def test_without_paths_the_clusters_stand_in_and_without_passages_there_is_no_passage_block() -> None:
    cluster = ClusterResult(
        id="x", level=0, title="Farm life", summary="Cats and cows.", rating=5, size=3, score=1
    )
    prompt = build_prompt("q", [], [cluster])
    user = prompt.messages[1]["content"]
    assert "Group 1: Farm life: Cats and cows." in user and "Source passages" not in user
    assert prompt.passages == []


def test_path_words_join_the_text_parts_or_fall_back_to_the_hops() -> None:
    assert path_words(PATHS[0]) == "Bob is owned by Jane. Jane is a girl."
    assert path_words(PATHS[0].model_copy(update={"text": ""})) == "Bob <- owns <- Jane"


# --- the chunk parser ---------------------------------------------------------------------------


def _data(obj: Any) -> str:
    return "data: " + json.dumps(obj) + "\n"


def test_an_ollama_like_stream_yields_its_content_in_order() -> None:
    lines = [
        ": keep-alive\n",
        "event: message\n",
        _data({"choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}}]}),
        "\n",
        _data({"choices": [{"delta": {"content": "Jane"}, "finish_reason": None}]}),
        "\r\n",
        _data({"choices": [{"delta": {"content": " owns him"}}]}).replace("\n", "\r\n"),
        _data({"choices": [{"delta": {"content": None}, "finish_reason": "stop"}]}),
        _data({"choices": [], "usage": {"completion_tokens": 3}}),
        "data: [DONE]\n",
        _data({"choices": [{"delta": {"content": "after done"}}]}),
    ]
    assert list(chunk_tokens(lines)) == ["Jane", " owns him"]


@pytest.mark.parametrize(
    ("line", "words"),
    [
        ("data: {not json\n", "not JSON"),
        ("data: [1, 2]\n", "not an object"),
        (_data({"id": "x"}), "no `choices` list"),
        (_data({"choices": [{"message": {"content": "x"}}]}), "no `choices[0].delta` object"),
        (_data({"choices": [{"delta": {"content": 7}}]}), "not a string"),
        (_data({"error": {"message": "model not found"}}), "reported an error: model not found"),
    ],
)
def test_a_bad_chunk_stops_the_stream_with_its_reason(line: str, words: str) -> None:
    tokens: list[str] = []
    with pytest.raises(AnswerModelError, match=words.replace("[", r"\[").replace("]", r"\]")):
        for t in chunk_tokens([_data({"choices": [{"delta": {"content": "ok"}}]}), line, "data: [DONE]\n"]):
            tokens.append(t)
    assert tokens == ["ok"]


def test_a_stream_that_ends_before_done_is_an_error() -> None:
    with pytest.raises(AnswerModelError, match=r"ended before `data: \[DONE\]`"):
        list(chunk_tokens([_data({"choices": [{"delta": {"content": "half"}}]})]))


# --- the request --------------------------------------------------------------------------------


def test_the_request_streams_with_the_settings_model_limits_and_key() -> None:
    s = _settings(**LLM, answer_llm_api_key="sk-1", answer_llm_max_tokens=99, answer_llm_temperature=0.5)
    req = answer_llm._request(s, [{"role": "user", "content": "hé"}])
    assert req.full_url == "http://127.0.0.1:9/v1/chat/completions" and req.get_method() == "POST"
    assert req.get_header("Authorization") == "Bearer sk-1"
    assert req.get_header("Accept") == "text/event-stream"
    assert isinstance(req.data, bytes)
    body = json.loads(req.data)
    assert body == {
        "model": "m1",
        "messages": [{"role": "user", "content": "hé"}],
        "stream": True,
        "max_tokens": 99,
        "temperature": 0.5,
    }
    assert answer_llm._request(_settings(**LLM), []).get_header("Authorization") is None


# --- generation and its fallback ----------------------------------------------------------------


def _fake_stream(pieces: list[str], fail: Exception | None = None) -> Any:
    calls: list[list[dict[str, str]]] = []

    def stream(settings: Settings, messages: list[dict[str, str]], *, cancel: Any = None) -> Iterator[str]:
        calls.append(messages)
        yield from pieces
        if fail is not None:
            raise fail

    stream.calls = calls  # type: ignore[attr-defined]
    return stream


def test_a_written_answer_keeps_the_extractive_parts_and_says_who_wrote_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    stream = _fake_stream(["  Jane", " owns Bob [1]. "])
    monkeypatch.setattr(answer_llm, "stream_chat", stream)
    seen: list[str] = []
    answer = generate_answer(_settings(**LLM), _result(), on_token=seen.append)
    assert answer is not None and answer.generated and answer.model == "m1" and answer.reason is None
    assert answer.text == "Jane owns Bob [1]." and seen == ["  Jane", " owns Bob [1]. "]
    assert answer.passages == ["c1", "c2", "c3"] and answer.entity == "Jane"
    assert "Path 1: Bob is owned by Jane." in stream.calls[0][1]["content"]


@pytest.mark.parametrize(
    ("pieces", "fail", "reason"),
    [
        (["Ja"], AnswerModelError("the answer model's stream broke off"), "broke off"),
        ([], RuntimeError("boom"), "unexpected error while reading the answer model: RuntimeError('boom')"),
        ([" ", "\n"], None, "the answer model returned no text"),
    ],
)
def test_any_failure_gives_the_extractive_answer_with_the_reason_and_a_warning(
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    pieces: list[str],
    fail: Exception | None,
    reason: str,
) -> None:
    monkeypatch.setattr(answer_llm, "stream_chat", _fake_stream(pieces, fail))
    extractive = _result().answer
    with caplog.at_level(logging.WARNING, logger="pathrag_gds.answer_llm"):
        answer = generate_answer(_settings(**LLM), _result())
    assert answer is not None and extractive is not None
    assert not answer.generated and answer.model == "m1" and reason in (answer.reason or "")
    assert answer.text == extractive.text and answer.passages == []
    assert any("giving the extractive answer" in r.getMessage() for r in caplog.records)


def test_a_failing_token_callback_does_not_fail_the_query(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(answer_llm, "stream_chat", _fake_stream(["x"]))

    def broken(_: str) -> None:
        raise ValueError("client gone")

    answer = generate_answer(_settings(**LLM), _result(), on_token=broken)
    assert answer is not None and not answer.generated and "client gone" in (answer.reason or "")


def test_unconfigured_or_empty_results_make_no_call(monkeypatch: pytest.MonkeyPatch) -> None:
    stream = _fake_stream(["never"])
    monkeypatch.setattr(answer_llm, "stream_chat", stream)
    answer = generate_answer(_settings(), _result())
    assert answer is not None and not answer.generated and answer.reason == NOT_CONFIGURED
    assert generate_answer(_settings(**LLM), _result(paths=[])) is None
    assert stream.calls == []


def test_wants_generation_follows_the_call_then_the_settings() -> None:
    on, off = _settings(**LLM), _settings()
    assert wants_generation(on, None) and not wants_generation(off, None)
    assert not wants_generation(on, False) and wants_generation(off, True)


def test_the_result_shows_the_written_answer_and_serializes_it_once() -> None:
    plain = _result()
    assert plain.answer is not None and not plain.answer.generated and plain.answer.model is None
    written = plain.answer.model_copy(update={"text": "Jane.", "generated": True, "model": "m1"})
    result = plain.model_copy(update={"generated_answer": written})
    assert result.answer == written
    dumped = result.model_dump(mode="json")
    assert dumped["answer"]["generated"] is True and "generated_answer" not in dumped


# --- settings and the API's request -------------------------------------------------------------


def test_settings_need_a_model_with_a_url_and_an_http_url() -> None:
    with pytest.raises(ConfigError, match=r"PATHRAG_ANSWER_LLM_MODEL.*must be set"):
        Settings.from_env({"PATHRAG_ANSWER_LLM_URL": "http://localhost:11434/v1"})
    with pytest.raises(ConfigError, match=r"PATHRAG_ANSWER_LLM_URL.*http:// or https://"):
        Settings.from_env({"PATHRAG_ANSWER_LLM_URL": "localhost:11434", "PATHRAG_ANSWER_LLM_MODEL": "m"})
    s = Settings.from_env({"PATHRAG_ANSWER_LLM_URL": "http://h:1/v1/", "PATHRAG_ANSWER_LLM_MODEL": "m"})
    assert s.answer_llm_url == "http://h:1/v1"
    unset = Settings.from_env({})
    assert unset.answer_llm_url is None and unset.answer_llm_model is None


def test_a_query_may_turn_generation_on_or_off_strictly() -> None:
    s = _settings()
    assert resolve(s, QueryRequest(question="Who owns Bob?", generate=False)).generate is False
    assert resolve(s, QueryRequest(question="Who owns Bob?")).generate is None
    with pytest.raises(ValidationError):
        QueryRequest.model_validate({"question": "Who owns Bob?", "generate": "yes"})


def test_a_caller_that_went_away_is_logged_quietly(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    import threading

    gone = threading.Event()
    gone.set()
    monkeypatch.setattr(answer_llm, "stream_chat", _fake_stream([], AnswerModelError("cancelled")))
    with caplog.at_level(logging.INFO, logger="pathrag_gds.answer_llm"):
        answer = generate_answer(_settings(**LLM), _result(), cancel=gone)
    assert answer is not None and not answer.generated and answer.reason == "cancelled"
    levels = [r.levelno for r in caplog.records if "giving the extractive answer" in r.getMessage()]
    assert levels == [logging.INFO]
