"""The retrieval modes of multi-hop-traversal-api.md: what `pathrag(question, mode=...)` runs.

- `local`: the path search (beam over the graph); `naive`: its vector seeds only (no expansion);
- `global`: the clusters (`communities` command) whose summaries best match the question, with their
  most central entities (:mod:`~pathrag_gds.modes.clusters`);
- `hybrid`: local paths, each with the clusters it falls in, re-ranked by their summaries' match;
- `mix`: vector results and graph-expansion results scored with graph-score inheritance
  (:mod:`~pathrag_gds.modes.mix`, :mod:`~pathrag_gds.modes.inheritance`, :mod:`~pathrag_gds.modes.rules`).

The old scoring modes (`option-d`, `a3`) are still accepted as `mode`: the local search, so scored.

Example:
    >>> parse_mode("mix"), parse_mode("a3")
    ((<RetrievalMode.MIX: 'mix'>, None), (<RetrievalMode.LOCAL: 'local'>, <ScoringMode.A3: 'a3'>))
    >>> ModeWeights.resolve(Settings(), {"vector": 0.6}).graph
    0.3
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import TYPE_CHECKING

from pathrag_gds.config import ScoringMode, Settings
from pathrag_gds.errors import InvalidInput

if TYPE_CHECKING:  # pragma: no cover
    from pathrag_gds.results import PathResult


class RetrievalMode(StrEnum):
    """What a question retrieves (see the module docstring)."""

    LOCAL = "local"
    GLOBAL = "global"
    HYBRID = "hybrid"
    MIX = "mix"
    NAIVE = "naive"


#: The retrieval modes, in the order messages list them.
MODES: tuple[str, ...] = tuple(m.value for m in RetrievalMode)


def parse_mode(mode: RetrievalMode | ScoringMode | str | None) -> tuple[RetrievalMode, ScoringMode | None]:
    """The retrieval mode and the scoring mode (None: the settings') that `mode` names.

    Raises:
        InvalidInput: naming the valid modes.
    """
    if mode is None:
        return RetrievalMode.LOCAL, None
    if isinstance(mode, ScoringMode):
        return RetrievalMode.LOCAL, mode
    value = str(mode)
    if value in MODES:
        return RetrievalMode(value), None
    if value in {m.value for m in ScoringMode}:
        return RetrievalMode.LOCAL, ScoringMode(value)
    raise InvalidInput(
        f"mode must be one of {', '.join(MODES)} (or a scoring mode of local: "
        f"{', '.join(m.value for m in ScoringMode)}); got {value!r}"
    )


#: The names a caller may give weights under (`pathrag(..., weights={...})`, request fields).
WEIGHT_NAMES = ("vector", "graph", "inheritance", "global")


@dataclass(frozen=True)
class ModeWeights:
    """The weights of mix (vector, graph, inheritance factor) and hybrid (global); each in [0, 1]."""

    vector: float
    graph: float
    inheritance: float
    global_: float

    def __post_init__(self) -> None:
        for name, value in zip(
            WEIGHT_NAMES, (self.vector, self.graph, self.inheritance, self.global_), strict=True
        ):
            if isinstance(value, bool) or not isinstance(value, int | float) or not 0.0 <= value <= 1.0:
                raise InvalidInput(f"the {name} weight must be a number between 0 and 1 (got {value!r})")

    @classmethod
    def resolve(
        cls, settings: Settings, given: Mapping[str, float | None] | ModeWeights | None
    ) -> ModeWeights:
        """The settings' weights, with the given ones instead.

        Raises:
            InvalidInput: an unknown name, or a weight outside [0, 1].
        """
        if isinstance(given, ModeWeights):
            return given
        values: dict[str, float] = {
            "vector": settings.mix_vector_weight,
            "graph": settings.mix_graph_weight,
            "inheritance": settings.mix_inheritance,
            "global": settings.hybrid_global_weight,
        }
        for name, value in (given or {}).items():
            if name not in values:
                raise InvalidInput(f"unknown weight {name!r}: the weights are {', '.join(WEIGHT_NAMES)}")
            if value is not None:
                values[name] = value
        return cls(values["vector"], values["graph"], values["inheritance"], values["global"])


@dataclass(frozen=True)
class ModeRequest:
    """One `pathrag` call, as the modes other than local get it (already validated)."""

    query: str
    community_id: str | None
    ontology_id: str | None
    top_n: int
    max_depth: int
    seed_n: int
    scoring: ScoringMode
    weights: ModeWeights
    relations: Sequence[str] | None = None
    seed_ids: list[str] | None = None
    on_depth: Callable[[int, list[PathResult]], None] | None = None
    cancel: threading.Event | None = None
    timeout: float | None = None
    as_of: str | datetime | None = None
