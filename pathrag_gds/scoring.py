"""Path-text scorers behind one small interface: `score(question, texts) -> list[float]`.

- :class:`PooledBiEncoderScorer` (default, `Settings.bi_encoder_pooling="sentences"`): the
  bi-encoder over the distinct sentences of the path texts (cached across paths and queries), the
  best sentence cosine per text.
- :class:`BiEncoderScorer` (`bi_encoder_pooling="full"`): cosine between the question's embedding
  and each whole text's, with the committed embedding model. Text embeddings do not depend on the
  question, so they are cached across queries (LRU).
- :class:`CrossEncoderScorer`: any exported ONNX cross-encoder (`models export --cross-encoder PATH`),
  scores passed through a sigmoid or returned as raw logits.
- :class:`CascadeScorer`: the bi-encoder ranks every text of a depth batch, the cross-encoder
  re-scores only its best `k` (`Settings.cascade_k`). :func:`get_scorer` uses it for a community
  that has a tuned model (`models/tuned-<community>/`, written by `python -m pathrag_gds tune`).

Within one query, :meth:`Scorer.for_question` gives a :class:`QuestionScorer` that never scores the
same text twice.

Example:
    >>> scorer = get_scorer()  # doctest: +SKIP
    >>> qs = scorer.for_question("Where was Marie Curie born?")  # doctest: +SKIP
    >>> qs.score(["Marie Curie was born in Warsaw.", "Marie Curie won the Nobel Prize."])  # doctest: +SKIP
    [0.71..., 0.52...]
"""

from __future__ import annotations

import logging
import re
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Literal, Protocol

import numpy as np

from pathrag_gds.backend.batching import (
    DEFAULT_BATCH_SIZE,
    F32Array,
    check_texts,
    independent_batch_size,
    length_sorted_batches,
    pad_batch,
)
from pathrag_gds.backend.model_folder import (
    EXPORT_HINT,
    MODEL_FILES,
    check_model_dir,
    load_tokenizer,
    read_json,
    resolve_quantization,
    resolve_threads,
)
from pathrag_gds.backend.session import get_session
from pathrag_gds.config import Settings, get_settings
from pathrag_gds.encoders import Embedder, get_embedder
from pathrag_gds.errors import InvalidInput, ModelError
from pathrag_gds.serialize import SEPARATOR

Activation = Literal["sigmoid", "raw"]

log = logging.getLogger(__name__)

#: The hint logged once when a community has no tuned cross-encoder.
TUNE_HINT = (
    "no tuned cross-encoder for community {community!r}: scoring with the bi-encoder alone; "
    "`python -m pathrag_gds tune --community {community}` trains one for this graph "
    "(see docs/tuning.md for when it helps)"
)


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


