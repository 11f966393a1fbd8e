"""A model folder as `models export` writes it: its files, JSON, tokenizer, and the knobs that pick them.

A folder holds `model_int8.onnx` and/or `model_fp32.onnx` (inputs `input_ids`, `attention_mask`,
and `token_type_ids` when the model has them), `tokenizer.json`, the sentence-transformers
configuration (`modules.json`, `sentence_bert_config.json`, `1_Pooling/config.json`) for an
embedder, and `manifest.json` (source, licence, sha256, dimension, max length, quantization).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tokenizers import Tokenizer

from pathrag_gds.config import Settings, get_settings
from pathrag_gds.errors import InvalidInput, ModelError

#: What to tell a user whose models folder is missing or incomplete.
EXPORT_HINT = (
    "run `python -m pathrag_gds models export` (the int8 embedding model is committed under models/; "
    "the fp32 one needs `pip install -e .[train]` first), or point PATHRAG_MODELS_DIR at a models folder"
)

#: File name of each quantization inside a model folder.
MODEL_FILES = {"int8": "model_int8.onnx", "fp32": "model_fp32.onnx"}


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


def swap_in(staging: Path, model_dir: Path) -> None:
    """Make the folder built at `staging` the model at `model_dir`, replacing what was there.

    Trainers build beside the old model and swap at the end, so a failed build leaves the old one.

    Example:
        >>> import tempfile
        >>> root = Path(tempfile.mkdtemp())
        >>> (root / ".m.partial").mkdir(); (root / "m").mkdir(); (root / "m" / "old").touch()
        >>> swap_in(root / ".m.partial", root / "m")
        >>> sorted(p.name for p in root.iterdir()), list((root / "m").iterdir())
        (['m'], [])
    """
    import shutil

    if model_dir.exists():
        shutil.rmtree(model_dir)
    staging.rename(model_dir)
