"""Training pairs for the cross-encoder: each generated question with its path and hard negatives.

Texts are serialized exactly as the search serializes them (:func:`pathrag_gds.serialize.serialize_path`
with the same ontology, token budget `Settings.path_text_tokens` and the embedder's token counter).

Labels (soft, for a pointwise BCE loss plus a listwise loss within a question's group):

================  =====  ==============================================================
kind              label  what
================  =====  ==============================================================
positive          1.0    the walked chain (and at most one other answer of the same chain)
cut_short         0.3    a proper prefix of the chain with 1+ hops: on the way, not there
                         (the beam must keep it: the search prunes scores under `min_score`)
start             0.0    the 0-hop start entity of a 1+ hop question
walked_past       0.0    the chain plus one more hop (walks past the answer), to another entity of
                         the answer's type where the graph has one (the type term cannot tell
                         those apart: "Bob's friends" vs a friend of a friend)
wrong_type        0.0    the same chain to an entity of another type than the one asked
sibling           0.0    the chain's prefix, then another relation/neighbour at the last hop
other_chain       0.0    same start, another relation chain
other_start       0.0    the same chain from a different start entity of the same type
other_entity      0.0    another entity alone (0 hops): the search scores every seed as a path
anchor_dropped    0.0    an anchored question's chain without its occasion (the start): it may
                         reach the answer, but it does not show the occasion the question names
bi_near_miss      0.0    the bi-encoder's best-ranked wrong paths (its ranks 2-10)
================  =====  ==============================================================

Paths that reach a right answer by another chain are left out (neither right nor wrong).

The data hash (:func:`data_hash`) is the sha256 of the pairs in order: the same graph, ontology,
settings and seed give the same hash.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass

from pathrag_gds.ontology import Ontology
from pathrag_gds.paths import Path
from pathrag_gds.serialize import approx_tokens, serialize_path
from pathrag_gds.training.graph_source import GraphSource, signature
from pathrag_gds.training.questions import GeneratedQuestion

PREFIX_LABEL = 0.3
KINDS = (
    "positive",
    "cut_short",
    "start",
    "walked_past",
    "wrong_type",
    "sibling",
    "other_chain",
    "other_start",
    "other_entity",
    "anchor_dropped",
    "bi_near_miss",
)

#: Scores texts against a question (the bi-encoder), for the near misses.
BiScore = Callable[[str, Sequence[str]], list[float]]


@dataclass(frozen=True)
class TrainingPair:
    """One (question, path text) pair with its label and kind; `group` is the question id."""

    group: int
    question: str
    text: str
    label: float
    kind: str


def data_hash(pairs: Sequence[TrainingPair]) -> str:
    """sha256 of the pairs, in order (what the manifest records)."""
    h = hashlib.sha256()
    for p in pairs:
        h.update(json.dumps(asdict(p), sort_keys=True, ensure_ascii=False).encode("utf-8"))
        h.update(b"\n")
    return h.hexdigest()


@dataclass
class PairBuilder:
    """Builds the pairs of each question (see the module docstring).

    Args:
        source: the graph the questions came from.
        ontology: for serialization.
        bi_score: the bi-encoder (`BiEncoderScorer.score`); None skips the near misses.
        seed: for the choices among negatives.
        max_tokens: path text token budget (`Settings.path_text_tokens`).
        count_tokens: the token counter the search uses (the embedder's).
        enum_cap: neighbours per relation group taken when enumerating candidate paths.
        enum_per_depth: candidate paths kept per depth of the enumeration.
        pool: wrong candidates the bi-encoder ranks per question.
        near: near misses kept per question.
        cut_short_label: label of the chain cut short (`PREFIX_LABEL`; 0 makes it a plain negative).
    """

    source: GraphSource
    ontology: Ontology
    bi_score: BiScore | None = None
    seed: int = 0
    max_tokens: int = 128
    count_tokens: Callable[[str], int] = approx_tokens
    enum_cap: int = 6
    enum_per_depth: int = 60
    pool: int = 12
    near: int = 4
    cut_short_label: float = PREFIX_LABEL

    def __post_init__(self) -> None:
        self.rng = random.Random(self.seed + 7919)

    def text(self, path: Path) -> str:
        """The search's text of `path`."""
        ents = self.source.entities(path.node_ids)
        return serialize_path(
            path, ents, self.ontology, max_tokens=self.max_tokens, count_tokens=self.count_tokens
        )

    def candidates(self, q: GeneratedQuestion) -> list[Path]:
        """Paths from the question's start, 0 to depth+1 hops, the walked ones always included."""
        walked = [Path(q.path.node_ids[: i + 1], q.path.edges[:i]) for i in range(q.depth + 1)]
        out = list(walked)
        level = [walked[0]]
        for d in range(1, q.depth + 2):
            hops = self.source.neighbours(sorted({p.end for p in level}))
            nxt: list[Path] = []
            for p in level:
                groups: dict[tuple[str, str], int] = {}
                for e, nid in hops[p.end]:
                    if nid in p.node_ids:
                        continue
                    g = (e.type, e.direction)
                    groups[g] = groups.get(g, 0) + 1
                    if groups[g] <= self.enum_cap:
                        nxt.append(p.extend(e, nid))
            keep = walked[d] if d < len(walked) else None
            if keep is None and d == q.depth + 1:
                past = [p for p in nxt if p.node_ids[: q.depth + 1] == q.path.node_ids]
                past = self.same_type_end(q, past) or past
                keep = self.rng.choice(past) if past else None
            others = [p for p in nxt if p != keep]
            if len(others) > self.enum_per_depth:
                others = self.rng.sample(others, self.enum_per_depth)
            level = ([keep] if keep is not None else []) + others
            out.extend(p for p in level if p not in walked)
        return out

    def kind(self, q: GeneratedQuestion, p: Path) -> str | None:
        """The candidate's kind for question `q`; None when it is to be left out."""
        chain, sig = q.chain, signature(p)
        if sig == chain:
            return "positive" if p.end in q.answers else "wrong_type"
        if p.end in q.answers:
            return None  # a right answer by another chain
        if len(sig) < len(chain) and chain[: len(sig)] == sig:
            return "cut_short" if sig else "start"
        if len(sig) > len(chain) and sig[: len(chain)] == chain:
            return "walked_past"
        if len(sig) == len(chain) and sig[:-1] == chain[:-1] and len(chain) >= 1:
            return "sibling"
        return "other_chain"

    def same_type_end(self, q: GeneratedQuestion, paths: Sequence[Path]) -> list[Path]:
        """The paths that end at an entity of the type of the question's answer."""
        ends = self.source.entities(sorted({p.end for p in paths} | {q.path.end}))
        label = ends[q.path.end].label
        return [p for p in paths if p.end in ends and ends[p.end].label == label]

    def other_start(self, q: GeneratedQuestion, starts: Sequence[str]) -> Path | None:
        """The same chain walked from another entity of the start's type (a few tries)."""
        label = self.source.entities([q.path.start])[q.path.start].label
        for _ in range(8):
            s = self.rng.choice(starts)
            if s == q.path.start or s in q.answers:
                continue
            ents = self.source.entities([s])
            if s not in ents or ents[s].label != label:
                continue
            p = Path((s,))
            for group in q.chain:
                hops = [h for h in self.source.neighbours([p.end])[p.end] if h[1] not in p.node_ids]
                hops = [h for h in hops if (h[0].type, h[0].direction) == group]
                if not hops:
                    break
                e, nid = self.rng.choice(hops)
                p = p.extend(e, nid)
            if p.depth == q.depth and p.end not in q.answers:
                return p
        return None

    def build(self, q: GeneratedQuestion, starts: Sequence[str]) -> list[TrainingPair]:
        """The pairs of one question: positive(s), one of each structural kind, bi-encoder near misses."""
        by_kind: dict[str, list[Path]] = {k: [] for k in KINDS}
        for p in self.candidates(q):
            k = self.kind(q, p)
            if k is not None:
                by_kind[k].append(p)
        chosen: list[tuple[Path, str]] = [(q.path, "positive")]
        if q.anchored:
            chosen.append((q.path.without_start(), "anchor_dropped"))  # what the question asked about
        extra = [p for p in by_kind["positive"] if p != q.path]
        if extra:
            chosen.append((self.rng.choice(extra), "positive"))
        hardest = {"walked_past": self.same_type_end(q, by_kind["walked_past"])}
        for k in ("cut_short", "start", "walked_past", "wrong_type", "sibling", "other_chain"):
            pool = hardest.get(k) or by_kind[k]
            if pool:
                chosen.append((self.rng.choice(pool), k))
        if q.depth >= 1:
            o = self.other_start(q, starts)
            if o is not None:
                chosen.append((o, "other_start"))
        others = [s for s in starts if s != q.path.start and s not in q.answers]
        lone = [Path((s,)) for s in self.rng.sample(others, min(len(others), 6))]
        if lone:
            chosen.append((lone[0], "other_entity"))
        taken = {p for p, _ in chosen}
        wrong = [
            p
            for k in ("walked_past", "wrong_type", "sibling", "other_chain", "start")
            for p in by_kind[k]
            if p not in taken
        ] + lone[1:]
        if self.bi_score is not None and wrong and self.near > 0:
            if len(wrong) > self.pool:
                wrong = self.rng.sample(wrong, self.pool)
            texts = [self.text(p) for p in wrong]
            scores = self.bi_score(q.question, texts)
            order = sorted(range(len(wrong)), key=lambda i: (-scores[i], texts[i]))
            chosen.extend((wrong[i], "bi_near_miss") for i in order[: self.near])
        out = []
        seen: set[str] = set()
        for p, k in chosen:
            t = self.text(p)
            if t in seen:
                continue
            seen.add(t)
            label = 1.0 if k == "positive" else self.cut_short_label if k == "cut_short" else 0.0
            out.append(TrainingPair(q.id, q.question, t, label, k))
        return out

    def build_all(
        self,
        questions: Sequence[GeneratedQuestion],
        starts: Sequence[str],
        progress: Callable[[int], None] | None = None,
    ) -> list[TrainingPair]:
        """Pairs of every question, in question order."""
        out: list[TrainingPair] = []
        for q in questions:
            out.extend(self.build(q, starts))
            if progress is not None:
                progress(1)
        return out
