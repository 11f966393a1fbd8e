"""Beam bookkeeping of the search, as the specification's pseudocode has it. Pure logic.

- local keep: each parent contributes its best `m` continuations (twice that below `min_depth`);
- global keep: dedup by canonical key and frontier (best score wins), sort, trim to `beam_width`;
- best score per key across depths (`Candidates`); in the final top-N a detour past an answer
  (out to a shared neighbour and back along one relationship type) ranks just below that answer
  when it adds nothing the scores can see (:func:`detour_caps`);
- distinct evidence in the top-N: a path and its own extension (or prefix) count once unless it
  adds an answer the list does not have yet (:func:`distinct_top`);
- the two scoring modes: Option D (raw scores) and A3 (min-max within the depth, minus a depth penalty).

Example:
    >>> from pathrag_gds.paths import Path
    >>> a, b = ScoredPath(Path(("a",)), 0.9), ScoredPath(Path(("b",)), 0.5)
    >>> [s.path.start for s in global_keep([b, a], beam_width=1)]
    ['a']
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass, field, replace

from pathrag_gds.paths import Edge, Path, canonical_key
from pathrag_gds.scoring_mode import ScoringMode


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


#: Score parts a prefix must match or beat for a detour past it to rank below it (absent = 0).
#: `chain`: a detour the chain plan asks for ("movies that share an actor with X") is no detour.
DETOUR_TERMS = ("type", "described", "chain")
#: How much better a detour's model score may be and still count as showing nothing new (chosen on
#: MetaQA dev, checked on a second sample; 0 (strict) / 0.02 / 0.05: docs/benchmarks.md).
DETOUR_MODEL_TOLERANCE = 0.05


def is_detour(added: Sequence[Edge]) -> bool:
    """Do these hops start out to a neighbour and back along one relationship type?

    `Fraternity Vacation -release_year-> 1985 <-release_year- Mr. Vampire`: a sibling of the
    movie by a shared value. A chain along one type (`Bob -friend-> Joy -friend-> Pip`) is not.

    Example:
        >>> out, back = Edge("year", "m1", "1985", "out"), Edge("year", "m2", "1985", "in")
        >>> is_detour([out, back]), is_detour([out, Edge("year", "1985", "m3", "out")]), is_detour([out])
        (True, False, False)
    """
    return len(added) >= 2 and added[0].type == added[1].type and added[0].direction != added[1].direction


def detour_caps(
    best: dict[str, ScoredPath], eps: float = 1e-6, tolerance: float = DETOUR_MODEL_TOLERANCE
) -> dict[str, float]:
    """Final scores of paths that detour past a prefix which already answers as well: just below it.

    A path P whose hops after a prefix Q begin with a detour (:func:`is_detour`) ends on a sibling
    of Q's last entity (another movie of the same year, another film with the same actor). When Q's
    model score is at least P's less `tolerance` and its `DETOUR_TERMS` are at least P's, the walk
    showed the scorer nothing much new and its answer fits no better, so P ranks just below Q
    (after Q's own cap). Sentence-pooled scores never fall as a path grows (its best sentence stays
    in), so without this the relation prior alone could lift such a walk over the one-hop answer it
    passes (MetaQA: "Stephen Geoffreys appears in which movies" was answered by "... Fraternity
    Vacation was released in 1985. 1985 is the release year of Mr. Vampire."; docs/benchmarks.md).

    Args:
        best: scored paths by canonical key (`Candidates`); prefixes are looked up by their key.
        eps: how far below its prefix a demoted path lands.
        tolerance: how much higher the path's model score may be than the prefix's.

    Returns:
        Canonical key -> capped final score, for the demoted paths only.
    """
    caps: dict[str, float] = {}
    for s in sorted(best.values(), key=lambda x: x.path.depth):
        p = s.path
        for k in range(p.depth - 1):
            if not is_detour(p.edges[k:]):
                continue
            q = best.get(canonical_key(p.node_ids[: k + 1], p.edge_keys[:k]))
            if q is None or q.model_score < s.model_score - tolerance:
                continue
            if any(q.parts.get(t, 0.0) < s.parts.get(t, 0.0) for t in DETOUR_TERMS):
                continue
            cap = caps.get(q.key, q.score) - eps
            if cap < caps.get(s.key, s.score):
                caps[s.key] = cap
    return caps


def overlaps(a: Path, b: Path) -> bool:
    """Does one path show every fact of the other (its relationships; a 0-hop path: its entity)?

    A path and its own extension or prefix overlap, whichever way they were walked; two paths that
    share a relationship but each state one the other does not, do not.

    Example:
        >>> ab, bc = Edge("r", "a", "b", "out"), Edge("s", "b", "c", "out")
        >>> p1, p2, p0 = Path(("a", "b"), (ab,)), Path(("a", "b", "c"), (ab, bc)), Path(("c",))
        >>> overlaps(p1, p2), overlaps(p2, p1), overlaps(p0, p2), overlaps(Path(("b", "c"), (bc,)), p1)
        (True, True, True, False)
    """
    if not a.edges or not b.edges:
        small, big = (a, b) if not a.edges else (b, a)
        return small.start in big.node_ids
    ka, kb = set(a.edge_keys), set(b.edge_keys)
    return ka <= kb or kb <= ka


def distinct_top(
    ranked: Sequence[ScoredPath],
    n: int,
    answer_of: Callable[[Path], str | None],
    named: Collection[str] = (),
) -> list[ScoredPath]:
    """The best `n` paths of distinct evidence, in rank order.

    A path that overlaps one already chosen (:func:`overlaps`: it extends it, or it is a prefix of
    it, a 0-hop seed on it) is left out unless its answer (`answer_of`; None: it has none, e.g. the
    entity the question names) is one no chosen path has, or it reaches an entity the question
    names (`named`) that none of the chosen paths it overlaps holds: a path and its own extension count
    once unless the extension adds an answer or ties in more of the question. The best path is
    always first; the rest keep their order.

    Example:
        >>> ab, bc = Edge("r", "a", "b", "out"), Edge("s", "b", "c", "out")
        >>> one = ScoredPath(Path(("a", "b"), (ab,)), 0.9)
        >>> two = ScoredPath(Path(("a", "b", "c"), (ab, bc)), 0.8)
        >>> seed = ScoredPath(Path(("a",)), 0.7)
        >>> def end(p): return p.end if p.edges else None  # the seed answers nothing
        >>> [s.path.end for s in distinct_top([one, two, seed], 5, end)]
        ['b', 'c']
        >>> [s.path.end for s in distinct_top([one, two, seed], 5, lambda p: "b")]
        ['b']
        >>> [s.path.end for s in distinct_top([one, two, seed], 5, lambda p: "b", named={"c"})]
        ['b', 'c']
    """
    chosen: list[ScoredPath] = []
    answers: set[str] = set()
    for s in ranked:
        if len(chosen) >= n:
            break
        answer = answer_of(s.path)
        over = [c for c in chosen if overlaps(s.path, c.path)]
        if over and (answer is None or answer in answers):
            mine = set(named).intersection(s.path.node_ids)
            if not (mine and all(mine - set(c.path.node_ids) for c in over)):
                continue
        chosen.append(s)
        if answer is not None:
            answers.add(answer)
    return chosen


class Candidates:
    """Every explored path, keeping the best score per canonical key across depths.

    A path walked along a chain plan (its parts hold `chain`) and a path walked free are kept
    apart under one key until the results: until the rerank their scores are on other scales
    (a chain probability, a path-text score), and the reverse walk of a planned path's
    relationships from another seed, which answers with the planned path's start, must not
    evict it. :meth:`top` keeps the best of each key.

    Example:
        >>> from pathrag_gds.paths import Edge, Path
        >>> hop = Edge("chases", "rex", "bob", "out")
        >>> back = Path(("bob", "rex"), (replace(hop, direction="in"),))
        >>> planned = ScoredPath(back, 0.4, parts={"chain": 0.3})
        >>> free = ScoredPath(Path(("rex", "bob"), (hop,)), 1.2)
        >>> c = Candidates()
        >>> c.extend([planned, free])
        >>> len(c), len(c.every()), [x.path.end for x in c.top(5)]
        (1, 2, ['bob'])
    """

    def __init__(self) -> None:
        self._best: dict[tuple[str, bool], ScoredPath] = {}

    def add(self, s: ScoredPath) -> None:
        """Record a scored path (kept if it beats the one of its kind stored under its key)."""
        slot = (s.key, "chain" in s.parts)
        cur = self._best.get(slot)
        if cur is None or s.score > cur.score:
            self._best[slot] = s

    def extend(self, items: Iterable[ScoredPath]) -> None:
        """Record several scored paths."""
        for s in items:
            self.add(s)

    def __len__(self) -> int:
        return len({key for key, _ in self._best})

    def every(self) -> list[ScoredPath]:
        """Every path kept, planned and free apart, best first (what the rerank reads)."""
        return _sort_desc(list(self._best.values()))

    def by_key(self) -> dict[str, ScoredPath]:
        """The best path of each canonical key."""
        out: dict[str, ScoredPath] = {}
        for s in self._best.values():
            cur = out.get(s.key)
            if cur is None or s.score > cur.score:
                out[s.key] = s
        return out

    def top(
        self,
        n: int,
        min_score: float | None = None,
        *,
        demote_detours: bool = False,
        answer_of: Callable[[Path], str | None] | None = None,
        named: Collection[str] = (),
    ) -> list[ScoredPath]:
        """The best `n` paths, optionally without those whose model score is under `min_score`.

        With `demote_detours`, a detour past an answer ranks just below it (:func:`detour_caps`); its
        `parts` then hold the lowered `final` and `detour` 1.0. With `answer_of` (a path's answer,
        None when it has none), the paths are of distinct evidence (:func:`distinct_top`; `named`:
        the entities the question names).
        """
        best = self.by_key()
        caps = detour_caps(best) if demote_detours else {}
        items = []
        for s in best.values():
            if min_score is not None and s.model_score < min_score:
                continue
            if s.key in caps:
                s = replace(s, score=caps[s.key], parts={**s.parts, "final": caps[s.key], "detour": 1.0})
            items.append(s)
        ranked = _sort_desc(items)
        return ranked[:n] if answer_of is None else distinct_top(ranked, n, answer_of, named)
