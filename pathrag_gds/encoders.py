"""Text encoders for the query path: `tokenizers` + onnxruntime, no torch.

A model folder (written by `python -m pathrag_gds models export`, the int8 embedding model is committed
under `models/all-MiniLM-L6-v2/`) holds:

- `model_int8.onnx` and/or `model_fp32.onnx`: the transformer, inputs `input_ids`, `attention_mask`
  (and `token_type_ids` when the model has them), output the token embeddings (or logits for a
  cross-encoder);
- `tokenizer.json`: the fast tokenizer;
- the sentence-transformers configuration: `modules.json`, `sentence_bert_config.json` (max length,
  lower-casing), `1_Pooling/config.json` (pooling mode) and a `Normalize` module when the model
  normalises;
- `manifest.json`: source, licence, sha256, dimension, max length, quantization.

:class:`Embedder` reproduces sentence-transformers' `encode` (strip, tokenize with truncation at
`max_seq_length`, transformer, pooling as configured, normalisation when configured) with plain
onnxruntime sessions. Batches are sorted by length so little padding is computed.

Example:
    >>> emb = Embedder.load()  # doctest: +SKIP
    >>> emb.encode(["Marie Curie won the Nobel Prize"]).shape  # doctest: +SKIP
    (1, 384)
"""

from __future__ import annotations

import json
import logging
import threading
from collections import OrderedDict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import onnxruntime as ort
from tokenizers import Encoding, Tokenizer

from pathrag_gds.config import Settings, get_settings
from pathrag_gds.errors import InvalidInput, ModelError

log = logging.getLogger(__name__)

#: What to tell a user whose models folder is missing or incomplete.
EXPORT_HINT = (
    "run `python -m pathrag_gds models export` (the int8 embedding model is committed under models/; "
    "the fp32 one needs `pip install -e .[train]` first), or point PATHRAG_MODELS_DIR at a models folder"
)

#: File name of each quantization inside a model folder.
MODEL_FILES = {"int8": "model_int8.onnx", "fp32": "model_fp32.onnx"}

#: Default number of texts per inference batch (texts are sorted by length first).
DEFAULT_BATCH_SIZE = 32

F32Array = npt.NDArray[np.float32]
I64Array = npt.NDArray[np.int64]


# --------------------------------------------------------------------------------------------------
# ONNX session plumbing (shared with the cross-encoder scorer)
# --------------------------------------------------------------------------------------------------

_sessions: dict[tuple[str, int], ort.InferenceSession] = {}
_sessions_lock = threading.Lock()


def session_options(threads: int) -> ort.SessionOptions:
    """Session options for the query path: `threads` intra-op threads, all graph optimisations.

    Args:
        threads: intra-op threads (matrix multiplications run on this many cores).

    Returns:
        Options with ORT_ENABLE_ALL, sequential execution, one inter-op thread, and intra-op threads
        that sleep instead of spinning while they wait: on a shared, loaded machine spinning threads
        steal the cores the other thread needs (2 busy cores, load ~10: 35% more sentences/s and 15%
        more 128-token texts/s without spinning; docs/benchmarks.md).
    """
    opts = ort.SessionOptions()
    opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    opts.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    opts.intra_op_num_threads = threads
    opts.inter_op_num_threads = 1
    opts.log_severity_level = 3
    opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
    return opts


def get_session(path: Path, threads: int) -> ort.InferenceSession:
    """One shared (thread-safe) onnxruntime session per model file and thread count.

    Args:
        path: the `.onnx` file.
        threads: intra-op threads.

    Returns:
        The cached session (`InferenceSession.run` may be called from several threads at once).

    Raises:
        ModelError: the file is missing or onnxruntime cannot load it.
    """
    key = (str(path.resolve()), threads)
    with _sessions_lock:
        session = _sessions.get(key)
        if session is not None:
            return session
        if not path.is_file():
            raise ModelError(f"model file {path} not found: {EXPORT_HINT}")
        try:
            session = ort.InferenceSession(
                str(path), sess_options=session_options(threads), providers=["CPUExecutionProvider"]
            )
        except Exception as exc:  # onnxruntime raises its own exception types (Fail, InvalidGraph, ...)
            raise ModelError(
                f"cannot load model {path} ({exc.__class__.__name__}: {exc}): {EXPORT_HINT}"
            ) from exc
        _sessions[key] = session
        return session


