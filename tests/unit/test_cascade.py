"""CascadeScorer: one scale per batch, top-K from the cross-encoder, the rest below in bi-encoder order.

The bi-encoder is the committed ONNX model; the cross-encoder side is a small deterministic scorer
object (any object with `score(question, texts)` and `model_dir`), so the test needs no tuned model.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest

from pathrag_gds.encoders import get_embedder
from pathrag_gds.errors import InvalidInput
from pathrag_gds.scoring import BiEncoderScorer, CascadeScorer, PooledBiEncoderScorer

QUESTION = "Who owns Bob the Cat?"
TEXTS = [
    "Jane owns Bob. ||| Jane is a Person. Bob is a Animal.",
    "Bob is a friend of Joy. ||| Bob is a Animal. Joy is a Animal.",
    "Bob hides in the attic. ||| Bob is a Animal. Attic is a Place.",
    "Mr Thompson owns Rex. ||| Mr Thompson is a Person. Rex is a Animal.",
    "The kitchen is part of Bob's house. ||| Kitchen is a Place.",
    "Whiskerville is a village. ||| Whiskerville is a Place.",
    "Martha is the mother of Jane. ||| Martha is a Person. Jane is a Person.",
]


class LengthCross:
    """A stand-in cross-encoder: score = 1 / (1 + words), so shorter texts score higher."""

    model_dir = Path("models/length-cross")

    def __init__(self) -> None:
        self.seen: list[str] = []

    def score(self, question: str, texts: Sequence[str]) -> list[float]:
        self.seen.extend(texts)
        return [1.0 / (1.0 + len(t.split())) for t in texts]


@pytest.fixture(scope="module")
def bi() -> BiEncoderScorer:
    return BiEncoderScorer(get_embedder())


def test_top_k_get_cross_scores_and_the_rest_stay_below(bi: BiEncoderScorer) -> None:
    cross = LengthCross()
    cascade = CascadeScorer(bi, cross, k=3)  # type: ignore[arg-type]
    scores = cascade.score(QUESTION, TEXTS)
    b = bi.score(QUESTION, TEXTS)
    top = sorted(range(len(TEXTS)), key=lambda i: -b[i])[:3]
    assert sorted(cross.seen) == sorted(TEXTS[i] for i in top)
    c = cross.score(QUESTION, [TEXTS[i] for i in top])
    for i, ci in zip(top, c, strict=True):
        assert scores[i] == pytest.approx(ci)
    rest = [i for i in range(len(TEXTS)) if i not in top]
    assert max(scores[i] for i in rest) < min(c)
    by_bi = sorted(rest, key=lambda i: -b[i])
    assert [scores[i] for i in by_bi] == sorted((scores[i] for i in rest), reverse=True)
    assert cascade.cross_texts == 3
    assert cascade.name == "cascade:length-cross@3"


def test_small_batches_k0_alpha_and_bad_values(bi: BiEncoderScorer) -> None:
    cross = LengthCross()
    full = cross.score(QUESTION, TEXTS)
    assert CascadeScorer(bi, cross, k=0).score(QUESTION, TEXTS) == pytest.approx(full)  # type: ignore[arg-type]
    assert CascadeScorer(bi, cross, k=50).score(QUESTION, TEXTS) == pytest.approx(full)  # type: ignore[arg-type]
    qs = CascadeScorer(bi, cross, k=2).for_question(QUESTION)  # type: ignore[arg-type]
    assert qs.score(TEXTS[:2]) == pytest.approx(full[:2])
    assert CascadeScorer(bi, cross, k=2).score(QUESTION, []) == []  # type: ignore[arg-type]
    b = bi.score(QUESTION, TEXTS)
    mixed = CascadeScorer(bi, cross, k=0, alpha=0.5).score(QUESTION, TEXTS)  # type: ignore[arg-type]
    assert mixed == pytest.approx([0.5 * c + 0.5 * x for c, x in zip(full, b, strict=True)])
    with pytest.raises(InvalidInput):
        CascadeScorer(bi, cross, k=-1)  # type: ignore[arg-type]
    with pytest.raises(InvalidInput):
        CascadeScorer(bi, cross, k=2, alpha=1.5)  # type: ignore[arg-type]


class FlatCross(LengthCross):
    """A cross-encoder that scores every text the same (as a sigmoid does far from 0)."""

    def score(self, question: str, texts: Sequence[str]) -> list[float]:
        return [0.0 for _ in texts]


def test_equal_cascade_scores_are_broken_as_the_bi_encoder_breaks_them() -> None:
    """The pooled bi-encoder's tie-break (best hop sentence) carries over to the cascade."""
    pooled = PooledBiEncoderScorer(get_embedder())
    hides = "Bob hides in the attic. ||| Bob is a Animal. Attic is a Place."
    owner = "Jane owns Bob. ||| Jane is a Person. Bob is a Animal."
    qs = CascadeScorer(pooled, FlatCross(), k=0, alpha=1.0).for_question(QUESTION)  # type: ignore[arg-type]
    assert qs.score([hides, owner]) == [0.0, 0.0]
    assert qs.ties([hides, owner]) == pooled.for_question(QUESTION).ties([hides, owner])
    ties = qs.ties([hides, owner])
    assert ties[1] > ties[0]  # "Jane owns Bob" fits "Who owns Bob the Cat?" better than the attic


class TinyCross:
    """Rejects every text, each with another tiny probability (a sigmoid far below 0), later ones higher."""

    model_dir = Path("models/tiny-cross")

    def score(self, question: str, texts: Sequence[str]) -> list[float]:
        return [1e-3 * (1 + i) for i, _ in enumerate(texts)]


def test_cross_scores_under_the_floor_leave_the_order_to_the_bi_encoder(bi: BiEncoderScorer) -> None:
    b = bi.score(QUESTION, TEXTS)
    raw = CascadeScorer(bi, TinyCross(), k=0, alpha=0.99).score(QUESTION, TEXTS)  # type: ignore[arg-type]
    floored = CascadeScorer(bi, TinyCross(), k=0, alpha=0.99, floor=0.01)  # type: ignore[arg-type]
    scores = floored.score(QUESTION, TEXTS)
    by_bi = sorted(range(len(TEXTS)), key=lambda i: -b[i])
    assert sorted(range(len(TEXTS)), key=lambda i: -scores[i]) == by_bi
    assert sorted(range(len(TEXTS)), key=lambda i: -raw[i]) != by_bi  # without the floor the noise decides
    assert scores == pytest.approx([0.99 * 0.01 + 0.01 * x for x in b])
    assert floored.name == "cascade:tiny-cross@0a0.99f0.01"
    above = CascadeScorer(bi, LengthCross(), k=0, alpha=0.99, floor=0.01)  # type: ignore[arg-type]
    assert above.score(QUESTION, TEXTS) == pytest.approx(
        CascadeScorer(bi, LengthCross(), k=0, alpha=0.99).score(QUESTION, TEXTS)  # type: ignore[arg-type]
    )
    with pytest.raises(InvalidInput):
        CascadeScorer(bi, TinyCross(), k=0, floor=1.0)  # type: ignore[arg-type]
