"""The runs of a chain tune, trained side by side in worker processes (`tune --jobs`).

A run trains one dual encoder on rows the parent generated (the questions need the parent's Neo4j
service and embedder; a worker needs neither) and exports it into a folder of its own. With
`workers` above 1, :func:`run_jobs` keeps up to `workers` runs training at once, each in a spawned
process with one torch thread (a 2-core machine trains two runs in the time of one), and asks the
parent for the next run's rows while the others train. Every run's progress reaches the caller's
callback through a queue. A run that fails stops the others and raises :class:`RunFailed` naming it;
Ctrl-C (or any error in the parent) terminates the workers. With `workers` 1 the runs train one
after another in this process, as they always did.

A run trains on exactly the rows and seed it would train on alone, so a parallel tune builds the
same runs as a sequential one (their held-out top-1 agree; bitwise equality across processes is
not promised).

Example:
    >>> default_jobs(seeds=3, cores=2), default_jobs(seeds=1, cores=8), default_jobs(seeds=4, cores=0)
    (2, 1, 1)
"""

from __future__ import annotations

import logging
import os
import queue
import signal
import tempfile
import threading
import time
import traceback
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pathrag_gds.errors import ModelError
from pathrag_gds.training.chain_data import Progress
from pathrag_gds.training.chains import ChainRow, ChainTrainConfig, ChainTrainResult

log = logging.getLogger(__name__)

#: Seconds between checks that the workers still live; and how long a worker that ended may take
#: to deliver its last message before it counts as lost.
POLL_S = 0.5
GRACE_S = 5.0


@dataclass
class RunJob:
    """What one run trains on and where it exports: all a worker needs (sent to it pickled)."""

    index: int
    rows: list[ChainRow]
    #: (masked question, positive chain text, the schema's chain texts of its start type)
    holdout: list[tuple[str, str, list[str]]]
    config: ChainTrainConfig
    #: the folder the run exports into (created; no other run writes there)
    out: Path
    #: also quantize the run's own int8 model (a soup's runs need only fp32: the mean is quantized)
    int8: bool = True


@dataclass
class RunOutcome:
    """What one run did: its training, its export's manifest, and the time of each section."""

    index: int
    result: ChainTrainResult
    exported: dict[str, Any]
    timings_s: dict[str, float] = field(default_factory=dict)


class RunFailed(ModelError):
    """A run of the tune failed; the message names the run, `detail` holds its traceback."""

    def __init__(self, message: str, detail: str = "") -> None:
        super().__init__(message)
        self.detail = detail