def clear_sessions() -> None:
    """Forget every cached session (tests; after re-exporting models)."""
    with _sessions_lock:
        _sessions.clear()


def read_json(path: Path) -> Any:
    """Read one JSON file of a model folder.

    Raises:
        ModelError: missing or not JSON; the message says how to get a working folder.
    """
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ModelError(f"{path} not found: {EXPORT_HINT}") from None
    except (OSError, ValueError) as exc:
        raise ModelError(f"cannot read {path} ({exc}): {EXPORT_HINT}") from exc


def check_model_dir(model_dir: Path) -> None:
    """Raise a clear :class:`ModelError` when `model_dir` (or its parent models folder) is missing."""
    if not model_dir.exists():
        parent = model_dir.parent
        where = f"models folder {parent}" if not parent.exists() else f"model folder {model_dir}"
        raise ModelError(f"no {where}: {EXPORT_HINT}")
    if not model_dir.is_dir():
        raise ModelError(f"model path {model_dir} is not a folder: {EXPORT_HINT}")


def resolve_threads(threads: int | None, settings: Settings | None) -> int:
    """Intra-op thread count: the argument, else `Settings.threads`."""
    n = threads if threads is not None else (settings or get_settings()).threads
    if n < 1:
        raise InvalidInput(f"threads must be >= 1, got {n}")
    return n


def resolve_quantization(quantization: str | None, settings: Settings | None) -> str:
    """`int8` or `fp32`: the argument, else `Settings.quantization`."""
    q = quantization if quantization is not None else (settings or get_settings()).quantization
    if q not in MODEL_FILES:
        raise InvalidInput(f"quantization must be one of {sorted(MODEL_FILES)}, got {q!r}")
    return q


def load_tokenizer(model_dir: Path, max_length: int) -> Tokenizer:
    """The folder's fast tokenizer, truncating at `max_length` tokens and never padding.

    The tokenizer.json of many Hub models carries its own truncation/padding (all-MiniLM-L6-v2's says
    128 and fixed padding); both are replaced: truncation follows sentence-transformers'
    `max_seq_length`, and padding is done per batch by :func:`pad_batch`.
    """
    path = model_dir / "tokenizer.json"
    if not path.is_file():
        raise ModelError(f"{path} not found: {EXPORT_HINT}")
    try:
        tok = Tokenizer.from_file(str(path))
    except Exception as exc:
        raise ModelError(f"cannot read tokenizer {path} ({exc}): {EXPORT_HINT}") from exc
    tok.no_padding()
    tok.enable_truncation(max_length=max_length, strategy="longest_first")
    return tok


def pad_batch(encodings: Sequence[Encoding], pad_id: int = 0) -> tuple[I64Array, I64Array, I64Array]:
    """Right-pad a batch of encodings to its longest member.

    Returns:
        `(input_ids, attention_mask, token_type_ids)`, each `(batch, longest)` int64.
    """
    longest = max(len(e.ids) for e in encodings)
    n = len(encodings)
    ids = np.full((n, longest), pad_id, dtype=np.int64)
    mask = np.zeros((n, longest), dtype=np.int64)
    types = np.zeros((n, longest), dtype=np.int64)
    for i, e in enumerate(encodings):
        k = len(e.ids)
        ids[i, :k] = e.ids
        mask[i, :k] = 1
        types[i, :k] = e.type_ids
    return ids, mask, types


def length_sorted_batches(lengths: Sequence[int], batch_size: int) -> Iterator[list[int]]:
    """Indices grouped into batches of similar length (longest first), so padding stays small.

    Example:
        >>> list(length_sorted_batches([3, 9, 1, 8], 2))
        [[1, 3], [0, 2]]
    """
    order = sorted(range(len(lengths)), key=lambda i: -lengths[i])
    for start in range(0, len(order), batch_size):
        yield order[start : start + batch_size]


