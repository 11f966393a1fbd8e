"""The `tune` pipeline: questions from the graph -> pairs -> cross-encoder -> ONNX int8 in `models/`.

The result is `models/tuned-<community>/` (see :func:`pathrag_gds.scoring.tuned_model_dir`) with the
int8 model, tokenizer and a manifest that records the graph, counts, seed, time and the data hash;
:func:`pathrag_gds.scoring.get_scorer` then uses it in a :class:`~pathrag_gds.scoring.CascadeScorer`
for that community.

Example:
    >>> result = tune(TuneOptions(community="DefaultCommunity_FictionalStories"))  # doctest: +SKIP
"""

from __future__ import annotations

import json
import shutil
import tempfile
import time
from collections import Counter
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pathrag_gds.backend.model_folder import swap_in
from pathrag_gds.config import Settings, get_settings
from pathrag_gds.errors import InvalidInput
from pathrag_gds.training.lineage import (
    BUNDLED_BASE,
    CHECKPOINT,
    base_manifest,
    code_version,
    resolve_base,
)
from pathrag_gds.training.pairs import data_hash
from pathrag_gds.training.tune_data import (
    PAIRS_PER_QUESTION,
    build_pairs,
    generate_questions,
    questions_by_template,
)
from pathrag_gds.training.tune_options import Progress, TuneOptions, TuneResult, as_json

__all__ = [
    "BUNDLED_BASE",
    "CHECKPOINT",
    "PAIRS_PER_QUESTION",
    "Progress",
    "TuneOptions",
    "TuneResult",
    "build_pairs",
    "code_version",
    "generate_questions",
    "questions_by_template",
    "resolve_base",
    "tune",
]


def tune(
    options: TuneOptions, settings: Settings | None = None, progress: Progress | None = None
) -> TuneResult:
    """Generate, train, export: the whole `tune` command (see the module docstring).

    With `options.seeds` > 1, one model per seed (each with its own generated data), exported into
    one folder: the first seed's model at the top, the others in `seed-<n>/` sub-folders listed as
    `members` in the manifest (:class:`~pathrag_gds.scoring.CrossEncoderScorer` averages their
    logits). The folder is built beside the old one and swapped in at the end, so a failed run
    leaves the previous model in place.

    Raises:
        InvalidInput: the community does not exist, `seeds` < 1, or `base` holds no checkpoint.
    """
    from pathrag_gds.export import write_manifest
    from pathrag_gds.scoring import reset_scorers, tuned_model_dir

    if options.seeds < 1:
        raise InvalidInput(f"seeds must be at least 1 (got {options.seeds})")
    if options.base is not None:
        options = replace(options, base=resolve_base(options.base))  # before any graph or training work
    s = settings or get_settings()
    model_dir = tuned_model_dir(s, options.community, options.out or s.models_dir)
    if options.seeds == 1 or not options.export:
        return _tune_one(replace(options, seeds=1), s, progress, model_dir)
    staging = model_dir.parent / f".{model_dir.name}.partial"
    if staging.exists():
        shutil.rmtree(staging)
    minutes = options.minutes / options.seeds if options.minutes else None
    results: list[TuneResult] = []
    for i in range(options.seeds):
        one = replace(options, seed=options.seed + i, minutes=minutes, seeds=1)
        target = staging if i == 0 else staging / f"seed-{one.seed}"

        def labelled(stage: str, done: int, total: int, note: str, _i: int = i) -> None:
            if progress is not None:
                progress(f"{stage} (seed {options.seed + _i})", done, total, note)

        results.append(_tune_one(one, s, labelled, target))
    first, rest = results[0], results[1:]
    manifest = dict(first.manifest)
    manifest["members"] = [f"seed-{options.seed + i}" for i in range(1, options.seeds)]
    manifest["ensemble"] = {
        "seeds": [options.seed + i for i in range(options.seeds)],
        "combine": "mean of logits",
        "data_hashes": [r.data_hash for r in results],
        "holdout_top1": [r.training.get("holdout_top1") for r in results],
        "seconds": round(sum(sum(r.timings_s.values()) for r in results), 1),
        # the whole command (`training.options` is this folder's own member: seeds 1, its minutes)
        "options": options.recorded(),
    }
    write_manifest(staging, manifest)
    swap_in(staging, model_dir)
    reset_scorers()
    return replace(first, model_dir=model_dir, manifest=manifest, members=rest)


