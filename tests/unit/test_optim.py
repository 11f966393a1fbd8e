"""The optimisation loop the two trainers share: the schedule (pure) and the step loop (torch)."""

from __future__ import annotations

import itertools
import time
from typing import Any

import pytest

from pathrag_gds.training.optim import MAX_GRAD_NORM, StepLog, lr_factor


def test_schedule_warms_up_then_decays_linearly() -> None:
    planned, warm = 10, 2
    got = [lr_factor(s, planned, warm) for s in range(planned)]
    assert got[:2] == [0.5, 1.0]
    assert got[2:] == [(planned - s) / (planned - warm) for s in range(2, planned)]
    assert all(a >= b for a, b in itertools.pairwise(got[1:]))


def test_schedule_floor_and_degenerate_plans() -> None:
    assert lr_factor(9, 10, 2, floor=0.05) == 0.125
    assert lr_factor(10, 10, 2, floor=0.05) == 0.05  # past the plan: the floor, never negative
    assert lr_factor(12, 10, 2) == 0.0
    assert lr_factor(0, 1, 1) == 1.0
    assert lr_factor(1, 1, 1) == 0.0  # planned == warm: no division by zero


def test_schedule_matches_both_trainers_formulas() -> None:
    """The cross-encoder's (floor 0, warm-up share) and the chain scorer's (floor 0.05, a tenth)."""
    for planned in (1, 7, 40, 123):
        warm = max(1, int(planned * 0.1))
        for s in range(planned + 2):
            old = (s + 1) / warm if s < warm else max(0.0, (planned - s) / max(1, planned - warm))
            assert lr_factor(s, planned, warm) == old
        warm = max(1, planned // 10)
        for s in range(planned + 2):
            old = (s + 1) / warm if s < warm else max(0.05, (planned - s) / max(1, planned - warm))
            assert lr_factor(s, planned, warm, floor=0.05) == old


def _model() -> tuple[Any, Any]:
    torch = pytest.importorskip("torch")
    torch.manual_seed(0)
    return torch, torch.nn.Linear(3, 1)


def test_run_steps_steps_schedules_clips_and_reports() -> None:
    from pathrag_gds.training.optim import adamw, run_steps, warmup_linear

    torch, model = _model()
    params = list(model.parameters())
    opt = adamw(params, lr=0.1)
    sched = warmup_linear(opt, planned=4, warm=2)
    x = torch.ones(2, 3) * 100.0  # large inputs: large gradients, clipped
    norms: list[float] = []
    seen: list[tuple[int, int, float]] = []

    def loss_of(batch: int) -> Any:
        loss = (model(x * batch) ** 2).mean()
        return loss

    def progress(step: int, planned: int, loss: float) -> None:
        seen.append((step, planned, loss))
        norms.append(float(torch.norm(torch.stack([p.grad.norm() for p in params]))))

    log = run_steps([1, 2, 3, 4], loss_of, opt, sched, params, progress=progress)
    assert isinstance(log, StepLog)
    assert log.steps == 4 and not log.stopped_by_clock and len(log.losses) == 4
    assert [s for s, _, _ in seen] == [1, 2, 3, 4] and {p for _, p, _ in seen} == {4}
    assert [loss for _, _, loss in seen] == log.losses
    assert all(n <= MAX_GRAD_NORM + 1e-4 for n in norms)
    assert opt.param_groups[0]["weight_decay"] == 0.01
    assert opt.param_groups[0]["lr"] == pytest.approx(0.1 * lr_factor(4, 4, 2))


def test_run_steps_stops_at_the_deadline() -> None:
    from pathrag_gds.training.optim import adamw, run_steps, warmup_linear

    torch, model = _model()
    params = list(model.parameters())
    opt = adamw(params)
    sched = warmup_linear(opt, planned=3, warm=1)
    log = run_steps(
        [1, 2, 3],
        lambda b: model(torch.ones(1, 3)).sum(),
        opt,
        sched,
        params,
        deadline=time.perf_counter() - 1.0,
    )
    assert log.stopped_by_clock and log.steps == 0 and log.losses == []


def test_adamw_keeps_group_learning_rates() -> None:
    from pathrag_gds.training.optim import adamw

    _, model = _model()
    w, b = model.weight, model.bias
    opt = adamw([{"params": [w], "lr": 1e-4}, {"params": [b], "lr": 2e-3}])
    assert [g["lr"] for g in opt.param_groups] == [1e-4, 2e-3]
    assert all(g["weight_decay"] == 0.01 for g in opt.param_groups)
