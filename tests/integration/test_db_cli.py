"""`db start|status|stop` on a private server instance (its own home and ports, small memory).

The jars are linked from the main home (`.neo4j/lib`, `.neo4j/plugins`), never fetched again. The shared
server is not touched. Exit codes: `start` when running -> 0 ("already running"); `stop` when nothing
runs -> 0 ("nothing to stop").
"""

from __future__ import annotations

import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from pathrag_testutil import private_server_env

from pathrag_gds import localdb
from pathrag_gds.config import ROOT_DIR, Settings

pytestmark = [pytest.mark.integration, pytest.mark.slow]


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
    yield e
    db(e, "stop")  # never leave a server behind, whatever failed


def db(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pathrag_gds", "db", *args],
        cwd=ROOT_DIR,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def test_start_twice_status_stop_twice(env: dict[str, str]) -> None:
    home = Path(env["PATHRAG_NEO4J_HOME"]).resolve()
    uri = f"bolt://127.0.0.1:{env['PATHRAG_BOLT_PORT']}"

    first = db(env, "start")
    assert first.returncode == 0, first.stdout + first.stderr
    assert f"is up at {uri}" in first.stdout
    # jars shared with the main home, not downloaded again
    if (ROOT_DIR / ".neo4j").resolve() != home and localdb.Paths(localdb.DEFAULT_HOME).installed():
        assert (home / "lib").is_symlink() and (home / "plugins").is_symlink()
        assert "fetching" not in first.stdout
    pw = home / "password"
    assert stat.S_IMODE(pw.stat().st_mode) == 0o600
    settings = Settings.from_env(env)
    pid = localdb.running_pid(settings)
    assert pid is not None and java_pids_of(home) == [pid]

    second = db(env, "start")
    assert second.returncode == 0, second.stderr
    assert "already running" in second.stdout and str(pid) in second.stdout

    status = db(env, "status")
    assert status.returncode == 0, status.stderr
    for line in ("Neo4j 5.26.", "APOC  5.26.", "GDS   2.13."):
        assert line in status.stdout
    assert f"pid {pid}" in status.stdout

    stopped = db(env, "stop")
    assert stopped.returncode == 0, stopped.stderr
    assert f"Neo4j (pid {pid}) stopped" in stopped.stdout
    assert java_pids_of(home) == []
    assert not (home / "run" / "neo4j.pid").exists()

    again = db(env, "stop")
    assert again.returncode == 0, again.stderr
    assert "nothing to stop" in again.stdout

    down = db(env, "status")
    assert down.returncode == 2 and uri in down.stderr and "db start" in down.stderr
