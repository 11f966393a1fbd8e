"""Build hook: the wheel carries the Cypher files, the shipped models and the Neo4j installer.

They live at the repository's top level (`cypher/`, `models/`, `scripts/neo4j/`), where a checkout
reads them; `build_py` copies them into the built package as `pathrag_gds/_data/`, which
`pathrag_gds.locations` reads when there is no checkout. Everything else is in pyproject.toml.

Which models ship (models/README.md, "In the wheel"): the query path's embedding model and the
demo graph's tuned models, ~75 MB compressed; the chain models of the benchmark graphs (people,
Harbour_Stories) would add ~52 MB and take the wheel past PyPI's 100 MB limit per file.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent
#: Model folders under models/ that the wheel ships (each whole, with its `chain/` when it has one).
SHIPPED_MODELS = ("all-MiniLM-L6-v2", "tuned-DefaultCommunity_FictionalStories", "chain-reader")
#: Files of a model folder that ship: the int8 ONNX, tokenizer, configs, manifest, chain encodings
#: (never the fp32 export, a checkpoint, a staging folder or a partial file).
MODEL_FILE_NAMES = frozenset({"model_int8.onnx", "chain_vectors.npz"})
MODEL_FILE_SUFFIXES = frozenset({".json"})
#: Folders inside a model folder whose files ship too.
MODEL_SUBFOLDERS = frozenset({"1_Pooling", "2_Normalize", "chain"})


def _model_files(folder: Path) -> list[Path]:
    files: list[Path] = []
    for path in sorted(folder.iterdir()):
        if path.is_dir() and path.name in MODEL_SUBFOLDERS:
            files.extend(_model_files(path))
        elif path.is_file() and (path.name in MODEL_FILE_NAMES or path.suffix in MODEL_FILE_SUFFIXES):
            files.append(path)
    return files


def data_files(root: Path = ROOT) -> dict[str, Path]:
    """What `_data/` holds: its relative path -> the repository file it is copied from."""
    out: dict[str, Path] = {}
    for path in sorted((root / "cypher").glob("*.cypher")):
        out[f"cypher/{path.name}"] = path
    for name in ("pom.xml", "install.sh"):
        out[f"neo4j/{name}"] = root / "scripts" / "neo4j" / name
    out["models/README.md"] = root / "models" / "README.md"
    for model in SHIPPED_MODELS:
        for path in _model_files(root / "models" / model):
            out[path.relative_to(root).as_posix()] = path
    return out


class BuildPyWithData(build_py):
    """`build_py`, then the repository's data copied into the built package's `_data/`."""

    def run(self) -> None:
        """Build the package, then copy the data (an editable install reads the checkout instead)."""
        super().run()
        if getattr(self, "editable_mode", False):
            return
        target = Path(self.build_lib) / "pathrag_gds" / "_data"
        if target.exists():
            shutil.rmtree(target)
        for rel, source in data_files().items():
            if not source.is_file():
                raise FileNotFoundError(f"{source} is missing: the wheel needs it (setup.py, data_files)")
            dest = target / rel
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, dest)


if __name__ == "__main__":
    setup(cmdclass={"build_py": BuildPyWithData})
