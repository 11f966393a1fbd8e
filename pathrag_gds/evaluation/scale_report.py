"""The scale benchmark's report: the curve as a PNG (matplotlib) and the tables of docs/scaling.md.

Input: the JSON files of `scripts/bench_scale.py run`, one per graph size, and the load timings of
`scripts/make_scale_graph.py --stats` (both plain data, so this module needs no database).

Example:
    >>> ratio(3.0, 2.0), ratio(1.0, 0.0)
    ('1.50x', '-')
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from pathrag_gds.evaluation.benchkit import replace_section
from pathrag_gds.evaluation.scale import QuestionRun, runs_from_record, summarize

SECTION_START = "<!-- bench_scale:start -->"
SECTION_END = "<!-- bench_scale:end -->"
DEPTHS = ("1", "2", "3")


def ratio(value: float, base: float) -> str:
    """`value / base` as `1.23x`, or `-` without a base."""
    return f"{value / base:.2f}x" if base else "-"


def _expand(result: Mapping[str, Any], system: str, depth: str, q: str = "p50") -> float:
    return float(result["systems"][system]["summary"]["expand_ms"].get(depth, {}).get(q, 0.0))


def _short(n: int) -> str:
    return f"{n / 1e6:g}M" if n >= 1_000_000 else f"{n / 1e3:g}k"


def write_plot(results: Sequence[Mapping[str, Any]], path: Path) -> None:
    """Expansion p50/p95 per depth and end-to-end / DB p50 against graph size (log x), as a PNG."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    sizes = [int(r["relationships"]) for r in results]
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.2))
    for depth, colour in zip(DEPTHS, ("tab:blue", "tab:orange", "tab:green"), strict=True):
        left.plot(
            sizes,
            [_expand(r, "pathrag_gds", depth) for r in results],
            "o-",
            color=colour,
            label=f"depth {depth} p50",
        )
        left.plot(
            sizes,
            [_expand(r, "pathrag_gds", depth, "p95") for r in results],
            "o--",
            color=colour,
            alpha=0.5,
            label=f"depth {depth} p95",
        )
    left.set_title("expansion of the whole beam, one round trip per depth")
    left.set_yscale("log")  # the p95 of hub frontiers is 10-50x the medians
    right.plot(
        sizes,
        [r["systems"]["pathrag_gds"]["summary"]["end_to_end_ms"]["p50"] for r in results],
        "o-",
        label="end to end p50",
    )
    right.plot(
        sizes,
        [r["systems"]["pathrag_gds"]["summary"]["db_ms"]["p50"] for r in results],
        "s-",
        label="in the database p50",
    )
    right.set_title("one question (max_depth 3)")
    right.set_ylim(bottom=0)
    for ax in (left, right):
        ax.set_xscale("log")
        ax.set_xticks(sizes, [_short(s) for s in sizes])
        ax.minorticks_off()
        ax.set_xlabel("relationships in the graph")
        ax.set_ylabel("ms")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _expansion_table(results: Sequence[Mapping[str, Any]]) -> list[str]:
    base = results[0]
    lines = [
        "| relationships | entities | depth | expansion p50 ms | p95 ms | p50 vs smallest "
        "| candidates (mean) |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in results:
        s = r["systems"]["pathrag_gds"]["summary"]
        for d in DEPTHS:
            if d not in s["expand_ms"]:
                continue
            p50, p95 = _expand(r, "pathrag_gds", d), _expand(r, "pathrag_gds", d, "p95")
            lines.append(
                f"| {int(r['relationships']):,} | {int(r['entities']):,} | {d} | {p50:.1f} | {p95:.1f} | "
                f"{ratio(p50, _expand(base, 'pathrag_gds', d))} | {s['candidates_mean'].get(d, 0):.0f} |"
            )
    return lines


def _question_table(results: Sequence[Mapping[str, Any]]) -> list[str]:
    base = results[0]["systems"]["pathrag_gds"]["summary"]
    lines = [
        "| relationships | questions | end to end p50 / p95 ms | DB p50 / p95 ms | e2e p50 vs smallest "
        "| round trips | Hits@1 | scorer | heap used / max MiB | store MiB (page cache) |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in results:
        sys = r["systems"]["pathrag_gds"]
        s, m = sys["summary"], r["memory"]
        e2e, db = s["end_to_end_ms"], s["db_ms"]
        lines.append(
            f"| {int(r['relationships']):,} | {s['questions']} | {e2e['p50']:.0f} / {e2e['p95']:.0f} | "
            f"{db['p50']:.0f} / {db['p95']:.0f} | {ratio(e2e['p50'], base['end_to_end_ms']['p50'])} | "
            f"{s['round_trips_mean']:.1f} | {s['hits_at_1']:.2f} | {sys['scorer']} | "
            f"{m['heap_used_mib']:,} / {m['heap_max_mib']:,} | "
            f"{m['store_mib'] or '-'} ({m['pagecache_setting']}) |"
        )
    return lines


def _baseline_table(results: Sequence[Mapping[str, Any]]) -> list[str]:
    rows = [r for r in results if len(r["systems"]) > 1]
    if not rows:
        return ["(no baseline run)"]
    lines = [
        "| relationships | system | questions | timed out | depth 1 / 2 / 3 expansion p50 ms "
        "| all expansions p50 / p95 ms | DB p50 / p95 ms | end to end p50 / p95 ms | round trips | Hits@1 |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        for name, sys in r["systems"].items():
            s = sys["summary"]
            if name == "pathrag_gds":  # on the questions the baselines were asked
                s = summarize(same_questions(runs_from_record(sys["runs"]), r["systems"]))
            ms = {d: f"{v['p50']:.0f}" for d, v in s["expand_ms"].items()}
            if name == "var-length":  # every hop in its first call
                per = f"{ms.get('1', '-')} (1-3 hops in one call)"
            else:
                per = " / ".join(ms.get(d, "-") for d in DEPTHS)
            tot, db, e2e = s.get("expand_total_ms", {"p50": 0.0, "p95": 0.0}), s["db_ms"], s["end_to_end_ms"]
            lines.append(
                f"| {int(r['relationships']):,} | {name} | {s['questions']} | {s['timed_out']} | {per} | "
                f"{tot['p50']:.0f} / {tot['p95']:.0f} | {db['p50']:.0f} / {db['p95']:.0f} | "
                f"{e2e['p50']:.0f} / {e2e['p95']:.0f} | {s['round_trips_mean']:.1f} | {s['hits_at_1']:.2f} |"
            )
    return lines


def same_questions(runs: Sequence[QuestionRun], systems: Mapping[str, Any]) -> list[QuestionRun]:
    """The runs of the questions the baselines were asked: the first k of each hop count."""
    other = next(v for k, v in systems.items() if k != "pathrag_gds")
    per_hop: dict[int, int] = {}
    for row in other["runs"]:
        per_hop[int(row["hop"])] = per_hop.get(int(row["hop"]), 0) + 1
    taken: dict[int, int] = {}
    out = []
    for run in runs:
        if taken.get(run.hop, 0) < per_hop.get(run.hop, 0):
            taken[run.hop] = taken.get(run.hop, 0) + 1
            out.append(run)
    return out


def _load_table(results: Sequence[Mapping[str, Any]], loads: Mapping[int, Mapping[str, Any]]) -> list[str]:
    lines = [
        "| relationships | entities | generate + write files s | neo4j-admin import s | schema + ontology + "
        "vector index s | batched loader s | embedded sample (entities/s) | full index at that rate h "
        "| largest hub (degree) |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in results:
        n = int(r["relationships"])
        ld = loads.get(n, {})

        def cell(key: str, row: Mapping[str, Any] = ld) -> str:
            return f"{row[key]:,.0f}" if key in row else "-"

        gen = ld.get("generate_s", 0) + ld.get("write_s", 0)
        rate = float(ld.get("embed_rate") or 0.0)
        embed = f"{rate:.0f}" if rate else "-"
        eta = f"{int(r['entities']) / rate / 3600:.1f}" if rate else "-"
        hubs = ld.get("largest_hub") or {}
        hub = f"{max(hubs.values()):,} ({max(hubs, key=hubs.__getitem__)})" if hubs else "-"
        lines.append(
            f"| {n:,} | {int(r['entities']):,} | {gen:.0f} | {cell('import_s')} | {cell('finish_s')} | "
            f"{cell('batched_load_s')} | {embed} | {eta} | {hub} |"
        )
    return lines


def render_section(
    results: Sequence[Mapping[str, Any]],
    loads: Mapping[int, Mapping[str, Any]],
    plot: Path,
    doc: Path,
    cmd: str,
) -> str:
    """The measured section of docs/scaling.md (between the bench_scale markers)."""
    first = results[0]
    beam = first["beam"]
    rel_plot = os.path.relpath(plot, doc.parent)
    return "\n".join(
        [
            SECTION_START,
            "## The curve (measured)",
            "",
            f"Command: `{cmd}` (the runs: `scripts/bench_scale.py run`, one per size, see below).",
            "",
            f"Machine: {first['machine']}, shared with other jobs while it ran. Questions: "
            f"{first['per_hop']} per hop count (1, 2, 3) generated from each graph (seed {first['seed']}), "
            f"the named start entity as the only seed, max_depth {first['max_depth']} for every question; "
            f"beam_width {beam['beam_width']}, expand_per_path {beam['expand_per_path']}, "
            f"cap_per_relation {beam['cap_per_relation']}, local_keep_m {beam['local_keep_m']}.",
            "",
            f"![expansion ms per depth against graph size]({rel_plot})",
            "",
            "### Expansion per depth",
            "",
            *_expansion_table(results),
            "",
            "### One question",
            "",
            *_question_table(results),
            "",
            "### Baselines (per-node calls, variable-length MATCH)",
            "",
            *_baseline_table(results),
            "",
            "### Load and index times",
            "",
            *_load_table(results, loads),
            "",
            SECTION_END,
        ]
    )


def write_section(path: Path, section: str) -> None:
    """Replace the bench_scale section of a markdown file (or append it)."""
    replace_section(path, section, SECTION_START, SECTION_END, "# Scaling")
