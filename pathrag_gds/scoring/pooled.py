"""The sentence-pooled bi-encoder: each distinct sentence of the path texts embedded once, then pooled."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Literal

import numpy as np

from pathrag_gds.backend.batching import F32Array, check_texts
from pathrag_gds.backend.vector_store import VectorStore
from pathrag_gds.encoders import Embedder
from pathrag_gds.errors import InvalidInput
from pathrag_gds.scoring.base import QuestionScorer
from pathrag_gds.scoring.bi_encoder import BiEncoderScorer
from pathrag_gds.serialize import SEPARATOR

#: Where serialize.py ends a sentence: a full stop followed by the space that joins the next one.
_SENTENCE_END = re.compile(r"(?<=\.) +(?=\S)")

Pooling = Literal["mean", "max"]


def split_path_text(text: str) -> tuple[list[str], list[str]]:
    """Split a serialized path text into its hop sentences and its entity sentences.

    :func:`pathrag_gds.serialize.serialize_path` writes `chain summary ||| entity texts`, each part
    a run of sentences that end in `.` and are joined by one space. A value that holds `. ` itself
    (a multi-sentence description, "St. Louis") is split there too, which only makes its pieces
    shorter. A text without the separator is all hop sentences.

    Example:
        >>> split_path_text("Bob is owned by Jane. ||| Bob is a Animal. Jane is a Person.")
        (['Bob is owned by Jane.'], ['Bob is a Animal.', 'Jane is a Person.'])
    """
    head, sep, tail = text.partition(SEPARATOR.strip())
    hops = [x for x in _SENTENCE_END.split(head.strip()) if x]
    entities = [x for x in _SENTENCE_END.split(tail.strip()) if x] if sep else []
    if not hops and not entities:
        hops = [text.strip() or text]
    return hops, entities


class PooledBiEncoderScorer(BiEncoderScorer):
    """Bi-encoder over sentences: each distinct sentence embedded once, pooled into a path vector.

    Path texts are runs of short sentences ("Bob is owned by Jane.", "Bob's fur color is orange.")
    that repeat across the paths of a query and across queries. This scorer splits each text with
    :func:`split_path_text`, embeds every sentence it has not seen before (LRU cache, `cache_size`
    sentences; short sequences are an order of magnitude cheaper than a 128-token text), and pools:

    - `pooling="mean"`: path vector = unit(`hop_weight` x sum of hop sentence embeddings +
      `entity_weight` x sum of entity sentence embeddings); score = cosine with the question;
    - `pooling="max"` (default): score = the best cosine between the question and any sentence of
      the text (the weights do not apply).

    On the Bob suite and MetaQA dev (docs/benchmarks.md) `max` was 7x faster than the full-text
    scorer on a cold cache and 18x over a run, with MetaQA Hits@1 at or above it on every hop.

    Scores are cosines, in [-1, 1]. A text of one sentence scores exactly as that sentence does.

    Example:
        >>> scorer = PooledBiEncoderScorer(Embedder.load())  # doctest: +SKIP
        >>> scorer.score("Who owns Bob?", ["Bob is owned by Jane. ||| Bob is a Animal."])  # doctest: +SKIP
        [0.6...]
    """

    def __init__(
        self,
        embedder: Embedder,
        cache_size: int = 100000,
        *,
        hop_weight: float = 2.0,
        entity_weight: float = 1.0,
        pooling: Pooling = "max",
        mean_weight: float = 0.0,
        store: VectorStore | None = None,
    ) -> None:
        """Score with `embedder`; keep up to `cache_size` sentence embeddings (0 disables the cache).

        Args:
            embedder: the sentence embedding model.
            cache_size: sentence embeddings kept across queries (about 1.5 KB each).
            hop_weight: weight of a hop sentence (the chain summary) in the mean (`pooling="mean"`).
            entity_weight: weight of an entity sentence in the mean (0: hop sentences only).
            pooling: `"max"` (best sentence cosine; the default, see docs/benchmarks.md) or `"mean"`
                (weighted mean of embeddings).
            mean_weight: with `pooling="max"`, score = `(1 - w) x best + w x mean` sentence cosine:
                the mean breaks ties among paths that share their best sentence, in favour of paths
                whose other sentences are on topic too (a hop past the answer lowers it).
            store: sentence embeddings kept on disk across processes (`backend/vector_store.py`).

        Raises:
            InvalidInput: negative weights, both zero, or an unknown pooling.
        """
        if pooling not in ("mean", "max"):
            raise InvalidInput(f"pooling must be 'mean' or 'max', got {pooling!r}")
        if hop_weight < 0 or entity_weight < 0 or hop_weight + entity_weight <= 0:
            raise InvalidInput("sentence weights must be >= 0 and not both 0")
        super().__init__(embedder, cache_size, store)
        self.hop_weight = float(hop_weight)
        self.entity_weight = float(entity_weight)
        self.pooling: Pooling = pooling
        if not 0.0 <= mean_weight <= 1.0:
            raise InvalidInput(f"mean_weight must be in [0, 1], got {mean_weight}")
        self.mean_weight = float(mean_weight)
        self.name = "bi-encoder:sentences" + (
            "" if pooling == "max" else f"[{pooling},h{hop_weight:g},e{entity_weight:g}]"
        )
        self.sentences_embedded = 0

    def embed_sentences(self, sentences: Sequence[str]) -> F32Array:
        """Unit-length embeddings of single sentences (`(n, dim)`), through the cross-query cache."""
        before = self.cache_misses
        out = BiEncoderScorer.embed_texts(self, sentences)
        self.sentences_embedded += self.cache_misses - before
        return out

    def _split(self, texts: Sequence[str]) -> tuple[list[tuple[list[int], list[float]]], F32Array]:
        """Per text: (row indices into the sentence matrix, weights); and the sentence matrix."""
        rows: dict[str, int] = {}
        parts: list[tuple[list[int], list[float]]] = []
        for text in texts:
            hops, ents = split_path_text(text)
            idx: list[int] = []
            weights: list[float] = []
            for group, w in ((hops, self.hop_weight), (ents, self.entity_weight)):
                if w <= 0 and self.pooling == "mean":
                    continue
                for sentence in group:
                    idx.append(rows.setdefault(sentence, len(rows)))
                    weights.append(w)
            if not idx:  # e.g. entity_weight 0 and a text without hop sentences
                for sentence in hops + ents:
                    idx.append(rows.setdefault(sentence, len(rows)))
                    weights.append(1.0)
            parts.append((idx, weights))
        return parts, self.embed_sentences(list(rows))

    def embed_texts(self, texts: Sequence[str]) -> F32Array:
        """Unit-length pooled path vectors (`(n, dim)`): the weighted mean of sentence embeddings."""
        items = check_texts(texts)
        out = np.zeros((len(items), self.embedder.dim), dtype=np.float32)
        if not items:
            return out
        parts, matrix = self._split(items)
        for i, (idx, weights) in enumerate(parts):
            out[i] = np.asarray(weights, dtype=np.float32) @ matrix[idx]
        return self._unit(out)

    def for_question(self, question: str) -> QuestionScorer:
        """As :meth:`BiEncoderScorer.for_question`, with the best hop sentence as the tie-break.

        Every path through an entity holds the entity's sentences; when one of them is the best
        sentence, such paths tie on the score, and the one whose own hops fit the question better
        should win (not the first by path key). Applied after the path length (:mod:`beam`).
        """
        qv = self.embed_question(question)
        return QuestionScorer(
            question, lambda texts: self._score_vector(qv, texts), lambda texts: self._hop_fit(qv, texts)
        )

    def _hop_fit(self, qv: F32Array, texts: Sequence[str]) -> list[float]:
        """Best cosine of each text's hop sentences (its best sentence when it has no hop)."""
        out = []
        for text in texts:
            hops, ents = split_path_text(text)
            out.append(float((self.embed_sentences(hops or ents) @ qv).max()))
        return out

    def _score_vector(self, qv: F32Array, texts: Sequence[str]) -> list[float]:
        if not texts:
            return []
        if self.pooling == "mean":
            return [float(np.clip(x, -1.0, 1.0)) for x in self.embed_texts(texts) @ qv]
        parts, matrix = self._split(check_texts(texts))
        cos = matrix @ qv
        w = self.mean_weight
        return [
            float(np.clip((1.0 - w) * cos[idx].max() + w * cos[idx].mean(), -1.0, 1.0)) for idx, _ in parts
        ]
