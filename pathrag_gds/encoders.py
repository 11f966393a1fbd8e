"""The sentence embedder of the query path: `tokenizers` + onnxruntime, no torch.

:class:`Embedder` reproduces sentence-transformers' `encode` (strip, tokenize with truncation at
`max_seq_length`, transformer, pooling as configured, normalisation when configured) with plain
onnxruntime sessions. Batches are sorted by length so little padding is computed. What a model
folder holds, the sessions, batching and pooling are in :mod:`pathrag_gds.backend`.

Example:
    >>> emb = Embedder.load()  # doctest: +SKIP
    >>> emb.encode(["Marie Curie won the Nobel Prize"]).shape  # doctest: +SKIP
    (1, 384)
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from tokenizers import Encoding, Tokenizer

from pathrag_gds.backend.batching import (
    DEFAULT_BATCH_SIZE,
    F32Array,
    I64Array,
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
from pathrag_gds.backend.pooling import PoolingConfig, l2_normalize, pool
from pathrag_gds.backend.session import clear_sessions, get_session
from pathrag_gds.backend.text_cache import TextVectorCache
from pathrag_gds.config import Settings, get_settings
from pathrag_gds.errors import InvalidInput, ModelError
from pathrag_gds.locations import find_model

#: Names other modules have imported from here; they live in :mod:`pathrag_gds.backend`.
__all__ = [
    "DEFAULT_BATCH_SIZE",
    "EXPORT_HINT",
    "MODEL_FILES",
    "QUESTION_CACHE",
    "Embedder",
    "F32Array",
    "I64Array",
    "PoolingConfig",
    "check_texts",
    "get_embedder",
    "independent_batch_size",
    "length_sorted_batches",
    "pad_batch",
    "pool",
    "read_json",
    "reset_embedders",
]

log = logging.getLogger(__name__)


class Embedder:
    """Sentence embeddings with an exported sentence-transformers model on onnxruntime.

    Attributes:
        dim: embedding dimension (384 for all-MiniLM-L6-v2).
        max_length: tokens per text including special tokens; longer texts are truncated (the tail
            is dropped), as sentence-transformers does.
        quantization: `"int8"` (default) or `"fp32"`.
        model_dir: the model folder.
        threads: onnxruntime intra-op threads.

    Example:
        >>> emb = Embedder.load(quantization="int8", threads=2)  # doctest: +SKIP
        >>> v = emb.encode(["Paris is the capital of France", "Berlin"])  # doctest: +SKIP
        >>> v.shape, float((v[0] ** 2).sum())  # doctest: +SKIP
        ((2, 384), 1.0)
    """

    dim: int
    max_length: int
    quantization: str

    def __init__(
        self,
        model_dir: Path,
        *,
        quantization: str = "int8",
        threads: int = 1,
        batch_size: int = DEFAULT_BATCH_SIZE,
    ) -> None:
        """Open the model folder; prefer :meth:`load` (reads defaults from settings)."""
        check_model_dir(model_dir)
        if quantization not in MODEL_FILES:
            raise InvalidInput(f"quantization must be one of {sorted(MODEL_FILES)}, got {quantization!r}")
        self.model_dir = model_dir
        self.quantization = quantization
        self.threads = threads
        self.batch_size = batch_size
        cfg = PoolingConfig.read(model_dir)
        self.dim = cfg.dim
        self.max_length = cfg.max_length
        self.pooling = cfg.mode
        self.normalize = cfg.normalize
        self.lowercase = cfg.lowercase
        self.model_path = model_dir / MODEL_FILES[quantization]
        if not self.model_path.is_file():
            hint = EXPORT_HINT
            if quantization == "fp32":
                hint = (
                    "the fp32 model is not committed; install the export tools with "
                    "`pip install -e .[train]` and run `python -m pathrag_gds models export`, "
                    "or use the int8 model (PATHRAG_QUANTIZATION=int8)"
                )
            raise ModelError(f"{self.model_path} not found: {hint}")
        self.tokenizer = load_tokenizer(model_dir, self.max_length)
        self._untruncated = Tokenizer.from_str(self.tokenizer.to_str())
        self._untruncated.no_truncation()
        pad = self.tokenizer.token_to_id("[PAD]")
        self.pad_id = 0 if pad is None else pad
        self.session = get_session(self.model_path, threads)
        self._inputs = {i.name for i in self.session.get_inputs()}
        self._output = self.session.get_outputs()[0].name
        missing = {"input_ids", "attention_mask"} - self._inputs
        if missing:
            raise ModelError(
                f"{self.model_path} lacks inputs {sorted(missing)}: re-export it ({EXPORT_HINT})"
            )
        #: questions and their parts, encoded once (:meth:`encode_question`, :meth:`encode_asked`)
        self.asked = TextVectorCache(lambda texts: self.encode(texts), maxsize=QUESTION_CACHE)
        out_dim = self.session.get_outputs()[0].shape[-1]
        if isinstance(out_dim, int) and out_dim != self.dim:
            raise ModelError(
                f"{self.model_path} outputs {out_dim}-dim vectors but the pooling config says {self.dim}: "
                f"the folder mixes two models; {EXPORT_HINT}"
            )

    @classmethod
    def load(
        cls,
        settings: Settings | None = None,
        *,
        quantization: str | None = None,
        model_dir: Path | None = None,
        threads: int | None = None,
    ) -> Embedder:
        """Open the embedding model named by the settings.

        Args:
            settings: defaults for everything below (`get_settings()` when None).
            quantization: `"int8"` or `"fp32"`; default `Settings.quantization` (int8).
            model_dir: the model folder; default `Settings.embedding_model` under `Settings.models_dir`
                (else the installed wheel's copy: `locations.find_model`).
            threads: onnxruntime intra-op threads; default `Settings.threads`.

        Returns:
            A ready embedder (its session is shared with other embedders on the same file).

        Raises:
            ModelError: the folder or a file in it is missing or unusable; the message says to run
                `python -m pathrag_gds models export`.
        """
        s = settings or get_settings()
        folder = Path(model_dir) if model_dir is not None else find_model(s.models_dir, s.embedding_model)
        return cls(
            folder,
            quantization=resolve_quantization(quantization, s),
            threads=resolve_threads(threads, s),
            batch_size=s.batch_size,
        )

    def _prepare(self, texts: Sequence[str]) -> list[str]:
        out = [t.strip() for t in check_texts(texts)]
        return [t.lower() for t in out] if self.lowercase else out

    def tokenize(self, texts: Sequence[str]) -> list[Encoding]:
        """Encodings (truncated at :attr:`max_length`, unpadded), as the model will see them."""
        return list(self.tokenizer.encode_batch(self._prepare(texts)))

    def token_count(self, text: str) -> int:
        """Tokens of `text` including the special tokens, before truncation.

        Example:
            >>> Embedder.load().token_count("hello world")  # doctest: +SKIP
            4
        """
        return len(self._untruncated.encode(self._prepare([text])[0]).ids)

    def run(self, ids: I64Array, mask: I64Array, types: I64Array) -> F32Array:
        """One forward pass: pooled (and normalised if configured) embeddings of a padded batch."""
        feed: dict[str, I64Array] = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self._inputs:
            feed["token_type_ids"] = types
        tokens = np.asarray(self.session.run([self._output], feed)[0], dtype=np.float32)
        pooled = pool(tokens, mask, self.pooling)
        return l2_normalize(pooled) if self.normalize else pooled

    def encode(
        self, texts: Sequence[str], *, batch_size: int | None = None, show_progress: bool = False
    ) -> F32Array:
        """Embed texts.

        Args:
            texts: strings; each is stripped and truncated at :attr:`max_length` tokens.
            batch_size: texts per forward pass (default: the settings' batch size).
            show_progress: show a progress bar over batches.

        Returns:
            `(len(texts), dim)` float32, rows in the order of `texts`, L2-normalised when the model's
            configuration has a Normalize module (all-MiniLM-L6-v2 has). `(0, dim)` for no texts.

        Raises:
            InvalidInput: `texts` is a bare string or holds a non-string.
        """
        encodings = self.tokenize(texts)
        out = np.zeros((len(encodings), self.dim), dtype=np.float32)
        if not encodings:
            return out
        bs = batch_size or self.batch_size
        if bs < 1:
            raise InvalidInput(f"batch_size must be >= 1, got {bs}")
        bs = independent_batch_size(self.quantization, bs)
        batches = list(length_sorted_batches([len(e.ids) for e in encodings], bs))
        progress: Any = None
        if show_progress:
            from pathrag_gds.progress import bar

            progress = bar(len(encodings), "encode", "text")
        for idx in batches:
            ids, mask, types = pad_batch([encodings[i] for i in idx], self.pad_id)
            out[idx] = self.run(ids, mask, types)
            if progress is not None:
                progress.update(len(idx))
        if progress is not None:
            progress.close()
        return out

    def encode_question(self, question: str) -> F32Array:
        """`encode([question])[0]`, computed once for the last :data:`QUESTION_CACHE` texts asked.

        A query reads its question's vector in more than one place (the seeds and the expansion's
        pre-sort in Neo4j, the bi-encoder's scores): with one embedder they share one encoding.
        The vector is read-only.
        """
        vec: F32Array = self.asked.vector(question)
        return vec

    def encode_asked(self, texts: Sequence[str]) -> F32Array:
        """`encode(texts)` for texts read from questions (windows, clauses), kept as questions are."""
        return self.asked.vectors(texts)

    def __repr__(self) -> str:
        return (
            f"Embedder({self.model_dir.name}, {self.quantization}, dim={self.dim}, "
            f"max_length={self.max_length}, threads={self.threads})"
        )


#: Question-side encodings an embedder keeps (:meth:`Embedder.encode_question`, `encode_asked`):
#: a question and its ~20 windows each, 384 float32 a text, 6 MB at most.
QUESTION_CACHE = 4096

_embedders: dict[tuple[str, str, int], Embedder] = {}
_embedders_lock = threading.Lock()


def get_embedder(settings: Settings | None = None) -> Embedder:
    """The process-wide embedder for `settings` (created once, thread-safe).

    Example:
        >>> get_embedder() is get_embedder()  # doctest: +SKIP
        True
    """
    s = settings or get_settings()
    key = (str(find_model(s.models_dir, s.embedding_model)), s.quantization, s.threads)
    with _embedders_lock:
        emb = _embedders.get(key)
        if emb is None:
            emb = Embedder.load(s)
            _embedders[key] = emb
        return emb


def reset_embedders() -> None:
    """Forget cached embedders and sessions (tests)."""
    with _embedders_lock:
        _embedders.clear()
    clear_sessions()
