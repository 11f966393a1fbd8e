"""The local server's life cycle on a private instance (its own home and ports, small memory), with the
HTTP API serving through a stop and a start of it.

One cold server start for both stories: `db start|status|stop` (exit codes: `start` when running ->
0, "already running"; `stop` when nothing runs -> 0, "nothing to stop"; `status` when down -> 2), and
an API server with 8 clients asking while Neo4j stops (503 at once) and starts again (it recovers by
itself). The jars are linked from the main home (`.neo4j/lib`, `.neo4j/plugins`), never fetched again;
the shared server is never touched. Prints the restart figures (run with -s; docs/http-api.md).
"""

from __future__ import annotations

import collections
import stat
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests
from api_testutil import ServerThread, assert_error
from pathrag_testutil import private_server_env, run_cli

from pathrag_gds import localdb
from pathrag_gds.api import create_app
from pathrag_gds.api.app import app_state
from pathrag_gds.config import ROOT_DIR, Settings

pytestmark = [pytest.mark.integration, pytest.mark.slow]

COMMUNITY = "DefaultCommunity_FictionalStories"
QUESTION = "Who owns Bob the Cat?"


def java_pids_of(home: Path) -> list[int]:
    """Pids of every process whose command line names this home (no java may be left behind)."""
    found = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            cmd = (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            state = (proc / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if f"--home-dir={home}" in cmd and state != "Z":
            found.append(int(proc.name))
    return found


@pytest.fixture
def env(tmp_path: Path) -> Iterator[dict[str, str]]:
    e = private_server_env(tmp_path / "home")
    e["PATHRAG_PAGECACHE"] = "128m"  # the cold searches after the restart read the demo graph from disk
    yield e
    cli(e, "db", "stop")  # never leave a server behind, whatever failed


def cli(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return run_cli(*args, env=env)


class Clients:
    """`n` threads asking `body` in a loop, recording (start, seconds, status) of every request."""

    def __init__(self, srv: ServerThread, body: dict[str, Any], n: int) -> None:
        self.srv, self.body = srv, body
        self.log: list[tuple[float, float, int]] = []
        self.stop = threading.Event()
        self.threads = [threading.Thread(target=self._run, daemon=True) for _ in range(n)]

    def _run(self) -> None:
        session = requests.Session()
        while not self.stop.is_set():
            t0 = time.monotonic()
            try:
                status = session.post(self.srv.url + "/v1/query", json=self.body, timeout=150).status_code
            except requests.RequestException:
                status = -1
            self.log.append((t0, time.monotonic() - t0, status))
            if status == 503:
                time.sleep(0.05)

    def __enter__(self) -> Clients:
        for t in self.threads:
            t.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        for t in self.threads:
            t.join(90)


def _start_twice_and_status(env: dict[str, str]) -> int:
    """`db start`, again (already running), `status`: the pid of the one server."""
    home = Path(env["PATHRAG_NEO4J_HOME"]).resolve()
    first = cli(env, "db", "start")
    assert first.returncode == 0, first.stdout + first.stderr
    assert f"is up at bolt://127.0.0.1:{env['PATHRAG_BOLT_PORT']}" in first.stdout
    # jars shared with the main home, not downloaded again
    if (ROOT_DIR / ".neo4j").resolve() != home and localdb.Paths(localdb.DEFAULT_HOME).installed():
        assert (home / "lib").is_symlink() and (home / "plugins").is_symlink()
        assert "fetching" not in first.stdout
    assert stat.S_IMODE((home / "password").stat().st_mode) == 0o600
    pid = localdb.running_pid(Settings.from_env(env))
    assert pid is not None and java_pids_of(home) == [pid]

    second = cli(env, "db", "start")
    assert second.returncode == 0, second.stderr
    assert "already running" in second.stdout and str(pid) in second.stdout

    status = cli(env, "db", "status")
    assert status.returncode == 0, status.stderr
    for line in ("Neo4j 5.26.", "APOC  5.26.", "GDS   2.13."):
        assert line in status.stdout
    assert f"pid {pid}" in status.stdout
    return pid


def _stop(env: dict[str, str], pid: int) -> None:
    """`db stop`: no java left, no pid file."""
    home = Path(env["PATHRAG_NEO4J_HOME"]).resolve()
    stopped = cli(env, "db", "stop")
    assert stopped.returncode == 0, stopped.stderr
    assert f"Neo4j (pid {pid}) stopped" in stopped.stdout
    assert java_pids_of(home) == []
    assert not (home / "run" / "neo4j.pid").exists()


def _stop_again_and_status(env: dict[str, str]) -> None:
    """`db stop` when nothing runs (0, nothing to stop), `status` (down: exit 2, says `db start`)."""
    again = cli(env, "db", "stop")
    assert again.returncode == 0, again.stderr
    assert "nothing to stop" in again.stdout
    down = cli(env, "db", "status")
    uri = f"bolt://127.0.0.1:{env['PATHRAG_BOLT_PORT']}"
    assert down.returncode == 2 and uri in down.stderr and "db start" in down.stderr


def test_start_stop_status_and_the_api_through_a_restart(env: dict[str, str]) -> None:
    port = env["PATHRAG_BOLT_PORT"]
    settings = Settings.from_env(env)
    assert settings.neo4j_uri == f"bolt://127.0.0.1:{port}" and not settings.external_db
    pid = _start_twice_and_status(env)
    loaded = cli(env, "load", "demo")
    assert loaded.returncode == 0, loaded.stdout + loaded.stderr
    # a cold Neo4j on a loaded 2-core machine answered its first searches after a restart in
    # 11-30 s (measured): a time limit past that, so the test is about 503s, not 504s
    app = create_app(settings.model_copy(update={"api_timeout_s": 120.0}))
    with ServerThread(app) as srv:
        body = {"question": QUESTION, "community_id": COMMUNITY, "hop_depth": 1, "seed_n": 5}
        r = srv.post("/v1/query", body, headers={})
        assert r.status_code == 200 and r.json()["paths"], r.text
        with Clients(srv, body, 8) as clients:
            time.sleep(5)
            t_stop = time.monotonic()
            _stop(env, pid)
            t_stopped = time.monotonic()
            r = srv.post("/v1/query", body, headers={})
            assert_error(r, 503, "database_unavailable", port)
            assert srv.get("/readyz", headers={}).status_code == 503
            _stop_again_and_status(env)
            time.sleep(2)
            t_start = time.monotonic()
            started = cli(env, "db", "start")
            assert started.returncode == 0, started.stdout + started.stderr
            t_started = time.monotonic()
            deadline = time.monotonic() + 300
            while True:
                r = requests.post(srv.url + "/v1/query", json=body, timeout=150)
                if r.status_code == 200:
                    break
                assert r.status_code == 503 and time.monotonic() < deadline, r.text
                time.sleep(0.5)
            t_back = time.monotonic()
            time.sleep(3)
        log = clients.log
        assert r.json()["paths"]
        assert srv.get("/readyz", headers={}).status_code == 200
    t_trip, t_clear = app_state(app).gate.last_trip_at, app_state(app).gate.last_clear_at
    statuses = collections.Counter(st for _, _, st in log)
    unavailable = sorted(sec for _, sec, st in log if st == 503)
    median = unavailable[len(unavailable) // 2] if unavailable else 0.0
    # requests that began while the server knew Neo4j was down (until its probe saw it back);
    # one sent in the last half second may reach the gate after the probe cleared it, and then
    # rightly runs a (cold) search: clean-clone CI saw one such take 19.9 s
    after = [sec for t0, sec, _ in log if t_trip <= t0 < t_clear - 0.5]
    # requests in flight when it learnt it: how long past that moment they waited
    in_flight = [t0 + sec - t_trip for t0, sec, _ in log if t0 < t_trip < t0 + sec]
    print(
        f"\nneo4j restart under 8 clients: {len(log)} requests, statuses {dict(statuses)}; "
        f"`db stop` took {t_stopped - t_stop:.1f} s, `db start` {t_started - t_start:.1f} s; "
        f"server knew Neo4j was down {t_trip - t_stop:.1f} s after `db stop` began "
        f"({t_trip - t_stopped:+.1f} s after it returned); 503s: {len(unavailable)}, median "
        f"{median:.3f} s; requests begun while known down: "
        f"{len(after)}, slowest {max(after, default=0.0):.2f} s; in flight then: {len(in_flight)}, "
        f"answered within {max(in_flight, default=0.0):.2f} s; probe saw Neo4j back "
        f"{t_clear - t_started:+.1f} s after `db start` returned; first 200 "
        f"{t_back - t_started:.1f} s after it"
    )
    assert set(statuses) <= {200, 503}, statuses  # no 500, no 504, no connection error
    assert unavailable and app_state(app).gate.trips >= 1 and t_clear > t_trip
    assert t_trip - t_stopped < 3.0  # noticed at most ~3 s after Neo4j is gone (usually before)
    assert max(after) < 1.0 and median < 0.5  # once known down: 503 at once
    assert max(in_flight, default=0.0) < 1.0  # searches under way answer at once too
