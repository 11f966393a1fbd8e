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
def progress_steps(total: int, desc: str) -> Iterator[Any]:
    """A progress bar over `total` steps: yields (start(step), advance(step))."""
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
