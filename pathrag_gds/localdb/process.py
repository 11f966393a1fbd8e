"""The local server's process: start (and wait until Bolt answers), stop, and which pid runs a home."""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

from neo4j.exceptions import AuthError, Neo4jError

from pathrag_gds.config import Settings
from pathrag_gds.errors import DatabaseUnavailable, LocalServerError
from pathrag_gds.graph import Graph
from pathrag_gds.localdb.conf import ensure_password, env_for_java, java_command, write_config
from pathrag_gds.localdb.home import MAIN_CLASS, Paths, Printer
from pathrag_gds.localdb.java import ensure_installed, find_java


def _cmdline(pid: int) -> str:
    proc = Path(f"/proc/{pid}/cmdline")
    if proc.exists():
        try:
            return proc.read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            return ""
    cmd = ["ps", "-p", str(pid), "-o", "command="]
    out = subprocess.run(cmd, capture_output=True, text=True, check=False)
    return out.stdout


def _alive(pid: int) -> bool:
    """True when the process exists and is not a zombie (reaping it when it is our child)."""
    with contextlib.suppress(ChildProcessError, OSError):
        done, _ = os.waitpid(pid, os.WNOHANG)
        if done == pid:
            return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    stat = Path(f"/proc/{pid}/stat")
    with contextlib.suppress(OSError, IndexError):
        if stat.read_text().rsplit(")", 1)[1].split()[0] == "Z":
            return False
    return True


def running_pid(settings: Settings) -> int | None:
    """The pid of this home's server when it runs (a stale pid file is removed), else None."""
    paths = Paths(settings.neo4j_home)
    try:
        pid = int(paths.pid_file.read_text().strip())
    except (OSError, ValueError):
        return None
    home = str(settings.neo4j_home.resolve())
    if _alive(pid) and MAIN_CLASS in (cmd := _cmdline(pid)) and f"--home-dir={home}" in cmd:
        return pid
    with contextlib.suppress(OSError):
        paths.pid_file.unlink()
    return None


@contextlib.contextmanager
def _home_lock(settings: Settings) -> Iterator[None]:
    """Serialise start/stop of one home across processes (two test sessions starting at once)."""
    paths = Paths(settings.neo4j_home)
    paths.run.mkdir(parents=True, exist_ok=True)
    with open(paths.run / "lock", "w") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def _check_port(port: int, what: str, setting: str) -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind(("127.0.0.1", port))
        except OSError as exc:
            if exc.errno in (errno.EADDRINUSE, errno.EACCES):
                raise LocalServerError(
                    f"port {port} on 127.0.0.1 ({what}) is already in use by another process: stop it, or "
                    f"set {setting} to a free port (or NEO4J_URI to use a server that already runs)"
                ) from exc
            raise


def log_tail(settings: Settings, lines: int = 25) -> str:
    """The last lines of logs/neo4j.log and logs/debug.log, for error messages."""
    paths = Paths(settings.neo4j_home)
    parts = []
    for name in ("neo4j.log", "debug.log"):
        f = paths.logs / name
        if f.is_file():
            tail = f.read_text(encoding="utf-8", errors="replace").splitlines()[-lines:]
            parts.append(f"--- {f} (last {len(tail)} lines)\n" + "\n".join(tail))
    return "\n".join(parts) or f"(no logs in {paths.logs})"


def _ping(settings: Settings) -> None:
    """One `RETURN 1` (Graph.verify checks connectivity first, so a closed port fails at once)."""
    Graph.connect(settings).close()


def wait_ready(settings: Settings, pid: int, timeout: float) -> None:
    """Wait until Bolt answers `RETURN 1` (or the process dies, or `timeout` seconds pass).

    Raises:
        LocalServerError: the server died, refused the password, or did not answer in time.
    """
    deadline = time.monotonic() + timeout
    last: Exception | None = None
    while time.monotonic() < deadline:
        if not _alive(pid):
            raise LocalServerError(
                f"Neo4j exited during start-up; see {Paths(settings.neo4j_home).logs}:\n{log_tail(settings)}"
            )
        try:
            _ping(settings)
            return
        except DatabaseUnavailable as exc:
            if isinstance(exc.__cause__, AuthError):
                raise LocalServerError(
                    f"the local Neo4j refused the password of user {settings.neo4j_user!r}: set "
                    "NEO4J_PASSWORD to the one it was first started with (or remove it to use "
                    f"{Paths(settings.neo4j_home).password_file})"
                ) from exc
            last = exc
        except (Neo4jError, OSError) as exc:  # e.g. database still starting
            last = exc
        time.sleep(0.5)
    raise LocalServerError(
        f"Neo4j did not answer on {settings.neo4j_uri} within {timeout:.0f} s ({type(last).__name__}); raise "
        f"PATHRAG_NEO4J_START_TIMEOUT or read the logs:\n{log_tail(settings)}"
    )