def _tune_one(options: TuneOptions, s: Settings, progress: Progress | None, model_dir: Path) -> TuneResult:
    """One seed: generate, train, export into `model_dir` (replaced)."""
    from pathrag_gds.training.train import TrainConfig, train_cross_encoder

    timings: dict[str, float] = {}
    t0 = time.perf_counter()
    questions, pairs, info = build_pairs(options, s, progress)
    timings["generate"] = time.perf_counter() - t0
    digest = data_hash(pairs)
    kinds = dict(sorted(Counter(p.kind for p in pairs).items()))
    config = TrainConfig(
        seed=options.seed,
        epochs=options.epochs,
        minutes=options.minutes,
        batch_size=options.batch_size,
        max_length=options.max_length,
        threads=options.threads,
        freeze_layers=options.freeze_layers,
        source=options.base,
        # a tuned base has a trained head: no head learning-rate boost (it is for a new head)
        head_lr_mult=1.0 if options.base else TrainConfig.head_lr_mult,
    )

    def step(i: int, n: int, loss: float) -> None:
        if progress is not None:
            progress("train", i, n, f"loss {loss:.3f}")

    with tempfile.TemporaryDirectory(prefix="pathrag-tune-") as tmp:
        t1 = time.perf_counter()
        trained = train_cross_encoder(pairs, Path(tmp) / "hf", config, progress=step)
        timings["train"] = time.perf_counter() - t1
        training = {
            "steps": trained.steps,
            "planned_steps": trained.planned_steps,
            "stopped_by_clock": trained.stopped_by_clock,
            "train_pairs": trained.train_pairs,
            "holdout_pairs": trained.holdout_pairs,
            "holdout_pairwise_accuracy": trained.holdout_accuracy,
            "holdout_top1": trained.holdout_top1,
            "final_loss": trained.losses[-1] if trained.losses else None,
            "config": as_json(config),
        }
        manifest: dict[str, Any] = {}
        if options.export:
            from pathrag_gds.export import export_cross_encoder, write_manifest

            if progress is not None:
                progress("export", 0, 1, "ONNX fp32 + int8")
            t2 = time.perf_counter()
            with tempfile.TemporaryDirectory(prefix="pathrag-tune-out-") as staging:
                result = export_cross_encoder(Path(tmp) / "hf", Path(staging), name=model_dir.name)
                model_dir.parent.mkdir(parents=True, exist_ok=True)
                if model_dir.exists():
                    shutil.rmtree(model_dir)
                shutil.copytree(result.model_dir, model_dir)
            if options.keep_checkpoint:
                shutil.copytree(Path(tmp) / "hf", model_dir / CHECKPOINT)
            timings["export"] = time.perf_counter() - t2
            manifest = json.loads((model_dir / "manifest.json").read_text(encoding="utf-8"))
            manifest["source"] = {
                "base": str(options.base) if options.base else BUNDLED_BASE,
                "tuned_by": "python -m pathrag_gds tune",
            }
            if options.base:
                manifest["source"]["base_manifest"] = base_manifest(options.base)
            if options.keep_checkpoint:
                manifest["checkpoint"] = CHECKPOINT
            manifest["licence"] = "Apache-2.0"
            manifest["activation"] = "sigmoid"
            manifest["training"] = {
                "community": options.community,
                "options": options.recorded(),
                "code": code_version(),
                "ontology": info["ontology"],
                "seed": options.seed,
                "max_depth": options.max_depth,
                "cut_short_label": options.cut_short_label,
                "questions": len(questions),
                "pairs": len(pairs),
                "pairs_by_kind": kinds,
                "questions_by_template": questions_by_template(questions),
                "data_hash": digest,
                "path_text_tokens": s.path_text_tokens,
                "epochs": options.epochs,
                "minutes_budget": options.minutes,
                "seconds": {k: round(v, 1) for k, v in timings.items()},
                "finished": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
                **training,
            }
            write_manifest(model_dir, manifest)
            from pathrag_gds.scoring import reset_scorers

            reset_scorers()
    return TuneResult(
        model_dir=model_dir if options.export else None,
        questions=len(questions),
        pairs=len(pairs),
        data_hash=digest,
        kinds=kinds,
        timings_s=timings,
        training=training,
        manifest=manifest,
    )
