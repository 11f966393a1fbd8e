r"""The MetaQA suite: KGQA questions over the movie knowledge base, judged by answer sets.

Files (MetaQA, Zhang et al., AAAI 2018; CC BY 3.0):

- `qa_dev.txt`: `question with [topic entity]<TAB>answer1|answer2|...`, one question a line;
- `qa_dev_qtype.txt` next to it: one line per question, its gold relation chain as entity-type
  tokens, e.g. `movie_to_director_to_movie`.

Metrics of one question (`k` = 5):

- the *ranked answers*: the answer candidates of the returned paths, path by path in rank order,
  distinct by name; the topic entity is skipped when `skip_topic` (it is in the question, so it
  cannot be what is asked);
- Hits@1: the first ranked answer's name is in the gold answer set (compared case-insensitively,
  whitespace collapsed); Hits@5: one of the first five is;
- chain hit: the path the #1 answer came from (the #1 path unless that one only held skipped
  entities) walks exactly the gold relation chain of the qtype.

Chain files (other graphs than MetaQA, e.g. `tests/data/people/2-hop_chains.txt`, found next to
`2-hop.txt` as `<stem>_chains.txt` or given with `--chains`): one line per question, the gold
chain as `relation:direction` per hop, `parent_of:in,works_for:out`. `out` walks along the stored
arrow, `in` against it, `both` either way (a symmetric relationship stored once per pair). With a
chain file the chain hit also checks each hop's direction, and the chain text is the question's
qtype (the per-qtype table groups by chain).

Qtype tokens map to relationship types of the MetaQA ontology (`datasets/data/metaqa_ontology.yaml`):
every MetaQA relation runs from a movie to a value, so each `a_to_b` step with one side `movie`
walks the relation of the other token:

======================  =================  ============
token                   relationship type  target type
======================  =================  ============
actor                   starred_actors     Person
director                directed_by        Person
writer                  written_by         Person
year                    release_year       Year
language                in_language        Language
genre                   has_genre          Genre
tag, tags               has_tags           Tag
imdbrating              has_imdb_rating    Rating
imdbvotes               has_imdb_votes     Votes
======================  =================  ============

e.g. `movie_to_director_to_movie` -> (directed_by, directed_by).

Seed linking (`link`): `topic` passes the bracketed topic entity as the only seed (`seed_ids`, as
published KGQA systems link it); `vector` strips the brackets and seeds from the vector index only.
Either way the question text the scorer reads has its brackets removed.

Example:
    >>> q = parse_question_line("what movies did [Tom Cullen] act in\tWeekend", hop=1, index=0)
    >>> q.question, q.topic, q.answers
    ('what movies did Tom Cullen act in', 'Tom Cullen', ('Weekend',))
    >>> qtype_chain("movie_to_director_to_movie")
    ('directed_by', 'directed_by')
"""

from __future__ import annotations

import itertools
import math
import random
import re
import time
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pathrag_gds.errors import InvalidInput
from pathrag_gds.ontology import Ontology
from pathrag_gds.results import PathRagResult, PathResult

#: Qtype token -> (relationship type, its target entity type). See the module docstring.
QTYPE_RELATIONS: dict[str, tuple[str, str]] = {
    "actor": ("starred_actors", "Person"),
    "director": ("directed_by", "Person"),
    "writer": ("written_by", "Person"),
    "year": ("release_year", "Year"),
    "language": ("in_language", "Language"),
    "genre": ("has_genre", "Genre"),
    "tag": ("has_tags", "Tag"),
    "tags": ("has_tags", "Tag"),
    "imdbrating": ("has_imdb_rating", "Rating"),
    "imdbvotes": ("has_imdb_votes", "Votes"),
}
MOVIE_TOKEN = "movie"
K = 5

#: One hop of a gold chain: relationship type and walk direction (`out`, `in` or `both`).
ChainStep = tuple[str, str]
CHAIN_DIRECTIONS = ("out", "in", "both")

_TOPIC = re.compile(r"\[([^\]]+)\]")


