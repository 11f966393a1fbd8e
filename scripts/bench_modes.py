"""The retrieval modes side by side: local, mix and hybrid on MetaQA dev and the Bob suite; and the GDS
structural prior (PageRank or degree of a path's end or seed) measured on the local results.

Every question runs through every mode back to back (same parameters, topic-linked MetaQA seeds), so
the latencies share the machine's load; the order rotates, so each mode runs first (with cold
caches: the question's and its path texts' encodings) as often as the others. Needs `communities
--community metaqa` (and the demo's) first. Prints a Markdown table; `--out` writes the JSON.

    .venv/bin/python scripts/bench_modes.py --sample 50
    .venv/bin/python scripts/bench_modes.py --sample 50 --prior

The prior: the local search's top-N paths (N = 5, the default) re-ranked by `score + w x prior`,
prior = log(1 + x) / log(1 + max x) of the entity's PageRank or degree in its community (GDS, over
the same projection `communities` uses), of the path's end or its seed.
"""

from __future__ import annotations

import argparse
import json
import math
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from tqdm import tqdm

from pathrag_gds.config import METAQA_DIR, get_settings
from pathrag_gds.evaluation import bob
from pathrag_gds.evaluation.metaqa import (
    MetaQAQuestion,
    judge,
    percentile,
    read_questions,
    stratified_sample,
    topic_id,
)
from pathrag_gds.evaluation.metaqa_cli import DEFAULT_MAX_DEPTH
from pathrag_gds.results import PathRagResult
from pathrag_gds.service import PathRag

MODES = ("local", "mix", "hybrid")
PRIOR_WEIGHTS = (0.05, 0.1, 0.2, 0.4)


def _summary(hits1: list[bool], hits5: list[bool], ms: list[float]) -> dict[str, Any]:
    n = len(hits1)
    return {
        "n": n,
        "hits_at_1": round(sum(hits1) / n, 3) if n else 0.0,
        "hits_at_5": round(sum(hits5) / n, 3) if n else 0.0,
        "p50_ms": round(percentile(ms, 50), 0),
        "p95_ms": round(percentile(ms, 95), 0),
    }


def rerank(result: PathRagResult, prior: Mapping[str, float], weight: float, where: str) -> PathRagResult:
    """The result's paths re-ranked by score + weight x prior of their end (or seed) entity."""

    def key(i: int) -> tuple[float, int]:
        p = result.paths[i]
        node = p.nodes[-1].id if where == "end" else p.nodes[0].id
        return (-(p.score + weight * prior.get(node, 0.0)), i)

    order = sorted(range(len(result.paths)), key=key)
    paths = [result.paths[i].model_copy(update={"rank": r}) for r, i in enumerate(order, start=1)]
    return result.model_copy(update={"paths": paths})


def normalized(values: Mapping[str, float]) -> dict[str, float]:
    """log(1 + x) / log(1 + max x): a prior in [0, 1]."""
    top = math.log1p(max(values.values(), default=0.0)) or 1.0
    return {k: math.log1p(v) / top for k, v in values.items()}


def priors(service: PathRag, community: str) -> dict[str, dict[str, float]]:
    """PageRank and degree of the community's entities (GDS), as priors in [0, 1]."""
    from pathrag_gds.catalog import relation_whitelist
    from pathrag_gds.clusters.detect import detect

    ontology = service.ontology_for(community, None)
    found = detect(service.graph, community, relation_whitelist(service.info, ontology, None), progress=False)
    return {"pagerank": normalized(found.pagerank), "degree": normalized(found.degree)}


Judge = Callable[[PathRagResult], tuple[bool, bool]]


def run_suite(
    service: PathRag,
    name: str,
    items: list[tuple[str, dict[str, Any], Judge]],
    modes: tuple[str, ...],
    community: str,
    prior: dict[str, dict[str, float]] | None,
) -> dict[str, Any]:
    """Each question in every mode; with `prior`, the local results re-ranked by every prior variant."""
    rows: dict[str, tuple[list[bool], list[bool], list[float]]] = {m: ([], [], []) for m in modes}
    variants: dict[str, tuple[list[bool], list[bool]]] = {}
    for i, (question, params, judge_fn) in enumerate(tqdm(items, desc=name, unit="q")):
        for mode in modes[i % len(modes) :] + modes[: i % len(modes)]:  # each mode first as often
            t0 = time.perf_counter()
            result = service.pathrag(question, community_id=community, mode=mode, **params)
            ms = (time.perf_counter() - t0) * 1000.0
            h1, h5 = judge_fn(result)
            rows[mode][0].append(h1)
            rows[mode][1].append(h5)
            rows[mode][2].append(ms)
            if mode == "local" and prior:
                for kind, values in prior.items():
                    for where in ("end", "seed"):
                        for w in PRIOR_WEIGHTS:
                            v1, v5 = judge_fn(rerank(result, values, w, where))
                            got = variants.setdefault(f"{kind} {where} {w}", ([], []))
                            got[0].append(v1)
                            got[1].append(v5)
    out: dict[str, Any] = {m: _summary(*rows[m]) for m in modes}
    if prior:
        out["prior"] = {k: _summary(v[0], v[1], []) for k, v in variants.items()}
    return out