def _check_question(question: str) -> str:
    if not isinstance(question, str) or not question.strip():
        raise InvalidInput("the question is empty: ask something, e.g. 'Where was Marie Curie born?'")
    return question


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

    def __init__(self, embedder: Embedder, cache_size: int = 50000) -> None:
        """Score with `embedder`; keep up to `cache_size` text embeddings (0 disables the cache)."""
        self.embedder = embedder
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
            self.cache_hits += len(items) - len(missing)
            self.cache_misses += len(missing)
            known = {t: self._cache[t] for t in items if t in self._cache}
        if missing:
            vectors = self._unit(self.embedder.encode(missing))
            new = dict(zip(missing, vectors, strict=True))
            known.update(new)
            if self.cache_size > 0:
                with self._lock:
                    for t, v in new.items():
                        self._cache[t] = v
                        self._cache.move_to_end(t)
                    while len(self._cache) > self.cache_size:
                        self._cache.popitem(last=False)
        for i, t in enumerate(items):
            out[i] = known[t]
        return out

    @staticmethod
    def _unit(x: F32Array) -> F32Array:
        norms = np.linalg.norm(x, axis=1, keepdims=True)
        out: F32Array = (x / np.clip(norms, 1e-12, None)).astype(np.float32)
        return out

    def embed_question(self, question: str) -> F32Array:
        """Unit-length embedding of the question (`(dim,)`).

        The embedder's encoding of it, shared with the rest of the query (`Embedder.encode_question`).
        """
        vec: F32Array = self._unit(self.embedder.encode_question(_check_question(question))[None, :])[0]
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

        Raises:
            InvalidInput: negative weights, both zero, or an unknown pooling.
        """
        if pooling not in ("mean", "max"):
            raise InvalidInput(f"pooling must be 'mean' or 'max', got {pooling!r}")
        if hop_weight < 0 or entity_weight < 0 or hop_weight + entity_weight <= 0:
            raise InvalidInput("sentence weights must be >= 0 and not both 0")
        super().__init__(embedder, cache_size)
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


class CrossEncoderScorer(Scorer):
    """Any ONNX cross-encoder exported by `python -m pathrag_gds models export --cross-encoder PATH`.

    The model reads `(question, text)` pairs (truncated longest-first at its max length) and outputs
    logits. With one logit, the score is `sigmoid(logit)` (`activation="sigmoid"`) or the logit
    itself (`"raw"`); with two (not-relevant, relevant), it is the softmax probability of "relevant"
    or the logit difference.

    An ensemble (`tune --seeds N`) is one folder whose manifest lists `members`: sub-folders that hold
    the same kind of model trained with other seeds. The logits are the mean over the folder's own
    model and its members (one tokenization, N sessions).

    Example:
        >>> ce = CrossEncoderScorer.load(Path("models/my-reranker"), activation="raw")  # doctest: +SKIP
        >>> ce.score("capital of France?", ["Paris is the capital of France."])  # doctest: +SKIP
        [7.9...]
    """

    name = "cross-encoder"

    def __init__(
        self,
        model_dir: Path,
        *,
        activation: Activation = "sigmoid",
        quantization: str = "int8",
        threads: int = 1,
        batch_size: int = DEFAULT_BATCH_SIZE,
    ) -> None:
        """Open the folder; prefer :meth:`load`."""
        if activation not in ("sigmoid", "raw"):
            raise InvalidInput(f"activation must be 'sigmoid' or 'raw', got {activation!r}")
        check_model_dir(model_dir)
        manifest = read_json(model_dir / "manifest.json")
        if manifest.get("kind") != "cross-encoder":
            raise ModelError(
                f"{model_dir} holds a {manifest.get('kind', 'unknown')!r} model, not a cross-encoder: "
                "export one "
                "with `python -m pathrag_gds models export --cross-encoder PATH`"
            )
        self.model_dir = model_dir
        self.activation = activation
        self.quantization = quantization
        self.batch_size = batch_size
        self.max_length = int(manifest["max_length"])
        self.num_labels = int(manifest.get("num_labels", 1))
        if self.num_labels not in (1, 2):
            raise ModelError(f"{model_dir}: {self.num_labels} output labels; a reranker needs 1 or 2")
        self.tokenizer = load_tokenizer(model_dir, self.max_length)
        pad = self.tokenizer.token_to_id("[PAD]")
        self.pad_id = 0 if pad is None else pad
        path = model_dir / MODEL_FILES[quantization]
        if not path.is_file():
            raise ModelError(
                f"{path} not found: export the cross-encoder with "
                f"`python -m pathrag_gds models export --cross-encoder PATH` ({EXPORT_HINT})"
            )
        self.session = get_session(path, threads)
        self.sessions = [self.session] + [
            get_session(self._member_file(model_dir, str(m), quantization), threads)
            for m in manifest.get("members", [])
        ]
        self._inputs = {i.name for i in self.session.get_inputs()}
        n = len(self.sessions)
        self.name = f"cross-encoder:{model_dir.name}" + (f"x{n}" if n > 1 else "")

    def _member_file(self, model_dir: Path, member: str, quantization: str) -> Path:
        """The model file of one ensemble member, checked against the folder's own model."""
        folder = model_dir / member
        rerun = "rerun `python -m pathrag_gds tune`"
        if not (folder / "manifest.json").is_file():
            raise ModelError(f"{model_dir}: ensemble member {member!r} has no manifest.json; {rerun}")
        manifest = read_json(folder / "manifest.json")
        same = (
            manifest.get("kind") == "cross-encoder"
            and int(manifest.get("max_length", -1)) == self.max_length
            and int(manifest.get("num_labels", 1)) == self.num_labels
        )
        if not same:
            raise ModelError(
                f"{folder}: not a cross-encoder with the ensemble's max_length {self.max_length} and "
                f"{self.num_labels} output label(s); {rerun}"
            )
        path = folder / MODEL_FILES[quantization]
        if not path.is_file():
            raise ModelError(f"{path} not found: {rerun} ({EXPORT_HINT})")
        return path

    @classmethod
    def load(
        cls,
        model_dir: Path,
        *,
        activation: Activation = "sigmoid",
        quantization: str = "int8",
        threads: int | None = None,
    ) -> CrossEncoderScorer:
        """Open an exported cross-encoder folder.

        Args:
            model_dir: the folder `models export --cross-encoder` wrote.
            activation: `"sigmoid"` (scores in (0, 1)) or `"raw"` (logits).
            quantization: `"int8"` (default) or `"fp32"`.
            threads: onnxruntime intra-op threads; default `Settings.threads`.

        Raises:
            ModelError: the folder is missing, not a cross-encoder, or lacks the model file.
        """
        return cls(
            Path(model_dir),
            activation=activation,
            quantization=resolve_quantization(quantization, None),
            threads=resolve_threads(threads, None),
        )

    def logits(self, question: str, texts: Sequence[str]) -> F32Array:
        """Raw model outputs, `(len(texts), num_labels)` (an ensemble: the members' mean)."""
        items = [t.strip() for t in check_texts(texts)]
        q = _check_question(question).strip()
        out = np.zeros((len(items), self.num_labels), dtype=np.float32)
        if not items:
            return out
        encodings = self.tokenizer.encode_batch([(q, t) for t in items])
        bs = independent_batch_size(self.quantization, self.batch_size)
        for idx in length_sorted_batches([len(e.ids) for e in encodings], bs):
            ids, mask, types = pad_batch([encodings[i] for i in idx], self.pad_id)
            feed = {"input_ids": ids, "attention_mask": mask}
            if "token_type_ids" in self._inputs:
                feed["token_type_ids"] = types
            runs = [np.asarray(sess.run(None, feed)[0], dtype=np.float32) for sess in self.sessions]
            out[idx] = np.mean(runs, axis=0).reshape(len(idx), -1)
        return out

    def score(self, question: str, texts: Sequence[str]) -> list[float]:
        """Relevance of each text to `question` (see the class docstring for the activation)."""
        z = self.logits(question, texts)
        if z.shape[0] == 0:
            return []
        x = z[:, 0] if self.num_labels == 1 else z[:, 1] - z[:, 0]
        if self.activation == "sigmoid":
            x = 1.0 / (1.0 + np.exp(-x.astype(np.float64)))
        return [float(v) for v in x]


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
        cross-encoder has scored the texts (none changed a #1 on Bob or MetaQA dev, docs/tuning.md);
        they remain among texts scored alike, e.g. those outside the top `k` with equal cosines.
        """
        bi = self.bi.for_question(question)
        return QuestionScorer(
            question, lambda texts: self._combine(question, list(texts), bi.score(texts)), bi.ties
        )


def tuned_model_dir(settings: Settings, community_id: str, models_dir: Path | None = None) -> Path:
    """Where `tune` puts the cross-encoder of a community: `models/tuned-<community>/`.

    Characters outside letters, digits, `.`, `_` and `-` become `_`.

    Example:
        >>> tuned_model_dir(Settings(), "metaqa", Path("models")).as_posix()
        'models/tuned-metaqa'
    """
    safe = re.sub(r"[^A-Za-z0-9._-]", "_", community_id)
    return (models_dir or settings.models_dir) / f"tuned-{safe}"


_scorers: dict[tuple[object, ...], Scorer] = {}
_scorers_lock = threading.Lock()
_hinted: set[str] = set()


def _bi_scorer(s: Settings) -> BiEncoderScorer:
    pooling = s.bi_encoder_pooling
    key: tuple[object, ...] = (str(s.models_dir / s.embedding_model), s.quantization, s.threads, pooling)
    scorer = _scorers.get(key)
    if scorer is None:
        emb = get_embedder(s)
        scorer = (
            PooledBiEncoderScorer(emb, mean_weight=s.pooled_mean_weight)
            if pooling == "sentences"
            else BiEncoderScorer(emb)
        )
        _scorers[key] = scorer
    assert isinstance(scorer, BiEncoderScorer)
    return scorer


def get_scorer(settings: Settings | None = None, community_id: str | None = None) -> Scorer:
    """The process-wide scorer for a query's community (cached).

    A :class:`CascadeScorer` (bi-encoder + the community's tuned cross-encoder, `Settings.cascade_k`)
    when `models/tuned-<community>/manifest.json` exists and `cascade_k` > 0; otherwise the
    :class:`BiEncoderScorer`, with a one-time hint to run `tune` for that community.

    Example:
        >>> get_scorer().name  # doctest: +SKIP
        'bi-encoder'
    """
    s = settings or get_settings()
    with _scorers_lock:
        bi = _bi_scorer(s)
        if community_id is None or s.cascade_k <= 0:
            return bi
        model_dir = tuned_model_dir(s, community_id)
        if not (model_dir / "manifest.json").is_file():
            if community_id not in _hinted:
                _hinted.add(community_id)
                log.warning(TUNE_HINT.format(community=community_id))
            return bi
        key: tuple[object, ...] = (
            "cascade",
            str(model_dir),
            s.quantization,
            s.threads,
            s.cascade_k,
            s.cascade_alpha,
            s.cascade_floor,
        )
        scorer = _scorers.get(key)
        if scorer is None:
            cross = CrossEncoderScorer.load(model_dir, quantization=s.quantization, threads=s.threads)
            scorer = CascadeScorer(bi, cross, s.cascade_k, s.cascade_alpha, s.cascade_floor)
            _scorers[key] = scorer
        return scorer


def reset_scorers() -> None:
    """Forget cached scorers and hints (tests, after `tune`)."""
    with _scorers_lock:
        _scorers.clear()
        _hinted.clear()
