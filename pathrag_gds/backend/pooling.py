"""sentence-transformers' pooling and normalisation, read from a model folder and run in numpy."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from pathrag_gds.backend.batching import F32Array, I64Array
from pathrag_gds.backend.model_folder import EXPORT_HINT, read_json
from pathrag_gds.errors import ModelError


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
