"""Typed results of a query: paths with nodes, edges, score parts, answers and sources."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field, computed_field

from pathrag_gds.answer import Answer, extractive_answer


class NodeOut(BaseModel):
    """An entity on a path."""

    id: str
    name: str
    labels: list[str]
    description: str = ""
    attributes: dict[str, Any] = Field(default_factory=dict)


class EdgeOut(BaseModel):
    """A relationship on a path, as stored (source -> target) and as walked (direction)."""

    type: str
    source: str
    target: str
    direction: Literal["out", "in"]
    attributes: dict[str, Any] = Field(default_factory=dict)


class AnswerCandidate(BaseModel):
    """An entity on the path that may answer the question."""

    id: str
    name: str
    labels: list[str]
    reason: str = ""


class SourceChunk(BaseModel):
    """A passage of source text that mentions an entity of the path, and where it stands.

    Chunks of loaded documents cite their document (key, title), the headings above them and their
    character range in the document version read; chunks of a graph file have only `source`.
    `source` is the document key for a document's chunk (never the server's path of the file it was
    read from), and what the graph file says for one of its chunks.
    """

    id: str
    text: str
    source: str | None = None
    entity_id: str
    document_key: str | None = None
    document_title: str | None = None
    #: heading path from the document's top heading down to the chunk's section
    headings: list[str] = Field(default_factory=list)
    #: [start, end) character offsets of the chunk in the document version read
    char_range: tuple[int, int] | None = None


class ScoreTerm(BaseModel):
    """One term of a path's score: `contribution = weight x value`; a path's terms sum to its score."""

    name: str
    value: float
    weight: float
    contribution: float


class PathResult(BaseModel):
    """One retrieved path."""

    rank: int
    score: float
    score_parts: dict[str, float] = Field(default_factory=dict)
    #: the score term by term (see :func:`pathrag_gds.search.results.score_breakdown`)
    score_breakdown: list[ScoreTerm] = Field(default_factory=list)
    depth: int
    key: str
    text: str
    path_context: list[str]
    nodes: list[NodeOut]
    edges: list[EdgeOut]
    answer_candidates: list[AnswerCandidate]
    sources: list[SourceChunk] = Field(default_factory=list)
    #: the relation chain walked, one `type:out` / `type:in` per hop
    chain: list[str] = Field(default_factory=list)
    #: mix mode: how it was found (`vector match`, or the expansion rule and the relation walked)
    reason: str = ""
    #: mix mode: the results it is related to (the vector results it was expanded from, or the graph
    #: results a vector result inherited from); hybrid mode: the clusters it falls in
    related: list[str] = Field(default_factory=list)

    @property
    def node_ids(self) -> list[str]:
        """Ids of the path's nodes, in walk order."""
        return [n.id for n in self.nodes]


class ClusterEntity(BaseModel):
    """A member of a cluster, with its centrality (PageRank) in the community."""

    id: str
    name: str
    labels: list[str]
    centrality: float = 0.0


class ClusterResult(BaseModel):
    """A cluster of the community's entities (`communities`), as the global and hybrid modes show it."""

    id: str
    level: int = Field(description="0: the finest level of the hierarchy")
    title: str
    summary: str
    rating: float = Field(description="0-10: its share of PageRank against the largest of its level")
    size: int
    score: float = Field(description="cosine of its summary to the question")
    top_entities: list[ClusterEntity] = Field(default_factory=list)


class Seed(BaseModel):
    """A seed entity from the vector index."""

    id: str
    name: str
    labels: list[str]
    similarity: float


class DepthStat(BaseModel):
    """What one depth did."""

    depth: int
    beam_in: int
    candidates: int
    scored: int
    kept: int
    seconds: float


class PathRagResult(BaseModel):
    """The answer to one query."""

    query: str
    mode: str
    scorer: str
    community_id: str | None = None
    paths: list[PathResult]
    seeds: list[Seed]
    timings_ms: dict[str, float]
    round_trips: int
    depths: list[DepthStat] = Field(default_factory=list)
    explored: int = 0
    #: the scoring mode of the paths (`option-d` or `a3`; None where the mode scores otherwise)
    scoring: str | None = None
    #: global and hybrid modes: the clusters that best match the question
    clusters: list[ClusterResult] = Field(default_factory=list)
    #: what the search read the question as asking (`Intent.as_dict`: kind, expected types, hinted
    #: relations, named and described entities, and why); None where no intent was inferred
    intent: dict[str, Any] | None = None
    #: the answer the answer model wrote (or its extractive fallback, saying why); None: not asked
    #: (`pathrag_gds.answer_llm`). Shown as `answer`, not on its own.
    generated_answer: Answer | None = Field(default=None, exclude=True, repr=False)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def answer(self) -> Answer | None:
        """The answer: the answer model's where one wrote it, else the extractive one.

        The extractive answer: the best path's answer, the path in words, a supporting sentence.
        """
        if self.generated_answer is not None:
            return self.generated_answer
        return extractive_answer(self.paths, self.clusters, self.query)

    @property
    def best(self) -> PathResult | None:
        """The #1 path, if any."""
        return self.paths[0] if self.paths else None
