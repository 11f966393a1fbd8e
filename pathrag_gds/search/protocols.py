"""The small interfaces the search loop is written against: expanders and path scorers.

- an :class:`Expander` grows the beam by one step: for each :class:`Frontier` (a beam path and the
  steps its chain plan allows) it returns the children, each with its parent's beam index and its
  end entity's similarity to the question, plus the entities it fetched (:class:`Expansion`). The
  server-side one (`pathrag_gds.expanders`) makes one database round trip per depth; the baselines
  (`pathrag_gds.baselines`) expand another way. Nothing else in the loop touches a database;
- a :class:`PathScorer` scores path texts against the question (the scorer's per-question view);
  a :class:`TieBreaker` also says which of two equal scores wins;
- the chain scorer of the planner is :data:`~pathrag_gds.search.planner.ChainScoreFn`.

Example:
    >>> from pathrag_gds.paths import Edge, Path
    >>> child = Child(Path(("a",)).extend(Edge("r", "a", "b", "out"), "b"), parent=0, sim=0.5)
    >>> Expansion([child]).children[0].path.end, Frontier(0, Path(("a",))).steps is None
    ('b', True)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

from pathrag_gds.paths import EntityRecord, Path
from pathrag_gds.search.context import QueryContext
from pathrag_gds.search.planner import ChainScoreFn
from pathrag_gds.search.schema import Step

__all__ = [
    "ChainScoreFn",
    "Child",
    "Expander",
    "Expansion",
    "Frontier",
    "PathScorer",
    "PathScorers",
    "TieBreaker",
]


@dataclass(frozen=True, slots=True)
class Frontier:
    """One beam path to expand: its index in the beam and the steps it may take (None: any).

    `probe`: for a step it may take, the steps after it that its plan may walk next: a child along
    that step reports which of those its end entity has (`Child.steps`); None: none is asked.
    """

    index: int
    path: Path
    steps: frozenset[Step] | None = None
    probe: Mapping[Step, frozenset[Step]] | None = None


@dataclass(frozen=True, slots=True)
class Child:
    """A one-step extension of a beam path."""

    path: Path
    #: the parent's index in the beam
    parent: int
    #: cosine of the end entity's stored embedding to the question (None: not computed)
    sim: float | None = None
    #: of the steps its frontier's `probe` asked about, those the end entity has, the edge just
    #: walked not counted (None: not asked; `ChainPlan.held`)
    steps: frozenset[Step] | None = None


@dataclass
class Expansion:
    """What an expander returns: the children, and the entities it fetched that were not known."""

    children: list[Child]
    entities: dict[str, EntityRecord] = field(default_factory=dict)


class Expander(Protocol):
    """Grows the beam by one step."""

    #: whether it honours `Frontier.steps` (the search plans chains only for an expander that does)
    follows_plans: bool

    def expand(self, ctx: QueryContext, frontier: Sequence[Frontier], relations: Sequence[str]) -> Expansion:
        """The children of the frontier paths along `relations` (never to a community's outside)."""
        ...


class PathScorer(Protocol):
    """Scores path texts against the question; higher is more relevant."""

    def score(self, texts: Sequence[str]) -> Sequence[float]:
        """One score per text, in order."""
        ...


@runtime_checkable
class TieBreaker(Protocol):
    """A path scorer that also ranks texts of equal score (higher wins)."""

    def ties(self, texts: Sequence[str]) -> Sequence[float]:
        """One tie-break value per text, in order."""
        ...


class PathScorers(Protocol):
    """Binds a path scorer to one question (`scoring.Scorer`, or a wrapper of one)."""

    def for_question(self, question: str) -> PathScorer:
        """A scorer of path texts against `question`."""
        ...
