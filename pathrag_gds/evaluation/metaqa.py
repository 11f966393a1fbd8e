"""The MetaQA suite: KGQA questions over the movie knowledge base, judged by answer sets.

The files and their reading are in :mod:`pathrag_gds.datasets.metaqa_questions`.

Metrics of one question (`k` = 5):

- the *ranked answers*: the answer candidates of the returned paths, path by path in rank order,
  distinct by name; the topic entity is skipped when `skip_topic` (it is in the question, so it
  cannot be what is asked);
- Hits@1: the first ranked answer's name is in the gold answer set (compared case-insensitively,
  whitespace collapsed); Hits@5: one of the first five is;
- chain hit: the path the #1 answer came from (the #1 path unless that one only held skipped
  entities) walks exactly the gold relation chain of the qtype; with a chain file (directions
  given), each hop's direction is checked too, and the per-qtype table groups by chain.

Seed linking (`link`): `topic` passes the bracketed topic entity as the only seed (`seed_ids`, as
published KGQA systems link it); `vector` strips the brackets and seeds from the vector index only.
Either way the question text the scorer reads has its brackets removed.

Example:
    >>> normalize_answer("  The  Matrix ")
    'the matrix'
"""

from __future__ import annotations

import math
import random
import time
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pathrag_gds.datasets.metaqa_questions import (
    CHAIN_DIRECTIONS,
    MOVIE_TOKEN,
    QTYPE_RELATIONS,
    ChainStep,
    MetaQAQuestion,
    default_chains_path,
    default_qtype_path,
    format_chain,
    hop_from_path,
    hops_of_qtype,
    parse_chain,
    parse_question_line,
    qtype_chain,
    read_chains,
    read_questions,
)
from pathrag_gds.errors import InvalidInput
from pathrag_gds.ontology import Ontology
from pathrag_gds.results import PathRagResult, PathResult

#: The question files' names, also importable from here (their home: `datasets.metaqa_questions`).
__all__ = [
    "CHAIN_DIRECTIONS",
    "MOVIE_TOKEN",
    "QTYPE_RELATIONS",
    "ChainStep",
    "Judgement",
    "K",
    "MetaQAQuestion",
    "RankedAnswer",
    "chain_walked",
    "default_chains_path",
    "default_qtype_path",
    "format_chain",
    "hop_from_path",
    "hops_of_qtype",
    "judge",
    "normalize_answer",
    "parse_chain",
    "parse_question_line",
    "path_chain",
    "percentile",
    "qtype_chain",
    "ranked_answers",
    "read_chains",
    "read_questions",
    "run_questions",
    "stratified_sample",
    "summarize",
    "topic_id",
]

K = 5


def normalize_answer(text: str) -> str:
    """Case-folded, whitespace collapsed: how answer names are compared."""
    return " ".join(text.split()).casefold()


def chain_walked(path: PathResult, chain: Sequence[ChainStep]) -> bool:
    """The path walks `chain`: same relationship types in order, each in the gold direction (`both`: any).

    >>> from pathrag_gds.results import EdgeOut
    >>> p = PathResult(rank=1, score=1.0, depth=1, key="k", text="", path_context=[], nodes=[],
    ...     edges=[EdgeOut(type="parent_of", source="a", target="b", direction="in")], answer_candidates=[])
    >>> chain_walked(p, [("parent_of", "in")]), chain_walked(p, [("parent_of", "out")])
    (True, False)
    """
    if len(path.edges) != len(chain):
        return False
    pairs = zip(path.edges, chain, strict=True)
    return all(e.type == r and d in ("both", e.direction) for e, (r, d) in pairs)


def stratified_sample(
    questions: Sequence[MetaQAQuestion], n: int | None, seed: int = 0
) -> list[MetaQAQuestion]:
    """A sample of `n` questions stratified by qtype, deterministic for a seed, in file order.

    Each qtype gets its proportional share (largest remainders round up; every qtype at least one
    question while `n` allows), then that many questions drawn with `random.Random(seed)`.
    `n` None or >= len(questions): all of them.
    """
    if n is None or n >= len(questions):
        return list(questions)
    if n <= 0:
        return []
    groups: dict[str, list[MetaQAQuestion]] = defaultdict(list)
    for q in questions:
        groups[q.qtype].append(q)
    names = sorted(groups)
    total = len(questions)
    exact = {t: n * len(groups[t]) / total for t in names}
    alloc = {t: math.floor(exact[t]) for t in names}
    if n >= len(names):
        for t in names:
            alloc[t] = max(alloc[t], 1)
    left = n - sum(alloc.values())
    order = sorted(names, key=lambda t: (-(exact[t] - math.floor(exact[t])), -len(groups[t]), t))
    i = 0
    while left > 0:
        t = order[i % len(order)]
        if alloc[t] < len(groups[t]):
            alloc[t] += 1
            left -= 1
        i += 1
    while left < 0:  # the at-least-one rule overshot: take back from the largest shares
        t = max(names, key=lambda x: (alloc[x], x))
        alloc[t] -= 1
        left += 1
    rng = random.Random(seed)
    picked: list[MetaQAQuestion] = []
    for t in names:
        picked.extend(rng.sample(groups[t], alloc[t]))
    return sorted(picked, key=lambda q: (q.hop, q.index))


