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
from dataclasses import asdict, dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

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
from pathrag_gds.training.tune_options import BASE_SHARE, SYNONYM_SHARE


@dataclass
class ChainTuneOptions:
    """What `python -m pathrag_gds tune --community ID` asks of the chain scorer."""

    community: str
    questions: int = 4000
    #: Training steps of each model (0: `epochs` passes over the rows); `minutes` is a cap.
    steps: int = 100
    minutes: float = 12.0
    epochs: float = 2.0
    seed: int = 0
    max_depth: int = 3
    negatives: int = 4
    batch_size: int = 16
    hub_cap: int = 25
    #: Share of 2+ hop walks from an event asked with the event as the occasion ("Where does Bob
    #: hide during the kitchen clean-up?"): rows whose chain starts at the second entity.
    anchored_share: float = 0.3
    threads: int = 2
    #: Dual encoders trained, each on its own walks (seeds `seed`, `seed + 1`, ...). One build is
    #: one draw: single builds that differ only in their seed differ by up to 7 points on 3-hop
    #: MetaQA; three averaged are steadier and at least as good (docs/chains.md).
    seeds: int = 3
    #: With `seeds` > 1: average the models' weights into one (:mod:`.chain_soup`); False: an
    #: ensemble the search scores with the mean of their cosines (a question encoded per model).
    #: Each model of a soup has the whole `minutes` cap: the step budget decides, and a soup of runs
    #: cut short would be one cut short; an ensemble splits it.
    soup: bool = True
    #: Weight of the untrained encoder in the soup (`--base-share`; :mod:`.chain_soup`): keeps
    #: the language the base model knew that the generated phrasing does not hold. 0: the runs alone.
    base_share: float = BASE_SHARE
    #: Share of the generated questions' relation phrases said with a WordNet synonym of the sense
    #: nearest the relation's description (`--synonym-share`; :mod:`.synonyms`). 0: the ontology's.
    synonym_share: float = SYNONYM_SHARE
    #: The chain pool's depth (:mod:`pathrag_gds.training.chain_pool`; 0, the default: none, plan
    #: the schema to `max_depth`). Built only for graphs up to `POOL_MAX_RELATIONSHIPS` relationships.
    pool_depth: int = 0
    out: Path | None = None


@dataclass
class ChainTuneResult:
    """Counts, timings and where the model went."""

    model_dir: Path
    questions: int
    rows: int
    timings_s: dict[str, float] = field(default_factory=dict)
    training: dict[str, Any] = field(default_factory=dict)
    manifest: dict[str, Any] = field(default_factory=dict)
    #: (masked question, gold chain, intent type scores) of the held-out questions, and the
    #: ontology: what the question terms are fitted on (again, for an ensemble's mean scores)
    held_out: list[tuple[str, TypedChain, Mapping[str, float]]] = field(default_factory=list, repr=False)
    ontology: Ontology | None = field(default=None, repr=False)


