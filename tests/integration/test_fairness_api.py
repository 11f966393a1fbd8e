"""Issue 54, item 8: search slots are shared fairly between tokens, against the real Neo4j (demo graph)
and a real uvicorn server on a loopback port.

One search slot, a search slowed to last (so the order is the server's, not the machine's): while a
heavy token keeps its whole share of the queue full, a light token's question is answered after at
most about one heavy search, the heavy token's searches are answered in the order they were asked,
and the heavy token's own queue share is full for it alone (its 429 says so; the light token still
gets in).
"""

from __future__ import annotations

import json
import secrets
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
from api_testutil import TOKEN, ServerThread, assert_error, slow_service

from pathrag_gds.api import create_app
from pathrag_gds.api.app import app_state
from pathrag_gds.config import Settings
from pathrag_gds.datasets.demo import DEMO_COMMUNITY

pytestmark = pytest.mark.integration

UID = secrets.token_hex(4)
HEAVY = f"heavy-{UID}-" + TOKEN
LIGHT = f"light-{UID}-" + TOKEN
#: The queue of 24 shared by the two tokens: 12 waiting each, besides the one running search.
MAX_QUEUE = 24
SHARE = MAX_QUEUE // 2
QUESTION = "Who owns Bob the Cat?"


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


@pytest.fixture(scope="module")
def fair_server(
    demo_community: str, settings: Settings, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[ServerThread]:
    """Two tokens of the demo community, one search at a time, each depth slowed by 0.25 s."""
    assert demo_community == DEMO_COMMUNITY  # conftest: loaded only when missing, never reloaded
    path = tmp_path_factory.mktemp("tokens") / "tokens.json"
    path.write_text(json.dumps({HEAVY: [DEMO_COMMUNITY], LIGHT: [DEMO_COMMUNITY]}), encoding="utf-8")
    s = settings.model_copy(
        update={
            "api_tokens_file": path,
            "api_max_concurrency": 1,
            "api_max_queue": MAX_QUEUE,
            "api_timeout_s": 300.0,
        }
    )
    with ServerThread(create_app(s, slow_service(s, 0.25), warm_up=False)) as srv:
        ask = {"question": QUESTION, "community_id": DEMO_COMMUNITY, "hop_depth": 1, "seed_n": 5}
        assert srv.post("/v1/query", ask, headers=bearer(LIGHT)).status_code == 200  # warm
        yield srv


def _in_house(srv: ServerThread) -> int:
    stats = app_state(srv.app).runner.stats
    return stats.running + stats.queued


def _flood(srv: ServerThread, n: int, done: list[tuple[str, float, int]]) -> list[threading.Thread]:
    """Start `n` heavy searches one after the other (each in the queue before the next is sent)."""
    body = {"question": QUESTION, "community_id": DEMO_COMMUNITY, "hop_depth": 2, "seed_n": 10}
    threads = []
    for i in range(n):
        before = _in_house(srv)

        def ask(name: str = f"heavy{i}") -> None:
            r = srv.post("/v1/query", body, headers=bearer(HEAVY))
            done.append((name, time.monotonic(), r.status_code))

        t = threading.Thread(target=ask, daemon=True)
        t.start()
        threads.append(t)
        deadline = time.monotonic() + 30
        while _in_house(srv) == before and not any(d[0] == f"heavy{i}" for d in done):
            assert time.monotonic() < deadline, "the heavy search did not reach the server"
            time.sleep(0.005)
    return threads


def test_a_light_token_is_served_within_a_turn_while_another_floods(fair_server: ServerThread) -> None:
    done: list[tuple[str, float, int]] = []
    flood = _flood(fair_server, 1 + SHARE, done)  # one running, its whole share waiting
    assert app_state(fair_server.app).runner.stats.queued >= SHARE - 1, "the heavy token's queue is full"

    light = {"question": QUESTION, "community_id": DEMO_COMMUNITY, "hop_depth": 1, "seed_n": 5}
    answered = len(done)  # heavy searches over before the light one is sent
    t0 = time.monotonic()
    r = fair_server.post("/v1/query", light, headers=bearer(LIGHT))
    done.append(("light", time.monotonic(), r.status_code))
    light_s = time.monotonic() - t0
    assert r.status_code == 200, r.text
    for t in flood:
        t.join(300)

    order = [name for name, _, _ in sorted(done, key=lambda d: d[1])]
    codes = {name: code for name, _, code in done}
    assert all(code == 200 for code in codes.values()), codes
    # it waits for the heavy search running when it arrives (one more may end while it arrives)
    assert order.index("light") <= answered + 2, f"the light search waited behind the flood: {order}"
    heavy = [name for name in order if name != "light"]
    assert heavy == [f"heavy{i}" for i in range(1 + SHARE)], f"heavy searches out of order: {heavy}"
    print(f"\nlight answered in {light_s:.2f} s, after {order.index('light')} of {len(heavy)} heavy searches")


def test_a_token_fills_only_its_own_share_of_the_queue(fair_server: ServerThread) -> None:
    done: list[tuple[str, float, int]] = []
    flood = _flood(fair_server, 1 + SHARE, done)
    body = {"question": QUESTION, "community_id": DEMO_COMMUNITY, "hop_depth": 1, "seed_n": 5}
    over = fair_server.post("/v1/query", body, headers=bearer(HEAVY))
    err = assert_error(over, 429, "busy", "this token has its own maximum", f"{SHARE} waiting")
    assert "other tokens are not held up" in err["message"] and over.headers["Retry-After"]

    answers: list[Any] = []
    light = threading.Thread(
        target=lambda: answers.append(fair_server.post("/v1/query", body, headers=bearer(LIGHT)))
    )
    light.start()
    light.join(300)
    for t in flood:
        t.join(300)
    assert answers and answers[0].status_code == 200, (
        "the light token was refused while the heavy one was full"
    )
    info = fair_server.get("/v1/info", headers=bearer(LIGHT)).json()
    assert info["limits"]["max_queue_per_token"] == SHARE and info["limits"]["max_queue"] == MAX_QUEUE