def start(settings: Settings, out: Printer = print) -> int:
    """Start the local server (installing its jars first if needed) and wait until Bolt answers.

    Returns:
        The pid of the server (also when it was running already), or 0 when `NEO4J_URI` is set.

    Raises:
        LocalServerError: Java or Maven missing, port taken, start-up failed or timed out.
    """
    if settings.external_db:
        out(f"NEO4J_URI is set ({settings.neo4j_uri}): using that server, nothing to start")
        return 0
    with _home_lock(settings):
        pid = running_pid(settings)
        if pid is not None:
            wait_ready(settings, pid, settings.neo4j_start_timeout)
            out(f"Neo4j is already running at {settings.neo4j_uri} (pid {pid}, home {settings.neo4j_home})")
            return pid
        _check_port(settings.bolt_port, "Bolt", "PATHRAG_BOLT_PORT")
        if settings.http_port:
            _check_port(settings.http_port, "HTTP", "PATHRAG_HTTP_PORT (0 disables HTTP)")
        java, _ = find_java()
        ensure_installed(settings, out)
        write_config(settings)
        ensure_password(settings, java)
        paths = Paths(settings.neo4j_home)
        t0 = time.monotonic()
        with open(paths.logs / "neo4j.log", "ab") as log:
            proc = subprocess.Popen(
                java_command(settings, java),
                cwd=paths.home,
                env=env_for_java(settings),
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # survives the CLI; stop() signals it by pid
            )
        paths.pid_file.write_text(f"{proc.pid}\n")
        try:
            wait_ready(settings, proc.pid, settings.neo4j_start_timeout)
        except LocalServerError:
            _terminate(proc.pid, 20.0)
            with contextlib.suppress(OSError):
                paths.pid_file.unlink()
            raise
        version = neo4j_version(settings)
        out(
            f"Neo4j {version} is up at {settings.neo4j_uri} (pid {proc.pid}, home {paths.home}, "
            f"{time.monotonic() - t0:.1f} s)"
        )
        proc.returncode = 0  # detached on purpose: do not warn that it still runs when this process exits
        return proc.pid


def _terminate(pid: int, timeout: float) -> bool:
    """SIGTERM, wait up to `timeout` s, then SIGKILL. Returns True when SIGKILL was needed."""
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not _alive(pid):
            return False
        time.sleep(0.2)
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGKILL)
    deadline = time.monotonic() + 30
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    return True


def stop(settings: Settings, out: Printer = print) -> bool:
    """Stop the local server: SIGTERM, wait `neo4j_stop_timeout` s, then SIGKILL.

    Returns:
        True when a server was stopped, False when none was running (or `NEO4J_URI` is set).
    """
    if settings.external_db:
        out(f"NEO4J_URI is set ({settings.neo4j_uri}): that server is not managed here, nothing to stop")
        return False
    with _home_lock(settings):
        pid = running_pid(settings)
        if pid is None:
            out(f"the local Neo4j is not running (home {settings.neo4j_home}): nothing to stop")
            return False
        t0 = time.monotonic()
        killed = _terminate(pid, settings.neo4j_stop_timeout)
        with contextlib.suppress(OSError):
            Paths(settings.neo4j_home).pid_file.unlink()
        how = f"killed after {settings.neo4j_stop_timeout:.0f} s" if killed else "stopped"
        out(f"Neo4j (pid {pid}) {how} in {time.monotonic() - t0:.1f} s")
        return True


def neo4j_version(settings: Settings) -> str:
    """The version of the Neo4j that answers at the configured URI."""
    with Graph.connect(settings) as graph:
        rows = graph.read("versions")
    return str(rows[0]["version"]) if rows else "?"
