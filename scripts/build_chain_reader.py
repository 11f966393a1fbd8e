"""Build the chain reader (`models/chain-reader/`): one chain scorer trained on several graphs' questions.

A community without a chain model of its own plans with the reader (`chain_scorer` `auto`), so a
graph a user brings plans chains from its first query, before any `tune`
(`pathrag_gds/training/chain_reader.py`; docs/chains.md, "The chain reader"). Every source must be
loaded; the shipped reader's sources are the default: the MetaQA, people and demo graphs and the six
training graphs of `pathrag_gds/datasets/data/reader/` (written for this, in domains of their own,
with no question in them):

    for f in pathrag_gds/datasets/data/reader/*.yaml; do .venv/bin/python -m pathrag_gds load graph $f; done
    .venv/bin/python scripts/build_chain_reader.py            # ~25 min on 2 cores
    .venv/bin/python scripts/build_chain_reader.py --communities people Museum_Train --steps 50 --out /tmp/m
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

#: The shipped reader's sources (community ids). None of the blind sets' graphs is among them.
SOURCES = [
    "metaqa",
    "people",
    "DefaultCommunity_FictionalStories",
    "RailwayNetwork_Train",
    "Museum_Train",
    "Theatre_Train",
    "Airline_Train",
    "Council_Train",
    "Expedition_Train",
]


def main(argv: list[str] | None = None) -> int:
    """Parse, build, say where the reader went."""
    from pathrag_gds.commands.tune import progress_bars
    from pathrag_gds.errors import PathRagError
    from pathrag_gds.training.chain_reader import ReaderOptions, build_reader

    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--communities", nargs="+", default=SOURCES, help="source community ids (loaded)")
    p.add_argument("--steps", type=int, default=500, help="optimizer steps of 16 questions (default 500)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--out", type=Path, default=None, help="models folder (default: the settings' models_dir)")
    args = p.parse_args(argv)
    if args.steps < 1:
        p.error("--steps must be at least 1")
    options = ReaderOptions(list(args.communities), args.steps, args.seed, args.threads, args.out)
    try:
        with progress_bars() as progress:
            result = build_reader(options, progress=progress)
    except PathRagError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    rows = ", ".join(f"{c} {n}" for c, n in result.rows.items())
    print(f"chain reader: {result.model_dir}")
    print(f"  rows: {rows}")
    print(f"  gold chain first on the sources' held-out generated questions: {result.top1}")
    print("  seconds: " + ", ".join(f"{k} {v:.0f}" for k, v in result.timings_s.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
