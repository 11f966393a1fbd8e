"""Fit the chain model's question terms on generated questions it was not trained on.

`tune` calls :func:`fit_near` after exporting the dual encoder: for each held-out question, every
chain of the schema from its topic's label is scored as the search scores it (the whole question
against the chain text); its first hop gets its window features (`search/near.py`) and its end
label the score the question's intent gives that type (`intent.Intent.type_scores`); and 1 when
it starts with the chain a relational noun of the question names, and 1 when it is that chain
(`search/nouns.py`); its last hop the window features around the question word. One weight per
window class, one for the answer type, two for the noun and one per answer-end class are fitted
together so that the gold chain comes first: six numbers for the manifest's `chain.near`, one for
`chain.answer_type`, two for `chain.noun`, three for `chain.far`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from pathrag_gds.ontology import Ontology
from pathrag_gds.search.near import ANSWER_CLASSES, WINDOW_CLASSES, fit_weights
from pathrag_gds.search.nouns import named_chains, noun_term
from pathrag_gds.search.planner import first_hop_texts, hop_texts, last_hops
from pathrag_gds.search.schema import TypedChain, chain_text, pooled_chains, schema_chains

#: The distinct texts of some hops, and per chain the indices of its own (`planner.hop_texts`).
HopTexts = tuple[list[str], list[list[int]]]
#: Chains scored per topic label when fitting (the schema's first ones, the empty chain first).
POOL_LIMIT = 4096


def near_groups(
    scorer: Any,
    ontology: Ontology,
    questions: Sequence[tuple[str, TypedChain, Mapping[str, float]]],
    max_depth: int,
    progress: Callable[[int, int], None] | None = None,
) -> list[tuple[np.ndarray, np.ndarray, list[int]]]:
    """Per (masked question, gold chain, intent type scores): chain scores, features, gold indices.

    The features of a chain are its first hop's window features, then the type score of its end,
    then whether it starts with a chain a relational noun of the question names, and whether it is
    that chain, then its last hop's window features around the question word (0 where the
    question has no wh-word: the search adds no such term then).
    """
    # per topic label: the schema's chains, their texts, their first and last hops' texts
    pools: dict[str, tuple[list[TypedChain], list[str], HopTexts, HopTexts]] = {}
    groups = []
    for n, (masked, gold, types) in enumerate(questions, 1):
        label = gold.labels[0]
        if label not in pools:
            # the chains the search would rank: the model's chain pool when it has one
            pool = getattr(scorer, "pool", None)
            schema = (
                schema_chains(ontology, label, max_depth, POOL_LIMIT)
                if pool is None
                else pooled_chains(ontology, label, pool, scorer.plan_depth)
            )
            chains = list({c.steps: c for c in schema}.values())
            texts = [chain_text(ontology, c) for c in chains]
            pools[label] = (
                chains,
                texts,
                first_hop_texts(ontology, chains),
                hop_texts(ontology, chains, last_hops),
            )
        chains, texts, firsts, lasts = pools[label]
        features = scorer.near_features(masked)
        if features is None or not firsts[0]:
            continue
        per_chain = _hop_means(features, firsts)
        ends = np.asarray([[types.get(c.labels[-1], 0.0)] for c in chains])
        named = named_chains(masked, ontology)
        starts = noun_term(chains, {c: (1.0, 0.0) for c in named})
        exact = noun_term(chains, {c: (0.0, 1.0) for c in named})
        far_features = scorer.far_features(masked)
        far = (
            np.zeros((len(chains), len(ANSWER_CLASSES)))
            if far_features is None
            else _hop_means(far_features, lasts)
        )
        per_chain = np.concatenate([per_chain, ends, np.column_stack([starts, exact]), far], axis=1)
        base = np.asarray(scorer.scorer_for(masked)(texts), dtype=np.float64)
        golds = [i for i, c in enumerate(chains) if c.steps == gold.steps]
        groups.append((base, per_chain.astype(np.float64), golds))
        if progress is not None:
            progress(n, len(questions))
    return groups


def _hop_means(features: Callable[[Sequence[str]], np.ndarray], hops: HopTexts) -> np.ndarray:
    """Per chain, the mean features of its hops' texts (`planner.hop_texts`), as the search adds them."""
    distinct, per_chain = hops
    read = features(distinct)
    return np.stack([read[idx].mean(axis=0) for idx in per_chain])


