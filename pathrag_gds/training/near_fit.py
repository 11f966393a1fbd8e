"""Fit the chain model's near-topic weights (`search/near.py`) on generated questions it was not trained on.

`tune` calls :func:`fit_near` after exporting the dual encoder: for each held-out question, every
chain of the schema from its topic's label is scored as the search scores it (the whole question
against the chain text) and its first hop gets its window features; one weight per window class
is fitted so that the gold chain comes first. Six numbers, written to the manifest's `chain.near`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from pathrag_gds.ontology import Ontology
from pathrag_gds.search.near import WINDOW_CLASSES, fit_weights
from pathrag_gds.search.planner import TypedChain, chain_text, first_hop_texts, schema_chains

#: Chains scored per topic label when fitting (the schema's first ones, the empty chain first).
POOL_LIMIT = 4096


def near_groups(
    scorer: Any,
    ontology: Ontology,
    questions: Sequence[tuple[str, TypedChain]],
    max_depth: int,
    progress: Callable[[int, int], None] | None = None,
) -> list[tuple[np.ndarray, np.ndarray, list[int]]]:
    """Per (masked question, gold chain): chain scores, first-hop window features, gold indices."""
    # per topic label: the schema's chains, their texts, their first hops' texts (as the search)
    pools: dict[str, tuple[list[TypedChain], list[str], list[str], list[list[int]]]] = {}
    groups = []
    for n, (masked, gold) in enumerate(questions, 1):
        label = gold.labels[0]
        if label not in pools:
            schema = schema_chains(ontology, label, max_depth, POOL_LIMIT)
            chains = list({c.steps: c for c in schema}.values())
            texts = [chain_text(ontology, c) for c in chains]
            pools[label] = (chains, texts, *first_hop_texts(ontology, chains))
        chains, texts, distinct, firsts = pools[label]
        features = scorer.near_features(masked)
        if features is None or not distinct:
            continue
        read = features(distinct)
        per_chain = np.stack([read[idx].mean(axis=0) for idx in firsts])
        base = np.asarray(scorer.scorer_for(masked)(texts), dtype=np.float64)
        golds = [i for i, c in enumerate(chains) if c.steps == gold.steps]
        groups.append((base, per_chain.astype(np.float64), golds))
        if progress is not None:
            progress(n, len(questions))
    return groups


def top1(groups: Sequence[tuple[np.ndarray, np.ndarray, list[int]]], weights: Sequence[float]) -> float:
    """Share of questions whose gold chain scores first with these weights (zeros: the model alone)."""
    w = np.asarray(weights, dtype=np.float64)
    hits = [int(np.argmax(b + f @ w)) in g for b, f, g in groups if g]
    return round(sum(hits) / len(hits), 4) if hits else 0.0


def fit_near(
    scorer: Any,
    ontology: Ontology,
    questions: Sequence[tuple[str, TypedChain]],
    max_depth: int,
    progress: Callable[[int, int], None] | None = None,
) -> dict[str, Any]:
    """The manifest's `chain.near` entry: the fitted weights and what they did on the fit questions."""
    groups = near_groups(scorer, ontology, questions, max_depth, progress)
    weights = fit_weights(groups, temperature=scorer.temperature)
    return {
        "weights": weights,
        "classes": list(WINDOW_CLASSES),
        "max_words": scorer.near_words,
        "questions": len(groups),
        "top1_without": top1(groups, [0.0] * len(WINDOW_CLASSES)),
        "top1_with": top1(groups, weights),
        "data": "the generated questions held out from training the dual encoder",
    }
