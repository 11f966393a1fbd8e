"""`tune` for the chain scorer: generate questions from the graph, train, export (needs torch).

Steps: questions by random walks over the community, phrased with its ontology (no benchmark
question is read, not even to exclude it; :mod:`.chain_data`); rows with hard negative chains
(:mod:`.chains`); fine-tune; export ONNX int8 into `models/tuned-<community>/chain/`, built
beside the old folder and swapped in at the end so a failed run leaves the previous model in place.

Example:
    >>> ChainTuneOptions(community="metaqa").questions
    4000
"""

from __future__ import annotations

import shutil
import tempfile
import time
from collections.abc import Mapping
from dataclasses import asdict, dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pathrag_gds.backend.model_folder import swap_in
from pathrag_gds.config import Settings, get_settings
from pathrag_gds.errors import InvalidInput
from pathrag_gds.ontology import Ontology
from pathrag_gds.search.schema import TypedChain, ontology_fingerprint
from pathrag_gds.training.chain_data import (
    Progress,
    chain_texts,
    generate_questions,
    held_out_chains,
    split_held_out,
)
from pathrag_gds.training.chain_tune_options import ChainTuneOptions, ChainTuneResult
from pathrag_gds.training.chains import ChainRow, ChainTrainConfig
from pathrag_gds.training.parallel_runs import RunJob, RunOutcome, default_jobs, run_jobs

__all__ = ["ChainTuneOptions", "ChainTuneResult", "soup_members", "tune_chains"]


def tune_chains(
    options: ChainTuneOptions, settings: Settings | None = None, progress: Progress | None = None
) -> ChainTuneResult:
    """Generate, train, export the community's chain scorer (a soup or an ensemble with `seeds` > 1).

    The runs train `jobs` at a time in worker processes (:mod:`.parallel_runs`), each exported into
    a folder of its own; the model is assembled from them in a staging folder beside the old one
    and swapped in at the end, so a failed or interrupted tune leaves the previous model in place
    (and no staging folder).

    The workers are spawned: a script that calls this with `jobs` other than 1 starts its work
    under `if __name__ == "__main__":`, as every script that starts processes must.

    Raises:
        InvalidInput: the community does not exist, `seeds` < 1, or `jobs` < 0.
        ModelError: torch or the base model is missing; a run failed (:class:`.parallel_runs.RunFailed`).
    """
    from pathrag_gds.backend.model_folder import check_model_dir
    from pathrag_gds.chain_model import chain_model_dir, reset_chain_scorers
    from pathrag_gds.locations import find_model

    if options.seeds < 1:
        raise InvalidInput(f"seeds must be at least 1, got {options.seeds}")
    if options.jobs < 0:
        raise InvalidInput(f"jobs must be 0 (one per core) or positive, got {options.jobs}")
    s = settings or get_settings()
    check_model_dir(find_model(s.models_dir, s.embedding_model))  # before minutes of question generation
    model_dir = chain_model_dir(s, options.community, options.out or s.models_dir)
    staging = model_dir.parent / f".{model_dir.name}.partial"
    runs_dir = model_dir.parent / f".{model_dir.name}.runs"  # one folder per run, assembled afterwards
    for left in (staging, runs_dir):  # of a tune that was killed
        if left.exists():
            shutil.rmtree(left)
    from pathrag_gds.service import PathRag

    t0 = time.perf_counter()
    svc = PathRag(s)  # one service (driver, ontology, embedder) for every run's questions and the soup
    jobs = min(options.jobs or default_jobs(options.seeds), options.seeds)
    try:
        results = _train_runs(options, svc, s, runs_dir, jobs, progress)
        first = results[0]
        _assemble(results, runs_dir, staging)
        _combine(first, staging, results, options, svc.graph, s, progress)
        timings = {k: sum(r.timings_s.get(k, 0.0) for r in results) for k in first.timings_s}
        timings["total"] = time.perf_counter() - t0
        first.manifest["chain"]["build"] = _build_record(results, first, jobs, timings["total"])
        # when it was built (`python -m pathrag_gds info` shows it), as a path cross-encoder's manifest has it
        first.manifest["chain"]["finished"] = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        from pathrag_gds.export import write_manifest

        write_manifest(staging, first.manifest)
    except BaseException:
        for partial in (staging, runs_dir):  # the old model stays; nothing half-built is left
            shutil.rmtree(partial, ignore_errors=True)
        raise
    swap_in(staging, model_dir)
    reset_chain_scorers()
    return ChainTuneResult(
        model_dir,
        sum(r.questions for r in results),
        sum(r.rows for r in results),
        timings,
        first.training,
        first.manifest,
    )