# --- judging ----------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class RankedAnswer:
    """One distinct answer name and the rank of the path it came from."""

    name: str
    id: str
    path_rank: int


def ranked_answers(
    result: PathRagResult, skip_ids: Iterable[str] = (), skip_names: Iterable[str] = ()
) -> list[RankedAnswer]:
    """Distinct answer names, in rank order across the paths' answer candidates (skipped ones left out)."""
    ids = set(skip_ids)
    names = {normalize_answer(n) for n in skip_names}
    seen: set[str] = set()
    out = []
    for p in result.paths:
        for a in p.answer_candidates:
            key = normalize_answer(a.name)
            if a.id in ids or key in names or key in seen:
                continue
            seen.add(key)
            out.append(RankedAnswer(a.name, a.id, p.rank))
    return out


def path_chain(path: PathResult) -> tuple[str, ...]:
    """The relationship types a path walks, in order."""
    return tuple(e.type for e in path.edges)


@dataclass
class Judgement:
    """What one question scored."""

    key: str
    hop: int
    qtype: str
    question: str
    answer: str | None
    hit_at_1: bool
    hit_at_5: bool
    chain_hit: bool | None  #: None when the qtype is unknown
    latency_ms: float
    round_trips: int
    db_ms: float = 0.0
    score_ms: float = 0.0
    path: str = ""
    seeds: list[str] = field(default_factory=list)
    #: Hits@1 of the same result with the topic entity NOT skipped (what skipping it buys).
    hit_at_1_topic_kept: bool | None = None
    #: the search's time per stage (embed, seed, intent, plan, expand, score, ..., db), ms
    stages: dict[str, float] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        """Plain data for JSON."""
        return {
            "key": self.key,
            "hop": self.hop,
            "qtype": self.qtype,
            "question": self.question,
            "answer": self.answer,
            "hit_at_1": self.hit_at_1,
            "hit_at_5": self.hit_at_5,
            "chain_hit": self.chain_hit,
            "latency_ms": round(self.latency_ms, 2),
            "round_trips": self.round_trips,
            "path": self.path,
            "stages_ms": {k: round(v, 2) for k, v in self.stages.items()},
        }


def judge(
    result: PathRagResult,
    q: MetaQAQuestion,
    latency_ms: float,
    *,
    skip_ids: Iterable[str] = (),
    skip_names: Iterable[str] = (),
    ontology: Ontology | None = None,
) -> Judgement:
    """Score one result against the gold answers and chain."""
    gold = {normalize_answer(a) for a in q.answers}
    ranked = ranked_answers(result, skip_ids, skip_names)
    top = ranked[:K]
    chain_hit: bool | None = None
    path_text = ""
    if ranked:
        path = result.paths[ranked[0].path_rank - 1]
        path_text = " ; ".join(path.path_context) or (path.nodes[0].name if path.nodes else "")
    if q.chain:
        chain_hit = bool(ranked) and chain_walked(result.paths[ranked[0].path_rank - 1], q.chain)
    elif q.qtype:
        try:
            gold_chain = qtype_chain(q.qtype, ontology)
        except ValueError:
            gold_chain = None
        if gold_chain is not None:
            chain_hit = bool(ranked) and path_chain(result.paths[ranked[0].path_rank - 1]) == gold_chain
    t = result.timings_ms
    return Judgement(
        key=q.key,
        hop=q.hop,
        qtype=q.qtype,
        question=q.question,
        answer=ranked[0].name if ranked else None,
        hit_at_1=bool(ranked) and normalize_answer(ranked[0].name) in gold,
        hit_at_5=any(normalize_answer(a.name) in gold for a in top),
        chain_hit=chain_hit,
        latency_ms=latency_ms,
        round_trips=result.round_trips,
        db_ms=float(t.get("db", 0.0)),
        score_ms=float(t.get("score", 0.0)),
        path=path_text,
        seeds=[s.name for s in result.seeds],
        stages={k: float(v) for k, v in t.items()},
    )


def percentile(values: Sequence[float], q: float) -> float:
    """The q-th percentile (0..100), linear between closest ranks (numpy's default); 0.0 when empty."""
    if not values:
        return 0.0
    xs = sorted(values)
    pos = (len(xs) - 1) * q / 100.0
    lo = math.floor(pos)
    hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (pos - lo)


def p50_p95(values: Sequence[float], digits: int = 1) -> dict[str, float]:
    """`{"p50": ..., "p95": ...}` of `values`, rounded to `digits`.

    Example:
        >>> p50_p95([1.0, 3.0])
        {'p50': 2.0, 'p95': 2.9}
    """
    return {"p50": round(percentile(values, 50), digits), "p95": round(percentile(values, 95), digits)}


