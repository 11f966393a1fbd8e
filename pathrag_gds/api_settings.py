"""Settings of the HTTP API (`python -m pathrag_gds serve`): tokens, limits, sessions.

One group of :class:`pathrag_gds.config.Settings` (its variables `PATHRAG_API_*`), in a module of
its own as the retrieval modes' are (`mode_settings`); docs/settings.md lists them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


class ApiSettings(BaseModel):
    """The HTTP API (`python -m pathrag_gds serve`): tokens and limits."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    #: Bearer token clients must send (`Authorization: Bearer ...`); required to listen beyond loopback.
    api_token: str | None = None
    #: JSON/YAML file mapping bearer tokens to the communities they may query (`"*"`: all), read at start.
    api_tokens_file: Path | None = None
    #: Longest path (hops) a client may ask for with `hop_depth`.
    api_max_hop_depth: int = Field(6, ge=1, le=10)
    #: Largest `top_n` / `seed_n` a client may ask for.
    api_max_top_n: int = Field(50, ge=1, le=100)
    api_max_seed_n: int = Field(100, ge=1, le=500)
    #: Longest question, in characters.
    api_max_question_chars: int = Field(1000, ge=1, le=2000)
    #: Largest request body, in bytes (larger ones get 413).
    api_max_body_bytes: int = Field(16384, ge=256, le=1048576)
    #: Seconds one request may take, queueing included (past it: 504).
    api_timeout_s: float = Field(30.0, gt=0, le=600)
    #: Searches run at once (the rest queue within their time limit); 0 = the number of CPU cores.
    api_max_concurrency: int = Field(0, ge=0, le=64)
    #: Searches waiting for a slot before new ones get 429 (server busy).
    api_max_queue: int = Field(64, ge=1, le=10000)
    #: Searches one token may keep waiting (more get 429); 0 = an equal share of `api_max_queue`
    #: among the server's tokens, so that a token flooding the queue cannot fill another's share.
    api_max_queue_per_token: int = Field(0, ge=0, le=10000)
    #: Seconds a session lives after its last use.
    api_session_ttl_s: float = Field(1800.0, gt=0)
    #: Sessions kept at once, all tokens together (more get 429): the server's global ceiling.
    api_max_sessions: int = Field(1000, ge=1, le=1000000)
    #: Sessions one token may hold at once (more get 429); 0 = an equal share of `api_max_sessions`
    #: among the server's tokens, so that no token can take another's share.
    api_max_sessions_per_token: int = Field(0, ge=0, le=1000000)
    #: Where API sessions live: `memory` (SQLite in memory, one process), `sqlite` (the file
    #: `PATHRAG_API_SESSIONS_PATH`, shared by the workers of one machine) or `neo4j` (the database
    #: itself, shared by every API server on it, e.g. several machines behind a load balancer);
    #: unset = `sqlite` when `PATHRAG_API_SESSIONS_PATH` is set, else `memory`.
    api_sessions: Literal["memory", "sqlite", "neo4j"] | None = None
    #: With `PATHRAG_API_SESSIONS=neo4j`: the name the servers' sessions share; API servers of
    #: another scope on the same database neither see nor count them (e.g. staging beside production).
    api_sessions_scope: str = ""
    #: SQLite file that holds sessions, shared by `serve --workers N`; unset = in memory (one worker).
    api_sessions_path: Path | None = None
    #: Seconds the HTTP API lets the driver retry a transaction when Neo4j is unreachable (then 503).
    api_db_retry_s: float = Field(2.0, ge=0, le=300)
    #: Seconds a client has to send a whole request (headers and body) once it connects or its previous
    #: answer ends; slower ones are cut off (408).
    api_read_timeout_s: float = Field(10.0, gt=0, le=600)
    #: Seconds an idle keep-alive connection stays open.
    api_keepalive_s: float = Field(5.0, gt=0, le=600)
    #: Largest request line plus headers, in bytes (larger: 431).
    api_max_header_bytes: int = Field(16384, ge=1024, le=1048576)
