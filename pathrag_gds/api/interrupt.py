"""Stop a search within a depth: the scorer checks the request's cancel switch between chunks.

The service checks its `cancel` Event and time limit between depths; one depth's scoring can take
seconds on a busy machine. :class:`InterruptibleScorer` wraps the real scorer and scores in chunks,
checking before each chunk the cancel Event and deadline that :func:`watching` set for the
current thread (each search runs in its own thread).

:class:`ApiPathRag` is the service the server builds: like the CLI and the library, each query
uses its community's scorer (the tuned cascade where `models/tuned-<community>/` exists), wrapped
so that it can be interrupted.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from pathrag_gds.config import Settings
from pathrag_gds.errors import QueryCancelled, QueryTimeout
from pathrag_gds.service import PathRag

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


class _CheckedCross:
    """A cross-encoder that checks for cancellation before it scores (its batch stays whole)."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def score(self, question: str, texts: Sequence[str]) -> Any:
        check_current()
        return self.inner.score(question, texts)


class _ChunkedBi:
    """A bi-encoder whose question scorers score in interruptible chunks."""

    def __init__(self, inner: Any, chunk: int) -> None:
        self.inner = inner
        self.chunk = chunk

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def for_question(self, question: str) -> _ChunkedQuestionScorer:
        return _ChunkedQuestionScorer(self.inner.for_question(question), self.chunk)


def interruptible_inner(inner: Any, chunk: int) -> Any:
    """`inner`, rebuilt so that a cascade's bi-encoder pass is chunked and its cross pass checked.

    A cascade picks its top `k` texts over the whole batch, so it must see the batch whole: only
    its parts are wrapped (per-text scores, identical whatever the batching), never the cascade.
    """
    from pathrag_gds.scoring import CascadeScorer

    if isinstance(inner, CascadeScorer):
        bi: Any = _ChunkedBi(inner.bi, chunk)
        cross: Any = _CheckedCross(inner.cross)
        return CascadeScorer(bi, cross, inner.k, inner.alpha, inner.floor)
    return inner


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
        self._cascade: Any = None
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

    def for_question(self, question: str) -> Any:
        """A question scorer that checks for cancellation between chunks."""
        from pathrag_gds.scoring import CascadeScorer

        inner = self.inner
        if isinstance(inner, CascadeScorer):
            if self._cascade is None:
                self._cascade = interruptible_inner(inner, self.chunk)
            return self._cascade.for_question(question)
        return _ChunkedQuestionScorer(inner.for_question(question), self.chunk)


class ApiPathRag(PathRag):
    """The server's service: each query scores with its community's scorer, interruptibly.

    `PathRag.scorer_for` picks the community's scorer (tuned cascade or bi-encoder) unless a scorer
    was passed in; this subclass keeps that choice and wraps the pick in :class:`InterruptibleScorer`.
    """

    def __init__(self, settings: Settings) -> None:
        super().__init__(settings)
        self._wrapped: dict[int, InterruptibleScorer] = {}
        self._wrap_lock = threading.Lock()

    def scorer_for(self, community_id: str | None) -> Any:
        """The community's scorer (tuned cascade or bi-encoder, as `get_scorer` picks it), interruptible.

        `get_scorer` is asked directly: `PathRag.scorer_for` would return the default scorer for every
        community once `PathRag.scorer` has been read (warm-up and `/readyz` read it).
        """
        from pathrag_gds.scoring import get_scorer

        inner = get_scorer(self.settings, community_id)
        with self._wrap_lock:
            wrapped = self._wrapped.get(id(inner))
            if wrapped is None:
                wrapped = self._wrapped[id(inner)] = InterruptibleScorer(self.settings, inner)
        return wrapped
