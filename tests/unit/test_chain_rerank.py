"""The chain reranker: how plans use it and what it is trained on (fake scorers, no database)."""

from __future__ import annotations

from pathlib import Path

import pytest

from pathrag_gds.search.planner import TypedChain, chain_text, plan_chains
from pathrag_gds.training.chain_rerank import RerankerOptions, planned_texts, reranker_pairs
from tests.unit.test_planner import MOVIES, keyword_scorer

STARRED_THEN_DIRECTED = "Person starred in Movie ; Movie was directed by Person"
DIRECTED_THEN_STARRED = "Person directed Movie ; Movie starred Person"


def prefer(text: str, logit: float = 5.0):  # type: ignore[no-untyped-def]
    """A fake reranker: `logit` for one chain text, 0 for the rest."""
    return lambda texts: [logit if t == text else 0.0 for t in texts]


def test_the_reranker_decides_among_the_dual_encoders_best_chains() -> None:
    dual = keyword_scorer("Person starred in Movie", "Movie was directed by Person")
    alone = plan_chains(dual, MOVIES, "Person", max_depth=2, keep=3, temperature=0.1)
    assert alone.texts[alone.best] == STARRED_THEN_DIRECTED
    assert DIRECTED_THEN_STARRED not in alone.texts.values()
    # the second best of the dual encoder, lifted by the reranker
    second = sorted(alone.probs.items(), key=lambda kv: -kv[1])[1][0]
    again = plan_chains(
        dual,
        MOVIES,
        "Person",
        max_depth=2,
        keep=3,
        temperature=0.1,
        rerank=prefer(alone.texts[second], 100.0),
        rerank_k=4,
    )
    assert again.best == second
    assert sum(again.probs.values()) == pytest.approx(1.0, abs=1e-6)


def test_only_the_first_k_chains_are_reranked_and_the_dual_encoder_still_counts() -> None:
    dual = keyword_scorer("Person starred in Movie", "Movie was directed by Person")
    read: list[list[str]] = []

    def spy(texts):  # type: ignore[no-untyped-def]
        read.append(list(texts))
        return [0.0] * len(texts)

    plan = plan_chains(dual, MOVIES, "Person", max_depth=2, keep=5, temperature=0.1, rerank=spy, rerank_k=2)
    assert len(read) == 1 and len(read[0]) == 2  # one call, the two best texts
    assert set(plan.texts.values()) == set(read[0])  # the others leave the plan
    assert plan.texts[plan.best] == STARRED_THEN_DIRECTED  # a flat reranker keeps the dual order
    # weight 0: the reranker alone orders them; a small reranker margin then wins
    flipped = plan_chains(
        dual,
        MOVIES,
        "Person",
        max_depth=2,
        keep=5,
        temperature=0.1,
        rerank=prefer(read[0][1], 0.5),
        rerank_k=2,
        rerank_weight=0.0,
    )
    assert flipped.texts[flipped.best] == read[0][1]


class Dual:
    """A fake dual encoder that plans one fixed chain first."""

    temperature = 0.1

    def __init__(self, *wanted: str) -> None:
        self.wanted = wanted

    def scorer_for(self, masked_question: str):  # type: ignore[no-untyped-def]
        return keyword_scorer(*self.wanted)


def test_reranker_rows_are_the_dual_encoders_plans_labelled_by_the_asked_chain() -> None:
    asked = TypedChain((("directed_by", "in"), ("starred_actors", "out")), ("Person", "Movie", "Person"))
    dual = Dual("Person starred in Movie", "Movie was directed by Person")  # plans the wrong chain first
    opts = RerankerOptions(candidates=4)
    pairs = reranker_pairs(dual, MOVIES, [("who acted in the films X directed", asked)], opts, max_depth=2)
    texts = [p.text for p in pairs]
    assert len(texts) == 4 == len(set(texts))
    assert texts[0] == STARRED_THEN_DIRECTED  # the dual encoder's mistake is a negative
    assert [p.text for p in pairs if p.label == 1.0] == [chain_text(MOVIES, asked)]  # added: not planned
    assert {p.group for p in pairs} == {0}
    assert all(p.question == "who acted in the films X directed" for p in pairs)
    planned = planned_texts(dual, MOVIES, "q", "Person", max_depth=2, beam=16, k=4)
    assert texts[:3] == planned[:3]


def test_a_broken_reranker_folder_is_named_in_the_error(tmp_path: Path) -> None:
    from pathrag_gds.chain_model import CHAIN_VECTORS, RERANKER_FOLDER, ChainScorer, chain_model_dir
    from pathrag_gds.config import Settings
    from pathrag_gds.errors import ModelError

    shipped = chain_model_dir(Settings(), "people")
    folder = tmp_path / "chain"
    folder.mkdir()
    for f in shipped.rglob("*"):
        skip = f.name in (CHAIN_VECTORS, "model_fp32.onnx") or RERANKER_FOLDER in f.parts
        if f.is_file() and not skip:
            target = folder / f.relative_to(shipped)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.symlink_to(f)
    assert ChainScorer(folder).reranker_for("who is X") is None  # no reranker: the dual encoder alone
    broken = folder / RERANKER_FOLDER
    broken.mkdir()
    (broken / "manifest.json").write_text('{"kind": "embedding"}', encoding="utf-8")
    with pytest.raises(ModelError, match=str(broken)):
        ChainScorer(folder)


def test_adding_a_reranker_needs_a_chain_model_first(tmp_path: Path) -> None:
    from pathrag_gds.errors import InvalidInput
    from pathrag_gds.training.chain_tune import ChainTuneOptions, add_reranker

    with pytest.raises(InvalidInput, match="tune --community nowhere"):
        add_reranker(ChainTuneOptions(community="nowhere", reranker_minutes=1, out=tmp_path))
