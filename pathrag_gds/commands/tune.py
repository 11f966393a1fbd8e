"""`python -m pathrag_gds tune`: train a graph's models from questions the graph itself generates.

`--model chains` (the default) trains the chain scorer that plans the search's walk over relation
chains (:mod:`pathrag_gds.training.chain_tune`, `models/tuned-<community>/chain/`) for `--steps`
(default 100: a short fine-tuning carries best to hand-written questions, docs/chains.md). `--model paths`
trains the path cross-encoder of the cascade; its steps (with progress): generate questions by
random walks over the community and phrase them with its ontology; build pairs (the path as the
search serializes it, plus hard negatives, some picked by the bi-encoder); fine-tune
all-MiniLM-L6-v2 as a cross-encoder on CPU (time-boxed with `--minutes`); export ONNX int8 to
`models/tuned-<community>/` with a manifest. From then on the search scores that community with
the cascade (bi-encoder, then the cross-encoder on the best `PATHRAG_CASCADE_K`). Needs torch
(`pip install -e .[train]`).

Example:
    python -m pathrag_gds tune --community metaqa
    python -m pathrag_gds tune --model paths --community DefaultCommunity_FictionalStories --pairs 3000
"""

from __future__ import annotations

import argparse
import contextlib
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from pathrag_gds.datasets.demo import DEMO_COMMUNITY
from pathrag_gds.training.pairs import PREFIX_LABEL
from pathrag_gds.training.tune_options import BASE_SHARE, MINED_SHARE, SYNONYM_SHARE


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the `tune` command."""
    p = sub.add_parser(
        "tune", help="train a graph's chain scorer (or path cross-encoder) from generated questions (torch)"
    )
    p.add_argument("--community", default=DEMO_COMMUNITY, help=f"community id (default {DEMO_COMMUNITY})")
    p.add_argument(
        "--model",
        choices=("chains", "paths"),
        default="chains",
        help="chains: the chain scorer that plans the walk (default); paths: the cascade's cross-encoder",
    )
    p.add_argument(
        "--questions", type=int, default=4000, help="chains: generated training questions (default 4000)"
    )
    p.add_argument("--pairs", type=int, default=3000, help="training pairs to generate (default 3000)")
    p.add_argument("--epochs", type=float, default=1.0, help="passes over the pairs (default 1)")
    p.add_argument(
        "--minutes",
        type=float,
        default=None,
        help="stop training after this many minutes (chains: a cap beside --steps, default 12)",
    )
    p.add_argument("--seed", type=int, default=0, help="seed of sampling and training (default 0)")
    p.add_argument("--max-depth", type=int, default=3, help="longest generated chain, in hops (default 3)")
    p.add_argument("--batch-size", type=int, default=32, help="pairs per step (default 32)")
    p.add_argument("--max-length", type=int, default=192, help="tokens of question + path (default 192)")
    p.add_argument(
        "--freeze-layers", type=int, default=0, help="freeze embeddings + the first N layers (faster steps)"
    )
    p.add_argument(
        "--threads",
        type=int,
        default=1,
        help="torch threads (default 1: on a busy shared machine 1 thread trains ~2x faster than 2); "
        "chains: of runs trained in the tune's process (--jobs 1) and of the chain-text encoding, a "
        "run in a worker has one",
    )
    p.add_argument(
        "--cut-short-label",
        type=float,
        default=PREFIX_LABEL,
        help=f"label of the right chain cut short (default {PREFIX_LABEL}: kept in the beam; 0: a negative)",
    )
    p.add_argument(
        "--seeds",
        type=int,
        default=None,
        help="models to train, each on its own walks (seeds SEED, SEED+1, ...); chains (default 3): "
        "their weights averaged into one model, each with the --minutes cap; the cross-encoder "
        "(default 1): scored together at query time, --minutes split between them",
    )
    p.add_argument(
        "--ensemble",
        action="store_true",
        help="chains, with --seeds N: keep the N models and score the mean of their cosines (the "
        "question encoded once per model) instead of averaging their weights into one; --minutes "
        "is split between them",
    )
    p.add_argument(
        "--synonym-share",
        type=float,
        default=None,
        help="chains: share of the generated questions' relation phrases said with a WordNet synonym "
        f"(default {SYNONYM_SHARE}; needs WordNet's files: apt-get install wordnet-base, or "
        "PATHRAG_WORDNET_DIR)",
    )
    p.add_argument(
        "--mined-share",
        type=float,
        default=None,
        help="chains: share of the generated questions' relation phrases said as the graph's own "
        f"descriptions say them (mined from its entities' texts; default {MINED_SHARE})",
    )
    p.add_argument(
        "--base-share",
        type=float,
        default=None,
        help="chains: weight of the untrained sentence encoder averaged into the soup, in [0, 1) "
        f"(default {BASE_SHARE}): keeps words the base model knew "
        "that the graph's generated questions do not use",
    )
    p.add_argument(
        "--jobs",
        type=int,
        default=None,
        help="chains: runs of --seeds trained at once, each in a worker process with one torch thread "
        "(default: one per core, at most --seeds; 1: one after another in this process, with --threads)",
    )
    p.add_argument(
        "--base",
        type=Path,
        default=None,
        help="start from this tuned model (kept with --keep-checkpoint) instead of all-MiniLM-L6-v2",
    )
    p.add_argument(
        "--keep-checkpoint",
        action="store_true",
        help="keep the trained weights in <model>/checkpoint/ (~90 MB) to use as --base later",
    )
    p.add_argument(
        "--steps",
        type=int,
        default=None,
        help="chains: training steps of each model (default 100; 0: two passes over the questions)",
    )
    p.add_argument("--out", type=Path, default=None, help="models folder (default PATHRAG_MODELS_DIR)")
    p.add_argument("--data-only", action="store_true", help="generate the pairs, print counts and hash")
    p.add_argument(
        "--refit-terms",
        action="store_true",
        help="chains: fit the question-term weights of the community's chain model again on its "
        "held-out questions (generated again with the options it was tuned with); no training",
    )
    p.add_argument(
        "--chain-pool",
        action="store_true",
        help="chains: build the chain pool of the community's chain model again (the chains its graph "
        "holds, to --pool-depth hops, encoded for the planner) after the graph changed; no training",
    )
    p.add_argument(
        "--pool-depth",
        type=int,
        default=None,
        help="chains: build a chain pool to this many hops, planned even past --max-depth (training: "
        "default 0, no pool, plan the schema's chains to --max-depth; --chain-pool: default 3); graphs "
        "over 2000 relationships get no pool",
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Generate, train, export, and print a summary."""
    from rich.console import Console

    from pathrag_gds.errors import InvalidInput
    from pathrag_gds.training.tune import TuneOptions, build_pairs, tune

    if args.seeds is not None and args.seeds < 1:
        raise InvalidInput("--seeds must be at least 1")
    if args.model == "chains":
        if args.chain_pool:
            return _chain_pool(args)
        return _refit_terms(args) if args.refit_terms else _run_chains(args)
    for flag, given in (("--ensemble", args.ensemble), ("--jobs", args.jobs is not None)):
        if given:
            raise InvalidInput(f"{flag} is for the chain model (`--model chains`, the default)")
    if args.refit_terms or args.chain_pool:
        raise InvalidInput(
            "--refit-terms and --chain-pool are for the chain model (`--model chains`, the default)"
        )
    if args.pairs < 10:
        raise InvalidInput("--pairs must be at least 10")
    if args.minutes is not None and args.minutes <= 0:
        raise InvalidInput("--minutes must be positive")
    if not 0.0 <= args.cut_short_label < 1.0:
        raise InvalidInput("--cut-short-label must be in [0, 1): below the positive's 1")
    options = TuneOptions(
        community=args.community,
        pairs=args.pairs,
        epochs=args.epochs,
        minutes=args.minutes,
        seed=args.seed,
        max_depth=args.max_depth,
        batch_size=args.batch_size,
        max_length=args.max_length,
        freeze_layers=args.freeze_layers,
        threads=args.threads,
        cut_short_label=args.cut_short_label,
        out=args.out,
        seeds=args.seeds or 1,
        base=args.base,
        keep_checkpoint=args.keep_checkpoint,
    )
    console = Console(stderr=True)
    with progress_bars() as progress:
        if args.data_only:
            questions, pairs, _ = build_pairs(options, progress=progress)
            from pathrag_gds.training.pairs import data_hash

            console.print(f"{len(questions)} questions, {len(pairs)} pairs, data hash {data_hash(pairs)}")
            return 0
        result = tune(options, progress=progress)
    for i, r in enumerate([result, *result.members]):
        t = r.training
        acc = t.get("holdout_pairwise_accuracy")
        top1 = t.get("holdout_top1")
        clock = " (stopped by --minutes)" if t["stopped_by_clock"] else ""
        where = result.model_dir if i == 0 else f"member seed {t['config']['seed']}"
        console.print(
            f"[green]tuned[/] {where}: {r.questions} questions, {r.pairs} pairs "
            f"({', '.join(f'{k} {v}' for k, v in r.kinds.items())}), data hash {r.data_hash[:16]}\n"
            f"steps {t['steps']}/{t['planned_steps']}{clock}, "
            f"held-out pairwise accuracy {acc if acc is None else f'{acc:.3f}'}, "
            f"top-1 {top1 if top1 is None else f'{top1:.3f}'}; "
            + ", ".join(f"{k} {v:.0f} s" for k, v in r.timings_s.items())
        )
    return 0


