"""`tune` with the runs side by side (`--jobs`, one worker process per run): the same soup as one
after another, and a run that fails or a Ctrl-C leaves the old model as it was (real Neo4j, real
training of a few steps on a small people world loaded here under its own id).
"""

from __future__ import annotations

import dataclasses
import json
import multiprocessing
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from pathrag_testutil import PeopleFactory

from pathrag_gds.chain_model import ChainScorer, chain_model_dir
from pathrag_gds.config import Settings
from pathrag_gds.training import chain_tune
from pathrag_gds.training.chain_tune import ChainTuneOptions, tune_chains
from pathrag_gds.training.parallel_runs import RunFailed, RunJob, run_jobs

pytestmark = [pytest.mark.integration, pytest.mark.torch, pytest.mark.slow]


@pytest.fixture(scope="module")
def community(people_community: PeopleFactory) -> str:
    return people_community("ptunetest_demo", seed=3, scale=0.05)


def _options(community: str, out: Path, jobs: int) -> ChainTuneOptions:
    return ChainTuneOptions(
        community=community, questions=40, steps=3, seeds=2, max_depth=1, threads=1, pool_depth=0,
        jobs=jobs, out=out,
    )  # fmt: skip


def _manifest(folder: Path) -> dict[str, Any]:
    manifest: dict[str, Any] = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    return manifest


def _weights(path: Path) -> dict[str, Any]:
    import onnx
    from onnx import numpy_helper

    return {i.name: numpy_helper.to_array(i) for i in onnx.load(str(path)).graph.initializer}


def _old_model(community: str, out: Path) -> tuple[Path, dict[str, bytes]]:
    """A model already in place (a stand-in: its files are only compared afterwards)."""
    folder = chain_model_dir(Settings.from_env(), community, out)
    folder.mkdir(parents=True)
    (folder / "manifest.json").write_text('{"kind": "chain-scorer", "old": true}', encoding="utf-8")
    (folder / "model_int8.onnx").write_bytes(b"the old weights")
    return folder, {p.name: p.read_bytes() for p in folder.iterdir()}


def _left_alone(folder: Path, before: dict[str, bytes]) -> None:
    assert {p.name: p.read_bytes() for p in folder.iterdir()} == before
    assert not [p.name for p in folder.parent.iterdir() if p.name.startswith(".")]  # no staging, no runs
    assert not [p for p in multiprocessing.active_children() if p.name.startswith("pathrag-tune-run-")]


def test_runs_side_by_side_make_a_soup(community: str, tmp_path: Path) -> None:
    """Two workers train the two runs; their progress reaches the parent; one model comes out."""
    stages: set[str] = set()
    result = tune_chains(_options(community, tmp_path, 2), Settings.from_env(),
                         lambda stage, i, n, note: stages.add(stage))  # fmt: skip
    manifest = _manifest(result.model_dir)
    assert manifest["chain"]["build"]["jobs"] == 2
    assert {"train 1/2", "train 2/2", "soup"} <= stages  # the workers' progress reached the parent
    soup = manifest["chain"]["soup"]
    assert soup["seeds"] == [0, 1] and len(soup["holdout_top1"]) == 2
    assert result.training["steps"] == 3 and result.training["config"]["threads"] == 1
    seconds = manifest["chain"]["build"]["seconds"]  # each section's time: per run, then once
    assert len(seconds["generate"]) == len(seconds["train"]) == len(seconds["export"]) == 2
    assert {"soup", "chain_vectors", "terms_fit"} <= set(seconds) and seconds["total"] > 0
    assert not [p.name for p in result.model_dir.parent.iterdir() if p.name.startswith(".")]
    assert not list(result.model_dir.glob("member-*")) and not list(result.model_dir.glob("run-*"))
    assert set(manifest["files"]) == {"fp32", "int8"}  # the runs' own int8 were never made: the soup's
    scorer = ChainScorer(result.model_dir)
    assert not scorer.members and len(scorer.scorer_for("where was X born")(["Person was born in City"])) == 1


def test_a_run_in_a_worker_trains_as_it_does_in_the_tunes_process(community: str, tmp_path: Path) -> None:
    """The same rows, seed and one thread: the same steps in a worker as here, so the same soup."""
    from pathrag_gds.service import PathRag

    options = _options(community, tmp_path, 2)
    svc = PathRag(Settings.from_env())
    runs = [chain_tune._prepare(dataclasses.replace(options, seed=i), svc, None) for i in range(2)]

    def jobs(where: str) -> list[RunJob]:
        configs = [chain_tune._train_config(r.options, threads=1) for r in runs]
        return [
            RunJob(i, r.rows, r.holdout, configs[i], tmp_path / where / f"run-{i}", int8=False)
            for i, r in enumerate(runs)
        ]

    apart, alone = jobs("workers"), jobs("here")
    in_workers = run_jobs(lambda i: apart[i], 2, 2, lambda i: None)
    here = run_jobs(lambda i: alone[i], 2, 1, lambda i: None)
    for a, b in zip(in_workers, here, strict=True):
        assert a.result.steps == b.result.steps == 3
        assert a.result.losses == pytest.approx(b.result.losses, abs=1e-4)
        assert a.result.holdout_top1 == b.result.holdout_top1
        assert set(a.exported["files"]) == {"fp32"} and not (apart[a.index].out / "model_int8.onnx").exists()
        wa, wb = (_weights(j.out / "model_fp32.onnx") for j in (apart[a.index], alone[b.index]))
        assert wa.keys() == wb.keys() and all(np.allclose(wa[k], wb[k], atol=1e-5) for k in wa)


def test_a_run_that_fails_in_its_worker_leaves_the_old_model(
    community: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder, before = _old_model(community, tmp_path)
    prepare = chain_tune._prepare

    def no_rows_for_the_second(options: ChainTuneOptions, *args: Any) -> Any:
        run = prepare(options, *args)
        return dataclasses.replace(run, rows=[]) if options.seed == 1 else run

    monkeypatch.setattr(chain_tune, "_prepare", no_rows_for_the_second)
    with pytest.raises(RunFailed, match=r"run 2 of the tune failed: no training questions"):
        tune_chains(_options(community, tmp_path, 2), Settings.from_env())
    _left_alone(folder, before)


def test_ctrl_c_stops_the_workers_and_leaves_the_old_model(community: str, tmp_path: Path) -> None:
    folder, before = _old_model(community, tmp_path)

    def interrupt_at_the_first_step(stage: str, done: int, total: int, note: str) -> None:
        if stage.startswith("train"):
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        tune_chains(_options(community, tmp_path, 2), Settings.from_env(), interrupt_at_the_first_step)
    _left_alone(folder, before)