def top1(groups: Sequence[tuple[np.ndarray, np.ndarray, list[int]]], weights: Sequence[float]) -> float:
    """Share of questions whose gold chain scores first with these weights (zeros: the model alone).

    Example:
        >>> g = (np.array([0.5, 0.4]), np.array([[0.0], [0.2]]), [1])
        >>> top1([g], [0.0]), top1([g], [1.0])
        (0.0, 1.0)
    """
    w = np.asarray(weights, dtype=np.float64)
    hits = [int(np.argmax(b + f @ w)) in g for b, f, g in groups if g]
    return round(sum(hits) / len(hits), 4) if hits else 0.0


def fit_near(
    scorer: Any,
    ontology: Ontology,
    questions: Sequence[tuple[str, TypedChain, Mapping[str, float]]],
    max_depth: int,
    progress: Callable[[int, int], None] | None = None,
) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any], dict[str, Any]]:
    """The manifest's `chain.near`, `chain.answer_type`, `chain.noun` and `chain.far`, fitted together.

    `near` holds the window weights and what the terms did on the fit questions (top-1 of the
    gold chain with no term, with the window term alone, with all); `answer_type` and `noun` their
    weights (`noun` also how many fit questions name a chain with a relational noun).
    """
    return fit_groups(near_groups(scorer, ontology, questions, max_depth, progress), scorer)


def fit_groups(
    groups: Sequence[tuple[np.ndarray, np.ndarray, list[int]]], scorer: Any
) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any], dict[str, Any]]:
    """:func:`fit_near` on groups already read (:func:`near_groups`), perhaps of several ontologies.

    The chain reader's terms are fitted on the held-out questions of every graph it learned from:
    the groups of each, read against its own ontology, fitted as one.
    """
    groups = list(groups)
    k, a = len(WINDOW_CLASSES), len(ANSWER_CLASSES)
    weights = fit_weights(groups, temperature=scorer.temperature)
    if len(weights) != k + 3 + a:
        weights = [0.0] * (k + 3 + a)
    alone = fit_weights([(b, f[:, :k], g) for b, f, g in groups], temperature=scorer.temperature)
    no_far = [*weights[: k + 3], *([0.0] * a)]
    near = {
        "weights": weights[:k],
        "classes": list(WINDOW_CLASSES),
        "max_words": scorer.near_words,
        "questions": len(groups),
        "top1_without": top1(groups, [0.0] * (k + 3 + a)),
        "top1_near": top1(groups, [*alone, *([0.0] * (3 + a))]) if len(alone) == k else None,
        "top1_with": top1(groups, weights),
        "data": "the generated questions held out from training the dual encoder",
    }
    answer_type = {
        "weight": weights[k],
        "feature": "the intent's score of the chain's end label (intent.Intent.type_scores)",
    }
    noun = {
        "weight": weights[k + 1],
        "exact_weight": weights[k + 2],
        "feature": "1 when the chain starts with a chain a relational noun of the question names "
        "(weight); 1 more when it is that chain (exact_weight)",
        "questions": sum(1 for _, f, _ in groups if f[:, k + 1].any()),
    }
    far = {
        "weights": weights[k + 3 :],
        "classes": list(ANSWER_CLASSES),
        "feature": "a chain's last hop against the runs of words holding the question's first wh-word",
        "top1_without_far": top1(groups, no_far),
    }
    return near, answer_type, noun, far


def fit_terms(
    chain: dict[str, Any],
    scorer: Any,
    ontology: Ontology,
    questions: Sequence[tuple[str, TypedChain, Mapping[str, float]]],
    max_depth: int,
    progress: Callable[[int, int], None] | None = None,
) -> None:
    """:func:`fit_near`, written into a manifest's `chain` entry (`near.models` for an ensemble)."""
    near, answer_type, noun, far = fit_near(scorer, ontology, questions, max_depth, progress)
    if scorer.members:
        near["models"] = 1 + len(scorer.members)
    chain.update(near=near, answer_type=answer_type, noun=noun, far=far)
