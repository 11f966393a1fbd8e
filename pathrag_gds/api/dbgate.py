"""Fail fast while Neo4j is down.

Once a request or the background probe finds the database unreachable, :class:`DatabaseGate`
makes every later request, and every request still waiting for its search, answer 503 at once (no
driver retries, no wait for a search stuck in the driver) until the probe, every `interval_s`
seconds, reaches Neo4j again.
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
    """Knows whether Neo4j is down, from failed requests and from a background probe.

    The probe runs every `up_interval_s` while the database is up (so a stop is noticed even
    before a request fails) and every `interval_s` while it is down (so its return is noticed).

    Args:
        probe: raises when the database cannot be reached (e.g. `Graph.verify`).
        interval_s: seconds between probes while the database is down.
        up_interval_s: seconds between probes while it is up (after :meth:`start`).
        probe_timeout_s: a probe that takes longer counts as a failure (a Neo4j that hangs, e.g.
            while it shuts down, is down).
        target: how messages name the database (the API passes `Neo4j at <NEO4J_URI>`).
    """

    def __init__(
        self,
        probe: Callable[[], None],
        interval_s: float = 1.0,
        up_interval_s: float = 1.0,
        probe_timeout_s: float = 2.0,
        target: str = "Neo4j",
    ) -> None:
        self._probe = probe
        self.target = target
        self.interval_s = interval_s
        self.up_interval_s = up_interval_s
        self.probe_timeout_s = probe_timeout_s
        self._pending: threading.Thread | None = None
        self._outcome: list[BaseException | None] = []
        self._lock = threading.Lock()
        self._down: DatabaseUnavailable | None = None
        self._since = 0.0
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.trips = 0
        #: time.monotonic() of the last trip and of the last return (0: never)
        self.last_trip_at = 0.0
        self.last_clear_at = 0.0

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

    def start(self) -> None:
        """Probe in the background from now on (server start-up)."""
        with self._lock:
            self._start_locked()

    def _start_locked(self) -> None:
        if (self._thread is None or not self._thread.is_alive()) and not self._stop.is_set():
            self._thread = threading.Thread(target=self._watch, name="pathrag-db-probe", daemon=True)
            self._thread.start()

    def trip(self, exc: DatabaseUnavailable) -> None:
        """Mark the database down (once) and make sure the probe runs."""
        with self._lock:
            if self._down is not None or self._stop.is_set():
                return
            self._down, self._since = exc, time.monotonic()
            self.trips += 1
            self.last_trip_at = self._since
            self._start_locked()
        log.warning("Neo4j unreachable, answering 503 until it is back: %s", exc)

    def guard(self, exc: BaseException) -> None:
        """Trip when `exc` means the database is down."""
        down = database_down(exc)
        if down is not None:
            self.trip(down)

    def _probe_once(self) -> None:
        """Run the probe, at most `probe_timeout_s`: a Neo4j that does not answer counts as down.

        A probe still blocked from an earlier round is not doubled; the round fails at once.
        """
        if self._pending is None or not self._pending.is_alive():
            outcome: list[BaseException | None] = []

            def run() -> None:
                try:
                    self._probe()
                    outcome.append(None)
                except BaseException as exc:
                    outcome.append(exc)

            self._outcome = outcome
            self._pending = threading.Thread(target=run, name="pathrag-db-probe-call", daemon=True)
            self._pending.start()
            self._pending.join(self.probe_timeout_s)
        if self._outcome:
            failure = self._outcome[0]
            if failure is not None:
                raise failure
            return
        raise DatabaseUnavailable(
            f"{self.target} did not answer `RETURN 1` within {self.probe_timeout_s:g} s (stopping, "
            "overloaded or unreachable): retry in a few seconds; if it persists, check the Neo4j server "
            "and its log"
        )

    def _watch(self) -> None:
        while not self._stop.wait(self.interval_s if self.is_down else self.up_interval_s):
            try:
                self._probe_once()
            except Exception as exc:  # down (or another failure): keep probing
                log.debug("Neo4j probe failed: %s", exc)
                self.guard(exc)
                continue
            if self.is_down:
                with self._lock:
                    self._down = None
                    self.last_clear_at = time.monotonic()
                log.warning("Neo4j reachable again: answering requests")

    def close(self) -> None:
        """Stop probing (server shutdown)."""
        self._stop.set()
