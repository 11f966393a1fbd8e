"""Which export tools are installed (the `train` extra): their versions, and a clear error without them."""

from __future__ import annotations

import importlib.metadata as md
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from pathrag_gds.errors import ModelError

TRAIN_HINT = "install the export tools with `pip install -e .[train]` (torch, sentence-transformers, onnx)"


def dist_version(dist: str) -> str | None:
    """The installed version of a distribution, or None."""
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


def tool_versions() -> dict[str, str | None]:
    """Versions of the export tools (recorded in the manifest)."""
    return {
        d: dist_version(d) for d in ("torch", "transformers", "onnx", "onnxruntime", "sentence-transformers")
    }


@contextmanager
def progress_steps(total: int, desc: str, *, enabled: bool = True) -> Iterator[Any]:
    """A progress bar over `total` steps (drawn when `enabled`): yields (start(step), advance(step))."""
    from pathrag_gds.progress import bar

    with bar(total, desc, "step", enabled=enabled) as progress:

        def advance(step: str) -> None:
            progress.set_description_str(f"{desc}: {step}")
            progress.update(1)

        def start(step: str) -> None:
            progress.set_description_str(f"{desc}: {step} ...")

        yield start, advance