def _combine(
    first: ChainTuneResult,
    staging: Path,
    results: list[ChainTuneResult],
    options: ChainTuneOptions,
    graph: Any,
    s: Settings,
    progress: Progress | None,
) -> None:
    """Make the assembled runs one model: average a soup, or declare and fit an ensemble."""
    from pathrag_gds.export import write_manifest

    if souped(options):
        first.timings_s.update(soup_members(first, staging, results, options, graph, s, progress))
    elif options.seeds > 1:
        first.manifest["chain"]["members"] = [r.model_dir.name for r in results[1:]]
        first.manifest["chain"]["ensemble"] = {
            "seeds": [options.seed + i for i in range(options.seeds)],
            "holdout_top1": [r.training.get("holdout_top1") for r in results],
        }
        write_manifest(staging, first.manifest)
        _fit_ensemble_terms(first, staging, options, s, progress)


def _build_record(
    results: list[ChainTuneResult], first: ChainTuneResult, jobs: int, total: float
) -> dict[str, Any]:
    """The manifest's `chain.build`: runs at once, and the seconds of each section (a list: per run)."""
    seconds: dict[str, Any] = {}
    for k, v in first.timings_s.items():
        per_run = [round(r.timings_s.get(k, 0.0), 1) for r in results]
        seconds[k] = per_run if any(k in r.timings_s for r in results[1:]) else round(v, 1)
    seconds["total"] = round(total, 1)
    return {"jobs": jobs, "seconds": seconds}


def _assemble(results: list[ChainTuneResult], runs_dir: Path, staging: Path) -> None:
    """Move the runs' folders into the model's: the first becomes `staging`, the others its `member-i`."""
    for i, r in enumerate(results):
        target = staging if i == 0 else staging / f"member-{i}"
        r.model_dir.rename(target)
        r.model_dir = target
    runs_dir.rmdir()


def _train_runs(
    options: ChainTuneOptions,
    svc: Any,
    s: Settings,
    runs_dir: Path,
    jobs: int,
    progress: Progress | None,
) -> list[ChainTuneResult]:
    """Generate each run's questions (here, in run order) and train the runs `jobs` at a time.

    Each run is what a tune of its seed alone trains: its own walks and rows, its seed, its
    clock cap, one torch thread in a worker (`options.threads` when the runs train here).
    """
    is_soup = souped(options)
    prepared: dict[int, tuple[_Prepared, RunJob]] = {}

    def progress_of(i: int) -> Progress | None:
        return _member_progress(progress, i, options.seeds)

    def make(i: int) -> RunJob:
        run = replace(options, seed=options.seed + i, minutes=_member_minutes(options))
        data = _prepare(run, svc, progress_of(i))
        config = _train_config(run, threads=options.threads if jobs == 1 else 1)
        # a soup's runs need no int8 of their own: the mean is quantized once
        job = RunJob(i, data.rows, data.holdout, config, runs_dir / f"run-{i}", int8=not is_soup)
        prepared[i] = (data, job)
        return job

    runs_dir.mkdir(parents=True)
    outcomes = run_jobs(make, options.seeds, jobs, progress_of)
    # a soup's runs encode no chain texts: only the soup's encodings are kept
    return [
        _finish(*prepared[o.index], o, svc, s, progress_of(o.index), encode=not is_soup) for o in outcomes
    ]


def souped(options: ChainTuneOptions) -> bool:
    """Whether the runs are averaged into one model: a soup of seeds, or a run with the base model."""
    return (options.seeds > 1 and options.soup) or options.base_share > 0