@dataclass(frozen=True, slots=True)
class MetaQAQuestion:
    """One question: the text with and without brackets, its topic entity, gold answers, qtype."""

    hop: int
    index: int  #: 0-based line number in its file
    raw: str  #: the question as in the file, with `[topic]`
    question: str  #: brackets removed
    topic: str
    answers: tuple[str, ...]
    qtype: str = ""
    chain: tuple[ChainStep, ...] = ()  #: the gold chain from a chain file, with directions

    @property
    def key(self) -> str:
        """`<hop>-hop:<line>`: a stable id of the question."""
        return f"{self.hop}-hop:{self.index}"


def normalize_answer(text: str) -> str:
    """Case-folded, whitespace collapsed: how answer names are compared."""
    return " ".join(text.split()).casefold()


def parse_question_line(line: str, hop: int, index: int) -> MetaQAQuestion:
    """Parse `question with [topic]<TAB>a1|a2|...`.

    Raises:
        InvalidInput: no tab, no bracketed topic, or no answer.
    """
    text = line.rstrip("\r\n")
    if "\t" not in text:
        raise InvalidInput(f"line {index + 1}: expected 'question<TAB>answers', got {text[:80]!r}")
    raw, answers_text = text.split("\t", 1)
    m = _TOPIC.search(raw)
    if m is None:
        raise InvalidInput(f"line {index + 1}: no [topic entity] in {raw[:80]!r}")
    answers = tuple(a.strip() for a in answers_text.split("|") if a.strip())
    if not answers:
        raise InvalidInput(f"line {index + 1}: no answer after the tab")
    question = " ".join(_TOPIC.sub(lambda mm: mm.group(1), raw).split())
    return MetaQAQuestion(hop, index, raw.strip(), question, m.group(1).strip(), answers)


def hop_from_path(path: Path) -> int | None:
    """The hop count a file's folder or name states (`2-hop/qa_dev.txt` -> 2), else None."""
    for part in (path.parent.name, path.name):
        m = re.search(r"(\d+)-hop", part)
        if m:
            return int(m.group(1))
    return None


def default_qtype_path(path: Path) -> Path:
    """`qa_dev.txt` -> `qa_dev_qtype.txt` in the same folder."""
    return path.with_name(f"{path.stem}_qtype{path.suffix}")


def default_chains_path(path: Path) -> Path:
    """`2-hop.txt` -> `2-hop_chains.txt` in the same folder."""
    return path.with_name(f"{path.stem}_chains{path.suffix}")


def parse_chain(text: str) -> tuple[ChainStep, ...]:
    """Parse a gold chain `rel:out,rel:in,rel:both`.

    >>> parse_chain("parent_of:in, born_in:out")
    (('parent_of', 'in'), ('born_in', 'out'))

    Raises:
        ValueError: a token that is not `relation:out|in|both`.
    """
    steps = []
    for token in text.split(","):
        rel, _, d = token.strip().rpartition(":")
        if not rel or d not in CHAIN_DIRECTIONS:
            raise ValueError(f"chain token {token.strip()!r} is not 'relation:out|in|both' (in {text!r})")
        steps.append((rel, d))
    return tuple(steps)


def format_chain(chain: Iterable[ChainStep]) -> str:
    """The inverse of :func:`parse_chain`: `parent_of:in,born_in:out`."""
    return ",".join(f"{r}:{d}" for r, d in chain)


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


def read_chains(path: str | Path, expected: int | None = None) -> list[tuple[ChainStep, ...]]:
    """Read a chain file (one `rel:dir,...` line per question).

    Raises:
        InvalidInput: the file is missing, a line is malformed, or it has not `expected` lines.
    """
    p = Path(path)
    if not p.is_file():
        raise InvalidInput(f"chain file not found: {p}")
    lines = [ln.strip() for ln in p.read_text(encoding="utf-8").splitlines() if ln.strip()]
    if expected is not None and len(lines) != expected:
        raise InvalidInput(f"{p} has {len(lines)} chains for {expected} questions; pass the matching file")
    try:
        return [parse_chain(ln) for ln in lines]
    except ValueError as exc:
        raise InvalidInput(f"{p}: {exc}") from exc


def hops_of_qtype(qtype: str) -> int:
    """Hop count of a qtype: its number of `_to_` steps."""
    return len(qtype.split("_to_")) - 1