def check_texts(texts: Sequence[str], what: str = "text") -> list[str]:
    """Texts as a list of `str`; anything else is an :class:`InvalidInput` naming the position."""
    if isinstance(texts, str):
        raise InvalidInput(f"expected a list of {what}s, got one string; wrap it in a list")
    out = list(texts)
    for i, t in enumerate(out):
        if not isinstance(t, str):
            raise InvalidInput(f"{what} #{i} is {type(t).__name__}, expected str")
    return out


# --------------------------------------------------------------------------------------------------
# Embedder
# --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PoolingConfig:
    """sentence-transformers pooling and normalisation, read from the model folder."""

    mode: str  #: "mean", "cls", "max" or "mean_sqrt_len"
    dim: int
    normalize: bool
    max_length: int
    lowercase: bool

    @classmethod
    def read(cls, model_dir: Path) -> PoolingConfig:
        """Read `modules.json`, the pooling module's `config.json` and `sentence_bert_config.json`.

        Raises:
            ModelError: a file is missing, or the pipeline has modules the ONNX path cannot run (Dense,
                several poolings, ...).
        """
        modules = read_json(model_dir / "modules.json")
        if not isinstance(modules, list):
            raise ModelError(f"{model_dir / 'modules.json'} is not a list of modules: {EXPORT_HINT}")
        kinds = [str(m.get("type", "")).rsplit(".", 1)[-1] for m in modules]
        supported = {"Transformer", "Pooling", "Normalize"}
        unsupported = [k for k in kinds if k not in supported]
        if unsupported or kinds.count("Transformer") != 1 or kinds.count("Pooling") != 1:
            raise ModelError(
                f"{model_dir}: sentence-transformers modules {kinds} are not supported by the ONNX embedder "
                "(expected Transformer, Pooling and optionally Normalize)"
            )
        pooling_path = next(m.get("path", "") for m in modules if str(m.get("type", "")).endswith("Pooling"))
        pcfg = read_json(model_dir / pooling_path / "config.json")
        flags = {
            "cls": pcfg.get("pooling_mode_cls_token", False),
            "mean": pcfg.get("pooling_mode_mean_tokens", False),
            "max": pcfg.get("pooling_mode_max_tokens", False),
            "mean_sqrt_len": pcfg.get("pooling_mode_mean_sqrt_len_tokens", False),
        }
        if "pooling_mode" in pcfg:  # newer sentence-transformers may write the mode as a string
            flags = {
                k: k == str(pcfg["pooling_mode"]).replace("mean_sqrt_len_tokens", "mean_sqrt_len")
                for k in flags
            }
        modes = [k for k, on in flags.items() if on]
        if len(modes) != 1:
            raise ModelError(f"{model_dir}: pooling {modes or 'none'} not supported (need exactly one mode)")
        sbert = read_json(model_dir / "sentence_bert_config.json")
        return cls(
            mode=modes[0],
            # sentence-transformers 6 writes `embedding_dimension`, older ones `word_embedding_dimension`
            dim=int(pcfg.get("word_embedding_dimension", pcfg.get("embedding_dimension", 0))),
            normalize="Normalize" in kinds,
            max_length=int(sbert.get("max_seq_length", 512)),
            lowercase=bool(sbert.get("do_lower_case", False)),
        )


def pool(token_embeddings: F32Array, mask: I64Array, mode: str) -> F32Array:
    """Pool `(batch, seq, dim)` token embeddings into `(batch, dim)` as sentence-transformers does.

    Example:
        >>> t = np.array([[[1.0, 2.0], [3.0, 4.0], [9.0, 9.0]]], dtype=np.float32)
        >>> pool(t, np.array([[1, 1, 0]]), "mean").tolist()
        [[2.0, 3.0]]
    """
    pooled: F32Array
    if mode == "cls":
        pooled = token_embeddings[:, 0, :].astype(np.float32)
        return pooled
    m = mask[:, :, None].astype(np.float32)
    if mode == "max":
        pooled = np.where(m > 0, token_embeddings, np.float32(-1e9)).max(axis=1).astype(np.float32)
        return pooled
    summed = (token_embeddings * m).sum(axis=1)
    counts = np.clip(m.sum(axis=1), 1e-9, None)
    if mode == "mean":
        pooled = (summed / counts).astype(np.float32)
        return pooled
    if mode == "mean_sqrt_len":
        pooled = (summed / np.sqrt(counts)).astype(np.float32)
        return pooled
    raise ValueError(f"unknown pooling mode {mode!r}")


