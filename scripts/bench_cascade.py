"""Bi-encoder vs tuned cascade, side by side in one run: Bob suite (spec + fresh) and MetaQA dev.

Each question runs through every scorer back to back (same search parameters, same seeds), so the
latencies share the machine's load. Writes JSON to --out and prints a Markdown table.

    .venv/bin/python scripts/bench_cascade.py bob --k 10 30 100
    .venv/bin/python scripts/bench_cascade.py metaqa --sample 100 --k 30

The cascades use the settings' floor (`PATHRAG_CASCADE_FLOOR`, default 0.05; named in the scorer's
label when set). The MetaQA report also counts hits per qtype (`by_qtype`: which question shapes a
model gains or loses, e.g. `actor_to_movie_to_actor`, "who co-starred with X").
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from tqdm import tqdm

from pathrag_gds.config import get_settings
from pathrag_gds.evaluation.metaqa import p50_p95
from pathrag_gds.scoring import CascadeScorer, CrossEncoderScorer, get_scorer, tuned_model_dir
from pathrag_gds.service import PathRag

METAQA = Path("/work/shared/data/metaqa")


MODEL: Path | None = None
ALPHAS: list[float] = [1.0]


def scorers(community: str, ks: list[int]) -> dict[str, Any]:
    s = get_settings()
    bi = get_scorer(s)
    cross = CrossEncoderScorer.load(MODEL or tuned_model_dir(s, community))
    out: dict[str, Any] = {"bi-encoder": bi}
    for k in ks:
        for a in ALPHAS:
            name = (f"cascade@{k}" if k else "cross-all") + ("" if a == 1.0 else f" a={a:g}")
            name += f" floor={s.cascade_floor:g}" if s.cascade_floor else ""
            out[name] = CascadeScorer(bi, cross, k, a, s.cascade_floor)  # type: ignore[arg-type]
    return out


#: Settings changed for every scorer alike (`--weight-length`): same search parameters side by side.
OVERRIDES: dict[str, Any] = {}


def services(community: str, ks: list[int]) -> dict[str, PathRag]:
    base = PathRag()
    settings = base.settings.model_copy(update=OVERRIDES)
    out = {}
    for name, sc in scorers(community, ks).items():
        out[name] = PathRag(settings, graph=base.graph, scorer=sc, embedder=base.embedder)
    return out


def lat(xs: list[float]) -> dict[str, float]:
    return p50_p95(xs)


def run_bob(ks: list[int]) -> dict[str, Any]:
    from pathrag_gds.evaluation.bob import judge, load_suite

    suite = load_suite()
    svcs = services(suite.community_id or "", ks)
    report: dict[str, Any] = {}
    for part, queries in (("spec", suite.queries), ("fresh", suite.fresh)):
        rows: dict[str, list[dict[str, Any]]] = {n: [] for n in svcs}
        lats: dict[str, list[float]] = {n: [] for n in svcs}
        for q in tqdm(queries, desc=f"bob {part}", file=sys.stderr):
            for name, svc in svcs.items():
                t0 = time.perf_counter()
                res = svc.pathrag(q.query, community_id=suite.community_id)
                lats[name].append((time.perf_counter() - t0) * 1000)
                rows[name].append(judge(res, q))
        report[part] = {
            n: {
                "hits_at_1": sum(r["hit_at_1"] for r in rows[n]),
                "hits_at_5": sum(r["hit_at_5"] for r in rows[n]),
                "total": len(rows[n]),
                "misses": [r["id"] for r in rows[n] if not r["hit_at_1"]],
                "latency_ms": lat(lats[n]),
            }
            for n in svcs
        }
    return report


def run_metaqa(ks: list[int], sample: int, seed: int, max_depth: int) -> dict[str, Any]:
    from pathrag_gds.evaluation.metaqa import read_questions, run_questions, stratified_sample

    community = "metaqa"
    svcs = services(community, ks)
    questions = []
    for h in (1, 2, 3):
        questions.extend(stratified_sample(read_questions(METAQA / f"{h}-hop/qa_dev.txt"), sample, seed))
    ontology = next(iter(svcs.values())).ontology_for(community, None)
    judged: dict[str, list[Any]] = {n: [] for n in svcs}
    for q in tqdm(questions, desc="metaqa", file=sys.stderr):
        for name, svc in svcs.items():
            judged[name].extend(
                run_questions(svc, [q], community, params={"max_depth": max_depth}, ontology=ontology)
            )
    report: dict[str, Any] = {}
    for name, rows in judged.items():
        by_hop: dict[str, Any] = {}
        for h in (1, 2, 3):
            hr = [r for r in rows if r.hop == h]
            by_hop[str(h)] = {
                "n": len(hr),
                "hits_at_1": round(sum(r.hit_at_1 for r in hr) / max(1, len(hr)), 3),
                "latency_ms": lat([r.latency_ms for r in hr]),
            }
        by_qtype: dict[str, Any] = {}
        for qt in sorted({r.qtype for r in rows}):
            qr = [r for r in rows if r.qtype == qt]
            by_qtype[qt] = {"n": len(qr), "hits_at_1": sum(r.hit_at_1 for r in qr)}
        report[name] = {
            "by_hop": by_hop,
            "by_qtype": by_qtype,
            "latency_ms": lat([r.latency_ms for r in rows]),
            "hits_at_1": round(sum(r.hit_at_1 for r in rows) / max(1, len(rows)), 3),
        }
    return report


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("suite", choices=["bob", "metaqa"])
    p.add_argument(
        "--k", type=int, nargs="+", default=[30], help="cascade K values (0: cross-encoder on all)"
    )
    p.add_argument("--sample", type=int, default=100, help="MetaQA questions per hop")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--max-depth", type=int, default=3)
    p.add_argument("--out", type=Path, default=None)
    p.add_argument("--model", type=Path, default=None, help="cross-encoder folder (default: the tuned one)")
    p.add_argument(
        "--alpha", type=float, nargs="+", help="cross-encoder weights (default: PATHRAG_CASCADE_ALPHA)"
    )
    p.add_argument("--weight-length", type=float, default=None, help="Step 6 length term weight, all scorers")
    args = p.parse_args()
    if args.weight_length is not None:
        OVERRIDES["weight_length"] = args.weight_length
    global MODEL, ALPHAS
    MODEL = args.model
    ALPHAS = args.alpha or [get_settings().cascade_alpha]
    if args.suite == "bob":
        report = run_bob(args.k)
    else:
        report = run_metaqa(args.k, args.sample, args.seed, args.max_depth)
    text = json.dumps(report, indent=2)
    if args.out:
        args.out.write_text(text + "\n", encoding="utf-8")
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