#: The ` i/n` ending the stages of one run of several (`train 2/3`).
RUN_STAGE = re.compile(r" (\d+/\d+)$")


def _run_of(stage: str) -> str | None:
    """The run a stage belongs to (`2/3`), or None for a stage of the whole tune.

    Example:
        >>> _run_of("train 2/3"), _run_of("soup")
        ('2/3', None)
    """
    found = RUN_STAGE.search(stage)
    return found.group(1) if found else None


@contextlib.contextmanager
def progress_bars() -> Iterator[Callable[[str, int, int, str], None]]:
    """A progress callback `(stage, done, total, note)` drawing one bar per stage, closed at the end.

    A new stage closes the bars before it, except those of other runs still under way: runs that
    train side by side (`tune --jobs`) each keep their bar moving.
    """
    from pathrag_gds.progress import bar as progress_bar

    bars: dict[str, Any] = {}

    def progress(stage: str, done: int, total: int, note: str) -> None:
        bar = bars.get(stage)
        if bar is None:
            run = _run_of(stage)
            for name, other in bars.items():
                if run is None or _run_of(name) in (None, run) or other.n >= (other.total or 0):
                    other.close()
            unit = "step" if stage.startswith("train") else "text" if stage.startswith("chain texts") else "q"
            bar = bars[stage] = progress_bar(total, stage, unit)
        if done > bar.n:
            bar.update(done - bar.n)  # an update, not `bar.n =`: the rate and ETA follow the pace
        if note:
            bar.set_description_str(f"{stage} ({note})")

    try:
        yield progress
    finally:
        for bar in bars.values():
            bar.close()


