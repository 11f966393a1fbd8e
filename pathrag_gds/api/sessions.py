"""Sessions: defaults for a client's queries (mode, hop_depth, community), with a time to live.

Stored in SQLite (:class:`SessionStore`: in memory for one worker, or in a file shared by
`serve --workers N` of one machine) or in the Neo4j database itself (:class:`Neo4jSessionStore`:
shared by every API server on that database, so they can sit behind a load balancer on several
machines); `PATHRAG_API_SESSIONS` chooses. Both keep the same rules: a session
lives `ttl` seconds after its last use; after that it answers 404. A session belongs to the token
that opened it (its owner key): another token gets the same 404 as for an unknown session.

Two limits: each token's own live sessions (so one token cannot lock the others out) and a global
ceiling over all tokens; a 429 says which of the two was reached.
"""

from __future__ import annotations

import secrets
import sqlite3
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from pathrag_gds.api.errors import ApiError
from pathrag_gds.api.requests import Effective, SessionOut
from pathrag_gds.errors import ConfigError

if TYPE_CHECKING:  # pragma: no cover
    from pathrag_gds.config import Settings
    from pathrag_gds.graph import Graph

_SCHEMA = """
CREATE TABLE IF NOT EXISTS sessions (
    id TEXT PRIMARY KEY,
    database_name TEXT NOT NULL,
    mode TEXT NOT NULL,
    hop_depth INTEGER NOT NULL,
    top_n INTEGER NOT NULL,
    seed_n INTEGER NOT NULL,
    community_id TEXT,
    expires_at REAL NOT NULL,
    owner TEXT NOT NULL DEFAULT ''
)
"""
_OWNER_INDEX = "CREATE INDEX IF NOT EXISTS sessions_owner ON sessions (owner)"


class Sessions:
    """What every session store does: create, use (touch), delete and count sessions.

    The limits and the errors are shared here; subclasses store the sessions.
    """

    ttl: float
    max_sessions: int
    max_per_owner: int

    def create(self, database_name: str, options: Effective, owner: str = "") -> SessionOut:
        """Store a new session of `owner` (a token's key) and return it.

        Raises:
            ApiError: 429 when `owner` holds `max_per_owner` live sessions, or all owners together
                `max_sessions`; the message says which.
        """
        raise NotImplementedError

    def touch(self, sid: str, owner: str = "") -> SessionOut:
        """Return a live session of `owner` and extend its life by `ttl`.

        Raises:
            ApiError: 404 when the session does not exist, has expired or is another token's.
        """
        raise NotImplementedError

    def delete(self, sid: str, owner: str = "") -> None:
        """Delete a session of `owner`.

        Raises:
            ApiError: 404 when the session does not exist, has expired or is another token's.
        """
        raise NotImplementedError

    def count(self) -> int:
        """Live sessions."""
        raise NotImplementedError

    def close(self) -> None:
        """Release what the store holds."""

    def _full(self, mine: int, own: bool) -> ApiError:
        """The 429 of a full store: the caller's own limit (`own`) or the server's global one."""
        if own:
            message = (
                f"this token holds its own maximum of {self.max_per_owner} live sessions (the limit of "
                "each token): delete unused ones (DELETE /v1/sessions/{id}) or retry after they expire"
            )
        else:
            message = (
                f"the server holds its global maximum of {self.max_sessions} live sessions, all tokens "
                f"together (this token holds {mine} of them): retry after some expire, or ask the "
                "operator to raise PATHRAG_API_MAX_SESSIONS"
            )
        return ApiError(429, "too_many_sessions", message, {"Retry-After": "60"})

    def _out(self, sid: str, database_name: str, options: Effective, expires: float) -> SessionOut:
        return SessionOut(
            session_id=sid,
            database_name=database_name,
            mode=options.mode,
            hop_depth=options.hop_depth,
            top_n=options.top_n,
            seed_n=options.seed_n,
            community_id=options.community_id,
            ttl_s=self.ttl,
            expires_at=expires,
        )

    def not_found(self, sid: str) -> ApiError:
        """The 404 of an unknown or expired session."""
        shown = sid if len(sid) <= 40 else sid[:40] + "..."
        return ApiError(
            404,
            "session_not_found",
            f"session {shown!r} does not exist or has expired (sessions live {self.ttl:g} s after their "
            "last use): create a new one with POST /v1/sessions",
        )


