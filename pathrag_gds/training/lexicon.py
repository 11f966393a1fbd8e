"""Relational nouns: one English word for a chain of two or three hops (`grandchild`, `niece`).

People say "X's grandchildren" where an ontology's phrases say "the child of the child of X". A
chain model trained only on the phrases never sees the one word, so questions that use it plan a
chain one or two hops short. WordNet glosses many such words in one shape, `a <N1> of your <N2>
[or <N3>]` (`grandchild`: a child of your son or daughter; `niece`: a daughter of your brother or
sister). `data/relational_nouns.tsv` holds those glosses (`scripts/build_relational_nouns.py`), with
the kind words of each noun: the word and the head words of its WordNet hypernyms (`daughter` ->
`child`). Here they are resolved against one ontology: a step whose role noun (the far node is the
near node's ROLE: `is a child of` -> `child`, `employs` -> `employer`) is a kind word of N2, then a
step whose role is a kind word of N1. A noun whose N2 is itself such a noun nests (`cousin`: the
child of your aunt or uncle, three hops). The generator then phrases matching walks with the one
word (:class:`pathrag_gds.training.phraser.Phraser`); an ontology without matching roles gets
nothing and its questions do not change.

Example:
    >>> from pathrag_gds.ontology import Ontology, RelationType
    >>> kin = RelationType("parent_of", "is a parent of", "is a child of", "", ("Person",), ("Person",))
    >>> chains = compound_chains(Ontology("O", relation_types=(kin,)))
    >>> chains[(("parent_of", "out"), ("parent_of", "out"))][:1]
    ('grandchild',)
    >>> "grandparent" in chains[(("parent_of", "in"), ("parent_of", "in"))]
    True
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from pathrag_gds.ontology import Ontology
from pathrag_gds.paths import Direction
from pathrag_gds.search.schema import Chain, Step, step_labels
from pathrag_gds.training.phrasing import Sentence

#: The extracted glosses (WordNet 3.0, see the file's header for its licence).
DATA = Path(__file__).parent / "data" / "relational_nouns.tsv"
#: Longest chain one noun may stand for (`great-grandchild` would be 3).
MAX_HOPS = 3


@dataclass(frozen=True)
class RelationalNoun:
    """`noun` is the `head` of one's `of` (any one): `grandchild` is a child of one's son or daughter."""

    noun: str
    head: frozenset[str]
    of: tuple[tuple[str, frozenset[str]], ...]


@lru_cache(maxsize=1)
def load_relational_nouns(path: Path = DATA) -> tuple[RelationalNoun, ...]:
    """The rows of the TSV: noun, N1, N1's kinds, `N2:kinds|N3:kinds`."""
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line or line.startswith("#"):
            continue
        noun, _head, head_kinds, alternatives = line.split("\t")
        of = tuple(
            (word, frozenset(kinds.split(",")))
            for word, _, kinds in (alt.partition(":") for alt in alternatives.split("|"))
        )
        out.append(RelationalNoun(noun, frozenset(head_kinds.split(",")), of))
    return tuple(out)


def step_roles(ontology: Ontology) -> dict[Step, str]:
    """The role noun of every step: the far node is the near node's role (`parent_of` in -> `parent`).

    A walk `in` reads `far <phrase> near`, so the role comes from the phrase; `out` from the inverse.
    Phrases without a role or agent noun (`lives in`) give none.
    """
    out: dict[Step, str] = {}
    for rel in ontology.relation_types:
        readings: tuple[tuple[Direction, str], ...] = (("in", rel.phrase), ("out", rel.inverse_phrase))
        for direction, phrase in readings:
            sentence = Sentence.parse(phrase) if phrase else None
            role = sentence.role or sentence.agent if sentence else ""
            if role:
                out[(rel.type, direction)] = role
    return out


def _joins(ontology: Ontology, chain: Chain, step: Step) -> bool:
    """Can `step` follow `chain`: the chain's far labels meet the step's near labels, no immediate return?"""
    last = chain[-1]
    if last[0] == step[0] and last[1] != step[1]:
        return False
    far = step_labels(ontology.relation(last[0]), last[1])[1]
    near = step_labels(ontology.relation(step[0]), step[1])[0]
    return not far or not near or bool(set(far) & set(near))


def compound_chains(
    ontology: Ontology, nouns: tuple[RelationalNoun, ...] | None = None
) -> dict[Chain, tuple[str, ...]]:
    """Every chain of 2-3 steps that one relational noun names, with its nouns (sorted)."""
    nouns = load_relational_nouns() if nouns is None else nouns
    roles = step_roles(ontology)

    def steps(kinds: frozenset[str]) -> set[Chain]:
        return {(s,) for s, role in roles.items() if role in kinds}

    named: dict[str, set[Chain]] = {}
    for _ in range(MAX_HOPS - 1):  # a nested noun (`cousin` through `aunt`) needs one more pass
        for n in nouns:
            inner = set.intersection(*(steps(kinds) | named.get(word, set()) for word, kinds in n.of))
            heads = steps(n.head)
            found = {
                c + h for c in inner for h in heads if len(c) + 1 <= MAX_HOPS and _joins(ontology, c, h[0])
            }
            if found:
                named.setdefault(n.noun, set()).update(found)
    out: dict[Chain, set[str]] = {}
    for noun, chains in named.items():
        for chain in chains:
            out.setdefault(chain, set()).add(noun)
    return {chain: tuple(sorted(words)) for chain, words in out.items()}
