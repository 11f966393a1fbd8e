"""Small helpers shared by unit and integration tests (importable because tests/ is on sys.path)."""

from __future__ import annotations

import socket

#: Environment variables that point a client at a Neo4j server (cleared to test the local one).
CLIENT_VARS = ("NEO4J_URI", "NEO4J_USER", "NEO4J_USERNAME", "NEO4J_PASSWORD", "NEO4J_DATABASE")


def free_port() -> int:
    """A loopback TCP port that is free right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port
