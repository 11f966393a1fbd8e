"""What runs at the configured URI: Neo4j, APOC and GDS versions (`db status`)."""

from __future__ import annotations

from typing import Any

from neo4j.exceptions import Neo4jError

from pathrag_gds.config import Settings
from pathrag_gds.graph import Graph
from pathrag_gds.localdb.home import Printer
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


def status(settings: Settings, out: Printer = print) -> dict[str, Any]:
    """Print (and return) what runs at the configured URI: Neo4j, APOC and GDS versions.

    Raises:
        DatabaseUnavailable: nothing answers at the URI (the message says what to do).
    """
    with Graph.connect(settings) as graph:
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