def read_questions(
    path: str | Path,
    qtypes: str | Path | None = None,
    hop: int | None = None,
    chains: str | Path | None = None,
) -> list[MetaQAQuestion]:
    """Read a question file and its qtype and chain files (found next to it when not given; optional).

    The hop count comes from `hop`, else the folder name (`2-hop`), else the first qtype or chain.

    Raises:
        InvalidInput: a file is missing, malformed, or the qtype file has another line count.
    """
    p = Path(path)
    if not p.is_file():
        raise InvalidInput(f"question file not found: {p}")
    lines = [ln for ln in p.read_text(encoding="utf-8").splitlines() if ln.strip()]
    qt_path = Path(qtypes) if qtypes is not None else default_qtype_path(p)
    types: list[str] = []
    if qt_path.is_file():
        types = [ln.strip() for ln in qt_path.read_text(encoding="utf-8").splitlines() if ln.strip()]
        if len(types) != len(lines):
            raise InvalidInput(
                f"{qt_path} has {len(types)} qtypes for {len(lines)} questions in {p}; pass the matching file"
            )
    elif qtypes is not None:
        raise InvalidInput(f"qtype file not found: {qt_path}")
    ch_path = Path(chains) if chains is not None else default_chains_path(p)
    gold: list[tuple[ChainStep, ...]] = []
    if chains is not None or ch_path.is_file():
        gold = read_chains(ch_path, len(lines))
    if hop is None:
        hop = hop_from_path(p) or (hops_of_qtype(types[0]) if types else len(gold[0]) if gold else None)
    if hop is None:
        raise InvalidInput(f"cannot tell the hop count of {p}: put it in an 'N-hop' folder or give qtypes")
    out = []
    for i, line in enumerate(lines):
        q = parse_question_line(line, hop, i)
        chain = gold[i] if gold else ()
        qtype = types[i] if types else format_chain(chain)
        out.append(MetaQAQuestion(q.hop, q.index, q.raw, q.question, q.topic, q.answers, qtype, chain))
    return out


def qtype_chain(qtype: str, ontology: Ontology | None = None) -> tuple[str, ...]:
    """The relationship types a qtype walks, in order (see the table in the module docstring).

    With an ontology, each relation must exist there and lead to the token's entity type.

    Raises:
        ValueError: an unknown token, a step without exactly one `movie`, or a mismatch with the ontology.
    """
    tokens = qtype.split("_to_")
    if len(tokens) < 2:
        raise ValueError(f"qtype {qtype!r} has no '_to_' step")
    chain = []
    for a, b in itertools.pairwise(tokens):
        if (a == MOVIE_TOKEN) == (b == MOVIE_TOKEN):
            raise ValueError(f"qtype {qtype!r}: step {a}_to_{b} must have exactly one 'movie'")
        other = b if a == MOVIE_TOKEN else a
        if other not in QTYPE_RELATIONS:
            raise ValueError(f"qtype {qtype!r}: unknown token {other!r}")
        rel, target = QTYPE_RELATIONS[other]
        if ontology is not None:
            rt = {r.type: r for r in ontology.relation_types}.get(rel)
            if rt is None or (rt.target_labels and target not in rt.target_labels):
                raise ValueError(f"ontology {ontology.id} has no relation {rel} to {target} (qtype {qtype})")
        chain.append(rel)
    return tuple(chain)


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
        "latency_ms": {"p50": round(percentile(lat, 50), 1), "p95": round(percentile(lat, 95), 1)},
        "round_trips": {"mean": round(sum(rts) / n, 2) if n else 0.0, "max": max(rts) if rts else 0},
        "hits_at_1_topic_kept": round(sum(bool(r.hit_at_1_topic_kept) for r in rows) / n, 4)
        if n and all(r.hit_at_1_topic_kept is not None for r in rows)
        else None,
        "db_ms_mean": round(sum(r.db_ms for r in rows) / n, 1) if n else 0.0,
        "score_ms_mean": round(sum(r.score_ms for r in rows) / n, 1) if n else 0.0,
    }


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
    from pathrag_gds.datasets.loader import entity_id

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
        result = service.pathrag(q.question, community_id=community_id, **kwargs)
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
