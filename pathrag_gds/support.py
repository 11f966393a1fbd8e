"""How well a source passage, and a sentence of it, supports a path for a question. Pure.

A path claims its facts: each hop says its two entities are related. A passage supports the path
as far as it states those facts: a sentence that names both ends of a hop states it; a passage
that names both ends in different sentences comes next (a pronoun may carry the fact); then the
path's entities it names (the answer counts twice) and the words it shares with the question and
the relation types. :func:`rank_passages` orders a path's passages by that, the one that states
the fact first; :func:`supporting_sentence` picks the sentence the extractive answer quotes, one
that names the answer and an entity it is related to on the path, and no sentence at all when
none does (a sentence that only names the answer supports no claim about it).

Example:
    >>> claim = PathClaim.of(
    ...     "Where does Tom live?",
    ...     names={"t": ("Tom", "the grey cat"), "b": ("Red Barn",)},
    ...     hops=[("t", "lives_in", "b")],
    ...     answer="b",
    ... )
    >>> passages = ["Tom eats breakfast. Tom naps.", "Tom sleeps in the Red Barn.", "It rained."]
    >>> rank_passages(claim, passages, text_of=str)[0]
    'Tom sleeps in the Red Barn.'
    >>> supporting_sentence(claim, ["The Red Barn is red. The grey cat lives in the Red Barn."])
    ('The grey cat lives in the Red Barn.', 0)
    >>> supporting_sentence(claim, ["The Red Barn is red."]) is None
    True
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TypeVar

from pathrag_gds.intent.lexicon import STOP_WORDS
from pathrag_gds.intent.text import stems
from pathrag_gds.scoring_terms import question_words
from pathrag_gds.sentences import split_sentences

T = TypeVar("T")

#: The attribute that holds an entity's other names (the default of `aliases_property`).
ALIASES = "aliases"

#: Weight of the answer entity against the path's other entities.
ANSWER_WEIGHT = 2.0

#: How a passage supports a path: (hops stated in one sentence, hops whose two ends the passage
#: names, weight of the path's entities named, question and relation words shared); higher is better.
Support = tuple[int, int, float, int]


@dataclass(frozen=True)
class PathClaim:
    """What a path claims, for matching against text.

    Args:
        patterns: entity id -> a pattern matching its name or an alias (whole words, any case).
        hops: (one end, other end) of each hop.
        answer: the answer entity's id (None: the path has none).
        words: stems of the question (outside the entities' names) and of the relation types.
    """

    patterns: Mapping[str, re.Pattern[str]]
    hops: tuple[tuple[str, str], ...]
    answer: str | None
    words: frozenset[str]

    @classmethod
    def of(
        cls,
        question: str,
        names: Mapping[str, Sequence[str]],
        hops: Iterable[tuple[str, str, str]],
        answer: str | None,
        described: Iterable[str] = (),
        facts: Iterable[str] = (),
    ) -> PathClaim:
        """The claim of a path.

        Args:
            question: the question (its words, outside the entities' names, count for support).
            names: entity id -> its name and aliases.
            hops: (source id, relationship type, target id) of each hop.
            answer: the answer entity's id.
            described: what the entities' attributes say ("cat" of `species: cat`): words that
                describe an entity say nothing of a hop, so they count for no support.
            facts: what the hops' attributes say ("vegetable patch" of `spot: vegetable patch`):
                their words count for support, as the question's and the relation types' do.
        """
        patterns = {}
        for eid, phrases in names.items():
            alts = sorted({p.lower() for p in phrases if len(p) >= 2}, key=len, reverse=True)
            if alts:
                patterns[eid] = re.compile(r"(?<!\w)(?:" + "|".join(map(re.escape, alts)) + r")(?!\w)")
        hop_list = list(hops)
        mentions = tuple(p for phrases in names.values() for p in phrases if p)
        words = set(question_words(question, mentions)) if question else set()
        for text in (*(rel.replace("_", " ") for _, rel, _ in hop_list), *facts):
            words.update(stems(text))
        words.difference_update(w for text in (*mentions, *described) for w in stems(text))
        words.difference_update(STOP_WORDS)
        kept = frozenset(w for w in words if len(w) > 2 and not w.isdigit())
        return cls(patterns, tuple((a, b) for a, _, b in hop_list), answer, kept)

    def named(self, text: str) -> set[str]:
        """Ids of the path's entities the text names."""
        low = text.lower()
        return {eid for eid, pat in self.patterns.items() if pat.search(low)}

    def stated(self, named: set[str]) -> int:
        """How many hops have both ends among `named`."""
        return sum(1 for a, b in self.hops if a in named and b in named)

    def weight(self, named: set[str]) -> float:
        """The path's entities among `named`, the answer counting :data:`ANSWER_WEIGHT`."""
        return sum(ANSWER_WEIGHT if e == self.answer else 1.0 for e in named if e in self.patterns)

    def shared(self, text: str) -> int:
        """How many of the claim's words the text has."""
        return len(self.words.intersection(stems(text)))


def entity_names(name: str, attributes: Mapping[str, object], aliases: str = ALIASES) -> tuple[str, ...]:
    """An entity's name and its aliases (a string or a list of them under `aliases`).

    Example:
        >>> entity_names("Tom", {"aliases": ["the grey cat"], "age": 3})
        ('Tom', 'the grey cat')
    """
    more = attributes.get(aliases)
    others = [more] if isinstance(more, str) else list(more) if isinstance(more, list | tuple) else []
    return (name, *(str(x) for x in others if x))


def attribute_words(attributes: Mapping[str, object]) -> list[str]:
    """An entity's attribute values as text (lists flattened), for `PathClaim.of(described=...)`.

    Example:
        >>> attribute_words({"species": "cat", "temperament": ["curious", "playful"], "age": 3})
        ['cat', 'curious', 'playful', '3']
    """
    values = [v for x in attributes.values() for v in (x if isinstance(x, list | tuple) else [x])]
    return [str(v) for v in values if isinstance(v, str | int | float)]


def passage_support(claim: PathClaim, text: str) -> Support:
    """How well a passage supports the claim (:data:`Support`)."""
    in_sentence: set[tuple[str, str]] = set()
    for sentence in split_sentences(text):
        named = claim.named(sentence)
        in_sentence.update(h for h in claim.hops if h[0] in named and h[1] in named)
    named = claim.named(text)
    return (len(in_sentence), claim.stated(named), claim.weight(named), claim.shared(text))


def rank_passages(claim: PathClaim, passages: Sequence[T], text_of: Callable[[T], str]) -> list[T]:
    """The passages, best support first; equal support keeps the given (reading) order."""
    keyed = [(passage_support(claim, text_of(p)), i) for i, p in enumerate(passages)]
    keyed.sort(key=lambda x: (tuple(-v for v in x[0]), x[1]))
    return [passages[i] for _, i in keyed]


def supporting_sentence(claim: PathClaim, texts: Sequence[str]) -> tuple[str, int] | None:
    """The sentence that best supports the claim about the answer, and the index of its text.

    It must name the answer, and then, for a path with hops, more than the answer: another entity
    of the path and a word of the question, the relation types or the hops' attributes; or two
    other entities of the path. Two names alone do not make a fact ("Jane's
    friend Lily came for tea, and Bob stayed at home" says nothing of who owns Bob), nor does a
    sentence that names only the answer ("After breakfast Jane left her cup of milk on the table").
    A 0-hop path's sentence must share a word with the question when it has any. Among those: the
    most hops of the answer stated, then the most entities named, then the most words shared,
    then the shortest. None when no sentence qualifies.
    """
    answer = claim.answer
    if answer is None:
        return None
    best: tuple[tuple[int, int, int, int], str, int] | None = None
    for i, text in enumerate(texts):
        for sentence in split_sentences(text):
            named = claim.named(sentence)
            if answer not in named:
                continue
            others, shared = len(named) - 1, claim.shared(sentence)
            if claim.hops:
                if not ((others and shared) or others >= 2):
                    continue
            elif claim.words and not shared:
                continue
            hops = sum(1 for a, b in claim.hops if answer in (a, b) and a in named and b in named)
            key = (hops, others, shared, -len(sentence))
            if best is None or key > best[0]:
                best = (key, sentence, i)
    return None if best is None else (best[1], best[2])
