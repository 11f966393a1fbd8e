"""Small helpers shared by unit and integration tests (importable because tests/ is on sys.path)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from collections.abc import Callable, Mapping
from pathlib import Path

from pathrag_gds.config import ROOT_DIR

#: The `people_community` fixture (tests/conftest.py): `make(prefix, seed=..., scale=...)` loads a
#: small generated people world under an id of its own and returns that id.
PeopleFactory = Callable[..., str]

#: Environment variables that point a client at a Neo4j server (cleared to test the local one).
CLIENT_VARS = ("NEO4J_URI", "NEO4J_USER", "NEO4J_USERNAME", "NEO4J_PASSWORD", "NEO4J_DATABASE")


def free_port() -> int:
    """A loopback TCP port that is free right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def private_server_env(home: Path) -> dict[str, str]:
    """This process's environment for a CLI run against a private Neo4j home on a free Bolt port.

    Client variables and every PATHRAG_* setting are dropped, HTTP is off, heap and page cache small.
    """
    env = {k: v for k, v in os.environ.items() if k not in CLIENT_VARS and not k.startswith("PATHRAG_")}
    env.update(
        PATHRAG_NEO4J_HOME=str(home),
        PATHRAG_BOLT_PORT=str(free_port()),
        PATHRAG_HTTP_PORT="0",
        PATHRAG_HEAP="512m",
        PATHRAG_PAGECACHE="64m",
    )
    return env


def run_cli(
    *args: str, env: Mapping[str, str] | None = None, timeout: float | None = 600
) -> subprocess.CompletedProcess[str]:
    """`python -m pathrag_gds ARGS` from the repository root, output captured, never raising on exit.

    `env` replaces this process's environment (None: inherit it).
    """
    return subprocess.run(
        [sys.executable, "-m", "pathrag_gds", *args],
        cwd=ROOT_DIR,
        env=None if env is None else dict(env),
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
