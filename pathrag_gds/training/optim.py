"""The optimisation loop both trainers share: AdamW, warm-up then linear decay, clipping, the clock.

The cross-encoder (:mod:`.train`) and the chain scorer (:mod:`.chains`) differ in what a batch is
and how its loss is computed; everything after the loss is the same and lives here. The schedule is
pure (no torch); the rest imports torch when called (the `train` extra).

Example:
    >>> [round(lr_factor(s, planned=10, warm=2), 3) for s in (0, 1, 2, 9)]
    [0.5, 1.0, 1.0, 0.125]
    >>> lr_factor(9, planned=10, warm=2, floor=0.5)
    0.5
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

B = TypeVar("B")

#: AdamW's weight decay in both trainers.
WEIGHT_DECAY = 0.01
#: Gradients are clipped to this total norm before each step.
MAX_GRAD_NORM = 1.0


def lr_factor(step: int, planned: int, warm: int, floor: float = 0.0) -> float:
    """Learning-rate factor at `step`: linear warm-up over `warm` steps, then linear decay to `floor`.

    Args:
        step: the optimizer step (0-based).
        planned: steps planned in all.
        warm: warm-up steps (at least 1).
        floor: the factor never falls below it during the decay.
    """
    if step < warm:
        return (step + 1) / warm
    return max(floor, (planned - step) / max(1, planned - warm))


def adamw(params: Any, lr: float | None = None) -> Any:
    """AdamW with the shared weight decay over `params` (tensors, or groups with their own `lr`)."""
    import torch

    if lr is None:
        return torch.optim.AdamW(params, weight_decay=WEIGHT_DECAY)
    return torch.optim.AdamW(params, lr=lr, weight_decay=WEIGHT_DECAY)


def warmup_linear(optimizer: Any, planned: int, warm: int, floor: float = 0.0) -> Any:
    """A LambdaLR scheduler of :func:`lr_factor` for `optimizer`."""
    import torch

    return torch.optim.lr_scheduler.LambdaLR(optimizer, lambda s: lr_factor(s, planned, warm, floor))


@dataclass
class StepLog:
    """What the loop did: steps taken, the loss of each, whether the clock stopped it."""

    steps: int = 0
    stopped_by_clock: bool = False
    losses: list[float] = field(default_factory=list)


def run_steps(
    plan: Sequence[B],
    loss_of: Callable[[B], Any],
    optimizer: Any,
    scheduler: Any,
    params: Iterable[Any],
    *,
    deadline: float | None = None,
    progress: Callable[[int, int, float], None] | None = None,
) -> StepLog:
    """One optimizer step per batch of `plan`, until the plan ends or `deadline` passes.

    Args:
        plan: the batches, in order.
        loss_of: the batch's loss (a scalar tensor with gradients).
        optimizer: the optimizer of `params`.
        scheduler: stepped after each optimizer step.
        params: the trainable parameters (their gradient norm is clipped to `MAX_GRAD_NORM`).
        deadline: a `time.perf_counter()` value; checked before each batch (None: no clock).
        progress: called after each step with (step, planned steps, loss).
    """
    import torch

    params = list(params)
    log = StepLog()
    for batch in plan:
        if deadline is not None and time.perf_counter() > deadline:
            log.stopped_by_clock = True
            break
        loss = loss_of(batch)
        optimizer.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(params, MAX_GRAD_NORM)
        optimizer.step()
        scheduler.step()
        log.steps += 1
        log.losses.append(float(loss.detach()))
        if progress is not None:
            progress(log.steps, len(plan), log.losses[-1])
    return log
