"""Runs searches in worker threads, bounded, and bridges their progress to asyncio.

The search is CPU-bound (ONNX scoring): at most `concurrency` searches run at once, up to
`max_queue` more wait for a slot (within their time limit), beyond that a request gets 429. Slots
go to the waiting tokens in turn, and to one token's searches in arrival order
(:class:`~pathrag_gds.api.fairq.FairSlots`), and each token may keep at most `max_queue_per_owner`
searches waiting, so a token that floods the queue neither delays another's search by more than a
turn nor fills the queue for it. Each search runs in its own thread named
`pathrag-search-<request id>`; it reports each depth, then its result or error, through an
`asyncio.Queue`; where the answer model is asked (`answer_llm`), it writes after the search has
given back its slot, and a streamed job gets its final paths and then its answer token by token.
Setting the job's `cancel` Event (client gone, time limit reached) stops the
search at its next depth, or while it still waits for a slot.

While the database gate knows Neo4j is down, waiting and new searches fail at once with
`DatabaseUnavailable` (503) instead of holding a slot through the driver's retries.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from pathrag_gds.answer_llm import wants_generation
from pathrag_gds.api.dbgate import DatabaseGate, database_down
from pathrag_gds.api.errors import ApiError
from pathrag_gds.api.fairq import FairSlots
from pathrag_gds.api.interrupt import watching
from pathrag_gds.api.requests import Effective
from pathrag_gds.errors import QueryCancelled, QueryTimeout
from pathrag_gds.results import PathRagResult, PathResult
from pathrag_gds.service import PathRag

log = logging.getLogger(__name__)

#: Thread name prefix of searches (tests look for it).
THREAD_PREFIX = "pathrag-search-"


@dataclass
class SearchJob:
    """One search: what to run, whose it is, its deadline, its cancel switch and its event queue."""

    request_id: str
    question: str
    options: Effective
    deadline: float  #: time.monotonic() past which the search stops
    loop: asyncio.AbstractEventLoop
    stream: bool = False
    owner: str = ""  #: the caller's owner key (one per token): slots are shared fairly between owners
    cancel: threading.Event = field(default_factory=threading.Event)
    queue: asyncio.Queue[tuple[str, Any]] = field(default_factory=asyncio.Queue)

    def emit(self, kind: str, payload: Any) -> None:
        """Hand an event to the event loop (from the worker thread); dropped if the loop is gone."""
        try:
            self.loop.call_soon_threadsafe(self.queue.put_nowait, (kind, payload))
        except RuntimeError:  # loop closed: nobody listens any more
            self.cancel.set()


@dataclass
class RunnerStats:
    """Counters for `/v1/info` and tests."""

    running: int = 0
    queued: int = 0
    completed: int = 0
    failed: int = 0
    cancelled: int = 0
    rejected: int = 0


class SearchRunner:
    """Bounded execution of searches in threads.

    Args:
        service: the search service (thread-safe; shared by all requests).
        concurrency: searches running at once.
        max_queue: searches waiting for a slot, all owners together, before new ones get 429.
        gate: the database gate (checked before and while waiting; tripped by database failures).
        max_queue_per_owner: searches one owner (token) may keep waiting (more: 429); None: `max_queue`.
    """

    def __init__(
        self,
        service: PathRag,
        concurrency: int,
        max_queue: int,
        gate: DatabaseGate | None = None,
        max_queue_per_owner: int | None = None,
    ) -> None:
        self.service = service
        self.gate = gate
        self.concurrency = concurrency
        self.max_queue = max_queue
        self.max_queue_per_owner = max_queue if max_queue_per_owner is None else max_queue_per_owner
        self._slots = FairSlots(concurrency)
        self._lock = threading.Lock()
        self.stats = RunnerStats()
        self._jobs: dict[str, SearchJob] = {}
        self._owned: Counter[str] = Counter()  #: searches running or waiting, per owner

    def start(self, job: SearchJob) -> threading.Thread:
        """Start a search in its own thread.

        Raises:
            ApiError: 429 when the job's owner has `concurrency + max_queue_per_owner` searches in
                the house, or all owners together `concurrency + max_queue`.
        """
        with self._lock:
            mine = self._owned[job.owner]
            full = self.stats.running + self.stats.queued >= self.concurrency + self.max_queue
            if full or mine >= self.concurrency + self.max_queue_per_owner:
                self.stats.rejected += 1
                raise self._busy(mine, own=not full)
            self.stats.queued += 1
            self._owned[job.owner] += 1
            self._jobs[job.request_id] = job
        thread = threading.Thread(
            target=self._work, args=(job,), name=THREAD_PREFIX + job.request_id, daemon=True
        )
        thread.start()
        return thread

    def _busy(self, mine: int, *, own: bool) -> ApiError:
        """The 429 of a full queue: the caller's own share (`own`), or the whole server's (also when both)."""
        if own:
            message = (
                f"this token has its own maximum of searches in the server ({mine}: "
                f"{self.concurrency} running and {self.max_queue_per_owner} waiting, the limit of each "
                "token): wait for an answer before asking more; other tokens are not held up"
            )
        else:
            message = (
                f"the server is busy ({self.stats.running} searches running, {self.stats.queued} "
                f"waiting, {mine} of them this token's): retry in a few seconds"
            )
        return ApiError(429, "busy", message, {"Retry-After": "2"})

    def cancel_all(self) -> None:
        """Cancel every search (server shutdown)."""
        with self._lock:
            for job in self._jobs.values():
                job.cancel.set()

    def _acquire(self, job: SearchJob) -> None:
        def check() -> None:
            if job.cancel.is_set():
                raise QueryCancelled("the client went away")
            if self.gate is not None:
                self.gate.check()
            if job.deadline - time.monotonic() <= 0:
                raise QueryTimeout("the request waited past its time limit for a free search slot")

        check()
        self._slots.acquire(job.owner, check)

    def _answer(self, job: SearchJob, result: PathRagResult) -> PathRagResult:
        """The result with the answer model's answer, where it is asked for (`answer_llm`).

        Runs after the search has given back its slot (the model's time is not the CPU's), with the
        job's time limit grown by twice `answer_llm_timeout_s`. A streamed job first gets the final paths
        (`paths`), then each piece of text as it comes (`answer_token`). Never raises for the model.
        """
        settings = getattr(self.service, "settings", None)  # a service without settings: no model
        if settings is None or job.cancel.is_set() or not wants_generation(settings, job.options.generate):
            return result
        # the model's timeout bounds each wait and, checked between tokens, the whole answer: a wait
        # that began just before the end may last one timeout more
        job.deadline = max(job.deadline, time.monotonic() + 2 * settings.answer_llm_timeout_s + 1.0)
        if job.stream:
            job.emit("paths", result)

        def on_token(token: str) -> None:
            if not job.cancel.is_set():
                job.emit("answer_token", token)

        return self.service.answer(
            result,
            generate=job.options.generate,
            on_token=on_token if job.stream else None,
            cancel=job.cancel,
        )

    def _work(self, job: SearchJob) -> None:
        outcome = "failed"
        queued = True
        try:
            self._acquire(job)
            with self._lock:
                self.stats.queued -= 1
                self.stats.running += 1
                queued = False
            try:
                opts = job.options

                def on_depth(depth: int, paths: list[PathResult]) -> None:
                    if job.stream and not job.cancel.is_set():
                        job.emit("depth", (depth, paths))

                remaining = job.deadline - time.monotonic()
                if remaining <= 0:
                    raise QueryTimeout("the request ran past its time limit")
                with watching(job.cancel, job.deadline):
                    result = self.service.pathrag(
                        job.question,
                        community_id=opts.community_id,
                        top_n=opts.top_n,
                        max_depth=opts.hop_depth,
                        seed_n=opts.seed_n,
                        on_depth=on_depth,
                        cancel=job.cancel,
                        timeout=remaining,
                        as_of=opts.as_of,
                        mode=opts.mode,
                        weights=opts.weights,
                        generate=False,  # the answer model is asked below, out of the slot
                    )
            finally:
                self._slots.release()
                with self._lock:
                    self.stats.running -= 1
            result = self._answer(job, result)
            outcome = "completed"
            job.emit("result", result)
        except QueryCancelled as exc:
            outcome = "cancelled"
            job.emit("error", exc)
        except Exception as exc:  # handed to the request, which logs and maps it
            down = database_down(exc)
            if down is not None and self.gate is not None:
                self.gate.trip(down)
            job.emit("error", down or exc)
        finally:
            with self._lock:
                if queued:
                    self.stats.queued -= 1
                setattr(self.stats, outcome, getattr(self.stats, outcome) + 1)
                self._jobs.pop(job.request_id, None)
                self._owned[job.owner] -= 1
                if self._owned[job.owner] <= 0:
                    del self._owned[job.owner]
