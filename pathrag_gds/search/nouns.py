"""The chains a question names with one relational noun ("X's grandchildren"). Pure.

A chain text reads "the person that is a child of the person that is a child of X"; people write
"X's grandchildren", and a pooled encoder counts the hops of one word poorly. The words WordNet
glosses as a chain of roles (`training/lexicon.py`: `grandchild` is a child of one's son or
daughter) are resolved against the ontology once; a question that holds one of them, in the
singular or the plural, names those chains, and a chain that starts with one of them gets the
term `tune` fitted for it (the manifest's `chain.noun.weight`; :func:`noun_prefixes`). An
ontology whose roles match no gloss (MetaQA's) names nothing, and its plans do not change.

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


def noun_prefixes(question: str, ontology: Ontology, weight: float) -> dict[Chain, float] | None:
    """Named chain -> `weight`, for :func:`noun_term` (None: no weight, or nothing named)."""
    if not weight:
        return None
    named = named_chains(question, ontology)
    return {c: weight for c in named} or None


def noun_term(chains: Sequence[TypedChain], prefixes: Mapping[Chain, float]) -> list[float]:
    """Per chain: the weight of the named chain it starts with (the longest), else 0.

    Example:
        >>> two = (("p", "out"), ("p", "out"))
        >>> noun_term([TypedChain(two + (("l", "out"),), ("A",) * 4), TypedChain(two[:1], ("A",) * 2)],
        ...           {two: 0.5})
        [0.5, 0.0]
    """
    out = []
    for c in chains:
        hits = [(len(p), w) for p, w in prefixes.items() if c.steps[: len(p)] == p]
        out.append(max(hits)[1] if hits else 0.0)
    return out
