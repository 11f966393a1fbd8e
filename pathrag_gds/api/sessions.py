"""Sessions: defaults for a client's queries (mode, hop_depth, community), with a time to live.

Stored in SQLite: in memory for one worker, or in a file shared by `serve --workers N`. A session
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

from pathrag_gds.api.errors import ApiError
from pathrag_gds.api.requests import Effective, SessionOut

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


class SessionStore:
    """Sessions with a sliding time to live.

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

    def not_found(self, sid: str) -> ApiError:
        """The 404 of an unknown or expired session."""
        shown = sid if len(sid) <= 40 else sid[:40] + "..."
        return ApiError(
            404,
            "session_not_found",
            f"session {shown!r} does not exist or has expired (sessions live {self.ttl:g} s after their "
            "last use): create a new one with POST /v1/sessions",
        )

    def close(self) -> None:
        """Close the database."""
        with self._lock:
            self._db.close()
