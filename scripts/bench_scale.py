"""The cost of a question as the graph grows: expansion ms per depth, DB ms, end to end, memory.

`run`: on the community in the database (a synthetic graph of scripts/make_scale_graph.py, imported
with `--import`), generate a fixed set of 1-3 hop questions from the graph (seeded), ask each with
its named start entity as the seed and max_depth 3 (the settings' beam), and write the runs and
their summary to a JSON file. `--baselines` runs the per-node and var-length expanders on the first
`--baseline-per-hop` questions of each hop as well.

`report`: read the JSON files of every size (and the load times of make_scale_graph.py --stats),
draw the curve (PNG, matplotlib) and write the section of docs/scaling.md.

Usage:
    .venv/bin/python scripts/bench_scale.py run --community scale1m --per-hop 20 \
        --out /tmp/pathrag-scale/bench-1m.json [--baselines]
    .venv/bin/python scripts/bench_scale.py report /tmp/pathrag-scale/bench-*.json \
        --loads /tmp/pathrag-scale/stats.jsonl --plot docs/scaling-expansion.png --write docs/scaling.md
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
from pathrag_gds.evaluation.benchkit import machine_summary
from pathrag_gds.evaluation.scale import (
    TimedRag,
    generate_questions,
    run_questions,
    run_record,
    runs_from_record,
    server_memory,
    summarize,
)
from pathrag_gds.evaluation.scale_report import render_section, write_plot, write_section


def fresh_scorer(settings: Any, community: str) -> Any:
    """A new scorer of the community's kind (own text-embedding cache)."""
    from pathrag_gds.scoring import get_scorer, reset_scorers

    reset_scorers()
    return get_scorer(settings, community)


def run(args: argparse.Namespace) -> int:
    settings = get_settings()
    base = TimedRag(settings, "pathrag_gds")
    graph = base.graph
    counts = graph.read("community_counts", community_id=args.community, entity_label=settings.entity_label)
    if not counts:
        print(f"error: no community {args.community!r} in the database; import it first", file=sys.stderr)
        return 2
    c = counts[0]
    ontology = base.ontology_for(args.community, None)
    t0 = time.perf_counter()
    questions = generate_questions(graph, args.community, ontology, args.per_hop, seed=args.seed)
    gen_s = time.perf_counter() - t0
    print(f"{len(questions)} questions generated in {gen_s:.1f} s", file=sys.stderr)
    systems = {"pathrag_gds": questions}
    if args.baselines:
        few = [q for h in (1, 2, 3) for q in [x for x in questions if x.hop == h][: args.baseline_per_hop]]
        systems.update({"per-node": few, "var-length": few})
    out: dict[str, Any] = {
        "community": args.community,
        "relationships": sum(int(v) for v in (c.get("relationships") or {}).values()),
        "entities": int(c.get("entities") or 0),
        "embedded": int(c.get("embedded") or 0),
        "per_hop": args.per_hop,
        "seed": args.seed,
        "max_depth": args.max_depth,
        "beam": {
            "beam_width": settings.beam_width,
            "expand_per_path": settings.expand_per_path,
            "cap_per_relation": settings.cap_per_relation,
            "local_keep_m": settings.local_keep_m,
        },
        "machine": machine_summary(),
        "questions_s": round(gen_s, 1),
        "systems": {},
    }
    for name, qs in systems.items():
        rag = base if name == "pathrag_gds" else TimedRag(settings, name, graph=graph, embedder=base.embedder)
        rag._info = base.info
        rag._scorer = fresh_scorer(settings, args.community)
        run_questions(rag, qs[:2], args.community, max_depth=args.max_depth)  # warm-up, not measured
        # each system scores with a fresh scorer: its text-embedding cache must not hold the paths
        # of the warm-up or of another system
        rag._scorer = scorer = fresh_scorer(settings, args.community)
        with tqdm(total=len(qs), desc=name, unit="q", file=sys.stderr) as bar:
            runs = run_questions(
                rag,
                qs,
                args.community,
                max_depth=args.max_depth,
                timeout=args.timeout,
                progress=lambda _, bar=bar: bar.update(1),
            )
        out["systems"][name] = {
            "scorer": getattr(scorer, "name", type(scorer).__name__),
            "summary": summarize(runs),
            "runs": run_record(runs),
        }
        print(name, json.dumps(out["systems"][name]["summary"]), file=sys.stderr)
    out["memory"] = server_memory(graph, settings)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(out, indent=1), encoding="utf-8")
    print(f"wrote {args.out}", file=sys.stderr)
    return 0


def report(args: argparse.Namespace) -> int:
    results = [json.loads(p.read_text(encoding="utf-8")) for p in args.results]
    results.sort(key=lambda r: r["relationships"])
    for r in results:  # summaries as today's summarize() makes them
        for system in r["systems"].values():
            system["summary"] = summarize(runs_from_record(system["runs"]))
    loads: dict[int, dict[str, Any]] = {}
    if args.loads and args.loads.is_file():
        for line in args.loads.read_text(encoding="utf-8").splitlines():
            if line.strip():
                row = json.loads(line)
                loads.setdefault(int(row["size"]), {}).update(row)
    write_plot(results, args.plot)
    print(f"wrote {args.plot}", file=sys.stderr)
    if args.write:
        cmd = "scripts/bench_scale.py " + " ".join(sys.argv[1:])
        write_section(args.write, render_section(results, loads, args.plot, args.write, cmd))
        print(f"wrote {args.write}", file=sys.stderr)
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="what", required=True)
    r = sub.add_parser("run", help="benchmark the community in the database")
    r.add_argument("--community", required=True)
    r.add_argument("--per-hop", type=int, default=20, help="questions per hop count (1, 2, 3)")
    r.add_argument("--seed", type=int, default=0)
    r.add_argument("--max-depth", type=int, default=3)
    r.add_argument("--baselines", action="store_true", help="also the per-node and var-length expanders")
    r.add_argument("--baseline-per-hop", type=int, default=5)
    r.add_argument("--timeout", type=float, default=120.0, help="seconds per question")
    r.add_argument("--out", type=Path, required=True, help="JSON file for the runs and their summary")
    r.set_defaults(func=run)
    p = sub.add_parser("report", help="plot and write docs/scaling.md from the JSON files")
    p.add_argument("results", type=Path, nargs="+")
    p.add_argument("--loads", type=Path, default=None, help="make_scale_graph.py --stats file")
    p.add_argument("--plot", type=Path, default=Path("docs/scaling-expansion.png"))
    p.add_argument("--write", type=Path, default=None, help="markdown file whose section to replace")
    p.set_defaults(func=report)
    args = ap.parse_args()
    return int(args.func(args))


if __name__ == "__main__":
    raise SystemExit(main())
