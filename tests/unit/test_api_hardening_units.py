"""Pure pieces of the issue 26 HTTP hardening: tokens file and scopes, Host names, JSON body checks,
SSE escaping, strict and word-less requests, and the database gate's state machine."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import pytest
from api_testutil import SessionStoreFactory
from pydantic import ValidationError

from pathrag_gds.api.auth import ANONYMOUS, TokenTable, check_listen, host_name, load_tokens_file
from pathrag_gds.api.dbgate import DatabaseGate, database_down
from pathrag_gds.api.errors import ApiError, error_body, validation_message
from pathrag_gds.api.guards import json_body_problem
from pathrag_gds.api.models import Effective, QueryRequest, has_words, resolve
from pathrag_gds.api.sse import format_event, parse_events
from pathrag_gds.config import Settings
from pathrag_gds.errors import ConfigError, DatabaseUnavailable

A = "a" * 16
B = "b" * 20


def test_tokens_file_scopes(tmp_path: Path) -> None:
    path = tmp_path / "tokens.yaml"
    path.write_text(f'"{A}": ["acme", "beta"]\n"{B}": "*"\n', encoding="utf-8")
    scopes = load_tokens_file(path)
    assert scopes == {A: frozenset({"acme", "beta"}), B: None}
    table = TokenTable.from_settings(Settings(api_tokens_file=path, api_token="c" * 16))
    acme = table.authenticate(f"Bearer {A}")
    assert acme.may("acme") and not acme.may("gamma") and acme.owner
    assert table.authenticate(f"Bearer {B}").communities is None
    assert table.authenticate("Bearer " + "c" * 16).communities is None  # PATHRAG_API_TOKEN: all
    assert acme.owner != table.authenticate(f"Bearer {B}").owner
    with pytest.raises(ApiError) as exc:
        table.authenticate("Bearer " + "d" * 16)
    assert exc.value.status == 403 and A not in exc.value.message
    with pytest.raises(ApiError) as exc:
        table.authenticate(None)
    assert exc.value.status == 401
    assert TokenTable({}).authenticate(None) is ANONYMOUS and not TokenTable({}).enabled


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ('"short": "*"\n', ["entry 1", "at least 16"]),
        (f'"{A}": []\n', ["entry 1", "non-empty list"]),
        (f'"{A}": ["ok"]\n"{B}": [3]\n', ["entry 2", "non-empty list"]),
        ("- just\n- a list\n", ["must map tokens"]),
        ("{unclosed", ["not valid JSON or YAML"]),
    ],
)
def test_bad_tokens_files_are_refused_without_showing_tokens(
    tmp_path: Path, text: str, words: list[str]
) -> None:
    path = tmp_path / "tokens.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError) as exc:
        load_tokens_file(path)
    for w in words:
        assert w in str(exc.value)
    assert A not in str(exc.value) and B not in str(exc.value)


def test_missing_tokens_file(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="cannot read PATHRAG_API_TOKENS_FILE"):
        TokenTable.from_settings(Settings(api_tokens_file=tmp_path / "nope.yaml"))


def test_listen_beyond_loopback_with_a_tokens_file_only() -> None:
    check_listen("0.0.0.0", None, file_tokens=True)
    with pytest.raises(ApiError, match="PATHRAG_API_TOKENS_FILE"):
        check_listen("0.0.0.0", None, file_tokens=False)


@pytest.mark.parametrize(
    ("header", "name"),
    [
        ("127.0.0.1:8000", "127.0.0.1"),
        ("[::1]:8000", "::1"),
        ("[::1]", "::1"),
        ("localhost", "localhost"),
        ("evil.example:80", "evil.example"),
        ("::1", "::1"),
    ],
)
def test_host_name(header: str, name: str) -> None:
    assert host_name(header) == name


def test_json_body_problems() -> None:
    assert json_body_problem(b'{"question": "a [[[ { string"}') is None  # brackets in strings do not nest
    assert json_body_problem(b'{"q": "\\" [[[["}') is None  # nor after an escaped quote
    assert "nests deeper than 32" in (json_body_problem(b"[" * 33 + b"]" * 33) or "")
    assert json_body_problem(b"[" * 32 + b"]" * 32) is None
    assert "UTF-8" in (json_body_problem(b'{"q": "\xed\xa0\x80"}') or "")  # an encoded surrogate
    assert "line 2 column" in (json_body_problem(b'{"q": 1,\n}') or "")


def test_sse_escapes_every_splitlines_break() -> None:
    text = "a\u2028b\u2029c\x85d\x0be\x0cf\x1cg\x1dh\x1ei\rj\nk"
    event = format_event("result", {"q": text})
    data_line = event.split("\n")[1]
    assert data_line.splitlines() == [data_line]  # one line for str.splitlines (requests.iter_lines)
    assert parse_events(event) == [("result", {"q": text})]


def test_requests_are_strict_and_need_words() -> None:
    for bad in (
        {"hop_depth": "1"},
        {"hop_depth": True},
        {"hop_depth": 1.0},
        {"stream": "yes"},
        {"stream": 0},
    ):
        with pytest.raises(ValidationError) as exc:
            QueryRequest.model_validate({"question": "Who owns Bob?", **bad})
        assert "must be a JSON" in validation_message(exc.value.errors())
    assert QueryRequest.model_validate({"question": "Who?", "hop_depth": 2, "stream": True}).hop_depth == 2
    assert has_words("Who owns Bob?") and has_words("42") and has_words("誰")
    assert not has_words("\u200b\x00 ?!\ufeff")
    wordless = QueryRequest.model_validate({"question": "\u200b\u200b"})  # checked by `resolve`, as the CLI
    with pytest.raises(ApiError) as api:
        resolve(Settings(), wordless, question=wordless.question)
    assert api.value.status == 422 and api.value.message.startswith("empty question")


def test_error_body_escapes_surrogates() -> None:
    body = error_body("invalid_request", "bad \ud800 field")
    assert body["error"]["message"] == "bad \\ud800 field"
    body["error"]["message"].encode("utf-8")


def test_database_gate_trips_and_recovers() -> None:
    up = threading.Event()

    def probe() -> None:
        if not up.is_set():
            raise DatabaseUnavailable("still down")

    gate = DatabaseGate(probe, interval_s=0.05)
    gate.check()  # up: nothing raised
    gate.guard(ValueError("not a database error"))
    assert not gate.is_down
    gate.guard(DatabaseUnavailable("cannot reach Neo4j at bolt://x: start it"))
    assert gate.is_down and gate.trips == 1
    with pytest.raises(DatabaseUnavailable, match="answers 503 at once"):
        gate.check()
    gate.trip(DatabaseUnavailable("again"))
    assert gate.trips == 1  # one probe at a time
    up.set()
    deadline = time.monotonic() + 5
    while gate.is_down and time.monotonic() < deadline:
        time.sleep(0.02)
    assert not gate.is_down
    gate.check()
    gate.close()


def test_driver_errors_mean_database_down() -> None:
    from neo4j.exceptions import ServiceUnavailable

    assert isinstance(database_down(ServiceUnavailable("gone")), DatabaseUnavailable)
    assert database_down(RuntimeError("x")) is None


def test_sessions_belong_to_their_owner(session_store: SessionStoreFactory) -> None:
    store = session_store(60, 10)
    opts = Effective(mode="local", hop_depth=1, top_n=5, seed_n=5, community_id="acme")
    sid = store.create("neo4j", opts, owner="alice").session_id
    assert store.touch(sid, "alice").community_id == "acme"
    with pytest.raises(ApiError) as exc:
        store.touch(sid, "bob")
    assert exc.value.status == 404
    with pytest.raises(ApiError):
        store.delete(sid, "bob")
    store.delete(sid, "alice")


def test_a_hung_database_counts_as_down() -> None:
    release = threading.Event()

    def probe() -> None:  # a Neo4j that accepts the connection but does not answer
        release.wait(10)

    gate = DatabaseGate(probe, interval_s=0.05, up_interval_s=0.05, probe_timeout_s=0.2)
    gate.start()
    deadline = time.monotonic() + 5
    while not gate.is_down and time.monotonic() < deadline:
        time.sleep(0.02)
    with pytest.raises(DatabaseUnavailable, match="did not answer"):
        gate.check()
    release.set()  # it answers again
    deadline = time.monotonic() + 5
    while gate.is_down and time.monotonic() < deadline:
        time.sleep(0.02)
    assert not gate.is_down
    gate.close()


def test_the_setting_chooses_the_session_store(tmp_path: Path) -> None:
    from pathrag_gds.api.sessions import Neo4jSessionStore, SessionStore, session_store
    from pathrag_gds.errors import ConfigError

    def no_graph() -> Any:
        raise AssertionError("the Neo4j store connects at first use, not when it is built")

    path = tmp_path / "s.sqlite"
    assert isinstance(session_store(Settings(), no_graph, 5), SessionStore)
    store = session_store(Settings(api_sessions_path=path), no_graph, 5)
    assert isinstance(store, SessionStore) and path.is_file()
    store.close()
    neo = session_store(Settings(api_sessions="neo4j", api_max_sessions=9), no_graph, 3)
    assert isinstance(neo, Neo4jSessionStore) and (neo.max_sessions, neo.max_per_owner) == (9, 3)
    with pytest.raises(ConfigError, match="PATHRAG_API_SESSIONS_PATH"):
        session_store(Settings(api_sessions="sqlite"), no_graph, 5)
