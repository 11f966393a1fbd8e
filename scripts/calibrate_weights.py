"""Calibrate the Step 6 term weights: grid or ablation over the Bob suite and MetaQA dev.

Runs every configuration in one process (models and the database connection are opened once) and
prints a table of Hits@1 per suite. Calibrate on the Bob spec + fresh questions and the MetaQA DEV
questions only (see docs/calibration.md).

Usage:
    python scripts/calibrate_weights.py ablation [--metaqa-n 30] [--people] [--json]
    python scripts/calibrate_weights.py grid --type 0 0.1 0.2 --length 0 0.05 --relation-prior 0 0.05 \
        --coverage 0 0.05 [--metaqa-n 30]
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pathrag_gds.config import METAQA_DIR as CONFIG_METAQA_DIR
from pathrag_gds.config import Settings, get_settings
from pathrag_gds.evaluation.bob import load_suite, run_suite
from pathrag_gds.service import PathRag

METAQA_DIR = Path(os.environ.get("METAQA_DIR", str(CONFIG_METAQA_DIR)))
TERMS = ("weight_type", "weight_relation_prior", "weight_coverage", "weight_length", "weight_described")
Runner = Callable[[PathRag], dict[str, float]]


def bob_runner(fresh: bool) -> Runner:
    """Hits@1 of the Bob spec (or fresh) questions."""
    suite = load_suite()

    def run(service: PathRag) -> dict[str, float]:
        qs = suite.fresh if fresh else suite.queries
        rep = run_suite(service, qs, suite.community_id)
        return {"bob_fresh" if fresh else "bob_spec": rep["hits_at_1"]}

    return run


def hops_runner(name: str, sets: dict[int, list[Any]], community: str) -> Runner:
    """Hits@1 per hop of question sets (topic linking), reported as `<name>_<hop>hop`."""
    from pathrag_gds.evaluation.metaqa import run_questions
    from pathrag_gds.evaluation.metaqa_cli import DEFAULT_MAX_DEPTH

    def run(service: PathRag) -> dict[str, float]:
        out: dict[str, float] = {}
        for hop, qs in sets.items():
            rows = run_questions(service, qs, community, params={"max_depth": DEFAULT_MAX_DEPTH})
            out[f"{name}_{hop}hop"] = sum(int(j.hit_at_1) for j in rows)
        return out

    return run


def metaqa_runner(n: int, community: str) -> Runner:
    """Hits@1 per hop on `n` MetaQA DEV questions per hop (stratified by qtype, seed 0, topic linking)."""
    from pathrag_gds.evaluation.metaqa import read_questions, stratified_sample

    sets = {
        hop: stratified_sample(read_questions(METAQA_DIR / f"{hop}-hop" / "qa_dev.txt"), n, 0)
        for hop in (1, 2, 3)
    }
    return hops_runner("metaqa", sets, community)


def people_runner(community: str) -> Runner:
    """Hits@1 per hop on the people graph's hand-written questions (tests/data/people, topic linking)."""
    from pathrag_gds.evaluation.metaqa import read_questions

    folder = Path(__file__).resolve().parents[1] / "tests" / "data" / "people"
    sets = {hop: read_questions(folder / f"{hop}-hop.txt") for hop in (1, 2, 3)}
    return hops_runner("people", sets, community)


def evaluate(base: Settings, overrides: dict[str, Any], runners: list[Runner]) -> dict[str, float]:
    """Run every suite with `base` settings plus overrides (one service, shared graph and models)."""
    settings = base.model_copy(update=overrides)
    service = PathRag(
        settings, graph=_shared["graph"], embedder=_shared["embedder"], scorer=_shared["scorer"]
    )
    row: dict[str, float] = {}
    for r in runners:
        row.update(r(service))
    return row


_shared: dict[str, Any] = {}


def main(argv: list[str] | None = None) -> int:
    """Parse arguments, run the configurations, print the table."""
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("what", choices=["ablation", "grid"])
    p.add_argument("--type", type=float, nargs="+", default=None)
    p.add_argument("--relation-prior", type=float, nargs="+", default=None)
    p.add_argument("--coverage", type=float, nargs="+", default=None)
    p.add_argument("--length", type=float, nargs="+", default=None)
    p.add_argument("--described", type=float, nargs="+", default=None)
    p.add_argument("--whitelist", choices=["on", "off", "both"], default=None)
    p.add_argument("--metaqa-n", type=int, default=0, help="MetaQA dev questions per hop (0: skip MetaQA)")
    p.add_argument("--metaqa-community", default="metaqa")
    p.add_argument("--no-bob", action="store_true")
    p.add_argument("--people", action="store_true", help="also the people graph's questions (all 171)")
    p.add_argument("--people-community", default="people")
    p.add_argument("--full", action="store_true", help="ablation: also each term alone")
    p.add_argument("--json", action="store_true")
    args = p.parse_args(argv)

    base = get_settings()
    boot = PathRag(base)
    _shared.update(graph=boot.graph, embedder=boot.embedder, scorer=boot.scorer)
    runners: list[Runner] = []
    if not args.no_bob:
        runners += [bob_runner(False), bob_runner(True)]
    if args.metaqa_n:
        runners.append(metaqa_runner(args.metaqa_n, args.metaqa_community))
    if args.people:
        runners.append(people_runner(args.people_community))

    configs: list[tuple[str, dict[str, Any]]] = []
    chosen = {t: getattr(base, t) for t in TERMS}
    if args.what == "ablation":
        configs.append(("model only (all terms off, no intent whitelist)",
                        {**{t: 0.0 for t in TERMS}, "intent_whitelist": False}))  # fmt: skip
        configs.append(("all chosen terms on", {**chosen, "intent_whitelist": base.intent_whitelist}))
        for t in TERMS:
            if not chosen[t] and not args.full:
                continue  # off already: "without" is the row above
            configs.append((f"without {t}", {**chosen, t: 0.0}))
            if args.full:
                configs.append((f"only {t}", {**{u: 0.0 for u in TERMS}, t: chosen[t] or 0.1}))
        configs.append(("without detour demotion", {**chosen, "demote_detours": False}))
        if base.intent_whitelist or args.full:
            configs.append(("without intent whitelist", {**chosen, "intent_whitelist": False}))
        if args.full:
            configs.append(("only intent whitelist", {**{t: 0.0 for t in TERMS}, "intent_whitelist": True}))
    else:
        asked = (args.type, args.relation_prior, args.coverage, args.length, args.described)
        grids = [
            [(t, v) for v in (vals if vals is not None else [chosen[t]])]
            for t, vals in zip(TERMS, asked, strict=True)
        ]
        wl = {"on": [True], "off": [False], "both": [True, False]}[args.whitelist or "on"]
        for combo in itertools.product(*grids, [("intent_whitelist", w) for w in wl]):
            d = dict(combo)
            configs.append((" ".join(f"{k.removeprefix('weight_')}={v}" for k, v in d.items()), d))

    rows = []
    for name, ov in configs:
        row = evaluate(base, ov, runners)
        rows.append({"config": name, **row})
        cells = "  ".join(f"{k}={v}" for k, v in row.items())
        print(f"{name:<60} {cells}", file=sys.stderr, flush=True)
    if args.json:
        print(json.dumps(rows, indent=2))
    else:
        keys = [k for k in rows[0] if k != "config"] if rows else []
        print("| config | " + " | ".join(keys) + " |")
        print("|---|" + "---|" * len(keys))
        for r in rows:
            print(f"| {r['config']} | " + " | ".join(str(r[k]) for k in keys) + " |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
