"""How often a chain has answers in the graph: a prior the planner adds to the chain scores.

A question is asked about facts the graph holds, so a chain that few entities have is seldom the one
asked. `the movies that share actors with X are directed by who` reads almost as well as the chain
"X's actor, the films he directed, their other directors" as the asked "X's actors, their other
films, their directors"; but one film in thirteen has two directors (MetaQA), while most actors
have more than one film. The graph says which chain is common; a fitted weight says how much that
counts (`tune`, :mod:`pathrag_gds.training.near_fit`).

The support of a chain is estimated step by step from the community's per-label step counts
(`cypher/step_support.cypher`, read once by `tune` and kept in the model's manifest): the share of
the entities with the step's label that have the step, or, for a step that walks the relation it
arrived by back again (or a symmetric relation again), the share of those with the relation that
have it at least twice. The first step is not counted: the topic's own steps are read with the
seeds, so a planned chain starts with one the topic has. Pure: no database, no model.

Example:
    >>> from pathrag_gds.ontology import Ontology, RelationType
    >>> from pathrag_gds.search.schema import TypedChain
    >>> onto = Ontology("o", relation_types=(RelationType("directed_by", "was directed by", "directed"),
    ...     RelationType("starred", "starred", "starred in")))
    >>> rows = [{"label": "Movie", "type": None, "side": None, "one": 100, "two": 0},
    ...         {"label": "Person", "type": None, "side": None, "one": 100, "two": 0},
    ...         {"label": "Movie", "type": "directed_by", "side": "out", "one": 100, "two": 8},
    ...         {"label": "Person", "type": "starred", "side": "in", "one": 60, "two": 40}]
    >>> support = StepSupport.from_rows(onto, rows)
    >>> co_stars = TypedChain((("starred", "out"), ("starred", "in")), ("Movie", "Person", "Movie"))
    >>> mpm = ("Movie", "Person", "Movie")
    >>> co_directed = TypedChain((("directed_by", "out"), ("directed_by", "in")), mpm)
    >>> support.log_prior(co_stars) > support.log_prior(co_directed)
    True
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from pathrag_gds.ontology import Ontology
from pathrag_gds.search.schema import TypedChain

#: The side counted for a symmetric relation (its phrase and inverse phrase are the same words),
#: stored once per pair in either direction.
BOTH = "both"


@dataclass(frozen=True)
class StepSupport:
    """Per label: how many entities carry it; per (label, type, side): how many have the step once, twice."""

    totals: Mapping[str, int]
    once: Mapping[tuple[str, str, str], int]
    twice: Mapping[tuple[str, str, str], int]
    symmetric: frozenset[str] = field(default_factory=frozenset)

    @classmethod
    def from_rows(cls, ontology: Ontology, rows: Iterable[Mapping[str, Any]]) -> StepSupport:
        """From `step_support.cypher`'s rows (a row with no type holds a label's entity count)."""
        totals: dict[str, int] = {}
        once: dict[tuple[str, str, str], int] = {}
        twice: dict[tuple[str, str, str], int] = {}
        for r in rows:
            if r.get("type") is None:
                totals[str(r["label"])] = int(r["one"])
            else:
                key = (str(r["label"]), str(r["type"]), str(r["side"]))
                once[key], twice[key] = int(r["one"]), int(r["two"])
        symmetric = frozenset(t.type for t in ontology.relation_types if t.phrase == t.inverse_phrase)
        return cls(totals, once, twice, symmetric)

    def rows(self) -> list[dict[str, Any]]:
        """The counts as rows again (what the manifest keeps)."""
        out: list[dict[str, Any]] = [
            {"label": label, "type": None, "side": None, "one": n, "two": 0}
            for label, n in sorted(self.totals.items())
        ]
        out += [
            {"label": k[0], "type": k[1], "side": k[2], "one": n, "two": self.twice.get(k, 0)}
            for k, n in sorted(self.once.items())
        ]
        return out

    def log_prior(self, chain: TypedChain) -> float:
        """The log of the estimated share of the topic's type that has this chain, its first step given.

        Add-one smoothed; a label with no counts (untyped) adds nothing.
        """
        total = 0.0
        for i in range(1, len(chain.steps)):
            rel, direction = chain.steps[i]
            label = chain.labels[i]
            if label not in self.totals:
                continue
            side = BOTH if rel in self.symmetric else direction
            key = (label, rel, side)
            prev_rel, prev_dir = chain.steps[i - 1]
            if prev_rel == rel and (rel in self.symmetric or prev_dir != direction):
                p = (self.twice.get(key, 0) + 1) / (self.once.get(key, 0) + 2)
                total += math.log(p)
        return total
