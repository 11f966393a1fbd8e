"""Pure pieces of the HTTP API: request validation, limits, auth compare, SSE, result conversion."""

from __future__ import annotations

import itertools

import pytest
from api_testutil import SessionStoreFactory
from pydantic import ValidationError

from pathrag_gds.api.auth import check_authorization, check_listen, is_loopback, tokens_match
from pathrag_gds.api.errors import ApiError, from_pathrag_error, validation_message
from pathrag_gds.api.models import (
    Effective,
    QueryRequest,
    SessionCreate,
    detailed_results,
    query_response,
    resolve,
)
from pathrag_gds.api.sse import comment, format_event, parse_events
from pathrag_gds.config import Settings
from pathrag_gds.errors import DatabaseUnavailable, InvalidInput, QueryTimeout, SchemaError
from pathrag_gds.results import AnswerCandidate, EdgeOut, NodeOut, PathRagResult, PathResult, Seed

SETTINGS = Settings(api_max_hop_depth=3, api_max_top_n=10, api_max_seed_n=20, api_max_question_chars=50)


# --- request validation ---------------------------------------------------------------------------


def test_query_request_defaults_from_settings() -> None:
    eff = resolve(SETTINGS, QueryRequest(question="Who owns Bob?"), question="Who owns Bob?")
    assert eff.mode == "local"
    assert eff.hop_depth == 3  # min(max_depth=6, api_max_hop_depth=3)
    assert eff.top_n == 5
    assert eff.seed_n == 20  # min(seed_n=30, api_max_seed_n=20)


def test_unknown_mode_lists_valid_ones() -> None:
    with pytest.raises(ValidationError) as exc:
        QueryRequest(question="q", mode="bogus")
    msg = validation_message(exc.value.errors())
    assert all(m in msg for m in ("local", "global", "hybrid", "mix", "naive", "bogus"))


def test_naive_mode_means_no_expansion() -> None:
    eff = resolve(SETTINGS, QueryRequest(question="q", mode="naive", hop_depth=2))
    assert eff.mode == "naive" and eff.hop_depth == 0


@pytest.mark.parametrize(
    ("field", "value"),
    [("hop_depth", 0), ("hop_depth", 4), ("top_n", 0), ("top_n", 11), ("seed_n", 0), ("seed_n", 21)],
)
def test_bounds_are_checked(field: str, value: int) -> None:
    req = QueryRequest.model_validate({"question": "q", field: value})
    with pytest.raises(ApiError) as exc:
        resolve(SETTINGS, req)
    assert exc.value.status == 422
    assert field in exc.value.message and str(value) in exc.value.message


def test_question_limits() -> None:
    with pytest.raises(ApiError, match="empty question"):
        resolve(SETTINGS, QueryRequest(question="   "), question="   ")
    long = "x" * 51
    with pytest.raises(ApiError) as exc:
        resolve(SETTINGS, QueryRequest(question=long), question=long)
    assert exc.value.status == 422 and "50" in exc.value.message


@pytest.mark.parametrize("field", ["connection_details", "uri", "neo4j_uri", "password", "URI"])
def test_connection_details_are_refused(field: str) -> None:
    with pytest.raises(ValidationError) as exc:
        SessionCreate.model_validate({field: {"uri": "bolt://evil:7687"}})
    assert "configuration" in validation_message(exc.value.errors())
    with pytest.raises(ValidationError):
        QueryRequest.model_validate({"question": "q", field: "bolt://evil:7687"})


def test_unknown_fields_are_refused() -> None:
    with pytest.raises(ValidationError) as exc:
        QueryRequest.model_validate({"question": "q", "hopdepth": 2})
    assert "hopdepth: unknown field" in validation_message(exc.value.errors())


