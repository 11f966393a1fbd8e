"""What the benchmark scripts share: per-depth expansion timing, the machine, report sections.

:class:`TimedExpander` wraps an expander and records each depth's wall time; :func:`machine_summary`
describes the machine; :func:`replace_section` rewrites one marked section of a markdown file.

Example:
    >>> log: list[DepthTiming] = []
    >>> timed = TimedExpander(inner_expander, log)  # doctest: +SKIP
    >>> rag.expander = lambda: timed  # doctest: +SKIP
"""

from __future__ import annotations

import os
import platform
import subprocess
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from pathrag_gds.search.context import QueryContext
from pathrag_gds.search.protocols import Expander, Expansion, Frontier


@dataclass(frozen=True, slots=True)
class DepthTiming:
    """One expansion: its depth, wall time, children returned, frontier paths and hubs among them."""

    depth: int
    ms: float
    candidates: int
    frontier: int
    hubs: int = 0


class TimedExpander:
    """An expander that records a :class:`DepthTiming` per call into `log`.

    `hub_labels`: frontier entities with one of these type labels count as hubs (0 without).
    """

    def __init__(
        self, inner: Expander, log: list[DepthTiming], hub_labels: frozenset[str] = frozenset()
    ) -> None:
        self.inner = inner
        self.log = log
        self.hub_labels = hub_labels
        self.follows_plans = inner.follows_plans

    def expand(self, ctx: QueryContext, frontier: Sequence[Frontier], relations: Sequence[str]) -> Expansion:
        """Expand through the inner expander and record the call."""
        depth = frontier[0].path.depth + 1 if frontier else 0
        hubs = sum(
            1
            for f in frontier
            if f.path.end in ctx.entities and set(ctx.entities[f.path.end].labels) & self.hub_labels
        )
        t0 = time.perf_counter()
        out = self.inner.expand(ctx, frontier, relations)
        ms = (time.perf_counter() - t0) * 1000.0
        self.log.append(DepthTiming(depth, ms, len(out.children), len(frontier), hubs))
        return out


def cpu_model() -> str:
    """The CPU's model name from /proc/cpuinfo ("?" where there is none)."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "?"


def machine_summary() -> str:
    """Cores, memory, CPU model and kernel of this machine, for benchmark reports."""
    mem = "?"
    try:
        kb = int(Path("/proc/meminfo").read_text().split()[1])
        mem = f"{kb / 1024 / 1024:.1f} GiB"
    except (OSError, ValueError, IndexError):
        pass
    nproc = subprocess.run(["nproc"], capture_output=True, text=True).stdout.strip() or str(os.cpu_count())
    return f"nproc {nproc}, RAM {mem}, CPU {cpu_model()}, {platform.system()} {platform.release()}"


def replace_section(path: Path, section: str, start: str, end: str, title: str = "# Benchmarks") -> None:
    """Put `section` (which begins with `start` and ends with `end`) in place of the file's marked one.

    A file without the markers gets the section appended; a missing file starts with `title`.
    """
    text = path.read_text(encoding="utf-8") if path.is_file() else f"{title}\n\n"
    if start in text and end in text:
        text = text.split(start)[0] + section + text.split(end, 1)[1]
    else:
        text = text.rstrip("\n") + "\n\n" + section + "\n"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
