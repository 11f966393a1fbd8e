"""A possessive names the type of its link: "X's father's boat" passes a person and ends at a boat.

The nouns of a chain of possessives from the topic, or of `of` phrases and relative clauses into
it (:func:`~pathrag_gds.intent.text.link_nouns`), each name the entity at one link of the chain the
question asks for, in order from the topic. A chain that passes entities of those types, in that
order, reads the question better than one that does not: "On which quay does X's cat live?" walks
through an animal, not from X's own home. Each noun is read against the ontology's types as the
intent reads the asked noun (:meth:`~pathrag_gds.intent.vocabulary.OntologyVocabulary.best_noun`;
`Intent.link_types`); property nouns (`name`, `age`) and nouns no type fits are left out. Pure.

Example:
    >>> from pathrag_gds.search.schema import TypedChain
    >>> nouns = [{"Person": 1.0, "Boat": 0.1}, {"Boat": 1.0, "Person": 0.2}]
    >>> via_boat = TypedChain((("child_of", "out"), ("owns", "out")), ("Person", "Person", "Boat"))
    >>> home = TypedChain((("lives_at", "out"),), ("Person", "Place"))
    >>> link_term([via_boat, home], nouns, 0.1)
    [0.1, 0.0]
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from pathrag_gds.search.schema import TypedChain


def link_match(labels: Sequence[str], nouns: Sequence[Mapping[str, float]]) -> float:
    """The best order-keeping match of the nouns to the labels: the mean score of their types there.

    Each noun takes one position after the one the noun before it took (a kinship word may span
    two hops, so positions may be skipped); a noun with no position left scores 0.

    Example:
        >>> person, boat = {"Person": 1.0}, {"Boat": 1.0}
        >>> link_match(["Person", "Boat"], [boat]), link_match(["Boat", "Person"], [person, boat])
        (1.0, 0.5)
    """
    if not nouns:
        return 0.0
    n, m = len(nouns), len(labels)
    # best[i][j]: the best sum of the first i nouns placed within the first j positions
    best = [[0.0] * (m + 1) for _ in range(n + 1)]
    for i in range(1, n + 1):
        best[i][0] = float("-inf")
        for j in range(1, m + 1):
            here = best[i - 1][j - 1] + nouns[i - 1].get(labels[j - 1], 0.0)
            best[i][j] = max(best[i][j - 1], here)
    return max(best[i][m] for i in range(n + 1)) / n  # the first i placed, the rest none (i = 0: 0)


def link_term(
    chains: Sequence[TypedChain], nouns: Sequence[Mapping[str, float]], weight: float
) -> list[float]:
    """Each chain's term: `weight` times :func:`link_match` of its labels after the topic's."""
    if not nouns or not weight:
        return [0.0] * len(chains)
    return [weight * link_match(c.labels[1:], nouns) for c in chains]