def _refit_terms(args: argparse.Namespace) -> int:
    """`tune --refit-terms`: the chain model's question terms fitted again, its encoder untouched."""
    from rich.console import Console

    from pathrag_gds.training.terms_refit import refit_terms

    with progress_bars() as progress:
        fitted = refit_terms(args.community, progress=progress)
    near = fitted["near"]
    Console(stderr=True).print(
        f"[green]question terms[/] of {args.community}'s chain model fitted again on {near['questions']} "
        f"held-out questions: answer type {fitted['answer_type']['weight']:.4f}, relational noun "
        f"{fitted['noun']['weight']:.4f} ({fitted['noun']['questions']} questions name one), last hop "
        f"near the question word {', '.join(f'{w:.3f}' for w in fitted['far']['weights'])}; top-1 "
        f"{near['top1_without']:.3f} without the terms, {near['top1_with']:.3f} with them"
    )
    return 0


def _chain_pool(args: argparse.Namespace) -> int:
    """`tune --chain-pool`: the chain model's pool built again from the graph, its encoder untouched."""
    from rich.console import Console

    from pathrag_gds.training.chain_pool import POOL_DEPTH, rebuild_pool

    with progress_bars() as progress:
        depth = POOL_DEPTH if args.pool_depth is None else args.pool_depth
        entry = rebuild_pool(args.community, depth, progress=progress)
    Console(stderr=True).print(
        f"[green]chain pool[/] of {args.community}'s chain model: {entry['chains']} chain texts to "
        f"{entry['depth']} hops, encoded"
    )
    return 0


