"""Progress bars and quiet output: one library (tqdm) for every long stage, the same columns.

Every long stage of `load`, `index`, `tune`, `eval` and `models export` shows a bar on stderr
with its count, its rate and the time left (ETA). A stage the server reports as a share (a vector
index populating) shows the share and the ETA, never a rate of percent per second.

Quiet by default: warnings that say nothing a user acts on (onnxruntime's quantization advice,
a hint per community while `db start` warms up) are kept for `-v`.

Example:
    >>> with bar(3, "write rows", "row", enabled=False) as b:  # enabled: drawn on stderr
    ...     _ = b.update(3)
    >>> b.disable
    True
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from tqdm import tqdm

#: A count: done/total, elapsed<left, rate.
COUNT_FORMAT = "{desc}: {percentage:3.0f}%|{bar}| {n_fmt}/{total_fmt} [{elapsed}<{remaining}, {rate_fmt}]"
#: A share reported by someone else (0-100): elapsed<left, no rate.
PERCENT_FORMAT = "{desc}: {percentage:3.0f}%|{bar}| [{elapsed}<{remaining}]"


def bar(
    total: float | None,
    desc: str,
    unit: str,
    *,
    enabled: bool = True,
    percent: bool = False,
    unit_scale: bool = False,
    leave: bool = True,
) -> tqdm[Any]:
    """A progress bar on stderr for one stage (`percent`: `total` is 100 and updates are shares)."""
    return tqdm(
        total=total,
        desc=desc,
        unit=unit,
        unit_scale=unit_scale,
        disable=not enabled,
        leave=leave,
        file=sys.stderr,
        dynamic_ncols=True,
        smoothing=0.1,
        bar_format=PERCENT_FORMAT if percent else COUNT_FORMAT,
    )


def set_share(progress: tqdm[Any], share: float) -> None:
    """Move a percent bar to `share` (0-100) by an update, so its ETA follows the real pace."""
    step = max(0.0, min(100.0, share) - float(progress.n))
    if step:
        progress.update(step)


def verbose() -> bool:
    """Whether the command runs with `-v` (the root logger shows INFO)."""
    return logging.getLogger().getEffectiveLevel() <= logging.INFO


@contextmanager
def quiet(*names: str) -> Iterator[None]:
    """Show only errors of these loggers (`""`: the root, which `logging.warning` uses) in the block.

    Nothing changes under `-v`.
    """
    if verbose():
        yield
        return
    loggers = [logging.getLogger(n) if n else logging.getLogger() for n in names]
    levels = [lg.level for lg in loggers]
    for lg in loggers:
        lg.setLevel(logging.ERROR)
    try:
        yield
    finally:
        for lg, level in zip(loggers, levels, strict=True):
            lg.setLevel(level)
