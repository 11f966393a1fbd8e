"""Chain planning: which relation chains (type + walk direction per hop) a question asks for.

The answer to a multi-hop question is the set of entities at the end of a relation chain from the
entity it names. The planner works at the schema level, never on entity names: from the topic's
type label and the ontology's source/target labels it proposes the next steps of every kept chain
(a relationship type with its direction), scores each chain as a whole with a chain scorer
(question vs. the chain's text, e.g. ``the movie that was directed by the person that directed X``),
keeps the best `beam` per depth, and turns the scores of everything it saw into probabilities
(softmax at the scorer's temperature). The empty chain (``X itself``) competes too: a question
about the topic itself.

Pure: the scorer is any callable from chain texts to similarities; no database, no model here.

Example:
    >>> from pathrag_gds.ontology import Ontology
    >>> onto = Ontology.from_mapping({"relationship_types": [
    ...     {"type": "owns", "phrase": "owns", "inverse_phrase": "is owned by",
    ...      "source": ["Person"], "target": ["Animal"]}]})
    >>> plan = plan_chains(lambda texts: [1.0 if t.endswith("owns X") else 0.0 for t in texts], onto,
    ...                    "Animal", max_depth=2, temperature=0.1)
    >>> plan.best
    (('owns', 'in'),)
    >>> sorted(plan.allowed(()))
    [('owns', 'in')]
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from pathrag_gds.ontology import Ontology
from pathrag_gds.search.nouns import NounWeights, noun_term
from pathrag_gds.search.schema import ANY_LABEL, Chain, Step, TypedChain, chain_text, next_chains

#: A chain scorer: similarity of the question to each chain text (higher is better).
ChainScoreFn = Callable[[Sequence[str]], Sequence[float]]
#: A term read off the typed chains themselves (their steps and type labels), added to their scores.
ChainTermFn = Callable[[Sequence[TypedChain]], Sequence[float]]


def first_hops(ontology: Ontology, chain: TypedChain) -> list[TypedChain]:
    """The chain's first hop as a chain of its own; the empty chain's: every hop it could take.

    Example:
        >>> from pathrag_gds.ontology import RelationType
        >>> onto = Ontology("o", relation_types=(RelationType("owns", "owns", "is owned by"),))
        >>> chain = TypedChain((("owns", "in"), ("owns", "out")), ("A", "B", "A"))
        >>> [c.steps for c in first_hops(onto, chain)]
        [(('owns', 'in'),)]
    """
    if chain.steps:
        return [TypedChain(chain.steps[:1], chain.labels[:2])]
    return next_chains(ontology, chain)


def last_hops(ontology: Ontology, chain: TypedChain) -> list[TypedChain]:
    """The chain's last hop as a chain of its own; the empty chain's: every hop it could take.

    The hop is read from the node before it, as the question's answer stands to that node.

    Example:
        >>> from pathrag_gds.ontology import RelationType
        >>> onto = Ontology("o", relation_types=(RelationType("owns", "owns", "is owned by"),))
        >>> chain = TypedChain((("owns", "in"), ("owns", "out")), ("A", "B", "A"))
        >>> [(c.steps, c.labels) for c in last_hops(onto, chain)]
        [((('owns', 'out'),), ('B', 'A'))]
    """
    if chain.steps:
        return [TypedChain(chain.steps[-1:], chain.labels[-2:])]
    return next_chains(ontology, chain)


def hop_texts(
    ontology: Ontology,
    chains: Sequence[TypedChain],
    hops: Callable[[Ontology, TypedChain], list[TypedChain]],
) -> tuple[list[str], list[list[int]]]:
    """The distinct texts of the chains' `hops`, and for each chain the indices of its own.

    `hops` is :func:`first_hops` or :func:`last_hops`.
    """
    index: dict[str, int] = {}
    per_chain = []
    for c in chains:
        texts = [chain_text(ontology, f) for f in hops(ontology, c)]
        per_chain.append([index.setdefault(t, len(index)) for t in texts])
    return list(index), per_chain


def first_hop_texts(ontology: Ontology, chains: Sequence[TypedChain]) -> tuple[list[str], list[list[int]]]:
    """The distinct texts of the chains' first hops, and for each chain the indices of its own.

    Example:
        >>> from pathrag_gds.ontology import RelationType
        >>> onto = Ontology("o", relation_types=(RelationType("owns", "owns", "is owned by"),))
        >>> one = TypedChain((("owns", "in"),), ("A", "B"))
        >>> first_hop_texts(onto, [one, TypedChain((("owns", "in"), ("owns", "out")), ("A", "B", "A"))])
        (['the b that owns X'], [[0], [0]])
    """
    return hop_texts(ontology, chains, first_hops)


def score_chains(
    ontology: Ontology,
    chains: Sequence[TypedChain],
    texts: Sequence[str],
    score: ChainScoreFn,
    near: ChainScoreFn | None = None,
    near_weight: float = 0.0,
    answer_types: Mapping[str, float] | None = None,
    nouns: Mapping[Chain, NounWeights] | None = None,
    far: ChainScoreFn | None = None,
    typed: ChainTermFn | None = None,
) -> list[float]:
    """Each chain's score: the question against its text, its first hop, the answer type asked.

    `score` reads the whole question against each chain text; `near` reads texts against the
    words around the topic (:mod:`pathrag_gds.search.near`), and each chain's first hop
    (:func:`first_hops`) is read there, times `near_weight`. The empty chain has no first hop: it
    takes the mean over the hops it could take. `answer_types` (end label -> weighted score of
    that type being the one asked, from the question's intent) adds the score of the chain's last
    label: "in what country was X born" asks for the chain that ends at a country. `nouns` (chain
    -> weights, :func:`~pathrag_gds.search.nouns.noun_prefixes`) adds the terms of the chain a
    relational noun of the question names ("X's grandchildren") to the chains that start with it.
    `far` reads each chain's last hop (:func:`last_hops`) against the words around the question
    word (weighted already, :func:`pathrag_gds.search.near.answer_windows`). `typed` adds a term
    read off the chains' types (weighted already, :func:`pathrag_gds.search.links.link_term`).

    Example:
        >>> from pathrag_gds.ontology import RelationType
        >>> rels = (RelationType("a", "a", "a of"), RelationType("b", "b", "b of"))
        >>> onto = Ontology("o", relation_types=rels)
        >>> ab = TypedChain((("a", "out"), ("b", "out")), ("E", "E", "E"))
        >>> ba = TypedChain((("b", "out"), ("a", "out")), ("E", "E", "E"))
        >>> near = lambda texts: [0.1 if "a of X" in t else 0.0 for t in texts]
        >>> score_chains(onto, [ab, ba], ["ab", "ba"], lambda ts: [0.5, 0.5], near, 1.0)
        [0.6, 0.5]
        >>> to_c = TypedChain((("a", "out"),), ("E", "C"))
        >>> score_chains(onto, [ab, to_c], ["ab", "a"], lambda ts: [0.5, 0.5], answer_types={"C": 0.25})
        [0.5, 0.75]
    """
    sims = [float(x) for x in score(texts)]
    if answer_types:
        sims = [sim + answer_types.get(c.labels[-1], 0.0) for sim, c in zip(sims, chains, strict=True)]
    if nouns:
        sims = [sim + t for sim, t in zip(sims, noun_term(chains, nouns), strict=True)]
    if typed is not None and chains:
        sims = [sim + float(t) for sim, t in zip(sims, typed(chains), strict=True)]
    if far is not None and chains:
        sims = _add_hops(sims, ontology, chains, far, 1.0, last_hops)
    if near is None or near_weight <= 0.0 or not chains:
        return sims
    return _add_hops(sims, ontology, chains, near, near_weight, first_hops)


def _add_hops(
    sims: list[float],
    ontology: Ontology,
    chains: Sequence[TypedChain],
    read_fn: ChainScoreFn,
    weight: float,
    hops: Callable[[Ontology, TypedChain], list[TypedChain]],
) -> list[float]:
    """`sims` plus `weight` times the mean reading of each chain's `hops`' texts."""
    distinct, per_chain = hop_texts(ontology, chains, hops)
    read = [float(x) for x in read_fn(distinct)] if distinct else []
    out = []
    for sim, idx in zip(sims, per_chain, strict=True):
        if idx:
            sim += weight * sum(read[i] for i in idx) / len(idx)
        out.append(sim)
    return out


@dataclass(frozen=True)
class ChainPlan:
    """The chains a question asks for from one topic label, with probabilities.

    `probs` holds the kept chains (the best `keep`); `allowed(prefix)` the next steps the search
    may take from a path that has walked `prefix`. `reserve` holds the next most probable chains
    too: where a kept chain turns out not to exist from the topic, the walk takes the best of those
    that do instead (:meth:`held`).
    """

    probs: dict[Chain, float]
    texts: dict[Chain, str] = field(default_factory=dict)
    #: chains scored in all (the planner's work)
    scored: int = 0
    #: the kept chains and the next most probable ones, with their probabilities
    reserve: dict[Chain, float] = field(default_factory=dict)
    #: how many chain texts the walk follows at once (0: `probs` as planned, no reserve)
    keep: int = 0

    @property
    def best(self) -> Chain:
        """The most probable kept chain (the shorter of two equally probable ones)."""
        return max(self.probs.items(), key=lambda kv: (kv[1], -len(kv[0])))[0]

    def prob(self, chain: Chain) -> float:
        """The probability of a kept chain; 0 for any other."""
        return self.probs.get(chain, 0.0)

    def mass(self, prefix: Chain) -> float:
        """The probability of the kept chains that start with `prefix` (itself included).

        Example:
            >>> ChainPlan({(("r", "out"),): 0.5, (("r", "out"), ("s", "in")): 0.25}).mass((("r", "out"),))
            0.75
        """
        n = len(prefix)
        return sum(p for c, p in self.probs.items() if c[:n] == prefix)

    def allowed(self, prefix: Chain) -> set[Step]:
        """Next steps that keep a path on a kept chain (empty: the path should stop here)."""
        n = len(prefix)
        return {c[n] for c in self.probs if len(c) > n and c[:n] == prefix}

    def probe(self, prefix: Chain) -> dict[Step, frozenset[Step]]:
        """For each next step from `prefix`, the steps after it that a reserve chain takes.

        What the walk asks the graph while it takes the next step: which of those the entities it
        reaches have (:meth:`held`). Empty without a reserve.

        Example:
            >>> ab, ac = (("a", "out"), ("b", "out")), (("a", "out"), ("c", "in"))
            >>> plan = ChainPlan({ab: 0.5}, reserve={ab: 0.5, ac: 0.2, (("a", "out"),): 0.1}, keep=1)
            >>> {k: sorted(v) for k, v in plan.probe(()).items()}
            {('a', 'out'): [('b', 'out'), ('c', 'in')]}
        """
        if self.keep <= 0:
            return {}
        n = len(prefix)
        out: dict[Step, set[Step]] = {}
        for c in self.reserve:
            if len(c) > n + 1 and c[:n] == prefix:
                out.setdefault(c[n], set()).add(c[n + 1])
        return {k: frozenset(v) for k, v in out.items()}

    def held(self, depth: int, walked: Mapping[Chain, Collection[Step]]) -> ChainPlan:
        """The plan for the walk's next `depth`: the best `keep` chains the graph still holds.

        `walked` maps each chain prefix of `depth - 1` hops the walk has reached to the steps its
        end entities have. A longer chain is held when its prefix was reached and its next step is
        there; a kept chain of `depth - 1` hops or fewer was walked already and stays. The others
        are dropped, and the reserve's next most probable held chains take their places (chains of
        one text count once). Probabilities stay as planned.

        Example:
            >>> a, ab, ac = (("a", "out"),), (("a", "out"), ("b", "out")), (("a", "out"), ("c", "in"))
            >>> plan = ChainPlan({ab: 0.5, a: 0.2}, reserve={ab: 0.5, a: 0.2, ac: 0.1}, keep=2)
            >>> sorted(plan.held(2, {a: {("c", "in")}}).probs.items())
            [((('a', 'out'),), 0.2), ((('a', 'out'), ('c', 'in')), 0.1)]
        """
        if not self.reserve or self.keep <= 0:
            return self
        n = depth - 1
        kept: dict[Chain, float] = {}
        texts_kept: set[str] = set()
        for c, p in sorted(self.reserve.items(), key=lambda kv: (-kv[1], len(kv[0]), kv[0])):
            held = c in self.probs if len(c) <= n else c[n] in walked.get(c[:n], ())
            if not held:
                continue
            text = self.texts.get(c, repr(c))
            if text not in texts_kept:
                if len(texts_kept) >= self.keep:
                    continue
                texts_kept.add(text)
            kept[c] = p
        return ChainPlan(kept, self.texts, self.scored, self.reserve, self.keep)


def answer_type_terms(type_scores: Mapping[str, float], weight: float) -> dict[str, float] | None:
    """End label -> the answer-type term of a chain ending there: its intent score times `weight`.

    None when `weight` is 0 or there are no scores (the term is off).

    Example:
        >>> answer_type_terms({"Country": 0.8, "City": 0.2}, 0.5)
        {'Country': 0.4, 'City': 0.1}
    """
    if not weight or not type_scores:
        return None
    return {label: weight * float(v) for label, v in type_scores.items()}


def softmax(scores: Sequence[float], temperature: float) -> list[float]:
    """Softmax of `scores / temperature` (numerically stable).

    Example:
        >>> [round(p, 3) for p in softmax([1.0, 0.0], 1.0)]
        [0.731, 0.269]
    """
    if not scores:
        return []
    m = max(scores)
    ex = [math.exp((s - m) / temperature) for s in scores]
    total = sum(ex)
    return [e / total for e in ex]


def plan_chains(
    score: ChainScoreFn,
    ontology: Ontology,
    labels: str | Iterable[str],
    *,
    max_depth: int,
    beam: int = 64,
    keep: int = 5,
    temperature: float = 0.05,
    near: ChainScoreFn | None = None,
    near_weight: float = 0.0,
    answer_types: Mapping[str, float] | None = None,
    first_steps: Collection[tuple[str, str]] | None = None,
    nouns: Mapping[Chain, NounWeights] | None = None,
    far: ChainScoreFn | None = None,
    pool: Collection[str] | None = None,
    typed: ChainTermFn | None = None,
    reserve: int = 0,
    itself: bool = True,
    min_hops: int = 0,
) -> ChainPlan:
    """Beam search over the schema's chains from a topic with these type labels.

    Every chain up to `max_depth` hops that the beam reaches is scored as a complete chain; the
    `beam` best of each depth are extended. Probabilities are a softmax over the distinct chain
    texts scored (the empty chain included; chains with one text, such as a symmetric relation
    walked either way, share its probability); the `keep` most probable texts are kept. An entity
    with several labels plans from each and keeps the better score of a chain found twice.
    `near`, `near_weight`, `answer_types`, `nouns`, `far` and `typed` are the question's other terms
    (:func:`score_chains`).
    `first_steps`: the steps the topic has in the graph; a chain starting with another one cannot
    reach an answer and is not planned (None: every step of the schema). `pool`: the texts of the
    chains the graph holds (the chain model's pool, :func:`~pathrag_gds.search.schema.pool_chain_texts`);
    no other chain is planned (None: every chain of the schema). `reserve`: how many of the most
    probable chain texts the plan holds beside the kept ones (:meth:`ChainPlan.held`; 0: none).
    `itself`: may the topic answer about itself (the empty chain)? False where the question asks
    for another type of entity (:meth:`~pathrag_gds.intent.model.Intent.asks_for_another_type`).
    `min_hops`: the fewest hops the question's words name (a possessive chain,
    :func:`~pathrag_gds.search.topics.named_links`); shorter chains still guide the beam but are
    not planned. Ignored past `max_depth`.
    """
    shortest = min_hops if min_hops <= max_depth else 0
    starts = [labels] if isinstance(labels, str) else list(dict.fromkeys(labels)) or [ANY_LABEL]
    scored: dict[Chain, float] = {}
    short: dict[Chain, float] = {}  # chains under `min_hops`
    texts: dict[Chain, str] = {}
    for label in starts:
        level = [TypedChain((), (label,))]
        cand: list[TypedChain] = list(level)
        for depth in range(max_depth + 1):
            if depth > 0:
                cand = [n for c in level for n in next_chains(ontology, c)]
                if depth == 1 and first_steps is not None:
                    cand = [c for c in cand if c.steps[0] in first_steps]
            elif not itself:
                continue  # the empty chain is not planned; the walk starts from the topic anyway
            ts = [chain_text(ontology, c) for c in cand]
            if pool is not None:
                held = [t in pool for t in ts]
                cand = [c for c, h in zip(cand, held, strict=True) if h]
                ts = [t for t, h in zip(ts, held, strict=True) if h]
            if not cand:
                break
            sims = score_chains(ontology, cand, ts, score, near, near_weight, answer_types, nouns, far, typed)
            into = short if depth < shortest else scored
            for c, t, sim in zip(cand, ts, sims, strict=True):
                if c.steps not in into or sim > into[c.steps]:
                    into[c.steps] = sim
                    texts[c.steps] = t
            ranked = sorted(zip(sims, range(len(cand)), strict=True), key=lambda x: (-x[0], x[1]))
            level = [cand[i] for _, i in ranked[:beam]]
    scored = scored or short  # no chain as long as the words name: the shorter ones after all
    # chains that read the same (a symmetric relation walked either way) are one answer to the
    # question: they share one probability
    by_text: dict[str, list[Chain]] = {}
    for steps in scored:
        by_text.setdefault(texts[steps], []).append(steps)
    order = sorted(by_text, key=lambda t: (-scored[by_text[t][0]], min(len(c) for c in by_text[t]), t))
    probs = softmax([scored[by_text[t][0]] for t in order], temperature)
    kept = {c: p for t, p in zip(order[:keep], probs[:keep], strict=True) for c in by_text[t]}
    if reserve <= keep:
        return ChainPlan(kept, {c: texts[c] for c in kept}, len(scored))
    reserved = {c: p for t, p in zip(order[:reserve], probs[:reserve], strict=True) for c in by_text[t]}
    return ChainPlan(kept, {c: texts[c] for c in reserved}, len(scored), reserved, keep)