def test_session_defaults_are_overridden_by_request() -> None:
    defaults = Effective(mode="local", hop_depth=2, top_n=3, seed_n=5, community_id="C")
    eff = resolve(SETTINGS, QueryRequest(question="q", top_n=7), defaults)
    assert (eff.hop_depth, eff.top_n, eff.seed_n, eff.community_id) == (2, 7, 5, "C")


def test_error_mapping() -> None:
    assert from_pathrag_error(DatabaseUnavailable("down: start it")).status == 503
    assert from_pathrag_error(InvalidInput("bad")).status == 422
    assert from_pathrag_error(QueryTimeout("slow")).status == 504
    err = from_pathrag_error(SchemaError("no index: run index"))
    assert (err.status, err.code, err.message) == (503, "schema_error", "no index: run index")


# --- auth -----------------------------------------------------------------------------------------


def test_tokens_match() -> None:
    assert tokens_match("s3cret-token", "s3cret-token")
    assert not tokens_match("s3cret-token", "s3cret-tokeN")
    assert not tokens_match("", "s3cret-token")
    assert tokens_match("žluťoučký", "žluťoučký")


def test_check_authorization() -> None:
    check_authorization(None, None)  # no token configured: no check
    check_authorization("Bearer abc", "abc")
    check_authorization("bearer abc", "abc")
    for header in (None, "", "Basic abc", "Bearer ", "abc"):
        with pytest.raises(ApiError) as exc:
            check_authorization(header, "abc")
        assert exc.value.status == 401
        assert exc.value.headers["WWW-Authenticate"] == "Bearer"
    with pytest.raises(ApiError) as exc:
        check_authorization("Bearer abd", "abc")
    assert exc.value.status == 403


def test_loopback_rule() -> None:
    assert is_loopback("127.0.0.1") and is_loopback("::1") and is_loopback("localhost")
    assert is_loopback("127.0.0.2")
    assert not is_loopback("0.0.0.0") and not is_loopback("192.168.1.5") and not is_loopback("example.com")
    check_listen("127.0.0.1", None)
    with pytest.raises(ApiError) as exc:
        check_listen("0.0.0.0", None)
    assert "PATHRAG_API_TOKEN" in exc.value.message
    with pytest.raises(ApiError):
        check_listen("0.0.0.0", "short")
    check_listen("0.0.0.0", "x" * 32)


# --- SSE ------------------------------------------------------------------------------------------


def test_sse_round_trip() -> None:
    text = (
        comment("hello")
        + format_event("depth", {"depth": 1, "q": "line\nbreak"})
        + format_event("result", {"ok": True})
    )
    assert text.startswith(": hello\n\n")
    assert "line\\nbreak" in text  # newlines stay escaped inside one data line
    assert parse_events(text) == [("depth", {"depth": 1, "q": "line\nbreak"}), ("result", {"ok": True})]


def test_sse_event_name_checked() -> None:
    with pytest.raises(ValueError):
        format_event("bad\nname", {})


# --- result conversion ----------------------------------------------------------------------------


def _node(i: str) -> NodeOut:
    return NodeOut(id=i, name=i.upper(), labels=["Entity", "Thing"])


def _path(rank: int, ids: list[str], score: float) -> PathResult:
    edges = [EdgeOut(type="R", source=a, target=b, direction="out") for a, b in itertools.pairwise(ids)]
    return PathResult(
        rank=rank,
        score=score,
        score_parts={"model": score},
        depth=len(ids) - 1,
        key="|".join(ids),
        text="t",
        path_context=[f"{a.upper()} -> R -> {b.upper()}" for a, b in itertools.pairwise(ids)],
        nodes=[_node(i) for i in ids],
        edges=edges,
        answer_candidates=[AnswerCandidate(id=ids[-1], name=ids[-1].upper(), labels=["Entity"])],
    )