def soup_members(
    first: ChainTuneResult,
    folder: Path,
    results: list[ChainTuneResult],
    options: ChainTuneOptions,
    graph: Any,
    s: Settings,
    progress: Progress | None,
) -> dict[str, float]:
    """Average the tuned models into `folder`'s one (the first's), encode the chain texts, fit the terms.

    `results` are the tunes of `tune_chains` (the first in `folder`, the others in sub-folders);
    the terms are fitted on the first's held-out questions, as an ensemble's are. Returns the
    averaging (and quantizing), encoding and fit timings.
    """
    from pathrag_gds.export import export_embedding, write_manifest
    from pathrag_gds.training.chain_soup import soup_folder

    t0 = time.perf_counter()
    if progress is not None:
        progress("soup", 0, 1, f"{len(results)} models")
    members = [r.model_dir for r in results[1:]]
    with tempfile.TemporaryDirectory(prefix="pathrag-base-") as tmp:
        anchor = None
        if options.base_share > 0:  # the untrained encoder, exported as the runs were
            anchor = export_embedding(Path(tmp), name="base", progress=False).model_dir
        first.manifest["files"] = soup_folder(folder, members, anchor, options.base_share)
    first.manifest["chain"]["soup"] = {
        "base_share": options.base_share,
        "seeds": [options.seed + i for i in range(options.seeds)],
        "holdout_top1": [r.training.get("holdout_top1") for r in results],
    }
    write_manifest(folder, first.manifest)
    if progress is not None:
        progress("soup", 1, 1, f"{len(results)} models")
    seconds = {"soup": time.perf_counter() - t0}
    if first.ontology is None:
        return seconds
    return seconds | _encode_and_fit(
        graph,
        folder,
        first.manifest,
        options,
        s,
        first.ontology,
        first.held_out,
        progress,
        "question-term fit (soup)",
    )


def _encode_and_fit(
    graph: Any,
    folder: Path,
    manifest: dict[str, Any],
    options: ChainTuneOptions,
    s: Settings,
    ontology: Ontology,
    held: list[tuple[str, TypedChain, Mapping[str, float]]],
    progress: Progress | None,
    fit_stage: str,
) -> dict[str, float]:
    """Encode the chain texts with `folder`'s model and fit its question terms on `held`; the timings.

    The manifest (its `chain.pool` once the pool's encodings are written) is written to `folder`.
    """
    from pathrag_gds.chain_model import ChainScorer
    from pathrag_gds.export import write_manifest
    from pathrag_gds.training.near_fit import fit_terms

    t0 = time.perf_counter()
    texts, pool = chain_texts(graph, options, ontology)
    scorer = ChainScorer(folder, quantization=s.quantization, threads=options.threads)
    scorer.save_vectors(texts, None if progress is None else lambda i, n: progress("chain texts", i, n, ""))
    if pool is not None:  # declared once its encodings are written; the term fit ranks the pool
        manifest["chain"]["pool"] = pool
        scorer.pool, scorer.plan_depth = frozenset(texts), options.pool_depth
    t1 = time.perf_counter()
    fit_terms(
        manifest["chain"],
        scorer,
        ontology,
        held,
        options.max_depth,
        None if progress is None else lambda i, n: progress(fit_stage, i, n, ""),
    )
    write_manifest(folder, manifest)
    return {"chain_vectors": t1 - t0, "terms_fit": time.perf_counter() - t1}


def _fit_ensemble_terms(
    first: ChainTuneResult, folder: Path, options: ChainTuneOptions, s: Settings, progress: Progress | None
) -> None:
    """Fit the question terms again against the ensemble's mean scores (each member fitted its own).

    The search adds them to the members' mean cosine, not to the first member's alone; the first
    member's held-out questions are the fit questions.
    """
    from pathrag_gds.chain_model import ChainScorer
    from pathrag_gds.export import write_manifest
    from pathrag_gds.training.near_fit import fit_terms

    if first.ontology is None or not first.held_out:
        return
    fit_terms(
        first.manifest["chain"],
        ChainScorer(folder, quantization=s.quantization, threads=options.threads),
        first.ontology,
        first.held_out,
        options.max_depth,
        None if progress is None else lambda i, n: progress("question-term fit (ensemble)", i, n, ""),
    )
    write_manifest(folder, first.manifest)