class SessionStore(Sessions):
    """Sessions in SQLite, with a sliding time to live.

    Args:
        ttl: seconds a session lives after its last use.
        max_sessions: live sessions kept at once, all owners together (more: 429).
        path: SQLite file shared between worker processes; None keeps sessions in memory.
        clock: the time source (seconds); tests may pass their own.
        max_per_owner: live sessions one owner (token) may hold (more: 429); None: `max_sessions`.
    """

    def __init__(
        self,
        ttl: float,
        max_sessions: int,
        path: Path | None = None,
        clock: Callable[[], float] = time.time,
        max_per_owner: int | None = None,
    ) -> None:
        self.ttl = ttl
        self.max_sessions = max_sessions
        self.max_per_owner = max_sessions if max_per_owner is None else max_per_owner
        self._clock = clock
        self._lock = threading.Lock()
        self._db = sqlite3.connect(
            str(path) if path is not None else ":memory:", check_same_thread=False, timeout=10.0
        )
        if path is not None:
            self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute(_SCHEMA)
        columns = {row[1] for row in self._db.execute("PRAGMA table_info(sessions)")}
        if "owner" not in columns:  # a file written before sessions had owners
            self._db.execute("ALTER TABLE sessions ADD COLUMN owner TEXT NOT NULL DEFAULT ''")
        self._db.execute(_OWNER_INDEX)
        self._db.commit()

    def _purge(self, now: float) -> None:
        self._db.execute("DELETE FROM sessions WHERE expires_at <= ?", (now,))

    def create(self, database_name: str, options: Effective, owner: str = "") -> SessionOut:
        """Store a new session of `owner` (a token's key) and return it.

        Raises:
            ApiError: 429 when `owner` holds `max_per_owner` live sessions, or all owners together
                `max_sessions`; the message says which.
        """
        sid = secrets.token_urlsafe(18)
        with self._lock:
            now = self._clock()
            self._purge(now)
            (mine,) = self._db.execute("SELECT count(*) FROM sessions WHERE owner = ?", (owner,)).fetchone()
            (count,) = self._db.execute("SELECT count(*) FROM sessions").fetchone()
            if mine >= self.max_per_owner or count >= self.max_sessions:
                self._db.commit()
                raise self._full(mine, own=mine >= self.max_per_owner)
            expires = now + self.ttl
            self._db.execute(
                "INSERT INTO sessions (id, database_name, mode, hop_depth, top_n, seed_n, community_id, "
                "expires_at, owner) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    sid,
                    database_name,
                    options.mode,
                    options.hop_depth,
                    options.top_n,
                    options.seed_n,
                    options.community_id,
                    expires,
                    owner,
                ),
            )
            self._db.commit()
        return self._out(sid, database_name, options, expires)

    def touch(self, sid: str, owner: str = "") -> SessionOut:
        """Return a live session of `owner` and extend its life by `ttl`.

        Raises:
            ApiError: 404 when the session does not exist, has expired or is another token's.
        """
        with self._lock:
            now = self._clock()
            row = self._db.execute(
                "SELECT database_name, mode, hop_depth, top_n, seed_n, community_id, expires_at "
                "FROM sessions WHERE id = ? AND owner = ?",
                (sid, owner),
            ).fetchone()
            if row is None or row[6] <= now:
                if row is not None:
                    self._db.execute("DELETE FROM sessions WHERE id = ?", (sid,))
                    self._db.commit()
                raise self.not_found(sid)
            expires = now + self.ttl
            self._db.execute("UPDATE sessions SET expires_at = ? WHERE id = ?", (expires, sid))
            self._db.commit()
        opts = Effective(mode=row[1], hop_depth=row[2], top_n=row[3], seed_n=row[4], community_id=row[5])
        return self._out(sid, row[0], opts, expires)

    def delete(self, sid: str, owner: str = "") -> None:
        """Delete a session of `owner`.

        Raises:
            ApiError: 404 when the session does not exist, has expired or is another token's.
        """
        with self._lock:
            now = self._clock()
            cur = self._db.execute(
                "DELETE FROM sessions WHERE id = ? AND owner = ? AND expires_at > ?", (sid, owner, now)
            )
            self._purge(now)
            self._db.commit()
        if cur.rowcount == 0:
            raise self.not_found(sid)

    def count(self) -> int:
        """Live sessions."""
        with self._lock:
            self._purge(self._clock())
            self._db.commit()
            (n,) = self._db.execute("SELECT count(*) FROM sessions").fetchone()
        return int(n)

    def close(self) -> None:
        """Close the database."""
        with self._lock:
            self._db.close()


#: The statements that create the Neo4j store's constraints and index (idempotent).
NEO4J_SCHEMA = ("schema_api_session_id", "schema_api_session_scope", "schema_api_session_scope_index")