def test_detailed_results_group_by_seed() -> None:
    paths = [
        _path(1, ["a", "b"], 0.9),
        _path(2, ["c", "d", "e"], 0.8),
        _path(3, ["a", "x", "b"], 0.7),  # same target as rank 1: dropped
        _path(4, ["a", "x", "y"], 0.6),
        _path(5, ["f"], 0.5),  # a seed alone: a group without neighbours
    ]
    groups = detailed_results(paths)
    assert [g.id for g in groups] == ["a", "c", "f"]
    a = groups[0]
    assert (a.name, a.labels) == ("A", ["Entity", "Thing"])
    assert [(n.target_id, n.path_length) for n in a.neighbors] == [("b", 1), ("y", 2)]
    assert a.neighbors[1].path_context == ["A -> R -> X", "X -> R -> Y"]
    assert groups[2].neighbors == []
    many = [_path(i, ["a", f"n{i}"], 1.0) for i in range(1, 40)]
    assert len(detailed_results(many, limit=30)[0].neighbors) == 30


def test_query_response_echoes_and_ranks_answers() -> None:
    result = PathRagResult(
        query="Who?",
        mode="option-d",
        scorer="s",
        paths=[_path(1, ["a", "b"], 0.9), _path(2, ["a", "c"], 0.5)],
        seeds=[Seed(id="a", name="A", labels=["Entity"], similarity=0.9)],
        timings_ms={"total": 1.0},
        round_trips=3,
    )
    eff = Effective(mode="local", hop_depth=2, top_n=5, seed_n=5, community_id=None)
    resp = query_response(result, eff, question="Who?", request_id="r1", database_name="neo4j")
    assert resp.question == "Who?" and resp.request_id == "r1"
    assert resp.answer_detail is not None and resp.answer_detail.entity == "B"
    assert resp.answer is not None and resp.answer.startswith("B. ")
    assert [a.id for a in resp.answers] == ["b", "c"]
    assert resp.paths[0].path_length == 1 and resp.paths[0].path_context == ["A -> R -> B"]
    assert resp.round_trips == 3 and resp.timings_ms == {"total": 1.0}


# --- sessions -------------------------------------------------------------------------------------


def test_sessions_expire_and_delete(session_store: SessionStoreFactory) -> None:
    now = [1000.0]
    store = session_store(ttl=10.0, max_sessions=2, clock=lambda: now[0])
    opts = Effective(mode="local", hop_depth=2, top_n=3, seed_n=5, community_id=None)
    s1 = store.create("neo4j", opts)
    assert store.touch(s1.session_id).hop_depth == 2
    now[0] += 9.0
    store.touch(s1.session_id)  # sliding: lives 10 s after this use
    now[0] += 9.0
    assert store.touch(s1.session_id).session_id == s1.session_id
    s2 = store.create("neo4j", opts)
    with pytest.raises(ApiError) as exc:
        store.create("neo4j", opts)
    assert exc.value.status == 429
    store.delete(s2.session_id)
    with pytest.raises(ApiError) as exc:
        store.delete(s2.session_id)
    assert exc.value.status == 404
    now[0] += 10.5
    with pytest.raises(ApiError) as exc:
        store.touch(s1.session_id)
    assert exc.value.status == 404 and "POST /v1/sessions" in exc.value.message
    assert store.count() == 0


def test_sessions_are_limited_per_owner_under_a_global_ceiling(session_store: SessionStoreFactory) -> None:
    store = session_store(ttl=10.0, max_sessions=3, max_per_owner=2, clock=lambda: 1000.0)
    opts = Effective(mode="local", hop_depth=2, top_n=3, seed_n=5, community_id=None)
    store.create("neo4j", opts, "a")
    store.create("neo4j", opts, "a")
    with pytest.raises(ApiError) as exc:
        store.create("neo4j", opts, "a")
    assert exc.value.status == 429 and "this token holds its own maximum of 2" in exc.value.message
    store.create("neo4j", opts, "b")  # a's limit is a's alone
    with pytest.raises(ApiError) as exc:
        store.create("neo4j", opts, "b")
    assert "global maximum of 3" in exc.value.message and "this token holds 1" in exc.value.message
