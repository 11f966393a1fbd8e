"""The chain plans of a question's topics: the seeds it names, planned with a chain scorer. Pure.

Without a chain scorer (no chain model for the community) or a topic among the seeds there are no
plans, and the path-text scorer alone decides. The topics' names are masked as `X` for the chain
scorer one at a time (the other names stay, as in training), one plan per masked question and
type labels.

Example:
    >>> from pathrag_gds.config import Settings
    >>> from pathrag_gds.ontology import Ontology
    >>> from pathrag_gds.paths import EntityRecord
    >>> from pathrag_gds.search.context import QueryContext
    >>> onto = Ontology.from_mapping({"relationship_types": [
    ...     {"type": "owns", "phrase": "owns", "inverse_phrase": "is owned by",
    ...      "source": ["Person"], "target": ["Animal"]}]})
    >>> class Chains:
    ...     max_depth, plan_depth, temperature, pool = 2, 2, 0.1, None
    ...     def check_ontology(self, ontology): pass
    ...     def scorer_for(self, masked):
    ...         assert masked == "Who owns X?", masked
    ...         return lambda texts: [1.0 if t.endswith("owns X") else 0.0 for t in texts]
    ...     def near_scorer_for(self, masked):
    ...         return None
    ...     def answer_types_for(self, type_scores, scale=1.0):
    ...         return None
    ...     def nouns_for(self, masked, ontology, scale=1.0):
    ...         return None
    ...     def far_scorer_for(self, masked, scale=1.0):
    ...         return None
    >>> ctx = QueryContext("Who owns Bob?", max_depth=3, topics={"bob"})
    >>> ctx.entities["bob"] = EntityRecord("bob", ("Animal",), "Bob")
    >>> topic_plans(Chains(), ctx, onto, ["bob", "jane"], Settings())["bob"].best
    (('owns', 'in'),)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol

from pathrag_gds.config import Settings
from pathrag_gds.intent import mask_mentions
from pathrag_gds.intent.model import Intent
from pathrag_gds.intent.text import link_nouns, names_a_property
from pathrag_gds.ontology import Ontology
from pathrag_gds.search.context import QueryContext
from pathrag_gds.search.links import link_term
from pathrag_gds.search.nouns import NounWeights
from pathrag_gds.search.planner import ChainPlan, ChainScoreFn, ChainTermFn, plan_chains
from pathrag_gds.search.schema import Chain


class ChainScorers(Protocol):
    """What planning needs of a chain model (`chain_model.ChainScorer`)."""

    #: the longest chain it was trained on
    max_depth: int
    #: the softmax temperature of its scores
    temperature: float
    #: the longest chain planned (the pool's depth, else `max_depth`)
    plan_depth: int
    #: the texts of the chains the graph holds (None: every chain of the schema)
    pool: frozenset[str] | None

    def check_ontology(self, ontology: Ontology) -> None:
        """Raise when the model was trained on another ontology."""
        ...

    def scorer_for(self, masked_question: str) -> ChainScoreFn:
        """A chain score function for one (masked) question."""
        ...

    def near_scorer_for(self, masked_question: str) -> ChainScoreFn | None:
        """Chain texts against the words around the topic (None: the question holds no `X`)."""
        ...

    def answer_types_for(
        self, type_scores: Mapping[str, float], scale: float = 1.0
    ) -> dict[str, float] | None:
        """End label -> its weighted answer-type term (None: no fitted weight, or off)."""
        ...

    def far_scorer_for(self, masked_question: str, scale: float = 1.0) -> ChainScoreFn | None:
        """Chain texts against the words around the question word (None: no weights, no wh-word, off)."""
        ...

    def nouns_for(
        self, masked_question: str, ontology: Ontology, scale: float = 1.0
    ) -> dict[Chain, NounWeights] | None:
        """Chain a relational noun of the question names -> its weighted term (None: none, or off)."""
        ...


def question_terms(
    scorer: ChainScorers,
    masked: str,
    type_scores: Mapping[str, float],
    settings: Settings,
    ontology: Ontology,
    links: Sequence[Mapping[str, float]] = (),
) -> tuple[
    ChainScoreFn | None,
    float,
    dict[str, float] | None,
    dict[Chain, NounWeights] | None,
    ChainScoreFn | None,
    ChainTermFn | None,
]:
    """The question's terms beside its whole-question chain scores, as the settings scale them.

    (near-topic scorer, its weight, answer types, relational nouns, answer-end scorer, link
    types): the arguments `planner.score_chains` takes after the score function. `links`: the
    type scores of the nouns that link a chain from the topic (`Intent.link_types`). The search's
    plans and `eval plans` both read them from here.
    """
    weight = settings.chain_near_weight
    near = scorer.near_scorer_for(masked) if weight else None
    answer_types = scorer.answer_types_for(type_scores, settings.chain_type_weight)
    nouns = scorer.nouns_for(masked, ontology, settings.chain_noun_weight)
    far = scorer.far_scorer_for(masked, settings.chain_far_weight)
    lw = settings.chain_link_weight
    typed = (lambda chains: link_term(chains, links, lw)) if links and lw else None
    return near, weight, answer_types, nouns, far, typed


def named_links(intent: Intent | None, masked: str) -> int:
    """The fewest hops a plan may have: the links of a possessive or `of` chain from the topic.

    Each link noun (:func:`~pathrag_gds.intent.text.link_nouns`) is one relation at least (a
    kinship word may be two: "X's grandfather").

    Only where the question asks for an entity, and only two or more (one link, "X's owner", is
    any plan); a property closing the chain ("X's owner's age") is no link.

    Example:
        >>> named_links(Intent("q", kind="entity"), "What is the name of X's father's boat?")
        2
        >>> named_links(Intent("q", kind="entity"), "What is X's owner's age?")
        0
        >>> named_links(Intent("q", kind="attribute"), "Where does X's son's wife live?")
        0
        >>> named_links(Intent("q", kind="entity"), "Who is the brother of X's wife?")
        2
    """
    if intent is None or intent.kind != "entity":
        return 0
    links = sum(1 for n in link_nouns(masked) if not names_a_property(n))
    return links if links >= 2 else 0


def topic_plans(
    scorer: ChainScorers | None,
    ctx: QueryContext,
    ontology: Ontology,
    seeds: Sequence[str],
    settings: Settings,
    *,
    given: bool = False,
) -> dict[str, ChainPlan]:
    """Chain plans (topic id -> plan) of the seeds the question names (`given`: of every seed).

    Raises:
        ModelError: the chain model was trained on another ontology.
    """
    if scorer is None or not seeds:
        return {}
    topics = list(seeds) if given else [i for i in seeds if i in ctx.topics]
    if not topics:
        return {}
    scorer.check_ontology(ontology)
    # each topic is masked alone, the other names left as they are: the chain is read from that
    # topic, and a second named entity is an occasion or a constraint, as in training
    plans: dict[str, ChainPlan] = {}
    memo: dict[tuple[str, tuple[str, ...], frozenset[tuple[str, str]] | None], ChainPlan] = {}
    types = {} if ctx.intent is None else ctx.intent.type_scores
    for t in topics:
        # the words that name the topic: its name, or a description (`the silver grey cat`)
        said = ctx.intent.named_as.get(t) if ctx.intent is not None else None
        masked = mask_mentions(ctx.question, [said or ctx.entities[t].name])
        labels = ctx.entities[t].labels
        steps = ctx.steps.get(t)  # the topic's own steps: a plan never starts with a missing one
        key = (masked, labels, steps)
        if key not in memo:
            links = ctx.intent.link_types.get(t, ()) if ctx.intent is not None else ()
            near, weight, answer_types, nouns, far, typed = question_terms(
                scorer, masked, types, settings, ontology, links
            )
            memo[key] = plan_chains(
                scorer.scorer_for(masked),
                ontology,
                labels,
                max_depth=min(ctx.max_depth, scorer.plan_depth),
                beam=settings.chain_beam,
                keep=settings.chain_keep,
                temperature=scorer.temperature,
                near=near,
                near_weight=weight,
                answer_types=answer_types,
                first_steps=steps,
                nouns=nouns,
                far=far,
                pool=scorer.pool,
                typed=typed,
                reserve=settings.chain_reserve,
                itself=ctx.intent is None or not ctx.intent.asks_for_another_type(labels),
                min_hops=named_links(ctx.intent, masked),
            )
        if max(memo[key].probs.values(), default=0.0) >= settings.chain_min_best:
            plans[t] = memo[key]
    return plans
