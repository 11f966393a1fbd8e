"""Full-text bi-encoder vs sentence-pooled bi-encoders, side by side in ONE run.

Every question runs through every scorer back to back (the order rotates per question), with the
same search parameters and seeds, so the latencies share the machine's load. Each scorer has its
own cross-query cache (text embeddings for `full`, sentence embeddings for the pooled ones) over the
one shared ONNX session.

Measured:

- accuracy: Bob suite (spec + fresh) Hit@1/Hit@5, MetaQA dev Hits@1 per hop (`--link topic`,
  stratified sample, `--seed`); scores do not depend on caching, so one pass gives them;
- latency of that pass (`suite`: the caches hold what the earlier questions of the run left, the
  steady state of a running service);
- `cold`: the first `--cold N` Bob spec questions with the scorer's cache emptied before each;
- `warm`: the same questions asked again at once (every embedding cached).

    .venv/bin/python scripts/bench_scorers.py --sample 50 --cold 3
    .venv/bin/python scripts/bench_scorers.py --sample 50 --cold 3 --json
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tqdm import tqdm

from pathrag_gds.config import METAQA_DIR, get_settings
from pathrag_gds.encoders import get_embedder
from pathrag_gds.evaluation.benchkit import cpu_model
from pathrag_gds.evaluation.metaqa import percentile
from pathrag_gds.scoring import BiEncoderScorer, PooledBiEncoderScorer
from pathrag_gds.service import PathRag

METAQA = METAQA_DIR


def make_scorers() -> dict[str, BiEncoderScorer]:
    """The contenders: the full-text scorer and the pooled variants tried (all reported)."""
    emb = get_embedder(get_settings())
    return {
        "full": BiEncoderScorer(emb),
        "sent mean h2/e1": PooledBiEncoderScorer(emb, hop_weight=2.0, entity_weight=1.0),
        "sent mean h1/e1": PooledBiEncoderScorer(emb, hop_weight=1.0, entity_weight=1.0),
        "sent mean h1/e0": PooledBiEncoderScorer(emb, hop_weight=1.0, entity_weight=0.0),
        "sent max": PooledBiEncoderScorer(emb, pooling="max"),
    }


def lat(xs: Sequence[float]) -> dict[str, float]:
    """p50 / p95 / mean of latencies in ms."""
    if not xs:
        return {}
    return {
        "p50": round(percentile(xs, 50), 1),
        "p95": round(percentile(xs, 95), 1),
        "mean": round(sum(xs) / len(xs), 1),
    }


def rotate(names: list[str], i: int) -> list[str]:
    """`names` starting at position `i` (round robin), so no scorer always runs first."""
    k = i % len(names)
    return names[k:] + names[:k]


def timed(svc: PathRag, question: str, **kwargs: Any) -> tuple[Any, float, float]:
    """Run one query: (result, wall ms, score ms)."""
    t0 = time.perf_counter()
    res = svc.pathrag(question, **kwargs)
    return res, (time.perf_counter() - t0) * 1000.0, float(res.timings_ms.get("score", 0.0))


def run(sample: int, seed: int, cold: int, metaqa_depth: int, skip_metaqa: bool) -> dict[str, Any]:
    from pathrag_gds.evaluation.bob import judge as bob_judge
    from pathrag_gds.evaluation.bob import load_suite
    from pathrag_gds.evaluation.metaqa import read_questions, run_questions, stratified_sample

    scorers = make_scorers()
    base = PathRag()
    svcs = {
        n: PathRag(base.settings, graph=base.graph, scorer=sc, embedder=base.embedder)
        for n, sc in scorers.items()
    }
    names = list(svcs)
    info = base.info  # read the graph facts once, outside the timings
    for svc in svcs.values():
        svc._info = info
    suite = load_suite()
    report: dict[str, Any] = {n: {} for n in names}
    step = 0

    # cold and warm: the first `cold` spec questions, cache emptied before the cold run
    cold_ms: dict[str, list[float]] = {n: [] for n in names}
    cold_score: dict[str, list[float]] = {n: [] for n in names}
    warm_ms: dict[str, list[float]] = {n: [] for n in names}
    embedded: dict[str, list[int]] = {n: [] for n in names}
    for q in tqdm(suite.queries[:cold], desc="bob cold/warm", file=sys.stderr):
        for n in rotate(names, step):
            sc = scorers[n]
            sc._cache.clear()
            misses = sc.cache_misses
            _, ms, score_ms = timed(svcs[n], q.query, community_id=suite.community_id)
            cold_ms[n].append(ms)
            cold_score[n].append(score_ms)
            embedded[n].append(sc.cache_misses - misses)
            _, ms, _ = timed(svcs[n], q.query, community_id=suite.community_id)
            warm_ms[n].append(ms)
        step += 1
    for n in names:
        sc = scorers[n]
        sc._cache.clear()
        report[n]["cold_ms"] = lat(cold_ms[n])
        report[n]["cold_score_ms"] = lat(cold_score[n])
        report[n]["cold_embedded_per_query"] = round(sum(embedded[n]) / max(1, len(embedded[n])), 1)
        report[n]["warm_ms"] = lat(warm_ms[n])

    # Bob accuracy (+ suite latency, caches carried across the run)
    for part, queries in (("spec", suite.queries), ("fresh", suite.fresh)):
        rows: dict[str, list[dict[str, Any]]] = {n: [] for n in names}
        lats: dict[str, list[float]] = {n: [] for n in names}
        for q in tqdm(queries, desc=f"bob {part}", file=sys.stderr):
            for n in rotate(names, step):
                res, ms, _ = timed(svcs[n], q.query, community_id=suite.community_id)
                lats[n].append(ms)
                rows[n].append(bob_judge(res, q))
            step += 1
        for n in names:
            report[n][f"bob_{part}"] = {
                "hits_at_1": sum(r["hit_at_1"] for r in rows[n]),
                "hits_at_5": sum(r["hit_at_5"] for r in rows[n]),
                "total": len(rows[n]),
                "misses_at_1": [r["id"] for r in rows[n] if not r["hit_at_1"]],
                "suite_ms": lat(lats[n]),
            }

    if not skip_metaqa:
        community = "metaqa"
        questions = []
        for h in (1, 2, 3):
            questions.extend(stratified_sample(read_questions(METAQA / f"{h}-hop/qa_dev.txt"), sample, seed))
        ontology = svcs[names[0]].ontology_for(community, None)
        judged: dict[str, list[Any]] = {n: [] for n in names}
        for q in tqdm(questions, desc="metaqa", file=sys.stderr):
            for n in rotate(names, step):
                judged[n].extend(
                    run_questions(
                        svcs[n], [q], community, params={"max_depth": metaqa_depth}, ontology=ontology
                    )
                )
            step += 1
        for n in names:
            by_hop: dict[str, Any] = {}
            for h in (1, 2, 3):
                hr = [r for r in judged[n] if r.hop == h]
                by_hop[str(h)] = {
                    "n": len(hr),
                    "hits_at_1": round(sum(r.hit_at_1 for r in hr) / max(1, len(hr)), 3),
                    "hits_at_5": round(sum(r.hit_at_5 for r in hr) / max(1, len(hr)), 3),
                    "suite_ms": lat([r.latency_ms for r in hr]),
                }
            report[n]["metaqa"] = by_hop
    for n in names:
        report[n]["scorer"] = scorers[n].name
    return report


def machine() -> dict[str, Any]:
    """nproc, CPU model and the load average when the run ended."""
    model = cpu_model()
    if model == "?":
        model = platform.processor()
    return {
        "nproc": os.cpu_count(),
        "cpu": model,
        "load_avg": [round(x, 2) for x in os.getloadavg()],
        "threads": get_settings().threads,
    }


def markdown(report: dict[str, Any], with_metaqa: bool) -> str:
    """The comparison as one Markdown table."""
    head = [
        "scorer",
        "cold ms p50 (score ms)",
        "sentences|texts embedded cold",
        "warm ms p50",
        "Bob suite ms p50",
        "Bob spec H@1/H@5",
        "Bob fresh H@1/H@5",
    ]
    if with_metaqa:
        head += ["MetaQA H@1 1/2/3-hop", "MetaQA suite ms p50 1/2/3-hop"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for n, r in report.items():
        spec, fresh = r["bob_spec"], r["bob_fresh"]
        row = [
            n,
            f"{r['cold_ms'].get('p50', 0):.0f} ({r['cold_score_ms'].get('p50', 0):.0f})",
            f"{r['cold_embedded_per_query']:.0f}",
            f"{r['warm_ms'].get('p50', 0):.0f}",
            f"{spec['suite_ms'].get('p50', 0):.0f}",
            f"{spec['hits_at_1']}/{spec['hits_at_5']} of {spec['total']}",
            f"{fresh['hits_at_1']}/{fresh['hits_at_5']} of {fresh['total']}",
        ]
        if with_metaqa:
            m = r["metaqa"]
            row.append(" / ".join(f"{m[h]['hits_at_1']:.3f}" for h in ("1", "2", "3")))
            row.append(" / ".join(f"{m[h]['suite_ms'].get('p50', 0):.0f}" for h in ("1", "2", "3")))
        lines.append("| " + " | ".join(row) + " |")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sample", type=int, default=50, help="MetaQA dev questions per hop")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--cold", type=int, default=3, help="Bob spec questions timed cold and warm")
    ap.add_argument("--metaqa-depth", type=int, default=3, help="max_depth of the MetaQA runs")
    ap.add_argument("--no-metaqa", action="store_true")
    ap.add_argument("--out", type=Path, default=None, help="also write the JSON report here")
    ap.add_argument("--json", action="store_true", help="print only the JSON report")
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    report = run(args.sample, args.seed, args.cold, args.metaqa_depth, args.no_metaqa)
    out = {
        "machine": machine(),
        "seconds": round(time.perf_counter() - t0, 1),
        "args": vars(args) | {"out": str(args.out) if args.out else None},
        "scorers": report,
    }
    if args.out:
        args.out.write_text(json.dumps(out, indent=2), encoding="utf-8")
    if args.json:
        print(json.dumps(out))
    else:
        print(markdown(report, not args.no_metaqa))
        print(f"\nmachine: {out['machine']}, {out['seconds']} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