def available_cores() -> int:
    """The cores this process may run on (its CPU affinity where the OS tells, else all)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # macOS, Windows
        return os.cpu_count() or 1


def default_jobs(seeds: int, cores: int | None = None) -> int:
    """Runs trained at once by default: one per core, no more than there are runs."""
    return max(1, min(seeds, available_cores() if cores is None else cores))


def train_and_export(job: RunJob, progress: Progress | None) -> RunOutcome:
    """Train one run on its rows and export it (ONNX fp32, and int8 with `job.int8`) into `job.out`."""
    from pathrag_gds.export import export_embedding
    from pathrag_gds.training.chains import train_chain_scorer

    def step(i: int, n: int, loss: float) -> None:
        if progress is not None:
            progress("train", i, n, f"loss {loss:.3f}")

    timings: dict[str, float] = {}
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="pathrag-chains-") as tmp:
        result = train_chain_scorer(job.rows, job.holdout, Path(tmp) / "st", job.config, step)
        timings["train"] = time.perf_counter() - t0
        t1 = time.perf_counter()
        exported = export_embedding(
            job.out.parent, source=result.model_dir, name=job.out.name, progress=False, int8=job.int8
        )
    timings["export"] = time.perf_counter() - t1
    return RunOutcome(job.index, result, dict(exported.manifest), timings)


def run_jobs(
    make: Callable[[int], RunJob],
    runs: int,
    workers: int,
    progress_of: Callable[[int], Progress | None],
) -> list[RunOutcome]:
    """Make and train `runs` runs, up to `workers` at once; their outcomes in run order.

    Example (two runs side by side, each one torch thread; `make` generates a run's rows)::

        outcomes = run_jobs(make, runs=3, workers=2, progress_of=lambda i: None)

    Args:
        make: the i-th run's job (called here, in run order: it may read the graph).
        runs: how many runs.
        workers: runs trained at once (1: one after another, in this process).
        progress_of: the progress callback of the i-th run (its stages labelled as the caller likes).

    Raises:
        RunFailed: a run raised in its worker, or the worker died; the other workers are stopped
            first. (With `workers` 1 a run's error is raised as it is.)
    """
    if workers <= 1 or runs <= 1:  # an error is raised as it is, with its own traceback
        return [train_and_export(make(i), progress_of(i)) for i in range(runs)]
    return _Pool(make, runs, workers, progress_of).run()


def _describe(exc: BaseException) -> str:
    from pathrag_gds.errors import PathRagError

    return str(exc) if isinstance(exc, PathRagError) else f"{type(exc).__name__}: {exc}"


def _failure(index: int, what: str) -> str:
    return f"run {index + 1} of the tune failed: {what}"


class _Pool:
    """The worker processes of one `run_jobs` call (spawned; at most `workers` alive at once)."""

    def __init__(
        self,
        make: Callable[[int], RunJob],
        runs: int,
        workers: int,
        progress_of: Callable[[int], Progress | None],
    ) -> None:
        import multiprocessing

        self.ctx = multiprocessing.get_context("spawn")
        self.messages: Any = self.ctx.Queue()
        self.make, self.runs, self.workers = make, runs, workers
        self.progress = [progress_of(i) for i in range(runs)]
        self.procs: dict[int, Any] = {}
        self.outcomes: dict[int, RunOutcome] = {}
        self.ended: dict[int, float] = {}  # when a worker was first seen gone without its outcome

    def run(self) -> list[RunOutcome]:
        ready: deque[RunJob] = deque()
        made = 0
        try:
            while len(self.outcomes) < self.runs:
                if ready and len(self.procs) - len(self.outcomes) < self.workers:
                    self._start(ready.popleft())
                elif made < self.runs and not ready:  # the next run's rows, while the others train
                    ready.append(self.make(made))
                    made += 1
                else:
                    self._receive()
                    self._check_workers()
        except BaseException:
            self._stop()
            raise
        finally:
            self._join()
        return [self.outcomes[i] for i in range(self.runs)]

    def _start(self, job: RunJob) -> None:
        proc = self.ctx.Process(
            target=_work,
            args=(job, self.messages, os.getpid()),
            name=f"pathrag-tune-run-{job.index + 1}",
            daemon=True,  # ended with this process, whatever happens to it
        )
        with _sigint_ignored():  # inherited: Ctrl-C reaches the parent, which stops its workers
            proc.start()
        self.procs[job.index] = proc

    def _receive(self) -> None:
        try:
            kind, index, payload = self.messages.get(timeout=POLL_S)
        except queue.Empty:
            return
        if kind == "progress":
            callback = self.progress[index]
            if callback is not None:
                callback(*payload)
        elif kind == "done":
            self.outcomes[index] = payload
        else:
            what, detail = payload
            log.info("run %d of the tune failed in its worker:\n%s", index + 1, detail)  # shown with -v
            raise RunFailed(_failure(index, what), detail)

    def _check_workers(self) -> None:
        now = time.monotonic()
        for index, proc in self.procs.items():
            if proc.exitcode is None or index in self.outcomes:  # (polling reaps a finished worker)
                continue
            since = self.ended.setdefault(index, now)  # its last message may still be on its way
            if now - since > GRACE_S:
                what = f"its worker ended with exit code {proc.exitcode} and no result (its output is above)"
                raise RunFailed(_failure(index, what))

    def _stop(self) -> None:
        for proc in self.procs.values():
            if proc.exitcode is None:
                proc.terminate()

    def _join(self) -> None:
        for proc in self.procs.values():
            proc.join(10)
            if proc.exitcode is None:
                proc.kill()
                proc.join()
        self.messages.close()


@contextmanager
def _sigint_ignored() -> Iterator[None]:
    """SIGINT ignored in the block (a process started in it keeps ignoring it); main thread only."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    old = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, old)


def _quiet_libraries() -> None:
    """No bars of the libraries' own (loading weights, writing shards) between the parent's."""
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    try:
        from transformers.utils import logging as hf_logging
    except ImportError:  # the run reports the missing `train` extra itself
        return
    hf_logging.disable_progress_bar()  # type: ignore[no-untyped-call]


def _work(job: RunJob, messages: Any, parent: int) -> None:
    """A worker: train and export one run; send its progress, then its outcome or its error."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides when a run stops
    _quiet_libraries()

    def progress(stage: str, done: int, total: int, note: str) -> None:
        if os.getppid() != parent:  # the tune is gone (killed): nobody waits for this run
            os._exit(1)
        messages.put(("progress", job.index, (stage, done, total, note)))

    try:
        messages.put(("done", job.index, train_and_export(job, progress)))
    except BaseException as exc:
        messages.put(("error", job.index, (_describe(exc), traceback.format_exc())))
