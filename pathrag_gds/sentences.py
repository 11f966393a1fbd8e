"""Sentences of source passages, and the ones that name given entities best. Pure.

Cluster summaries and extractive answers quote them.

Example:
    >>> split_sentences("Jane owns Bob.  It rained! Did it?")
    ['Jane owns Bob.', 'It rained!', 'Did it?']
    >>> best_sentences([("Jane owns Bob. It rained.", ["j"])], {"j": 1.0, "b": 0.5},
    ...                {"j": "Jane", "b": "Bob"})
    ['Jane owns Bob.']
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence

#: A quoted sentence is cut to this many characters.
MAX_SENTENCE_CHARS = 240

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(])")


def split_sentences(text: str) -> list[str]:
    """Sentences of a passage (at `.`, `!` or `?` before a capital, digit or quote), whitespace folded."""
    flat = " ".join(text.split())
    return [s for s in _SENTENCE_END.split(flat) if s]


def name_matcher(names: Mapping[str, str]) -> Callable[[str], set[str]]:
    """A function: text -> ids of the entities it names (whole words, any case; names of 2+ characters)."""
    patterns = {
        eid: re.compile(r"(?<!\w)" + re.escape(name.lower()) + r"(?!\w)")
        for eid, name in names.items()
        if len(name) >= 2
    }

    def named(text: str) -> set[str]:
        low = text.lower()
        return {eid for eid, pat in patterns.items() if pat.search(low)}

    return named


def clip(sentence: str, limit: int = MAX_SENTENCE_CHARS) -> str:
    """The sentence, cut to `limit` characters (with an ellipsis)."""
    return sentence if len(sentence) <= limit else sentence[: limit - 1] + "…"


def scored_sentences(
    text: str, named: Callable[[str], set[str]], weights: Mapping[str, float]
) -> list[tuple[str, float]]:
    """The sentences of a passage that name weighted entities, with the sum of those weights."""
    out = []
    for sentence in split_sentences(text):
        score = sum(weights.get(e, 0.0) for e in named(sentence))
        if score > 0:
            out.append((sentence, score))
    return out


def best_sentences(
    chunks: Sequence[tuple[str, Sequence[str]]],
    weights: Mapping[str, float],
    names: Mapping[str, str],
    n: int = 2,
) -> list[str]:
    """The `n` sentences that name the heaviest entities (sum of their weights), best first, distinct.

    Args:
        chunks: (passage, ids of the entities it mentions); passages mentioning none of `weights` are skipped.
        weights: entity id -> weight.
        names: entity id -> name.
        n: sentences to return.
    """
    named = name_matcher({eid: names[eid] for eid in weights if eid in names})
    scored: dict[str, float] = {}
    for text, mentioned in chunks:
        if any(e in weights for e in mentioned):
            for sentence, score in scored_sentences(text, named, weights):
                scored[sentence] = max(score, scored.get(sentence, 0.0))
    ranked = sorted(scored, key=lambda s: (-scored[s], len(s)))
    return [clip(s) for s in ranked[:n]]
