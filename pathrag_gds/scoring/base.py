"""The scorer interface: `score(question, texts)`, and a per-query :class:`QuestionScorer` that caches."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Protocol

from pathrag_gds.backend.batching import check_texts
from pathrag_gds.errors import InvalidInput


class QuestionScorer:
    """Scores texts against one question, each distinct text at most once.

    Attributes:
        question: the question.
        calls: how many times :meth:`score` was called.
        texts_scored: how many texts went to the model (distinct, never seen before in this query).

    Example:
        >>> qs = QuestionScorer("q", lambda texts: [float(len(t)) for t in texts])
        >>> qs.score(["ab", "abc", "ab"]), qs.score(["abc", "x"])
        ([2.0, 3.0, 2.0], [3.0, 1.0])
        >>> qs.calls, qs.texts_scored, qs.ties(["ab"])
        (2, 3, [0.0])
    """

    def __init__(
        self,
        question: str,
        score_fn: Callable[[Sequence[str]], list[float]],
        tie_fn: Callable[[Sequence[str]], list[float]] | None = None,
    ) -> None:
        """Wrap `score_fn(texts) -> scores` (already bound to `question`) with a per-text cache.

        `tie_fn(texts)`, when given, says which of two equal scores is better (:meth:`ties`).
        """
        self.question = question
        self._score_fn = score_fn
        self._tie_fn = tie_fn
        self._cache: dict[str, float] = {}
        self._lock = threading.Lock()
        self.calls = 0
        self.texts_scored = 0

    def score(self, texts: Sequence[str]) -> list[float]:
        """Scores of `texts` in order; texts seen before in this query come from the cache.

        Returns:
            One float per text (`[]` for no texts).
        """
        items = check_texts(texts)
        with self._lock:
            self.calls += 1
            missing = list(dict.fromkeys(t for t in items if t not in self._cache))
            if missing:
                scores = self._score_fn(missing)
                self.texts_scored += len(missing)
                self._cache.update(zip(missing, scores, strict=True))
            return [self._cache[t] for t in items]

    def ties(self, texts: Sequence[str]) -> list[float]:
        """Tie-break values of `texts` (higher wins among equal scores; all 0.0 without a `tie_fn`)."""
        if self._tie_fn is None or not texts:
            return [0.0] * len(texts)
        return self._tie_fn(check_texts(texts))

    def __len__(self) -> int:
        return len(self._cache)


class Scorer(Protocol):
    """Scores path texts against a question; higher is more relevant."""

    name: str

    def score(self, question: str, texts: Sequence[str]) -> list[float]:
        """One score per text, in order (`[]` for no texts)."""
        ...

    def for_question(self, question: str) -> QuestionScorer:
        """A scorer bound to `question` that caches scores by text for one query."""
        return QuestionScorer(question, lambda texts: self.score(question, texts))


def check_question(question: str) -> str:
    """The question, or :class:`InvalidInput` when it is empty."""
    if not isinstance(question, str) or not question.strip():
        raise InvalidInput("the question is empty: ask something, e.g. 'Where was Marie Curie born?'")
    return question