def tune_chains(
    options: ChainTuneOptions, settings: Settings | None = None, progress: Progress | None = None
) -> ChainTuneResult:
    """Generate, train, export the community's chain scorer (an ensemble with `seeds` > 1).

    Everything is built in a staging folder beside the old model and swapped in at the end.

    Raises:
        InvalidInput: the community does not exist, or `seeds` < 1.
        ModelError: torch or the base model is missing.
    """
    from pathrag_gds.backend.model_folder import check_model_dir
    from pathrag_gds.chain_model import chain_model_dir, reset_chain_scorers
    from pathrag_gds.export import write_manifest
    from pathrag_gds.locations import find_model

    if options.seeds < 1:
        raise InvalidInput(f"seeds must be at least 1, got {options.seeds}")
    s = settings or get_settings()
    check_model_dir(find_model(s.models_dir, s.embedding_model))  # before minutes of question generation
    model_dir = chain_model_dir(s, options.community, options.out or s.models_dir)
    staging = model_dir.parent / f".{model_dir.name}.partial"
    if staging.exists():
        shutil.rmtree(staging)
    from pathrag_gds.service import PathRag

    svc = PathRag(s)  # one service (driver, ontology, embedder) for every run and the soup
    souped = (options.seeds > 1 and options.soup) or options.base_share > 0
    results = []
    for i in range(options.seeds):
        folder = staging if i == 0 else staging / f"member-{i}"
        results.append(
            _tune_one(
                replace(options, seed=options.seed + i, minutes=_member_minutes(options)),
                svc,
                s,
                folder,
                _member_progress(progress, i, options.seeds),
                encode=not souped,  # a run of a soup: only the soup's encodings are kept
            )
        )
    first = results[0]
    if souped:
        first.timings_s.update(soup_members(first, staging, results, options, svc.graph, s, progress))
    elif options.seeds > 1:
        first.manifest["chain"]["members"] = [r.model_dir.name for r in results[1:]]
        first.manifest["chain"]["ensemble"] = {
            "seeds": [options.seed + i for i in range(options.seeds)],
            "holdout_top1": [r.training.get("holdout_top1") for r in results],
        }
        write_manifest(staging, first.manifest)
        _fit_ensemble_terms(first, staging, options, s, progress)
    # when it was built (`python -m pathrag_gds info` shows it), as a path cross-encoder's manifest has it
    first.manifest["chain"]["finished"] = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    write_manifest(staging, first.manifest)
    if model_dir.exists():
        shutil.rmtree(model_dir)
    staging.rename(model_dir)
    reset_chain_scorers()
    timings = {k: sum(r.timings_s.get(k, 0.0) for r in results) for k in first.timings_s}
    return ChainTuneResult(
        model_dir, sum(r.questions for r in results), sum(r.rows for r in results), timings, first.training
    )


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
    encoding and fit timings.
    """
    from pathrag_gds.export import export_embedding, write_manifest
    from pathrag_gds.training.chain_soup import soup_folder

    if progress is not None:
        progress("soup", 0, 1, f"{len(results)} models")
    members = [r.model_dir for r in results[1:]]
    with tempfile.TemporaryDirectory(prefix="pathrag-base-") as tmp:
        anchor = None
        if options.base_share > 0:  # the untrained encoder, exported as the runs were
            anchor = export_embedding(Path(tmp), name="base", progress=False).model_dir
        first.manifest["files"] = soup_folder(folder, members, anchor, options.base_share)
    first.manifest["chain"]["soup"] = {
        "seeds": [options.seed + i for i in range(options.seeds)],
        "holdout_top1": [r.training.get("holdout_top1") for r in results],
        "base_share": options.base_share,
    }
    write_manifest(folder, first.manifest)
    if progress is not None:
        progress("soup", 1, 1, f"{len(results)} models")
    if first.ontology is None:
        return {}
    return _encode_and_fit(
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


def _tune_one(
    options: ChainTuneOptions,
    svc: Any,
    s: Settings,
    out: Path,
    progress: Progress | None,
    encode: bool = True,
) -> ChainTuneResult:
    """Generate, train, export one dual encoder into `out` (its manifest in `.manifest`).

    With `encode`, also its chain texts' encodings and its question terms' fit.
    """
    from pathrag_gds.export import export_embedding, write_manifest
    from pathrag_gds.training.chains import ChainTrainConfig, chain_rows, train_chain_scorer

    timings: dict[str, float] = {}
    t0 = time.perf_counter()
    ontology, questions, entities = generate_questions(options, svc, progress)
    timings["generate"] = time.perf_counter() - t0

    hold, train = split_held_out(questions, options.seed)
    rows = chain_rows(
        train, entities, ontology, max_depth=options.max_depth, negatives=options.negatives, seed=options.seed
    )
    held_chains, holdout = held_out_chains(hold, entities, ontology, svc.embedder, options.max_depth)

    config = ChainTrainConfig(
        seed=options.seed,
        minutes=options.minutes,
        steps=options.steps or None,
        epochs=options.epochs,
        batch_size=options.batch_size,
        threads=options.threads,
    )
    t1 = time.perf_counter()

    def step_progress(i: int, n: int, loss: float) -> None:
        if progress is not None:
            progress("train", i, n, f"loss {loss:.3f}")

    with tempfile.TemporaryDirectory(prefix="pathrag-chains-") as tmp:
        result = train_chain_scorer(rows, holdout, Path(tmp) / "st", config, step_progress)
        timings["train"] = time.perf_counter() - t1
        t2 = time.perf_counter()
        exported = export_embedding(out.parent, source=result.model_dir, name=out.name, progress=False)
    timings["export"] = time.perf_counter() - t2
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
    manifest = dict(exported.manifest)
    manifest["name"] = f"chain scorer of {options.community}"
    manifest["kind"] = "chain-scorer"
    manifest["chain"] = {
        "temperature": config.temperature,
        "ontology": ontology_fingerprint(ontology),
        "community": options.community,
        "questions": len(questions),
        "training": training,
        "options": {
            k: (str(v) if isinstance(v, Path) else v)
            for k, v in asdict(options).items()
            if k not in ("out", "seeds")
        },
        "data": "questions generated from the community's own graph and ontology; no benchmark file read",
    }
    write_manifest(out, manifest)
    # the question terms (first hop near the topic, answer type, relational noun): fitted on the
    # held-out questions
    if encode:
        timings.update(
            _encode_and_fit(
                svc.graph, out, manifest, options, s, ontology, held_chains, progress, "question-term fit"
            )
        )
    return ChainTuneResult(out, len(questions), len(rows), timings, training, manifest, held_chains, ontology)
