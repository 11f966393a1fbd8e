"""The CLI and the HTTP API agree: one JSON shape (`QueryResponse`) and one set of input rules.

Against the real Neo4j (the demo community) and a real uvicorn server.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

import pytest
from api_testutil import TOKEN, ServerThread

from pathrag_gds.api import create_app
from pathrag_gds.api.responses import QueryResponse
from pathrag_gds.cli import main
from pathrag_gds.config import Settings

QUESTION = "Who owns Bob the Cat?"
#: Fields that differ per call by nature (an id, the clock; and each depth's `seconds`).
PER_CALL = {"request_id", "timings_ms"}


def wait_ready(srv: ServerThread) -> None:
    deadline = time.monotonic() + 120
    while (r := srv.get("/readyz", headers={})).status_code != 200:  # models load in the background
        assert time.monotonic() < deadline, r.text
        time.sleep(0.5)


@pytest.fixture(scope="module")
def server(demo_community: str, settings: Settings) -> Iterator[ServerThread]:
    s = settings.model_copy(update={"api_token": TOKEN, "api_timeout_s": 300.0})
    with ServerThread(create_app(s)) as srv:
        wait_ready(srv)
        yield srv


def _cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    status = main(list(args))
    out, err = capsys.readouterr()
    return status, out, err


def _shape(value: Any) -> Any:
    """The keys of a JSON value, recursively (lists by their first item)."""
    if isinstance(value, dict):
        return {k: _shape(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_shape(value[0])] if value else []
    return type(value).__name__


def test_query_json_is_the_http_response(
    server: ServerThread, demo_community: str, capsys: pytest.CaptureFixture[str]
) -> None:
    options = ["--community", demo_community, "--max-depth", "3", "--top-n", "4", "--seed-n", "10"]
    status, out, err = _cli(capsys, "query", QUESTION, *options, "--json")
    assert status == 0, err
    cli = json.loads(out)
    body = {"question": QUESTION, "community_id": demo_community, "hop_depth": 3, "top_n": 4, "seed_n": 10}
    r = server.post("/v1/query", body)
    assert r.status_code == 200, r.text
    http = r.json()
    QueryResponse.model_validate(cli)  # the one model both serialise
    assert list(cli) == list(QueryResponse.model_fields) == list(http)
    assert _shape(cli) == _shape(http)
    assert cli["question"] == QUESTION and "query" not in cli
    assert (cli["hop_depth"], cli["top_n"], cli["seed_n"]) == (3, 4, 10)
    assert all("path_length" in p and "depth" not in p for p in cli["paths"])
    assert isinstance(cli["answer"], str) and cli["answer_detail"]["text"] == cli["answer"]

    def fixed(resp: dict[str, Any]) -> dict[str, Any]:
        out = {k: v for k, v in resp.items() if k not in PER_CALL}
        out["depths"] = [{k: v for k, v in d.items() if k != "seconds"} for d in resp["depths"]]
        return out

    assert fixed(cli) == fixed(http)


BAD_QUERIES: list[tuple[str, list[str], dict[str, Any]]] = [
    ("?!...", [], {}),
    (" -- ? -- ", [], {}),
    ("x" * 1001, [], {}),
    (QUESTION, ["--max-depth", "0"], {"hop_depth": 0}),
    (QUESTION, ["--max-depth", "7"], {"hop_depth": 7}),
    (QUESTION, ["--top-n", "51"], {"top_n": 51}),
    (QUESTION, ["--seed-n", "0"], {"seed_n": 0}),
]


@pytest.mark.parametrize(("question", "flags", "fields"), BAD_QUERIES)
def test_cli_and_http_refuse_alike_with_one_message(
    server: ServerThread,
    capsys: pytest.CaptureFixture[str],
    question: str,
    flags: list[str],
    fields: dict[str, Any],
) -> None:
    status, _, err = _cli(capsys, "query", question, *flags)
    assert status == 2, err
    r = server.post("/v1/query", {"question": question, **fields})
    assert r.status_code == 422, r.text
    message = r.json()["error"]["message"]
    assert err.strip() == f"error: {message}"
    assert "pass" in message  # says what to do


@pytest.mark.parametrize("question", ["", "?!", "x" * 1001])
def test_intent_follows_the_same_rules(capsys: pytest.CaptureFixture[str], question: str) -> None:
    status, _, err = _cli(capsys, "intent", question)
    assert status == 2 and err.startswith("error: ") and ("empty question" in err or "1000 or fewer" in err)
