"""Shared model folders for the encoder tests (one export per test session).

The fp32 model is git-ignored, so the tests export it themselves (needs the `train` extra, which CI
installs) into a temporary folder that also holds a copy of the committed int8 model.
"""

from __future__ import annotations

import functools
import shutil
import tempfile
from pathlib import Path

from pathrag_gds.config import ROOT_DIR

COMMITTED = ROOT_DIR / "models" / "all-MiniLM-L6-v2"


@functools.cache
def exported_root() -> Path:
    """A models folder freshly written by `export_embedding` (fp32 + int8 from this machine's tools)."""
    from pathrag_gds.export import export_embedding

    root = Path(tempfile.mkdtemp(prefix="pathrag-test-models-"))
    export_embedding(root)
    return root


@functools.cache
def committed_with_fp32() -> Path:
    """The committed model folder (int8 as in git) plus a freshly exported fp32 model."""
    target = Path(tempfile.mkdtemp(prefix="pathrag-test-committed-")) / "all-MiniLM-L6-v2"
    shutil.copytree(COMMITTED, target, ignore=shutil.ignore_patterns("model_fp32.onnx"))
    shutil.copyfile(exported_root() / "all-MiniLM-L6-v2" / "model_fp32.onnx", target / "model_fp32.onnx")
    return target
