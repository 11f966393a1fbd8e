"""A cross-encoder scorer: any ONNX cross-encoder (or an ensemble of them) reading `(question, text)`."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Literal

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
from pathrag_gds.errors import InvalidInput, ModelError
from pathrag_gds.scoring.base import Scorer, check_question

Activation = Literal["sigmoid", "raw"]


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
        q = check_question(question).strip()
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
