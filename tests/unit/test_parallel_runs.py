"""The worker pool of a chain tune's runs (`tune --jobs`): failures, Ctrl-C, and the progress bars.

No database and no training: the jobs here fail or hang before a run would train (a worker that
dies while it unpickles its job, one that sleeps there, one with no rows), so only the pool's own
behaviour is tested; `tests/integration/test_chain_tune_parallel.py` trains real runs side by side.
"""

from __future__ import annotations

import io
import multiprocessing
import os
import time
from contextlib import redirect_stderr
from pathlib import Path
from typing import Any

import pytest

from pathrag_gds.commands.tune import progress_bars
from pathrag_gds.training.chains import ChainTrainConfig
from pathrag_gds.training.parallel_runs import RunFailed, RunJob, default_jobs, run_jobs


class _Exit:
    """Unpickled in the worker (while it reads its job), this ends the worker with exit code 3."""

    def __reduce__(self) -> tuple[Any, tuple[int]]:
        return os._exit, (3,)


class _Sleep:
    """Unpickled in the worker, this keeps it busy for a minute (a run that trains long)."""

    def __reduce__(self) -> tuple[Any, tuple[int]]:
        return time.sleep, (60,)


def _job(index: int, rows: list[Any], tmp: Path) -> RunJob:
    return RunJob(index, rows, [], ChainTrainConfig(steps=1, threads=1), tmp / f"run-{index}", int8=False)


def _no_workers_left() -> bool:
    return not [p for p in multiprocessing.active_children() if p.name.startswith("pathrag-tune-run-")]


def test_one_worker_per_core_and_no_more_than_the_runs() -> None:
    assert default_jobs(seeds=3, cores=2) == 2
    assert default_jobs(seeds=2, cores=16) == 2
    assert default_jobs(seeds=1, cores=2) == 1
    assert default_jobs(seeds=3, cores=0) == 1  # a count the OS does not know: one at a time
    assert 1 <= default_jobs(seeds=64) <= (os.cpu_count() or 1)


def test_a_worker_that_dies_is_named_and_the_others_are_stopped(tmp_path: Path) -> None:
    jobs = [_job(0, [_Sleep()], tmp_path), _job(1, [_Exit()], tmp_path)]
    t0 = time.monotonic()
    with pytest.raises(RunFailed, match=r"run 2 of the tune failed: its worker ended with exit code 3"):
        run_jobs(lambda i: jobs[i], 2, 2, lambda i: None)
    assert time.monotonic() - t0 < 40  # the sleeping run was stopped, not waited for
    assert _no_workers_left()


def test_an_error_in_a_worker_comes_back_as_the_runs_error(tmp_path: Path) -> None:
    """A run without rows raises in its worker; the parent says which run and what went wrong."""
    jobs = [_job(0, [_Sleep()], tmp_path), _job(1, [], tmp_path)]
    with pytest.raises(RunFailed, match=r"run 2 of the tune failed: no training questions") as failed:
        run_jobs(lambda i: jobs[i], 2, 2, lambda i: None)
    assert "Traceback" in failed.value.detail and "train_chain_scorer" in failed.value.detail
    assert _no_workers_left()
    assert not (tmp_path / "run-1").exists()


def test_ctrl_c_in_the_parent_stops_the_workers(tmp_path: Path) -> None:
    """Ctrl-C while the next run's rows are generated (the first run training): no worker outlives it."""

    def make(i: int) -> RunJob:
        if i == 1:
            raise KeyboardInterrupt
        return _job(i, [_Sleep()], tmp_path)

    with pytest.raises(KeyboardInterrupt):
        run_jobs(make, 2, 2, lambda i: None)
    assert _no_workers_left()


def test_the_bars_of_runs_side_by_side_keep_moving() -> None:
    """A new stage closes the stages before it, not the bars of other runs still training."""
    err = io.StringIO()
    with redirect_stderr(err), progress_bars() as progress:
        progress("train 1/2", 1, 4, "loss 1.0")
        progress("train 2/2", 1, 4, "loss 1.0")
        progress("train 1/2", 4, 4, "loss 0.5")  # its bar is still open: the update counts
        progress("questions 3/3", 10, 10, "")
        progress("train 2/2", 3, 4, "loss 0.6")
        progress("soup", 0, 1, "")  # a stage of the whole tune: every run's bar is closed
        progress("train 2/2", 4, 4, "")  # too late: its bar was closed
    text = err.getvalue()
    assert "train 1/2 (loss 0.5): 100%" in text
    assert "train 2/2 (loss 0.6):  75%" in text and "train 2/2 (loss 0.6): 100%" not in text
