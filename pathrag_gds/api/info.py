"""The typed body of `GET /v1/info`, and what the query options default to on this server.

`defaults` and `modes` tell a client (the explorer page among them) what a question that names no
option runs with, and which options each mode reads: the page starts from the server's own depth
instead of a number of its own.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from pathrag_gds.api.requests import NO_HOPS
from pathrag_gds.config import Settings
from pathrag_gds.modes import MODES, RetrievalMode
from pathrag_gds.validation import QueryLimits, default_options

#: What each mode does, in a sentence (the page shows it beside the mode).
MODE_DESCRIPTIONS: dict[str, str] = {
    RetrievalMode.LOCAL: "walks the graph from the entities the question names, ranking the paths",
    RetrievalMode.GLOBAL: "reads the summaries of the graph's clusters; no walk, so no hop depth",
    RetrievalMode.HYBRID: "walks the graph like local, then re-ranks each path by how its cluster's "
    "summary matches",
    RetrievalMode.MIX: "scores vector matches and graph paths together; a match inherits from the paths "
    "around it",
    RetrievalMode.NAIVE: "scores the closest entities of the vector index alone; no walk, so no hop depth",
}


class Versions(BaseModel):
    """Versions of the server's parts (None: not installed)."""

    pathrag_gds: str
    python: str
    neo4j_server: str
    neo4j_driver: str | None
    onnxruntime: str | None
    fastapi: str | None
    uvicorn: str | None


class ModelInfo(BaseModel):
    """The embedding model and the path scorer."""

    embedding_model: str
    quantization: str
    scorer: str


class DatabaseInfo(BaseModel):
    """The database the server reads."""

    name: str
    vector_index: str
    index_state: str | None


class OpenLoad(BaseModel):
    """A load of the community that has not completed (readers do not see what it wrote)."""

    id: str
    started: str | None
    idle_s: float | None
    entities_written: int
    relationships_written: int


class CommunityInfo(BaseModel):
    """A community the caller may query."""

    id: str
    size: int | None = Field(description="entities in it")
    ontology_id: str | None
    state: Literal["ready", "loading", "interrupted"]
    complete: bool = Field(description="readers have a complete version to read")
    version: str | None = Field(description="its last complete load")
    loaded_at: str | None
    open_load: OpenLoad | None


class GraphCounts(BaseModel):
    """What the graph holds (a scoped token: its communities only; relationships then null)."""

    entities: int
    relationships: int | None
    labels: int
    relationship_types: int
    communities: list[CommunityInfo]


class Limits(BaseModel):
    """The server's limits on a request."""

    max_hop_depth: int
    max_top_n: int
    max_seed_n: int
    max_question_chars: int
    max_body_bytes: int
    timeout_s: float
    concurrency: int
    max_queue: int
    max_queue_per_token: int
    session_ttl_s: float
    max_sessions: int
    max_sessions_per_token: int


class QueryDefaults(BaseModel):
    """What a question that names no option runs with (the settings', within the limits)."""

    mode: str = Field(description="one of `modes`")
    hop_depth: int = Field(description="longest path in hops (`PATHRAG_MAX_DEPTH`, at most `max_hop_depth`)")
    top_n: int
    seed_n: int


class ModeInfo(BaseModel):
    """A retrieval mode, what it does and which options it reads."""

    name: str
    description: str
    uses_hop_depth: bool = Field(description="false: `hop_depth` is ignored (no walk)")


class SearchCounts(BaseModel):
    """Searches of this process so far."""

    running: int
    queued: int
    completed: int
    failed: int
    cancelled: int
    rejected: int


class InfoOut(BaseModel):
    """`GET /v1/info`."""

    versions: Versions
    model: ModelInfo
    database: DatabaseInfo
    graph: GraphCounts
    limits: Limits
    defaults: QueryDefaults
    modes: list[ModeInfo]
    searches: SearchCounts | None = Field(None, description="null for a token scoped to communities")
    sessions: int | None = Field(None, description="open sessions; null for a token scoped to communities")


def query_defaults(settings: Settings) -> QueryDefaults:
    """The options of a question that names none (as `requests.resolve` fills them)."""
    hop_depth, top_n, seed_n = default_options(settings, QueryLimits.of(settings))
    return QueryDefaults(mode=RetrievalMode.LOCAL.value, hop_depth=hop_depth, top_n=top_n, seed_n=seed_n)


def mode_infos() -> list[ModeInfo]:
    """Every retrieval mode, in the order messages list them."""
    return [
        ModeInfo(name=m, description=MODE_DESCRIPTIONS[m], uses_hop_depth=m not in NO_HOPS) for m in MODES
    ]