def _group_summary(rows: Sequence[Judgement]) -> dict[str, Any]:
    n = len(rows)
    chains = [r.chain_hit for r in rows if r.chain_hit is not None]
    lat = [r.latency_ms for r in rows]
    rts = [r.round_trips for r in rows]
    return {
        "total": n,
        "hits_at_1": round(sum(r.hit_at_1 for r in rows) / n, 4) if n else 0.0,
        "hits_at_5": round(sum(r.hit_at_5 for r in rows) / n, 4) if n else 0.0,
        "chain_hit": round(sum(chains) / len(chains), 4) if chains else None,
        "latency_ms": p50_p95(lat),
        "round_trips": {"mean": round(sum(rts) / n, 2) if n else 0.0, "max": max(rts) if rts else 0},
        "hits_at_1_topic_kept": round(sum(bool(r.hit_at_1_topic_kept) for r in rows) / n, 4)
        if n and all(r.hit_at_1_topic_kept is not None for r in rows)
        else None,
        "db_ms_mean": round(sum(r.db_ms for r in rows) / n, 1) if n else 0.0,
        "score_ms_mean": round(sum(r.score_ms for r in rows) / n, 1) if n else 0.0,
        "stages_ms": stage_percentiles(rows),
    }


def stage_percentiles(rows: Sequence[Judgement]) -> dict[str, dict[str, float]]:
    """Per stage of the search (`seed`, `plan`, `expand`, ..., `db`): its p50 and p95 over `rows`, ms.

    A stage a question did not run counts as 0 for it.

    Example:
        >>> rows = [Judgement("k", 1, "", "q", None, True, True, None, 10.0, 2, stages={"seed": t})
        ...         for t in (1.0, 3.0)]
        >>> stage_percentiles(rows)
        {'seed': {'p50': 2.0, 'p95': 2.9}}
    """
    names = sorted({k for r in rows for k in r.stages})
    return {name: p50_p95([r.stages.get(name, 0.0) for r in rows]) for name in names}


def summarize(rows: Sequence[Judgement], **meta: Any) -> dict[str, Any]:
    """The suite report: totals, `by_hop`, `by_qtype`, latency p50/p95 and round trips."""
    overall = _group_summary(rows)
    by_hop: dict[int, list[Judgement]] = defaultdict(list)
    by_qtype: dict[str, list[Judgement]] = defaultdict(list)
    for r in rows:
        by_hop[r.hop].append(r)
        by_qtype[r.qtype or "?"].append(r)
    return {
        "suite": "metaqa",
        "total": overall["total"],
        "hits_at_1": overall["hits_at_1"],
        "hits_at_5": overall["hits_at_5"],
        "chain_hit": overall["chain_hit"],
        "hits_at_1_topic_kept": overall["hits_at_1_topic_kept"],
        "by_hop": {str(h): _group_summary(by_hop[h]) for h in sorted(by_hop)},
        "by_qtype": {t: _group_summary(by_qtype[t]) for t in sorted(by_qtype)},
        "latency_ms": overall["latency_ms"],
        "round_trips": overall["round_trips"],
        **meta,
    }


# --- running ------------------------------------------------------------------------------------------


def topic_id(community_id: str, topic: str) -> str:
    """The entity id the MetaQA loader gives a topic entity: `<community>:<name>` (`entity_id`)."""
    from pathrag_gds.datasets.rows import entity_id

    return entity_id(community_id, topic)


def run_questions(
    service: Any,
    questions: Sequence[MetaQAQuestion],
    community_id: str,
    *,
    link: str = "topic",
    skip_topic: bool = True,
    params: Mapping[str, Any] | None = None,
    ontology: Ontology | None = None,
    progress: Callable[[Judgement], None] | None = None,
) -> list[Judgement]:
    """Ask every question through `service.pathrag` and judge the results.

    Args:
        service: a :class:`~pathrag_gds.service.PathRag` (or a baseline with the same `pathrag`).
        questions: the questions.
        community_id: the community MetaQA was loaded into (also the prefix of entity ids).
        link: `topic` (the bracketed entity is the seed) or `vector` (vector-index seeds only).
        skip_topic: leave the topic entity out of the ranked answers.
        params: more keyword arguments for `pathrag` (max_depth, top_n, seed_n, ...).
        ontology: checks the qtype -> relation mapping against it.
        progress: called after each question.

    Raises:
        InvalidInput: an unknown `link`.
    """
    if link not in ("topic", "vector"):
        raise InvalidInput(f"link must be 'topic' or 'vector' (got {link!r})")
    params = dict(params or {})
    out = []
    for q in questions:
        tid = topic_id(community_id, q.topic)
        kwargs = dict(params)
        if link == "topic":
            kwargs["seed_ids"] = [tid]
        t0 = time.perf_counter()
        result = service.pathrag(q.question, community_id=community_id, generate=False, **kwargs)
        latency = (time.perf_counter() - t0) * 1000.0
        j = judge(
            result,
            q,
            latency,
            skip_ids=[tid] if skip_topic else (),
            skip_names=[q.topic] if skip_topic else (),
            ontology=ontology,
        )
        if skip_topic:
            j.hit_at_1_topic_kept = judge(result, q, latency, ontology=ontology).hit_at_1
        out.append(j)
        if progress is not None:
            progress(j)
    return out