def l2_normalize(x: F32Array) -> F32Array:
    """Rows scaled to unit length (zero rows stay zero), like `torch.nn.functional.normalize`."""
    norms = np.linalg.norm(x, axis=1, keepdims=True)
    out: F32Array = (x / np.clip(norms, 1e-12, None)).astype(np.float32)
    return out


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
        self._questions: OrderedDict[str, F32Array] = OrderedDict()
        self._questions_lock = threading.Lock()
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
            model_dir: the model folder; default `Settings.models_dir / Settings.embedding_model`.
            threads: onnxruntime intra-op threads; default `Settings.threads`.

        Returns:
            A ready embedder (its session is shared with other embedders on the same file).

        Raises:
            ModelError: the folder or a file in it is missing or unusable; the message says to run
                `python -m pathrag_gds models export`.
        """
        s = settings or get_settings()
        folder = Path(model_dir) if model_dir is not None else s.models_dir / s.embedding_model
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
            from tqdm import tqdm

            progress = tqdm(total=len(encodings), desc="encode", unit="text")
        for idx in batches:
            ids, mask, types = pad_batch([encodings[i] for i in idx], self.pad_id)
            out[idx] = self.run(ids, mask, types)
            if progress is not None:
                progress.update(len(idx))
        if progress is not None:
            progress.close()
        return out

    def encode_question(self, question: str) -> F32Array:
        """`encode([question])[0]`, computed once for the last :data:`QUESTION_CACHE` questions.

        A query reads its question's vector in more than one place (the seeds and the expansion's
        pre-sort in Neo4j, the bi-encoder's scores): with one embedder they share one encoding.
        The vector is read-only.
        """
        with self._questions_lock:
            cached = self._questions.get(question)
            if cached is not None:
                self._questions.move_to_end(question)
                return cached
        vec: F32Array = self.encode([question])[0]
        vec.flags.writeable = False
        with self._questions_lock:
            self._questions[question] = vec
            while len(self._questions) > QUESTION_CACHE:
                self._questions.popitem(last=False)
        return vec

    def __repr__(self) -> str:
        return (
            f"Embedder({self.model_dir.name}, {self.quantization}, dim={self.dim}, "
            f"max_length={self.max_length}, threads={self.threads})"
        )


def independent_batch_size(quantization: str, requested: int) -> int:
    """The batch size that keeps a text's result independent of the other texts of its batch.

    Dynamic int8 quantization scales activations per tensor, i.e. over the whole batch: embedded
    next to other texts, a text's vector moved by up to 0.02 per dimension (cosine 0.993 to itself
    alone), enough to reorder near ties and to make a query's answer depend on what the cache held.
    So int8 models run one text per pass (measured here: 349 vs 464 texts/s for 15-token sentences,
    56 vs 45 texts/s for 122-token texts, batch 1 vs 32); fp32 keeps the requested batch size.
    """
    return 1 if quantization == "int8" else requested


#: Question encodings an embedder keeps (:meth:`Embedder.encode_question`).
QUESTION_CACHE = 256

_embedders: dict[tuple[str, str, int], Embedder] = {}
_embedders_lock = threading.Lock()


def get_embedder(settings: Settings | None = None) -> Embedder:
    """The process-wide embedder for `settings` (created once, thread-safe).

    Example:
        >>> get_embedder() is get_embedder()  # doctest: +SKIP
        True
    """
    s = settings or get_settings()
    key = (str(s.models_dir / s.embedding_model), s.quantization, s.threads)
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
