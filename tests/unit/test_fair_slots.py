"""Search slots shared fairly between tokens and in order within one (issue 54, item 8), no server."""

from __future__ import annotations

import asyncio
import threading
import time
from typing import Any, cast

import pytest

from pathrag_gds.api.errors import ApiError
from pathrag_gds.api.fairq import FairSlots
from pathrag_gds.api.requests import Effective
from pathrag_gds.api.runner import SearchJob, SearchRunner
from pathrag_gds.errors import QueryTimeout
from pathrag_gds.service import PathRag

OPTIONS = Effective(mode="local", hop_depth=1, top_n=5, seed_n=5, community_id=None)


def _no_check() -> None:
    return None


def _queue_up(slots: FairSlots, names: list[tuple[str, str]], order: list[str]) -> list[threading.Thread]:
    """Start one waiter per (owner, name), each queued before the next; each records its turn."""
    threads = []
    for owner, name in names:
        before = sum(slots.waiting().values())

        def run(owner: str = owner, name: str = name) -> None:
            slots.acquire(owner, _no_check)
            order.append(name)
            slots.release()

        t = threading.Thread(target=run, daemon=True)
        t.start()
        threads.append(t)
        deadline = time.monotonic() + 5
        while sum(slots.waiting().values()) == before:
            assert time.monotonic() < deadline, "the waiter did not queue"
            time.sleep(0.001)
    return threads


def test_a_light_owner_gets_the_next_slot_behind_a_flood() -> None:
    slots = FairSlots(1)
    slots.acquire("heavy", _no_check)  # the heavy token's first search runs
    order: list[str] = []
    flood = [("heavy", f"h{i}") for i in range(1, 6)]
    threads = _queue_up(slots, [*flood, ("light", "l1"), ("heavy", "h6")], order)
    assert slots.waiting() == {"heavy": 6, "light": 1}
    slots.release()
    for t in threads:
        t.join(5)
    assert order == ["l1", "h1", "h2", "h3", "h4", "h5", "h6"]
    assert slots.free == 1 and slots.waiting() == {}


def test_two_floods_take_turns() -> None:
    slots = FairSlots(1)
    slots.acquire("someone", _no_check)
    order: list[str] = []
    names = [("a", "a1"), ("a", "a2"), ("a", "a3"), ("b", "b1"), ("b", "b2"), ("b", "b3"), ("c", "c1")]
    threads = _queue_up(slots, names, order)
    slots.release()
    for t in threads:
        t.join(5)
    assert order == ["a1", "b1", "c1", "a2", "b2", "a3", "b3"]


def test_one_owners_waiters_are_served_in_arrival_order() -> None:
    slots = FairSlots(1)
    slots.acquire("a", _no_check)
    order: list[str] = []
    names = [("a", f"a{i:02d}") for i in range(20)]
    threads = _queue_up(slots, names, order)
    slots.release()
    for t in threads:
        t.join(5)
    assert sorted(order) == order and len(order) == 20, "the oldest waiter first, every time"
    assert slots.free == 1


def test_a_waiter_that_gives_up_leaves_the_queue_and_no_slot_is_lost() -> None:
    slots = FairSlots(1)
    slots.acquire("holder", _no_check)

    def give_up() -> None:
        raise QueryTimeout("waited too long")

    with pytest.raises(QueryTimeout):
        slots.acquire("impatient", give_up)
    assert slots.waiting() == {}

    def release_then_give_up() -> None:  # the slot arrives just as the waiter gives up
        slots.release()
        raise QueryTimeout("waited too long")

    with pytest.raises(QueryTimeout):
        slots.acquire("unlucky", release_then_give_up)
    assert slots.free == 1 and slots.waiting() == {}, "the granted slot was passed on, not lost"


class _Blocking:
    """A service whose searches wait until released."""

    def __init__(self) -> None:
        self.go = threading.Event()
        self.started = 0

    def pathrag(self, question: str, **_: Any) -> str:
        self.started += 1
        self.go.wait(10)
        return question


def test_a_token_over_its_queue_share_gets_its_own_429_and_others_still_queue() -> None:
    service = _Blocking()
    runner = SearchRunner(cast(PathRag, service), concurrency=1, max_queue=4, max_queue_per_owner=2)
    loop = asyncio.new_event_loop()

    def job(owner: str, n: int) -> SearchJob:
        return SearchJob(f"{owner}{n}", "q", OPTIONS, time.monotonic() + 10, loop, owner=owner)

    try:
        threads = [runner.start(job("heavy", n)) for n in range(3)]  # 1 running + 2 waiting
        with pytest.raises(ApiError) as own:
            runner.start(job("heavy", 3))
        assert own.value.status == 429 and "this token has its own maximum" in own.value.message
        threads += [runner.start(job("light", n)) for n in range(2)]
        with pytest.raises(ApiError) as full:
            runner.start(job("other", 0))
        assert full.value.status == 429 and "the server is busy" in full.value.message
        service.go.set()
        for t in threads:
            t.join(10)
        assert runner.stats.completed == 5 and runner.stats.rejected == 2
        assert runner.stats.running == runner.stats.queued == 0
    finally:
        service.go.set()
        loop.close()
