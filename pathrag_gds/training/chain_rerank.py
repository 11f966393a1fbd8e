"""Train a community's chain reranker: a cross-encoder over (question, chain text) (needs torch).

The dual encoder plans from one cosine between two pooled vectors; word order and which relation
modifies which are blurred ("the director of the films X wrote" against "the films directed by the
writer of X"). The reranker reads the question and a chain text together and re-orders the dual
encoder's best few chains. Its training rows are the dual encoder's own plans for the generated
questions (the chains it ranks highest: the mistakes it makes), each labelled by whether it is the
asked chain; no benchmark question is read. Exported as an int8 ONNX cross-encoder to
`models/tuned-<community>/chain/reranker/`, which the chain model picks up
(`chain_model.ChainScorer.reranker_for`).

Example:
    >>> RerankerOptions().candidates
    8
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Protocol

from pathrag_gds.ontology import Ontology
from pathrag_gds.search.planner import ChainScoreFn, TypedChain, chain_text, plan_chains
from pathrag_gds.training.pairs import TrainingPair


class DualEncoder(Protocol):
    """What mining needs of the trained dual encoder (`chain_model.ChainScorer`)."""

    temperature: float

    def scorer_for(self, masked_question: str) -> ChainScoreFn:
        """A chain score function for one masked question."""
        ...


@dataclass
class RerankerOptions:
    """What `tune --reranker-minutes M` asks of the reranker (defaults sized for 2 cores)."""

    minutes: float = 8.0
    #: training questions read (at most; each gives `candidates` pairs)
    questions: int = 2000
    #: chains of the dual encoder's plan per question (what the query-time reranker reads)
    candidates: int = 8
    beam: int = 16
    batch_size: int = 32
    max_length: int = 64
    freeze_layers: int = 2
    threads: int = 2
    seed: int = 0


def planned_texts(
    dual: DualEncoder, ontology: Ontology, masked: str, label: str, *, max_depth: int, beam: int, k: int
) -> list[str]:
    """The `k` chain texts the dual encoder plans first for a question, most probable first.

    Example:
        >>> from pathrag_gds.ontology import Ontology
        >>> onto = Ontology.from_mapping({"relationship_types": [
        ...     {"type": "owns", "phrase": "owns", "inverse_phrase": "is owned by",
        ...      "source": ["Person"], "target": ["Animal"]}]})
        >>> class Dual:
        ...     temperature = 0.1
        ...     def scorer_for(self, masked): return lambda ts: [1.0 if "owned" in t else 0.0 for t in ts]
        >>> planned_texts(Dual(), onto, "Who owns X?", "Animal", max_depth=1, beam=4, k=2)
        ['Animal is owned by Person', 'Animal itself']
    """
    plan = plan_chains(
        dual.scorer_for(masked),
        ontology,
        label,
        max_depth=max_depth,
        beam=beam,
        keep=k,
        temperature=dual.temperature,
    )
    ranked = sorted(plan.probs.items(), key=lambda kv: (-kv[1], len(kv[0])))
    return list(dict.fromkeys(plan.texts[c] for c, _ in ranked))


def reranker_pairs(
    dual: DualEncoder,
    ontology: Ontology,
    asked: Sequence[tuple[str, TypedChain]],
    options: RerankerOptions,
    *,
    max_depth: int,
    progress: Callable[[int, int], None] | None = None,
) -> list[TrainingPair]:
    """One group per (masked question, asked chain): the dual encoder's plan, the asked chain added.

    Label 1 for the asked chain's text, 0 for the others. A question whose plan holds nothing but the
    asked chain teaches nothing and is left out.
    """
    pairs: list[TrainingPair] = []
    for i, (masked, positive) in enumerate(asked):
        pos = chain_text(ontology, positive)
        texts = planned_texts(
            dual,
            ontology,
            masked,
            positive.labels[0],
            max_depth=max_depth,
            beam=options.beam,
            k=options.candidates,
        )
        if pos not in texts:
            texts = [*texts[: options.candidates - 1], pos]
        if len(texts) < 2:
            continue
        pairs.extend(
            TrainingPair(i, masked, t, 1.0 if t == pos else 0.0, "asked" if t == pos else "planned")
            for t in texts
        )
        if progress is not None and (i + 1) % 100 == 0:
            progress(i + 1, len(asked))
    return pairs


def holdout_top1(
    dual: DualEncoder,
    rerank: Callable[[str], ChainScoreFn | None],
    ontology: Ontology,
    asked: Sequence[tuple[str, TypedChain]],
    *,
    max_depth: int,
    beam: int,
    k: int,
    weight: float = 1.0,
) -> dict[str, float | int]:
    """Top-1 chain of held-out generated questions, the dual encoder alone and reranked."""
    dual_hits = reranked_hits = 0
    for masked, positive in asked:
        pos = chain_text(ontology, positive)
        common: dict[str, Any] = {"max_depth": max_depth, "beam": beam, "keep": k}
        plan = plan_chains(
            dual.scorer_for(masked), ontology, positive.labels[0], temperature=dual.temperature, **common
        )
        dual_hits += int(plan.texts[plan.best] == pos)
        again = plan_chains(
            dual.scorer_for(masked),
            ontology,
            positive.labels[0],
            temperature=dual.temperature,
            rerank=rerank(masked),
            rerank_k=k,
            rerank_weight=weight,
            **common,
        )
        reranked_hits += int(again.texts[again.best] == pos)
    n = max(1, len(asked))
    return {"questions": len(asked), "dual_top1": dual_hits / n, "reranked_top1": reranked_hits / n}


def train_reranker(
    pairs: Sequence[TrainingPair],
    out_root: Path,
    options: RerankerOptions,
    progress: Callable[[int, int, float], None] | None = None,
) -> dict[str, Any]:
    """Fine-tune all-MiniLM-L6-v2 as a cross-encoder on `pairs`; export it to `out_root/reranker/`.

    Returns what the chain manifest records of it (steps, time, held-out pair ranking).
    """
    import tempfile

    from pathrag_gds.chain_model import RERANKER_FOLDER
    from pathrag_gds.export import export_cross_encoder
    from pathrag_gds.training.train import TrainConfig, train_cross_encoder

    config = TrainConfig(
        seed=options.seed,
        epochs=1.0,
        minutes=options.minutes,
        batch_size=options.batch_size,
        max_length=options.max_length,
        holdout=0.05,
        threads=options.threads,
        freeze_layers=options.freeze_layers,
    )
    with tempfile.TemporaryDirectory(prefix="pathrag-chain-reranker-") as tmp:
        result = train_cross_encoder(pairs, Path(tmp) / "ce", config, progress)
        export_cross_encoder(result.model_dir, out_root, name=RERANKER_FOLDER, progress=False)
    return {
        "steps": result.steps,
        "planned_steps": result.planned_steps,
        "stopped_by_clock": result.stopped_by_clock,
        "seconds": round(result.seconds, 1),
        "pairs": result.train_pairs,
        "holdout_pairs": result.holdout_pairs,
        "holdout_pair_accuracy": result.holdout_accuracy,
        "holdout_group_top1": result.holdout_top1,
        "options": asdict(options),
    }
