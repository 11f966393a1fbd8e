"""The chains a question names with one relational noun ("X's grandchildren"). Pure.

A chain text reads "the person that is a child of the person that is a child of X"; people write
"X's grandchildren", and a pooled encoder counts the hops of one word poorly. The words WordNet
glosses as a chain of roles (`training/lexicon.py`: `grandchild` is a child of one's son or
daughter) are resolved against the ontology once; a question that holds one of them, in the
singular or the plural, names those chains. A chain that starts with one of them gets the term
`tune` fitted for that (the manifest's `chain.noun.weight`), and one that is one of them, no step
after it, a second term (`chain.noun.exact_weight`): "Where do X's grandchildren live?" goes on
after the named chain, "Who are X's grandchildren?" ends with it, and which the question asks is
left to the fit and the chain scorer (:func:`noun_prefixes`). An ontology whose roles match no
gloss (MetaQA's) names nothing, and its plans do not change.

Example:
    >>> from pathrag_gds.ontology import Ontology, RelationType
    >>> kin = RelationType("parent_of", "is a parent of", "is a child of", "", ("Person",), ("Person",))
    >>> onto = Ontology("O", relation_types=(kin,))
    >>> named_chains("Who are the grandchildren of X?", onto)
    [(('parent_of', 'out'), ('parent_of', 'out'))]
    >>> named_chains("Who are the children of X?", onto)
    []
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from functools import lru_cache

from pathrag_gds.ontology import Ontology
from pathrag_gds.search.schema import Chain, TypedChain
from pathrag_gds.training.lexicon import compound_chains
from pathrag_gds.training.phrasing import plural


@lru_cache(maxsize=16)
def _surface_forms(ontology: Ontology) -> tuple[tuple[re.Pattern[str], tuple[Chain, ...]], ...]:
    """Per relational noun of this ontology: a pattern for it (singular or plural), its chains."""
    by_noun: dict[str, set[Chain]] = {}
    for chain, nouns in compound_chains(ontology).items():
        for noun in nouns:
            by_noun.setdefault(noun, set()).add(chain)
    out = []
    for noun in sorted(by_noun):
        forms = "|".join(re.escape(f) for f in sorted({noun, plural(noun)}, key=len, reverse=True))
        out.append((re.compile(rf"(?<![\w-])(?:{forms})(?![\w-])"), tuple(sorted(by_noun[noun]))))
    return tuple(out)


def named_chains(question: str, ontology: Ontology) -> list[Chain]:
    """The chains the question's relational nouns name, sorted (none: an empty list)."""
    text = question.lower()
    found: set[Chain] = set()
    for pattern, chains in _surface_forms(ontology):
        if pattern.search(text):
            found.update(chains)
    return sorted(found)


#: (weight of a chain that starts with a named chain, weight of a chain that is one)
NounWeights = tuple[float, float]


def noun_prefixes(
    question: str, ontology: Ontology, weight: float, exact_weight: float = 0.0
) -> dict[Chain, NounWeights] | None:
    """Named chain -> (`weight`, `exact_weight`), for :func:`noun_term` (None: both 0, or none named)."""
    if not weight and not exact_weight:
        return None
    named = named_chains(question, ontology)
    return {c: (weight, exact_weight) for c in named} or None


def noun_term(chains: Sequence[TypedChain], prefixes: Mapping[Chain, NounWeights]) -> list[float]:
    """Per chain: the weights of the longest named chain it starts with (0 for none).

    The start weight, plus the exact weight when the chain is that named chain.

    Example:
        >>> two = (("p", "out"), ("p", "out"))
        >>> longer, shorter = TypedChain(two + (("l", "out"),), ("A",) * 4), TypedChain(two[:1], ("A",) * 2)
        >>> noun_term([longer, TypedChain(two, ("A",) * 3), shorter], {two: (0.5, 0.25)})
        [0.5, 0.75, 0.0]
    """
    out = []
    for c in chains:
        hits = [(len(p), w) for p, w in prefixes.items() if c.steps[: len(p)] == p]
        if not hits:
            out.append(0.0)
            continue
        n, (start, exact) = max(hits)
        out.append(start + (exact if n == len(c.steps) else 0.0))
    return out