class Neo4jSessionStore(Sessions):
    """Sessions in the Neo4j database, as `(:PathragApiSession {id, owner, ..., expires_at})` nodes.

    Every API server on the database answers every session, so servers need no shared memory or
    file. A create counts and writes in one transaction that first locks the scope's lock node, so
    two servers creating at once still keep the limits. Expiry uses this process's clock: servers
    behind one load balancer must keep their clocks in step (NTP), as for any shared TTL.

    Args:
        graph: the database connection, or a function returning it (called at first use, so an API
            server starts while Neo4j is down; the constraints are created then, idempotently).
        ttl, max_sessions, clock, max_per_owner: as :class:`SessionStore`.
        scope: a name that sessions of this store share; stores of other scopes on the same database
            neither see nor count them (tests use their own).
    """

    def __init__(
        self,
        graph: Graph | Callable[[], Graph],
        ttl: float,
        max_sessions: int,
        clock: Callable[[], float] = time.time,
        max_per_owner: int | None = None,
        scope: str = "",
    ) -> None:
        self._graph = graph
        self._ready: Graph | None = None
        self._lock = threading.Lock()
        self.ttl = ttl
        self.max_sessions = max_sessions
        self.max_per_owner = max_sessions if max_per_owner is None else max_per_owner
        self.scope = scope
        self._clock = clock

    @property
    def graph(self) -> Graph:
        """The connection, its session constraints created on first use."""
        if self._ready is None:
            with self._lock:
                if self._ready is None:
                    from pathrag_gds.graph import Graph

                    graph = self._graph if isinstance(self._graph, Graph) else self._graph()
                    for name in NEO4J_SCHEMA:
                        graph.schema_command(name)
                    self._ready = graph
        return self._ready

    def create(self, database_name: str, options: Effective, owner: str = "") -> SessionOut:
        """Store a new session of `owner`, as :meth:`Sessions.create` (429 when full)."""
        sid = secrets.token_urlsafe(18)
        now = self._clock()
        expires = now + self.ttl
        scope = {"scope": self.scope, "now": now}
        row = {
            **scope,
            "id": sid,
            "owner": owner,
            "database_name": database_name,
            "mode": options.mode,
            "hop_depth": options.hop_depth,
            "top_n": options.top_n,
            "seed_n": options.seed_n,
            "community_id": options.community_id,
            "expires_at": expires,
            "max_per_owner": self.max_per_owner,
            "max_sessions": self.max_sessions,
        }
        steps = [("api_session_lock", scope), ("api_session_purge", scope), ("api_session_create", row)]
        counts = self.graph.write_steps(steps)[-1][0]
        mine, total = int(counts["mine"]), int(counts["total"])
        if mine >= self.max_per_owner or total >= self.max_sessions:
            raise self._full(mine, own=mine >= self.max_per_owner)
        return self._out(sid, database_name, options, expires)

    def touch(self, sid: str, owner: str = "") -> SessionOut:
        """A live session of `owner`, its life extended, as :meth:`Sessions.touch` (404 if none)."""
        now = self._clock()
        rows = self.graph.write(
            "api_session_touch", id=sid, owner=owner, scope=self.scope, now=now, expires_at=now + self.ttl
        )
        if not rows:
            self.graph.write("api_session_drop_expired", id=sid, scope=self.scope, now=now)
            raise self.not_found(sid)
        r = rows[0]
        opts = Effective(
            mode=r["mode"],
            hop_depth=r["hop_depth"],
            top_n=r["top_n"],
            seed_n=r["seed_n"],
            community_id=r["community_id"],
        )
        return self._out(sid, r["database_name"], opts, float(r["expires_at"]))

    def delete(self, sid: str, owner: str = "") -> None:
        """Delete a session of `owner`, as :meth:`Sessions.delete` (404 if none)."""
        now = self._clock()
        scope = {"scope": self.scope, "now": now}
        steps = [("api_session_delete", {**scope, "id": sid, "owner": owner}), ("api_session_purge", scope)]
        if not self.graph.write_steps(steps)[0][0]["deleted"]:
            raise self.not_found(sid)

    def count(self) -> int:
        """Live sessions of this scope."""
        rows = self.graph.read("api_session_count", scope=self.scope, now=self._clock())
        return int(rows[0]["sessions"])

    def clear(self) -> None:
        """Delete every session of this store's scope and its lock node."""
        self.graph.write("api_session_clear", scope=self.scope)


def session_store(settings: Settings, graph: Callable[[], Graph], max_per_owner: int) -> Sessions:
    """The session store `PATHRAG_API_SESSIONS` chooses.

    Unset: a SQLite file when `PATHRAG_API_SESSIONS_PATH` is set, else SQLite in memory.

    Args:
        settings: the API's settings.
        graph: returns the database connection (called for the neo4j store only).
        max_per_owner: live sessions one token may hold.

    Raises:
        ConfigError: `sqlite` without `PATHRAG_API_SESSIONS_PATH`.
    """
    kind = settings.api_sessions or ("sqlite" if settings.api_sessions_path is not None else "memory")
    ttl, most = settings.api_session_ttl_s, settings.api_max_sessions
    if kind == "neo4j":
        return Neo4jSessionStore(
            graph, ttl, most, max_per_owner=max_per_owner, scope=settings.api_sessions_scope
        )
    if kind == "sqlite" and settings.api_sessions_path is None:
        raise ConfigError(
            "PATHRAG_API_SESSIONS=sqlite needs a file: set PATHRAG_API_SESSIONS_PATH (e.g. "
            "/var/lib/pathrag/sessions.sqlite), or use PATHRAG_API_SESSIONS=memory or neo4j"
        )
    path = settings.api_sessions_path if kind == "sqlite" else None
    return SessionStore(ttl, most, path, max_per_owner=max_per_owner)
