"""The model folder's files and `manifest.json`: checksums, licence, moving files in, verification."""

from __future__ import annotations

import hashlib
import json
import re
import shutil
from pathlib import Path
from typing import Any

from pathrag_gds.backend.model_folder import EXPORT_HINT, MODEL_FILES
from pathrag_gds.errors import ModelError


def sha256(path: Path) -> str:
    """Hex sha256 of a file."""
    h = hashlib.sha256()
    with path.open("rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def write_manifest(model_dir: Path, manifest: dict[str, Any]) -> None:
    """Write `model_dir/manifest.json` (sorted keys, 2-space indent, final newline)."""
    text = json.dumps(manifest, indent=2, sort_keys=True) + "\n"
    (model_dir / "manifest.json").write_text(text, encoding="utf-8")


def file_entry(path: Path, quantization: str) -> dict[str, Any]:
    """The manifest entry of one model file (name, sha256, size, quantization)."""
    return {
        "path": path.name,
        "sha256": sha256(path),
        "bytes": path.stat().st_size,
        "quantization": quantization,
    }


def model_licence(src: Path) -> str | None:
    """The licence the source model's README declares (SPDX spelling where known), or None."""
    readme = src / "README.md"
    if readme.is_file():
        m = re.search(
            r"^license:\s*(\S+)", readme.read_text(encoding="utf-8", errors="replace"), re.MULTILINE
        )
        if m:
            return {"apache-2.0": "Apache-2.0", "mit": "MIT"}.get(m.group(1).lower(), m.group(1))
    return None


def install_files(tmp_dir: Path, model_dir: Path, produced: list[str]) -> tuple[list[Path], bool]:
    """Move produced files into `model_dir`; True when the int8 file did not change."""
    model_dir.mkdir(parents=True, exist_ok=True)
    old_int8 = model_dir / MODEL_FILES["int8"]
    new_int8 = tmp_dir / MODEL_FILES["int8"]
    unchanged = old_int8.is_file() and new_int8.is_file() and sha256(old_int8) == sha256(new_int8)
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
