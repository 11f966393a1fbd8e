"""How well a chain model plans: where each question's gold chain ranks among the schema's chains.

`python -m pathrag_gds eval plans --questions FILE ... --community ID` reads questions with gold
chains (MetaQA qtypes, a `<name>_chains.txt` file with directions, or a story suite's YAML whose
notes open with the intended path: :func:`suite_questions`), masks each topic as `X`,
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
    >>> planner_share({"a": 1, "b": 3, "c": None}, {"a": False, "b": False, "c": True})
    {'misses': 2, 'plan_wrong': 1, 'share': 0.5}
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from pathrag_gds.config import Settings
from pathrag_gds.datasets.bob_suite import intended_path, load_suite
from pathrag_gds.datasets.metaqa_questions import ChainStep, MetaQAQuestion, qtype_chain
from pathrag_gds.errors import InvalidInput
from pathrag_gds.intent import infer_intent, mask_mentions
from pathrag_gds.search.planner import score_chains
from pathrag_gds.search.schema import Chain, TypedChain, chain_text, schema_chains
from pathrag_gds.search.topics import named_links, question_terms

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


def walk_steps(start: str, edges: Sequence[tuple[str, str, str]]) -> tuple[ChainStep, ...]:
    """The chain an intended path walks from `start`: each edge out along its arrow or in against it.

    Example:
        >>> walk_steps("bob", [("bob", "owned_by", "martha"), ("jane", "child_of", "martha")])
        (('owned_by', 'out'), ('child_of', 'in'))
    """
    steps: list[ChainStep] = []
    here = start
    for source, rel, target in edges:
        if source == here:
            steps.append((rel, "out"))
            here = target
        else:
            steps.append((rel, "in"))
            here = source
    return tuple(steps)


def suite_questions(path: Path, set_name: str | None = None) -> tuple[str | None, list[MetaQAQuestion]]:
    """A story suite's questions with gold chains: (its community, the questions).

    Each question's topic is the first entity id of the intended path its `note` opens with, its
    gold chain the steps of that path (:func:`walk_steps`); `index` is its place in the file and
    `raw` its suite id. Questions whose note holds no path are left out. `set_name`: one set only.

    Raises:
        InvalidInput: the file is not a suite, or has no set of that name.
    """
    suite = load_suite(path)
    if set_name is not None and set_name not in suite.sets:
        raise InvalidInput(f"{path} has no question set {set_name!r}; it has {sorted(suite.sets)}")
    out: list[MetaQAQuestion] = []
    for name, queries in suite.sets.items():
        if set_name is not None and name != set_name:
            continue
        for q in queries:
            try:
                start, edges = intended_path(q.note)
            except InvalidInput:
                continue
            if not edges:
                continue
            steps = walk_steps(start, edges)
            out.append(MetaQAQuestion(len(steps), len(out), q.id, q.query, start, q.answer, chain=steps))
    return suite.community_id, out


def planner_share(ranks: Mapping[str, int | None], hits: Mapping[str, bool]) -> dict[str, Any]:
    """Of the questions the search missed at #1 (`hits`: id -> hit), how many the plan ranked wrong.

    `ranks`: id -> the gold chain's plan rank (None: not found). The planner's share of the misses
    is those whose gold chain was not the plan's first.
    """
    misses = [k for k, hit in hits.items() if not hit and k in ranks]
    wrong = sum(ranks[k] != 1 for k in misses)
    share = round(wrong / len(misses), 4) if misses else 0.0
    return {"misses": len(misses), "plan_wrong": wrong, "share": share}


#: What a plan's first chain got wrong, in the order reported (see :func:`plan_error`).
ERROR_KINDS = ("past", "short", "direction", "relation", "too_deep")


def plan_error(top: Chain, gold: Sequence[ChainStep], max_depth: int) -> str:
    """What the plan's first chain `top` got wrong against `gold`, or `right`.

    `past`: it walks past the answer (more hops than gold); `short`: it stops short (fewer);
    `direction`: the gold relations, one or more walked the other way; `relation`: another
    relation at some hop, as long as gold; `too_deep`: gold is longer than the chains ranked (`max_depth`).

    Example:
        >>> gold = [("child_of", "out"), ("owns", "out")]
        >>> flipped = (("child_of", "in"), ("owns", "out"))
        >>> plan_error((("child_of", "out"),), gold, 3), plan_error(flipped, gold, 3)
        ('short', 'direction')
        >>> plan_error((("child_of", "out"), ("owns", "out")), gold, 3), plan_error((), gold, 1)
        ('right', 'too_deep')
    """
    if len(gold) > max_depth:
        return "too_deep"
    if matches(top, gold):
        return "right"
    if len(top) != len(gold):
        return "past" if len(top) > len(gold) else "short"
    return "direction" if [t for t, _ in top] == [g for g, _ in gold] else "relation"


def gold_rank(
    scores: Sequence[float],
    chains: Sequence[Chain],
    gold: Sequence[ChainStep],
    texts: Sequence[str] | None = None,
) -> int | None:
    """The 1-based rank of the best-scored chain that walks `gold` (ties: the earlier chain), or None.

    Chains of one text (`texts`: a symmetric relation walked either way reads "the person that is
    married to X" both ways) are one plan, as the planner holds them (:func:`~pathrag_gds.search.
    planner.plan_chains`): they rank once, where the best of them does, and walk `gold` when one does.

    Example:
        >>> out, in_ = (("married_to", "out"),), (("married_to", "in"),)
        >>> gold_rank([0.5, 0.5], [out, in_], [("married_to", "in")])
        2
        >>> gold_rank([0.5, 0.5], [out, in_], [("married_to", "in")], ["married to X", "married to X"])
        1
    """
    order = sorted(range(len(chains)), key=lambda i: (-scores[i], i))
    ranks: dict[object, int] = {}
    for i in order:
        key = texts[i] if texts is not None else i
        rank = ranks.setdefault(key, len(ranks) + 1)
        if matches(chains[i], gold):
            return rank
    return None


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


def best_typing(
    chains: Sequence[TypedChain], scores: Sequence[float], texts: Sequence[str]
) -> dict[Chain, tuple[float, str]]:
    """Each chain's best score over its typings and that typing's text, as the planner keeps it.

    A relation between `Person` or `Animal` reads "the person that ..." and "the animal that ...";
    the plan keeps the better of the two, so the rank is taken over chains, not typings.

    Example:
        >>> a, b = TypedChain((("r", "out"),), ("P", "P")), TypedChain((("r", "out"),), ("P", "A"))
        >>> best_typing([a, b], [0.2, 0.7], ["the person", "the animal"])
        {(('r', 'out'),): (0.7, 'the animal')}
    """
    best: dict[Chain, tuple[float, str]] = {}
    for chain, score, text in zip(chains, scores, texts, strict=True):
        if chain.steps not in best or score > best[chain.steps][0]:
            best[chain.steps] = (score, text)
    return best


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
    keys: dict[str, int | None] | None = None,
    errors: dict[str, int] | None = None,
    settings: Settings | None = None,
) -> list[tuple[int, int | None]]:
    """(hop, gold rank) of each question with a gold chain and a topic found in the graph.

    `keys`, when given, is filled with each ranked question's `raw` text (a suite's question id)
    -> its rank; `errors` with how many plans went wrong in each way (:func:`plan_error`). A
    topic the question does not name word for word (a story suite's `the harbour master`) is
    masked where the search masks it: the words the intent reads as naming it.
    `settings`: which chain scorer ranks (`chain_scorer`) and its terms (default: the service's).

    Raises:
        InvalidInput: the community has no chain model (and the settings' `chain_scorer` is
            `tuned`).
    """
    from pathrag_gds.base_chains import planning_scorer
    from pathrag_gds.search.context import QueryContext
    from pathrag_gds.seeding import seeds_by_id

    settings = settings or service.settings
    ontology = service.ontology_for(community, None)
    scorer = planning_scorer(settings, community, ontology)
    if scorer is None:
        raise InvalidInput(
            f"community {community!r} has no chain model: run `python -m pathrag_gds tune --community "
            f"{community}` first, or rank with the untrained encoder (`--scorer base`)"
        )
    scorer.check_ontology(ontology)
    # the topics' type labels, read as the search reads given seeds (its similarity needs a vector)
    ctx = QueryContext("eval plans", vector=[float(x) for x in service.embedder.encode_question("plans")])
    ids = {q.topic: topic_id(community, q.topic) for q in questions}
    topics = list(ids.values())
    for i in range(0, len(topics), 500):
        seeds_by_id(service.graph, service.settings, ctx, topics[i : i + 500], community)
    pools: dict[tuple[str, ...], tuple[list[TypedChain], list[str]]] = {}
    out: list[tuple[int, int | None]] = []
    for q in questions:
        gold = gold_steps(q)
        entity = ctx.entities.get(ids[q.topic])
        if gold is None or entity is None:
            continue
        labels = entity.labels
        if labels not in pools:
            # every typing of a chain (a relation between Person or Animal reads "the person that ..."
            # and "the animal that ..."): the planner keeps the better score of a chain found twice
            typed = [c for label in labels or ("Entity",) for c in schema_chains(ontology, label, max_depth)]
            distinct = list({(c.steps, c.labels): c for c in typed}.values())
            pools[labels] = (distinct, [chain_text(ontology, c) for c in distinct])
        typed_chains, texts = pools[labels]
        # scored as the search's planner scores them (planner.score_chains)
        intent = infer_intent(q.question, ontology, service.embedder, [entity])
        said = q.topic if q.topic in q.question else intent.named_as.get(entity.id) or entity.name
        masked = mask_mentions(q.question, [said])
        # the chains the planner leaves out: X itself where another type is asked, and those
        # shorter than a possessive chain's links (where any chain is that long)
        fewest = named_links(intent, masked)
        if not (0 < fewest <= max_depth and any(len(c.steps) >= fewest for c in typed_chains)):
            fewest = 0
        fewest = max(fewest, int(intent.asks_for_another_type(labels)))
        if fewest:
            kept = [i for i, c in enumerate(typed_chains) if len(c.steps) >= fewest]
            typed_chains, texts = [typed_chains[i] for i in kept], [texts[i] for i in kept]
        links = intent.link_types.get(entity.id, ())
        terms = question_terms(scorer, masked, intent.type_scores, settings, ontology, links)
        scores = score_chains(ontology, typed_chains, texts, scorer.scorer_for(masked), *terms)
        best = best_typing(typed_chains, scores, texts)
        rank = gold_rank([x for x, _ in best.values()], list(best), gold, [t for _, t in best.values()])
        out.append((q.hop, rank))
        if errors is not None and rank != 1:
            top = max(best, key=lambda c: best[c][0])  # the first of the best, as gold_rank orders
            kind = plan_error(top, gold, max_depth)
            errors[kind] = errors.get(kind, 0) + 1
        if keys is not None:
            keys[q.raw] = rank
        if progress is not None:
            progress()
    return out
