"""Beam bookkeeping of the search, as the specification's pseudocode has it. Pure logic.

- local keep: each parent contributes its best `m` continuations (twice that below `min_depth`);
- global keep: dedup by canonical key and frontier (best score wins), sort, trim to `beam_width`;
- best score per key across depths (`Candidates`);
- the two scoring modes: Option D (raw scores) and A3 (min-max within the depth, minus a depth penalty).

Example:
    >>> from pathrag_gds.paths import Path
    >>> a, b = ScoredPath(Path(("a",)), 0.9), ScoredPath(Path(("b",)), 0.5)
    >>> [s.path.start for s in global_keep([b, a], beam_width=1)]
    ['a']
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from pathrag_gds.config import ScoringMode
from pathrag_gds.paths import Path


@dataclass(slots=True)
class ScoredPath:
    """A path with its final score, the model's raw score, and the score's parts."""

    path: Path
    score: float
    raw: float | None = None
    parent: int | None = None
    parts: dict[str, float] = field(default_factory=dict)
    #: the serialized text the model scored ("" when not scored through the serializer)
    text: str = ""
    #: among equal scores and lengths, the higher wins (the scorer's tie-break; 0 when it has none)
    tie: float = 0.0

    @property
    def key(self) -> str:
        """The canonical key of the path."""
        return self.path.key

    @property
    def model_score(self) -> float:
        """The model's own score (what the `min_score` floor applies to), else the final score."""
        return self.raw if self.raw is not None else self.score


def _sort_desc(items: Iterable[ScoredPath]) -> list[ScoredPath]:
    # ties broken by shorter path, then the scorer's tie-break, then key, so runs are deterministic
    return sorted(items, key=lambda s: (-s.score, s.path.depth, -s.tie, s.key))


def local_keep(children: Sequence[ScoredPath], m: int, depth: int, min_depth: int) -> list[ScoredPath]:
    """The best `m` continuations of ONE parent; `2m` while `depth < min_depth`."""
    k = 2 * m if depth < min_depth else m
    return _sort_desc(children)[:k]


def local_keep_all(scored: Sequence[ScoredPath], m: int, depth: int, min_depth: int) -> list[ScoredPath]:
    """Local keep applied to each parent's group (grouped by `ScoredPath.parent`)."""
    groups: dict[int | None, list[ScoredPath]] = defaultdict(list)
    for s in scored:
        groups[s.parent].append(s)
    out: list[ScoredPath] = []
    for group in groups.values():
        out.extend(local_keep(group, m, depth, min_depth))
    return out


def global_keep(pool: Iterable[ScoredPath], beam_width: int, *, by_frontier: bool = True) -> list[ScoredPath]:
    """Dedup (best score wins), sort descending, trim to `beam_width`.

    Paths are extended at their last node only, so `A -> B` and `B <- A` (one canonical key) are
    two search states: the first grows from B, the second from A. With `by_frontier` (default)
    both stay; without it, as the specification's pseudocode has it, only the better-scored one
    does and the walks from the other end are lost. The results (:class:`Candidates`) hold each
    canonical path once either way.

    Example:
        >>> from pathrag_gds.paths import Edge
        >>> ab = ScoredPath(Path(("a", "b"), (Edge("r", "a", "b", "out"),)), 0.6)
        >>> ba = ScoredPath(Path(("b", "a"), (Edge("r", "a", "b", "in"),)), 0.5)
        >>> [s.path.end for s in global_keep([ab, ba], 5)]
        ['b', 'a']
        >>> [s.path.end for s in global_keep([ab, ba], 5, by_frontier=False)]
        ['b']
    """
    best: dict[tuple[str, str], ScoredPath] = {}
    for s in pool:
        k = (s.key, s.path.end if by_frontier else "")
        cur = best.get(k)
        if cur is None or s.score > cur.score:
            best[k] = s
    return _sort_desc(best.values())[:beam_width]


def normalize_a3(raw: Sequence[float], depth: int, depth_penalty: float) -> list[float]:
    """A3: min-max the depth batch to [0, 1], then subtract `depth_penalty x depth`.

    A batch whose scores are all equal maps to 1.0 (every path is the best of its depth).
    """
    if not raw:
        return []
    lo, hi = min(raw), max(raw)
    span = hi - lo
    return [((r - lo) / span if span > 0 else 1.0) - depth_penalty * depth for r in raw]


def mode_scores(
    raw: Sequence[float],
    depth: int,
    mode: ScoringMode,
    *,
    weight_rerank: float = 1.0,
    depth_penalty: float = 0.2,
) -> list[float]:
    """Final scores of one depth batch under a scoring mode."""
    if mode is ScoringMode.A3:
        return [weight_rerank * s for s in normalize_a3(raw, depth, depth_penalty)]
    return [weight_rerank * r for r in raw]


class Candidates:
    """Every explored path, keeping the best score per canonical key across depths."""

    def __init__(self) -> None:
        self._best: dict[str, ScoredPath] = {}

    def add(self, s: ScoredPath) -> None:
        """Record a scored path (kept if it beats the one stored under its key)."""
        cur = self._best.get(s.key)
        if cur is None or s.score > cur.score:
            self._best[s.key] = s

    def extend(self, items: Iterable[ScoredPath]) -> None:
        """Record several scored paths."""
        for s in items:
            self.add(s)

    def __len__(self) -> int:
        return len(self._best)

    def top(self, n: int, min_score: float | None = None) -> list[ScoredPath]:
        """The best `n` paths, optionally without those whose model score is under `min_score`."""
        items = list(self._best.values())
        if min_score is not None:
            items = [s for s in items if s.model_score >= min_score]
        return _sort_desc(items)[:n]
