"""onnxruntime sessions: one shared, thread-safe session per model file and thread count."""

from __future__ import annotations

import threading
from pathlib import Path

import onnxruntime as ort

from pathrag_gds.backend.model_folder import EXPORT_HINT
from pathrag_gds.errors import ModelError

_sessions: dict[tuple[str, int, tuple[int, int, int]], ort.InferenceSession] = {}
_sessions_lock = threading.Lock()


def session_options(threads: int) -> ort.SessionOptions:
    """Session options for the query path: `threads` intra-op threads, all graph optimisations.

    Args:
        threads: intra-op threads (matrix multiplications run on this many cores).

    Returns:
        Options with ORT_ENABLE_ALL, sequential execution, one inter-op thread, and intra-op threads
        that sleep instead of spinning while they wait: on a shared, loaded machine spinning threads
        steal the cores the other thread needs (2 busy cores, load ~10: 35% more sentences/s and 15%
        more 128-token texts/s without spinning; docs/benchmarks.md).
    """
    opts = ort.SessionOptions()
    opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    opts.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    opts.intra_op_num_threads = threads
    opts.inter_op_num_threads = 1
    opts.log_severity_level = 3
    opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
    return opts


def get_session(path: Path, threads: int) -> ort.InferenceSession:
    """One shared (thread-safe) onnxruntime session per model file and thread count.

    Args:
        path: the `.onnx` file.
        threads: intra-op threads.

    Returns:
        The cached session (`InferenceSession.run` may be called from several threads at once). A file
        written again since (a re-export, a tune's soup) is loaded again: the key holds its identity.

    Raises:
        ModelError: the file is missing or onnxruntime cannot load it.
    """
    if not path.is_file():
        raise ModelError(f"model file {path} not found: {EXPORT_HINT}")
    st = path.stat()
    name = str(path.resolve())
    key = (name, threads, (st.st_ino, st.st_size, st.st_mtime_ns))
    with _sessions_lock:
        session = _sessions.get(key)
        if session is not None:
            return session
        for old in [k for k in _sessions if k[0] == name and k[1] == threads]:
            del _sessions[old]  # that file's earlier content
        try:
            session = ort.InferenceSession(
                str(path), sess_options=session_options(threads), providers=["CPUExecutionProvider"]
            )
        except Exception as exc:  # onnxruntime raises its own exception types (Fail, InvalidGraph, ...)
            raise ModelError(
                f"cannot load model {path} ({exc.__class__.__name__}: {exc}): {EXPORT_HINT}"
            ) from exc
        _sessions[key] = session
        return session


def clear_sessions() -> None:
    """Forget every cached session (tests; after re-exporting models)."""
    with _sessions_lock:
        _sessions.clear()
