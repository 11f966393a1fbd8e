"""Path-text scorers behind one small interface: `score(question, texts) -> list[float]`.

- :class:`BiEncoderScorer` (default, offline): cosine between the question's embedding and each
  text's, with the committed embedding model. Text embeddings do not depend on the question, so they
  are cached across queries (LRU).
- :class:`CrossEncoderScorer`: any exported ONNX cross-encoder (`models export --cross-encoder PATH`),
  scores passed through a sigmoid or returned as raw logits.

Within one query, :meth:`Scorer.for_question` gives a :class:`QuestionScorer` that never scores the
same text twice.

Example:
    >>> scorer = get_scorer()  # doctest: +SKIP
    >>> qs = scorer.for_question("Where was Marie Curie born?")  # doctest: +SKIP
    >>> qs.score(["Marie Curie was born in Warsaw.", "Marie Curie won the Nobel Prize."])  # doctest: +SKIP
    [0.71..., 0.52...]
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Literal, Protocol

import numpy as np

from pathrag_gds.config import Settings, get_settings
from pathrag_gds.encoders import (
    DEFAULT_BATCH_SIZE,
    EXPORT_HINT,
    MODEL_FILES,
    Embedder,
    F32Array,
    check_model_dir,
    check_texts,
    get_embedder,
    get_session,
    length_sorted_batches,
    load_tokenizer,
    pad_batch,
    read_json,
    resolve_quantization,
    resolve_threads,
)
from pathrag_gds.errors import InvalidInput, ModelError

Activation = Literal["sigmoid", "raw"]


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
        >>> qs.calls, qs.texts_scored
        (2, 3)
    """

    def __init__(self, question: str, score_fn: Callable[[Sequence[str]], list[float]]) -> None:
        """Wrap `score_fn(texts) -> scores` (already bound to `question`) with a per-text cache."""
        self.question = question
        self._score_fn = score_fn
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
        """Unit-length embedding of the question (`(dim,)`), not cached."""
        vec: F32Array = self._unit(self.embedder.encode([_check_question(question)]))[0]
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


class CrossEncoderScorer(Scorer):
    """Any ONNX cross-encoder exported by `python -m pathrag_gds models export --cross-encoder PATH`.

    The model reads `(question, text)` pairs (truncated longest-first at its max length) and outputs
    logits. With one logit, the score is `sigmoid(logit)` (`activation="sigmoid"`) or the logit
    itself (`"raw"`); with two (not-relevant, relevant), it is the softmax probability of "relevant"
    or the logit difference.

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
        self._inputs = {i.name for i in self.session.get_inputs()}
        self.name = f"cross-encoder:{model_dir.name}"

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
        """Raw model outputs, `(len(texts), num_labels)`."""
        items = [t.strip() for t in check_texts(texts)]
        q = _check_question(question).strip()
        out = np.zeros((len(items), self.num_labels), dtype=np.float32)
        if not items:
            return out
        encodings = self.tokenizer.encode_batch([(q, t) for t in items])
        for idx in length_sorted_batches([len(e.ids) for e in encodings], self.batch_size):
            ids, mask, types = pad_batch([encodings[i] for i in idx], self.pad_id)
            feed = {"input_ids": ids, "attention_mask": mask}
            if "token_type_ids" in self._inputs:
                feed["token_type_ids"] = types
            out[idx] = np.asarray(self.session.run(None, feed)[0], dtype=np.float32).reshape(len(idx), -1)
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


_scorers: dict[tuple[str, str, int], Scorer] = {}
_scorers_lock = threading.Lock()


def get_scorer(settings: Settings | None = None) -> Scorer:
    """The process-wide scorer: a :class:`BiEncoderScorer` over :func:`get_embedder` (cached).

    Example:
        >>> get_scorer().name  # doctest: +SKIP
        'bi-encoder'
    """
    s = settings or get_settings()
    key = (str(s.models_dir / s.embedding_model), s.quantization, s.threads)
    with _scorers_lock:
        scorer = _scorers.get(key)
        if scorer is None:
            scorer = BiEncoderScorer(get_embedder(s))
            _scorers[key] = scorer
        return scorer


def reset_scorers() -> None:
    """Forget cached scorers (tests)."""
    with _scorers_lock:
        _scorers.clear()
