"""The cascade scorer: the bi-encoder ranks a depth's texts, the cross-encoder re-scores its best `k`."""

from __future__ import annotations

import threading
from collections.abc import Sequence

from pathrag_gds.backend.batching import check_texts
from pathrag_gds.errors import InvalidInput
from pathrag_gds.scoring.base import QuestionScorer, Scorer
from pathrag_gds.scoring.bi_encoder import BiEncoderScorer
from pathrag_gds.scoring.cross_encoder import CrossEncoderScorer


class CascadeScorer(Scorer):
    """Bi-encoder for every text, cross-encoder for the bi-encoder's best `k` of each batch.

    One batch (one depth of the search: the texts not scored before in the query) gets scores on
    ONE scale:

    - the top `k` texts by bi-encoder cosine `b` get `alpha * max(c, floor) + (1 - alpha) * b`, with
      `c` the cross-encoder score (sigmoid, in (0, 1)); `alpha = 1` is the cross-encoder alone. Under
      `floor` the cross-encoder's verdicts count as equal: it was trained to score every wrong path
      0, so its order among the paths it rejects is noise, and the bi-encoder's order (and
      tie-break) stands there;
    - every other text gets `lo - (b_k - b) - 1e-6`, where `lo` is the lowest top-`k` score and
      `b_k` the lowest bi-encoder cosine among the top `k` (`b <= b_k`): strictly below every
      top-`k` score, in the bi-encoder's order, falling off with the cosine gap.

    Why `alpha < 1` can matter: the search drops paths under `min_score` (0.10) at every depth, so a
    cross-encoder that scores a right chain's first hops near 0 empties the beam before the answer
    (measured on MetaQA 3-hop, docs/benchmarks.md); the bi-encoder share keeps partial chains above
    the cut while the cross-encoder still decides the order.

    With `k = 0` or a batch of at most `k` texts, every text gets the top-`k` formula.

    Attributes:
        bi: the bi-encoder (its text embeddings are cached across queries).
        cross: the cross-encoder.
        k: texts per batch the cross-encoder re-scores.
        alpha: weight of the cross-encoder in the top-`k` scores.
        floor: cross-encoder scores under it count as equal (0: none).
        cross_texts: texts the cross-encoder has scored (all queries).
    """

    def __init__(
        self, bi: BiEncoderScorer, cross: CrossEncoderScorer, k: int, alpha: float = 1.0, floor: float = 0.0
    ) -> None:
        """Combine `bi` and `cross`; `k` >= 0 (0: the cross-encoder scores every text)."""
        if k < 0:
            raise InvalidInput(f"cascade k must be >= 0 (got {k})")
        if not 0.0 <= alpha <= 1.0:
            raise InvalidInput(f"cascade alpha must be in [0, 1] (got {alpha})")
        if not 0.0 <= floor < 1.0:
            raise InvalidInput(f"cascade floor must be in [0, 1) (got {floor})")
        self.bi = bi
        self.cross = cross
        self.k = k
        self.alpha = alpha
        self.floor = floor
        self.name = f"cascade:{cross.model_dir.name}@{k}" + ("" if alpha == 1.0 else f"a{alpha:g}")
        self.name += f"f{floor:g}" if floor else ""
        self.cross_texts = 0
        self._lock = threading.Lock()

    def _combine(self, question: str, texts: list[str], bi_scores: list[float]) -> list[float]:
        n = len(texts)
        if n == 0:
            return []
        if self.k == 0 or n <= self.k:
            top = list(range(n))
        else:
            top = sorted(range(n), key=lambda i: (-bi_scores[i], i))[: self.k]
        cross = self.cross.score(question, [texts[i] for i in top])
        with self._lock:
            self.cross_texts += len(top)
        out = [0.0] * n
        a = self.alpha
        for i, c in zip(top, cross, strict=True):
            out[i] = a * max(c, self.floor) + (1.0 - a) * bi_scores[i]
        if len(top) < n:
            chosen = set(top)
            lo = min(out[i] for i in top)
            b_k = min(bi_scores[i] for i in top)
            for i in range(n):
                if i not in chosen:
                    out[i] = lo - max(b_k - bi_scores[i], 0.0) - 1e-6
        return out

    def score(self, question: str, texts: Sequence[str]) -> list[float]:
        """One batch on the cross-encoder's scale (see the class docstring)."""
        items = check_texts(texts)
        return self._combine(question, items, self.bi.score(question, items))

    def for_question(self, question: str) -> QuestionScorer:
        """Embed the question once; each call (a depth batch) is cascaded on its new texts.

        Equal cascade scores are broken as the bi-encoder breaks its own (:meth:`QuestionScorer.ties`;
        the sentence-pooled one: the best hop sentence), not by path key. Exact ties are rare once a
        cross-encoder has scored the texts (none changed a #1 on Bob or MetaQA dev, measured at ee682e5);
        they remain among texts scored alike, e.g. those outside the top `k` with equal cosines.
        """
        bi = self.bi.for_question(question)
        return QuestionScorer(
            question, lambda texts: self._combine(question, list(texts), bi.score(texts)), bi.ties
        )