def metaqa_items(sample: int) -> dict[int, list[tuple[str, dict[str, Any], Judge]]]:
    """Per hop: questions with the topic entity as the seed, judged as `eval metaqa` does."""
    out: dict[int, list[tuple[str, dict[str, Any], Judge]]] = {}
    for hop in (1, 2, 3):
        qs = stratified_sample(read_questions(METAQA_DIR / f"{hop}-hop" / "qa_dev.txt"), sample, 0)

        def judge_of(q: MetaQAQuestion) -> Judge:
            tid = topic_id("metaqa", q.topic)

            def judge_fn(result: PathRagResult) -> tuple[bool, bool]:
                j = judge(result, q, 0.0, skip_ids=[tid], skip_names=[q.topic])
                return j.hit_at_1, j.hit_at_5

            return judge_fn

        out[hop] = [
            (
                q.question,
                {"seed_ids": [topic_id("metaqa", q.topic)], "max_depth": DEFAULT_MAX_DEPTH},
                judge_of(q),
            )
            for q in qs
        ]
    return out


def bob_items() -> tuple[str, list[tuple[str, dict[str, Any], Judge]]]:
    """The spec's and the fresh Bob questions, judged as `eval bob` does (Hit@1, Hit@5)."""
    suite = bob.load_suite()

    def judge_of(q: bob.EvalQuery) -> Judge:
        def judge_fn(result: PathRagResult) -> tuple[bool, bool]:
            j = bob.judge(result, q)
            return bool(j["hit_at_1"]), bool(j["hit_at_5"])

        return judge_fn

    return str(suite.community_id), [(q.query, {}, judge_of(q)) for q in (*suite.queries, *suite.fresh)]


def table(report: dict[str, Any]) -> str:
    """The Markdown table: one row per suite and mode."""
    lines = [
        "| suite | mode | n | Hits@1 | Hits@5 | p50 ms | p95 ms |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    for suite, by_mode in report["suites"].items():
        for mode in report["modes"]:
            r = by_mode[mode]
            lines.append(
                f"| {suite} | {mode} | {r['n']} | {r['hits_at_1']:.3f} | {r['hits_at_5']:.3f} | "
                f"{r['p50_ms']:.0f} | {r['p95_ms']:.0f} |"
            )
    if any("prior" in v for v in report["suites"].values()):
        lines += ["", "| suite | local re-ranked by | Hits@1 | Hits@5 |", "| --- | --- | ---: | ---: |"]
        for suite, by_mode in report["suites"].items():
            for variant, r in by_mode.get("prior", {}).items():
                lines.append(f"| {suite} | {variant} | {r['hits_at_1']:.3f} | {r['hits_at_5']:.3f} |")
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument(
        "--sample", type=int, default=50, help="MetaQA dev questions per hop (stratified, seed 0)"
    )
    ap.add_argument("--modes", nargs="+", default=list(MODES), choices=MODES)
    ap.add_argument("--prior", action="store_true", help="also measure the PageRank / degree priors on local")
    ap.add_argument("--no-metaqa", action="store_true")
    ap.add_argument("--out", type=Path, default=None, help="write the JSON report here")
    args = ap.parse_args()
    service = PathRag(get_settings())
    modes = tuple(args.modes)
    report: dict[str, Any] = {"modes": modes, "sample_per_hop": args.sample, "suites": {}}
    community, items = bob_items()
    prior = priors(service, community) if args.prior else None
    report["suites"]["bob (spec + fresh)"] = run_suite(service, "bob", items, modes, community, prior)
    if not args.no_metaqa:
        prior = priors(service, "metaqa") if args.prior else None
        for hop, hop_items in metaqa_items(args.sample).items():
            report["suites"][f"metaqa {hop}-hop"] = run_suite(
                service, f"metaqa {hop}-hop", hop_items, modes, "metaqa", prior
            )
    if args.out is not None:
        args.out.write_text(json.dumps(report, indent=2), encoding="utf-8")
    print(table(report))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
