"""How well a chain model plans: where each question's gold chain ranks among the schema's chains.

`python -m pathrag_gds eval plans --questions FILE ... --community ID` reads questions with gold
chains (MetaQA qtypes, or a `<name>_chains.txt` file with directions), masks each topic as `X`,
scores every chain of the schema from the topic's type labels (up to `--max-depth` hops) with the
community's chain model, and reports per hop how often the gold chain comes first, among the best
5 and the best 10 (the search walks the best `chain_keep`), and its mean reciprocal rank. One
question encoding each and no walk: hundreds of questions in seconds, where `eval metaqa` walks the
graph for minutes. The questions are read to measure only; nothing is trained on them.

Example:
    >>> chains = [(("r", "out"),), (("s", "in"),), (("r", "in"),)]
    >>> gold_rank([0.2, 0.9, 0.5], chains, (("r", "both"),))
    2
    >>> summarize_ranks([(1, 1), (1, 3), (1, None)])["1"]["at_1"]
    0.3333
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from pathrag_gds.datasets.metaqa_questions import ChainStep, MetaQAQuestion, qtype_chain
from pathrag_gds.errors import InvalidInput
from pathrag_gds.intent import infer_intent, mask_mentions
from pathrag_gds.search.planner import score_chains
from pathrag_gds.search.schema import Chain, TypedChain, chain_text, schema_chains
from pathrag_gds.search.topics import question_terms

#: The cut-offs reported (the search walks the best `chain_keep`, 5 by default).
CUTOFFS = (1, 5, 10)


def matches(chain: Chain, gold: Sequence[ChainStep]) -> bool:
    """Whether `chain` walks the gold steps (a gold direction `both` takes either).

    Example:
        >>> matches((("r", "in"),), [("r", "both")]), matches((("r", "in"),), [("r", "out")])
        (True, False)
    """
    if len(chain) != len(gold):
        return False
    return all(t == g and d in ("both", gd) for (t, gd), (g, d) in zip(chain, gold, strict=True))


def gold_rank(scores: Sequence[float], chains: Sequence[Chain], gold: Sequence[ChainStep]) -> int | None:
    """The 1-based rank of the best-scored chain that walks `gold` (ties: the earlier chain), or None."""
    order = sorted(range(len(chains)), key=lambda i: (-scores[i], i))
    return next((r for r, i in enumerate(order, 1) if matches(chains[i], gold)), None)


def gold_steps(q: MetaQAQuestion) -> tuple[ChainStep, ...] | None:
    """The question's gold chain: its chain file's steps, else its qtype's types (either direction)."""
    if q.chain:
        return tuple(q.chain)
    if q.qtype:
        try:
            return tuple((t, "both") for t in qtype_chain(q.qtype))
        except ValueError:
            return None
    return None


def summarize_ranks(ranks: Iterable[tuple[int, int | None]]) -> dict[str, dict[str, Any]]:
    """Per hop (`"1"`, `"2"`, ...) and `"all"`: questions, share at each cut-off, MRR, gold not found."""
    groups: dict[str, list[int | None]] = defaultdict(list)
    for hop, rank in ranks:
        groups[str(hop)].append(rank)
        groups["all"].append(rank)
    out: dict[str, dict[str, Any]] = {}
    for name in sorted(groups, key=lambda g: (g == "all", g)):
        rs = groups[name]
        n = len(rs)
        row: dict[str, Any] = {"total": n}
        for k in CUTOFFS:
            row[f"at_{k}"] = round(sum(r is not None and r <= k for r in rs) / n, 4)
        row["mrr"] = round(sum(1.0 / r for r in rs if r is not None) / n, 4)
        row["not_found"] = sum(r is None for r in rs)
        out[name] = row
    return out


def plan_ranks(
    service: Any,
    questions: Sequence[MetaQAQuestion],
    community: str,
    *,
    max_depth: int,
    topic_id: Callable[[str, str], str],
    progress: Callable[[], None] | None = None,
) -> list[tuple[int, int | None]]:
    """(hop, gold rank) of each question with a gold chain and a topic found in the graph.

    Raises:
        InvalidInput: the community has no chain model.
    """
    from pathrag_gds.chain_model import get_chain_scorer
    from pathrag_gds.search.context import QueryContext
    from pathrag_gds.seeding import seeds_by_id

    scorer = get_chain_scorer(service.settings, community)
    if scorer is None:
        raise InvalidInput(
            f"community {community!r} has no chain model: run `python -m pathrag_gds tune --community "
            f"{community}` first"
        )
    ontology = service.ontology_for(community, None)
    scorer.check_ontology(ontology)
    # the topics' type labels, read as the search reads given seeds (its similarity needs a vector)
    ctx = QueryContext("eval plans", vector=[float(x) for x in service.embedder.encode_question("plans")])
    ids = {q.topic: topic_id(community, q.topic) for q in questions}
    topics = list(ids.values())
    for i in range(0, len(topics), 500):
        seeds_by_id(service.graph, service.settings, ctx, topics[i : i + 500], community)
    pools: dict[tuple[str, ...], tuple[list[TypedChain], list[str]]] = {}
    settings = service.settings
    out: list[tuple[int, int | None]] = []
    for q in questions:
        gold = gold_steps(q)
        entity = ctx.entities.get(ids[q.topic])
        if gold is None or entity is None:
            continue
        labels = entity.labels
        if labels not in pools:
            typed = [c for label in labels or ("Entity",) for c in schema_chains(ontology, label, max_depth)]
            distinct = list({c.steps: c for c in typed}.values())
            pools[labels] = (distinct, [chain_text(ontology, c) for c in distinct])
        typed_chains, texts = pools[labels]
        # scored as the search's planner scores them (planner.score_chains)
        masked = mask_mentions(q.question, [q.topic])
        intent = infer_intent(q.question, ontology, service.embedder, [entity])
        terms = question_terms(scorer, masked, intent.type_scores, settings, ontology)
        scores = score_chains(ontology, typed_chains, texts, scorer.scorer_for(masked), *terms)
        out.append((q.hop, gold_rank(scores, [c.steps for c in typed_chains], gold)))
        if progress is not None:
            progress()
    return out
