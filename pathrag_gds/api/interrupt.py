"""Stop a search within a depth: the scorer checks the request's cancel switch between chunks.

The service checks its `cancel` Event and time limit between depths; one depth's scoring can take
seconds on a busy machine. :class:`InterruptibleScorer` wraps the real scorer and scores in chunks,
checking before each chunk the cancel Event and deadline that :func:`watching` set for the
current thread (each search runs in its own thread).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from pathrag_gds.config import Settings
from pathrag_gds.errors import QueryCancelled, QueryTimeout

_local = threading.local()


@contextmanager
def watching(cancel: threading.Event, deadline: float) -> Iterator[None]:
    """Let scorers on this thread stop when `cancel` is set or `time.monotonic()` passes `deadline`."""
    _local.cancel, _local.deadline = cancel, deadline
    try:
        yield
    finally:
        _local.cancel, _local.deadline = None, None


def check_current() -> None:
    """Raise when the search running on this thread was cancelled or ran out of time.

    Raises:
        QueryCancelled: the client went away.
        QueryTimeout: the request's time limit passed.
    """
    cancel: threading.Event | None = getattr(_local, "cancel", None)
    if cancel is not None and cancel.is_set():
        raise QueryCancelled("the query was cancelled")
    deadline: float | None = getattr(_local, "deadline", None)
    if deadline is not None and time.monotonic() > deadline:
        raise QueryTimeout("the query ran past its time limit")


class _ChunkedQuestionScorer:
    def __init__(self, inner: Any, chunk: int) -> None:
        self.inner = inner
        self.chunk = chunk

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def score(self, texts: Sequence[str]) -> list[float]:
        out: list[float] = []
        for i in range(0, len(texts), self.chunk):
            check_current()
            out.extend(float(x) for x in self.inner.score(texts[i : i + self.chunk]))
        return out


class InterruptibleScorer:
    """The configured scorer (loaded on first use), scoring in chunks that can be interrupted.

    Args:
        settings: used to load the scorer when `inner` is not given.
        inner: a scorer to wrap (its `for_question(question).score(texts)` is used).
        chunk: texts scored between two checks.
    """

    def __init__(self, settings: Settings, inner: Any | None = None, chunk: int = 16) -> None:
        self._settings = settings
        self._inner = inner
        self._lock = threading.Lock()
        self.chunk = chunk

    @property
    def inner(self) -> Any:
        """The wrapped scorer (loaded now if needed)."""
        if self._inner is None:
            with self._lock:
                if self._inner is None:
                    from pathrag_gds.scoring import get_scorer

                    self._inner = get_scorer(self._settings)
        return self._inner

    def load(self) -> None:
        """Load the wrapped scorer (raises `ModelError` when its files are missing)."""
        _ = self.inner

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(self.inner, name)

    def for_question(self, question: str) -> _ChunkedQuestionScorer:
        """A question scorer that checks for cancellation between chunks."""
        return _ChunkedQuestionScorer(self.inner.for_question(question), self.chunk)
