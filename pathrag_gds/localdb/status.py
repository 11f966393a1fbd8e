"""What runs at the configured URI: Neo4j, APOC and GDS versions (`db status`)."""

from __future__ import annotations

from typing import Any

from neo4j.exceptions import Neo4jError, ServiceUnavailable, SessionExpired

from pathrag_gds.config import Settings
from pathrag_gds.errors import DatabaseUnavailable, ServerNotRunning
from pathrag_gds.graph import Graph
from pathrag_gds.localdb.home import Paths, Printer
from pathrag_gds.localdb.process import running_pid


def versions(graph: Graph) -> dict[str, Any]:
    """Versions of Neo4j, APOC and GDS on a server (`None` for a library that is not installed)."""
    rows = graph.read("versions")
    info: dict[str, Any] = {
        "neo4j": rows[0]["version"] if rows else None,
        "edition": rows[0]["edition"] if rows else None,
    }
    for lib in ("apoc", "gds"):
        try:
            info[lib] = graph.read(f"version_{lib}")[0]["version"]
        except Neo4jError:  # the function does not exist: library not installed
            info[lib] = None
    return info


def not_running_message(settings: Settings) -> str:
    """What `db status` says when nothing answers at the URI: that no server runs, and how to start one."""
    uri = settings.neo4j_uri
    if settings.external_db:
        return (
            f"Neo4j is not running at {uri} (NEO4J_URI; nothing answers there): start that server or fix "
            "NEO4J_URI (Bolt's port is usually 7687), or unset NEO4J_URI and start the local server with "
            "`python -m pathrag_gds db start`"
        )
    pid = running_pid(settings)
    if pid is not None:
        return (
            f"the local Neo4j (pid {pid}) runs but does not answer at {uri} yet: wait while it starts, or "
            f"read {Paths(settings.neo4j_home).logs / 'neo4j.log'} (`python -m pathrag_gds db stop`, "
            "then `db start`)"
        )
    return f"Neo4j is not running at {uri}: start it with `python -m pathrag_gds db start`"


def status(settings: Settings, out: Printer = print) -> dict[str, Any]:
    """Print (and return) what runs at the configured URI: Neo4j, APOC and GDS versions.

    Raises:
        ServerNotRunning: nothing answers at the URI (the message says so and how to start it).
        DatabaseUnavailable: the server refused the credentials or has no such database.
    """
    try:
        graph = Graph.connect(settings)
    except DatabaseUnavailable as exc:
        if isinstance(exc.__cause__, ServiceUnavailable | SessionExpired | OSError):
            raise ServerNotRunning(not_running_message(settings)) from exc
        raise
    with graph:
        info = versions(graph)
    info["uri"] = settings.neo4j_uri
    info["pid"] = None if settings.external_db else running_pid(settings)
    missing = "not installed"
    out(
        f"Neo4j {info['neo4j']} ({info['edition']}) at {settings.neo4j_uri}, "
        f"database {settings.neo4j_database}"
    )
    out(f"APOC  {info['apoc'] or missing}")
    out(f"GDS   {info['gds'] or missing}")
    if info["pid"] is not None:
        out(f"local server: pid {info['pid']}, home {settings.neo4j_home}")
    return info
