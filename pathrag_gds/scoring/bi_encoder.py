"""The bi-encoder scorer: cosine between the question's and each whole text's embedding."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence

import numpy as np

from pathrag_gds.backend.batching import F32Array, check_texts
from pathrag_gds.backend.vector_store import VectorStore
from pathrag_gds.encoders import Embedder
from pathrag_gds.scoring.base import QuestionScorer, Scorer, check_question


class BiEncoderScorer(Scorer):
    """Cosine similarity between the question and each text, with the embedding model.

    Text embeddings are kept in an LRU cache across queries (`cache_size` texts, about 1.5 KB each
    for 384 dimensions), since they do not depend on the question.

    Example:
        >>> scorer = BiEncoderScorer(Embedder.load())  # doctest: +SKIP
        >>> texts = ["Paris is the capital of France.", "Bananas."]
        >>> scorer.score("capital of France?", texts)  # doctest: +SKIP
        [0.83..., 0.05...]
    """

    name = "bi-encoder"

    def __init__(self, embedder: Embedder, cache_size: int = 50000, store: VectorStore | None = None) -> None:
        """Score with `embedder`; keep up to `cache_size` text embeddings (0 disables the cache).

        `store`: embeddings kept on disk across processes, read before embedding and written after.
        """
        self.embedder = embedder
        self.store = store
        self.cache_size = cache_size
        self._cache: OrderedDict[str, F32Array] = OrderedDict()
        self._lock = threading.Lock()
        self.cache_hits = 0
        self.cache_misses = 0

    def embed_texts(self, texts: Sequence[str]) -> F32Array:
        """Unit-length embeddings of `texts` (`(n, dim)`), through the cross-query cache."""
        items = check_texts(texts)
        out = np.zeros((len(items), self.embedder.dim), dtype=np.float32)
        if not items:
            return out
        with self._lock:
            missing = []
            for t in dict.fromkeys(items):
                if t in self._cache:
                    self._cache.move_to_end(t)
                else:
                    missing.append(t)
            known = {t: self._cache[t] for t in items if t in self._cache}
        stored = self.store.get(missing) if self.store is not None and missing else {}
        missing = [t for t in missing if t not in stored]
        with self._lock:
            self.cache_hits += len(items) - len(missing)
            self.cache_misses += len(missing)
        known.update(stored)
        new = dict(stored)
        if missing:
            embedded = dict(zip(missing, self._unit(self.embedder.encode(missing)), strict=True))
            if self.store is not None:
                self.store.put(embedded)
            known.update(embedded)
            new.update(embedded)
        if new and self.cache_size > 0:
            with self._lock:
                for t, v in new.items():
                    self._cache[t] = v
                    self._cache.move_to_end(t)
                while len(self._cache) > self.cache_size:
                    self._cache.popitem(last=False)
        for i, t in enumerate(items):
            out[i] = known[t]
        return out

    def encode(self, texts: Sequence[str]) -> F32Array:
        """Whole-text unit embeddings through the caches, by the name intent's `Encoder` uses.

        Intent's type and relation texts are then read back from the store, not embedded anew by
        every process. Always each text whole, as the embedder gives it: a subclass that pools a
        path's sentences (:class:`PooledBiEncoderScorer`) does not pool these.
        """
        return BiEncoderScorer.embed_texts(self, texts)

    @staticmethod
    def _unit(x: F32Array) -> F32Array:
        norms = np.linalg.norm(x, axis=1, keepdims=True)
        out: F32Array = (x / np.clip(norms, 1e-12, None)).astype(np.float32)
        return out

    def embed_question(self, question: str) -> F32Array:
        """Unit-length embedding of the question (`(dim,)`).

        The embedder's encoding of it, shared with the rest of the query (`Embedder.encode_question`).
        """
        vec: F32Array = self._unit(self.embedder.encode_question(check_question(question))[None, :])[0]
        return vec

    def _score_vector(self, qv: F32Array, texts: Sequence[str]) -> list[float]:
        if not texts:
            return []
        return [float(x) for x in self.embed_texts(texts) @ qv]

    def score(self, question: str, texts: Sequence[str]) -> list[float]:
        """Cosine similarity in [-1, 1] between `question` and each text."""
        items = check_texts(texts)
        if not items:
            return []
        return self._score_vector(self.embed_question(question), items)

    def for_question(self, question: str) -> QuestionScorer:
        """Embed the question once; score texts against it with a per-query cache."""
        qv = self.embed_question(question)
        return QuestionScorer(question, lambda texts: self._score_vector(qv, texts))
