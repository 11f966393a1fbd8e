"""Fail fast while Neo4j is down.

Once a request finds the database unreachable, :class:`DatabaseGate` answers every later request
with 503 at once (no driver retries, no search slot held) until a background probe, every
`interval_s` seconds, reaches Neo4j again.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

from neo4j.exceptions import ServiceUnavailable, SessionExpired, TransientError

from pathrag_gds.errors import DatabaseUnavailable

log = logging.getLogger(__name__)


def database_down(exc: BaseException) -> DatabaseUnavailable | None:
    """The `DatabaseUnavailable` an exception means (driver errors included), or None."""
    if isinstance(exc, DatabaseUnavailable):
        return exc
    if isinstance(exc, (ServiceUnavailable, SessionExpired)) or (
        isinstance(exc, TransientError) and "DatabaseUnavailable" in (exc.code or "")
    ):
        return DatabaseUnavailable(
            f"Neo4j is not available ({type(exc).__name__}): retry in a few seconds; if it persists, "
            "check that the Neo4j server is up"
        )
    return None


class DatabaseGate:
    """Remembers that Neo4j is down and probes it in the background until it is back.

    Args:
        probe: raises when the database cannot be reached (e.g. `Graph.verify`).
        interval_s: seconds between probes while the database is down.
    """

    def __init__(self, probe: Callable[[], None], interval_s: float = 1.0) -> None:
        self._probe = probe
        self.interval_s = interval_s
        self._lock = threading.Lock()
        self._down: DatabaseUnavailable | None = None
        self._since = 0.0
        self._stop = threading.Event()
        self.trips = 0

    @property
    def is_down(self) -> bool:
        """True while the database is known to be unreachable."""
        return self._down is not None

    def check(self) -> None:
        """Raise at once while the database is known to be down.

        Raises:
            DatabaseUnavailable: the last failure's message, and when the server checks again.
        """
        down = self._down
        if down is not None:
            raise DatabaseUnavailable(
                f"{down} (down for {time.monotonic() - self._since:.0f} s; the server answers 503 at once "
                f"and checks Neo4j every {self.interval_s:g} s)"
            )

    def trip(self, exc: DatabaseUnavailable) -> None:
        """Mark the database down (once) and start the background probe."""
        with self._lock:
            if self._down is not None or self._stop.is_set():
                return
            self._down, self._since = exc, time.monotonic()
            self.trips += 1
        log.warning("Neo4j unreachable, answering 503 until it is back: %s", exc)
        threading.Thread(target=self._watch, name="pathrag-db-probe", daemon=True).start()

    def guard(self, exc: BaseException) -> None:
        """Trip when `exc` means the database is down."""
        down = database_down(exc)
        if down is not None:
            self.trip(down)

    def _watch(self) -> None:
        while not self._stop.wait(self.interval_s):
            try:
                self._probe()
            except Exception as exc:  # still down (or another failure): keep probing
                log.debug("Neo4j probe failed: %s", exc)
                continue
            with self._lock:
                self._down = None
            log.warning("Neo4j reachable again: answering requests")
            return

    def close(self) -> None:
        """Stop probing (server shutdown)."""
        self._stop.set()