def _run_chains(args: argparse.Namespace) -> int:
    """`tune --model chains`: generate questions, train and export the chain scorer."""
    from rich.console import Console

    from pathrag_gds.errors import InvalidInput
    from pathrag_gds.training.chain_tune import ChainTuneOptions, tune_chains

    if args.pool_depth is not None and args.pool_depth < 0:
        raise InvalidInput("--pool-depth must be 0 (no pool) or positive")
    if args.questions < 20:
        raise InvalidInput("--questions must be at least 20")
    if args.steps is not None and args.steps < 0:
        raise InvalidInput("--steps must be 0 (two passes over the questions) or positive")
    if args.minutes is not None and args.minutes <= 0:
        raise InvalidInput("--minutes must be positive")
    if args.jobs is not None and args.jobs < 1:
        raise InvalidInput("--jobs must be at least 1")
    defaults = ChainTuneOptions(community=args.community)
    seeds = args.seeds if args.seeds is not None else defaults.seeds
    if args.ensemble and seeds < 2:
        raise InvalidInput("--ensemble scores several models: give --seeds 2 or more")
    base_share = args.base_share if args.base_share is not None else defaults.base_share
    if not 0.0 <= base_share < 1.0:
        raise InvalidInput(f"--base-share must be at least 0 and below 1, got {base_share}")
    synonym_share = args.synonym_share if args.synonym_share is not None else defaults.synonym_share
    if not 0.0 <= synonym_share <= 1.0:
        raise InvalidInput(f"--synonym-share must be between 0 and 1, got {synonym_share}")
    mined_share = args.mined_share if args.mined_share is not None else defaults.mined_share
    if not 0.0 <= mined_share <= 1.0 or synonym_share + mined_share > 1.0:
        raise InvalidInput(
            f"--mined-share must be between 0 and 1 and, with --synonym-share, at most 1 in all; got "
            f"{mined_share} and {synonym_share}"
        )
    if args.ensemble and base_share > 0:
        raise InvalidInput("--base-share averages weights: give it without --ensemble (or --base-share 0)")
    options = ChainTuneOptions(
        community=args.community,
        questions=args.questions,
        minutes=args.minutes if args.minutes is not None else defaults.minutes,
        seed=args.seed,
        max_depth=args.max_depth,
        threads=args.threads,
        seeds=seeds,
        soup=not args.ensemble,
        base_share=base_share,
        synonym_share=synonym_share,
        mined_share=mined_share,
        steps=args.steps if args.steps is not None else defaults.steps,
        pool_depth=args.pool_depth or 0,
        jobs=args.jobs or 0,
        out=args.out,
    )
    with progress_bars() as progress:
        result = tune_chains(options, progress=progress)
    jobs = result.manifest.get("chain", {}).get("build", {}).get("jobs")
    t = result.training
    top1 = t.get("holdout_top1")
    clock = " (stopped by --minutes)" if t["stopped_by_clock"] else ""
    if options.soup and options.seeds > 1:
        clock += f"; a soup of {options.seeds} models (the first's held-out top-1 below)"
    Console(stderr=True).print(
        f"[green]chain scorer[/] {result.model_dir}: {result.questions} questions, {result.rows} rows; "
        f"steps {t['steps']}/{t['planned_steps']}{clock}, "
        f"held-out top-1 chain over the schema {top1 if top1 is None else f'{top1:.3f}'}; "
        + ", ".join(f"{k} {v:.0f} s" for k, v in result.timings_s.items())
        + (f" (the runs' seconds summed; {jobs} trained at a time)" if options.seeds > 1 else "")
    )
    return 0
