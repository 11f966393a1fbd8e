"""Sentence embeddings kept on disk across processes, one SQLite file per model.

A path's sentences ("Bob is owned by Jane.") repeat across queries, and a new process (each CLI
`query`) would embed them all again: on the demo graph that is most of a question's time. The
store maps a sentence to its float32 embedding, so a vector read back is exactly the one computed
(scores do not depend on whether a sentence was cached). The file is named by what decides the
embedding (the model file's sha256 from its manifest, quantization, sequence length, pooling), so
a new model never reads an old model's vectors. SQLite in WAL mode lets several processes read and
add at once. A store that cannot be opened or written logs one warning and stops being used: it
never fails a query.

Example:
    >>> import tempfile, numpy as np
    >>> store = VectorStore(Path(tempfile.mkdtemp()) / "v.sqlite", dim=2)
    >>> store.put({"Bob is a cat.": np.array([0.5, 0.25], dtype=np.float32)})
    >>> store.get(["Bob is a cat.", "unknown"])["Bob is a cat."].tolist()
    [0.5, 0.25]
"""

from __future__ import annotations

import hashlib
import json
import logging
import sqlite3
import threading
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import numpy as np

log = logging.getLogger(__name__)

#: Keys per SELECT (SQLite's default limit of host parameters is 999 or more).
_CHUNK = 500


def store_name(model_dir: Path, quantization: str, **parts: Any) -> str:
    """`sentences-<hash>.sqlite`: the hash of the model file's sha256 (from its manifest) and `parts`.

    Example:
        >>> store_name(Path("/nowhere"), "int8", max_length=128).startswith("sentences-")
        True
    """
    sha = None
    try:
        files = json.loads((model_dir / "manifest.json").read_text(encoding="utf-8")).get("files", {})
        sha = (files.get(quantization) or {}).get("sha256")
    except (OSError, ValueError, AttributeError):
        pass
    if not sha:  # no manifest: the model file's path, size and time stand in for its content
        model = next(iter(sorted(model_dir.glob(f"*{quantization}*.onnx"))), None)
        stat = model.stat() if model is not None else None
        sha = f"{model}:{stat.st_size}:{stat.st_mtime_ns}" if stat else str(model_dir.resolve())
    key = json.dumps([sha, quantization, sorted(parts.items())], default=str)
    return f"sentences-{hashlib.sha256(key.encode()).hexdigest()[:16]}.sqlite"


class VectorStore:
    """Text -> float32 vector of `dim`, in one SQLite file (created with its folder when missing)."""

    def __init__(self, path: Path, dim: int) -> None:
        self.path = path
        self.dim = dim
        self.hits = 0
        self._lock = threading.Lock()
        self._db: sqlite3.Connection | None = None
        self._broken = False

    def _connect(self) -> sqlite3.Connection | None:
        if self._db is None and not self._broken:
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                db = sqlite3.connect(self.path, timeout=10.0, check_same_thread=False)
                db.execute("PRAGMA journal_mode=WAL")
                db.execute("CREATE TABLE IF NOT EXISTS vectors (text TEXT PRIMARY KEY, vector BLOB NOT NULL)")
                db.commit()
                self._db = db
            except (sqlite3.Error, OSError) as exc:
                self._fail(exc)
        return self._db

    def _fail(self, exc: Exception) -> None:
        self._broken = True
        self._db = None
        log.warning(
            "sentence vector store %s is not usable (%s): sentences are embedded in each process; "
            "set PATHRAG_VECTOR_STORE_DIR to a writable folder, or to '' to turn the store off",
            self.path,
            exc,
        )

    def get(self, texts: Iterable[str]) -> dict[str, np.ndarray]:
        """The stored vectors of those `texts` that have one."""
        keys = list(dict.fromkeys(texts))
        out: dict[str, np.ndarray] = {}
        with self._lock:
            db = self._connect()
            if db is None or not keys:
                return out
            try:
                for i in range(0, len(keys), _CHUNK):
                    chunk = keys[i : i + _CHUNK]
                    marks = ",".join("?" * len(chunk))
                    rows = db.execute(f"SELECT text, vector FROM vectors WHERE text IN ({marks})", chunk)
                    for text, blob in rows:
                        vector = np.frombuffer(blob, dtype=np.float32)
                        if vector.shape == (self.dim,):
                            out[text] = vector.copy()
            except sqlite3.Error as exc:
                self._fail(exc)
                return {}
            self.hits += len(out)
        return out

    def put(self, vectors: Mapping[str, np.ndarray]) -> None:
        """Store vectors (a text already stored keeps its vector)."""
        with self._lock:
            db = self._connect()
            if db is None or not vectors:
                return
            rows = [(t, np.asarray(v, dtype=np.float32).tobytes()) for t, v in vectors.items()]
            try:
                db.executemany("INSERT OR IGNORE INTO vectors (text, vector) VALUES (?, ?)", rows)
                db.commit()
            except sqlite3.Error as exc:
                self._fail(exc)

    def close(self) -> None:
        """Close the file (a later call opens it again)."""
        with self._lock:
            if self._db is not None:
                self._db.close()
                self._db = None