def _member_minutes(options: ChainTuneOptions) -> float:
    """The clock cap of each model: an ensemble splits `minutes`, a soup gives each run all of it."""
    return options.minutes if options.soup else options.minutes / options.seeds


def _member_progress(progress: Progress | None, i: int, n: int) -> Progress | None:
    """Progress of the i-th of n models: its stages named `stage i+1/n` (one bar each)."""
    if progress is None or n == 1:
        return progress
    inner = progress
    return lambda stage, done, total, note: inner(f"{stage} {i + 1}/{n}", done, total, note)


@dataclass
class _Prepared:
    """One run's data, generated here from the graph: what it trains on and what its manifest says."""

    options: ChainTuneOptions
    ontology: Ontology
    questions: int
    rows: list[ChainRow]
    holdout: list[tuple[str, str, list[str]]]
    held_chains: list[tuple[str, TypedChain, Mapping[str, float]]]
    seconds: float


def _prepare(options: ChainTuneOptions, svc: Any, progress: Progress | None) -> _Prepared:
    """Generate one run's questions (seed `options.seed`), its training rows and held-out questions."""
    from pathrag_gds.training.chains import chain_rows

    t0 = time.perf_counter()
    ontology, questions, entities = generate_questions(options, svc, progress)
    hold, train = split_held_out(questions, options.seed)
    rows = chain_rows(
        train, entities, ontology, max_depth=options.max_depth, negatives=options.negatives, seed=options.seed
    )
    held_chains, holdout = held_out_chains(hold, entities, ontology, svc.embedder, options.max_depth)
    return _Prepared(options, ontology, len(questions), rows, holdout, held_chains, time.perf_counter() - t0)


def _train_config(options: ChainTuneOptions, threads: int) -> ChainTrainConfig:
    return ChainTrainConfig(
        seed=options.seed,
        minutes=options.minutes,
        steps=options.steps or None,
        epochs=options.epochs,
        batch_size=options.batch_size,
        threads=threads,
    )


def _finish(
    run: _Prepared,
    job: RunJob,
    outcome: RunOutcome,
    svc: Any,
    s: Settings,
    progress: Progress | None,
    encode: bool,
) -> ChainTuneResult:
    """Write a trained run's manifest into its folder; with `encode`, its chain texts and term fit too."""
    from pathrag_gds.export import write_manifest

    options, result, out, config = run.options, outcome.result, job.out, job.config
    training = {
        "steps": result.steps,
        "planned_steps": result.planned_steps,
        "stopped_by_clock": result.stopped_by_clock,
        "seconds": round(result.seconds, 1),
        "rows": result.rows,
        "holdout_questions": result.holdout_rows,
        "holdout_top1": result.holdout_top1,
        "final_loss": round(sum(result.losses[-20:]) / max(1, len(result.losses[-20:])), 4),
        "config": asdict(config),
    }
    manifest = dict(outcome.exported)
    manifest["name"] = f"chain scorer of {options.community}"
    manifest["kind"] = "chain-scorer"
    manifest["chain"] = {
        "temperature": config.temperature,
        "ontology": ontology_fingerprint(run.ontology),
        "community": options.community,
        "questions": run.questions,
        "training": training,
        "options": {
            k: (str(v) if isinstance(v, Path) else v)
            for k, v in asdict(options).items()
            if k not in ("out", "seeds", "jobs")
        },
        "data": "questions generated from the community's own graph and ontology; no benchmark file read",
    }
    write_manifest(out, manifest)
    timings = {"generate": run.seconds, **outcome.timings_s}
    # the question terms (first hop near the topic, answer type, relational noun): fitted on the
    # held-out questions
    if encode:
        fit = _encode_and_fit(
            svc.graph, out, manifest, options, s, run.ontology, run.held_chains, progress, "question-term fit"
        )
        timings.update(fit)
    return ChainTuneResult(
        out, run.questions, len(run.rows), timings, training, manifest, run.held_chains, run.ontology
    )
