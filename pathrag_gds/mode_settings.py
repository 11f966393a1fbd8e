"""Settings of the retrieval modes and GDS clusters: the mix mode's graph-score table, one group.

:class:`ModeSettings` is one of the groups :class:`pathrag_gds.config.Settings` is made of (each
field is `settings.<name>` and `PATHRAG_<NAME>`); the table's rows are :class:`GraphRule`.

Example:
    >>> ModeSettings(mix_graph_rules='[{"match": "neighbour", "score": 0.9}]').mix_graph_rules[0].score
    0.9
"""

from __future__ import annotations

import json
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator


class GraphRule(BaseModel):
    """One row of the mix mode's graph-score table: what a graph result scores, by how it was reached.

    `match`: `neighbour` (one hop from the vector result), `shared` (two hops along one relationship
    type, out and back: it shares a place, a director, a genre with the vector result), `same_type`
    (it carries a type label of the vector result), `path` (any walk). `depth`: only at this many
    hops (None: any); `relation`: only walks that use this relationship type (`*`: any). A graph
    result scores the best row it matches (docs/modes.md).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    match: Literal["neighbour", "shared", "same_type", "path"]
    score: float = Field(ge=0.0, le=1.0)
    depth: int | None = Field(default=None, ge=1, le=10)
    relation: str = "*"


#: The spec's same-city 0.8 and same-type 0.5, with direct neighbours and longer walks beside them.
DEFAULT_GRAPH_RULES: tuple[GraphRule, ...] = (
    GraphRule(match="neighbour", depth=1, score=0.8),
    GraphRule(match="shared", depth=2, score=0.8),
    GraphRule(match="same_type", score=0.5),
    GraphRule(match="path", depth=2, score=0.4),
    GraphRule(match="path", score=0.25),
)


class ModeSettings(BaseModel):
    """GDS clusters (`communities`) and the global / hybrid / mix modes (docs/modes.md)."""

    #: Label and relationship type of the clusters `communities` writes (GDS Leiden over one
    #: community's entities). Not `community_label`: a community is the access boundary, and each
    #: cluster node carries its community's id in `community_id`.
    cluster_label: str = "Cluster"
    cluster_rel: str = "MEMBER_OF"
    cluster_vector_index: str = "pathrag_cluster_embedding"
    #: `leiden` or `louvain` (both in the open GDS plugin), levels kept, and the smallest cluster written
    cluster_algorithm: Literal["leiden", "louvain"] = "leiden"
    cluster_max_levels: int = Field(3, ge=1, le=10)
    cluster_min_size: int = Field(5, ge=2, le=100000)
    #: mix: combined = vector weight x vector + graph weight x graph; a vector result inherits
    #: `mix_inheritance` x the mean graph score of the graph results expanded from it (the spec's
    #: 0.7 / 0.3 / 0.5)
    mix_vector_weight: float = Field(0.7, ge=0.0, le=1.0)
    mix_graph_weight: float = Field(0.3, ge=0.0, le=1.0)
    mix_inheritance: float = Field(0.5, ge=0.0, le=1.0)
    #: mix: the vector results the graph expansion starts from (the spec's top 5)
    mix_expand_n: int = Field(5, ge=1, le=100)
    #: mix: the graph-score table (`PATHRAG_MIX_GRAPH_RULES`: a JSON list of `GraphRule` rows)
    mix_graph_rules: tuple[GraphRule, ...] = DEFAULT_GRAPH_RULES
    #: hybrid: a path's score plus this weight x the cosine of the best cluster summary it falls in
    hybrid_global_weight: float = Field(0.1, ge=0.0, le=1.0)

    @field_validator("mix_graph_rules", mode="before")
    @classmethod
    def _parse_rules(cls, v: Any) -> Any:
        if isinstance(v, str):
            try:
                return json.loads(v)
            except json.JSONDecodeError as exc:
                raise ValueError(f"not a JSON list of rules ({exc.msg})") from exc
        return v
