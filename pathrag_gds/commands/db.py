"""`python -m pathrag_gds db start|stop|status|install`: the local Neo4j server (Neo4j + APOC + GDS).

`start` fetches the jars on first use (Maven Central, ~150 MB into `.neo4j/`), starts the server on
127.0.0.1, waits until Bolt answers and runs the search's queries once (`pathrag_gds.warmup`: the
first question then finds them planned and the data cached); when it runs already it says so
(exit 0). `stop` ends it (SIGTERM, then SIGKILL after `PATHRAG_NEO4J_STOP_TIMEOUT` s); when nothing
runs it says so and exits 0.
`status` prints the Neo4j, APOC and GDS versions of the server at the configured URI (also your own,
`NEO4J_URI`); when nothing answers it says that Neo4j is not running there and how to start it
(exit 2). With `NEO4J_URI` set, `start` and `stop`
do nothing: that server is yours. `import FOLDER --overwrite` replaces the local database with an
import folder (docs/scaling.md): `neo4j-admin database import full`, then the schema, the ontology and
the vector index through the loaders' Cypher.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pathrag_gds.config import Settings
    from pathrag_gds.warmup import WarmUp


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the `db` command and its `start`, `stop`, `status` and `install` subcommands."""
    p = sub.add_parser("db", help="the local Neo4j server: start, stop, status, install")
    what = p.add_subparsers(dest="action", metavar="ACTION", required=True)
    what.add_parser("start", help="start the local Neo4j (fetching its jars on first use)").set_defaults(
        func=run_start
    )
    what.add_parser("stop", help="stop the local Neo4j").set_defaults(func=run_stop)
    what.add_parser("status", help="versions of Neo4j, APOC and GDS at the configured URI").set_defaults(
        func=run_status
    )
    what.add_parser("install", help="only fetch the server's jars (Maven Central)").set_defaults(
        func=run_install
    )
    imp = what.add_parser(
        "import", help="REPLACE the local database with an import folder (neo4j-admin, for large first loads)"
    )
    imp.add_argument("folder", type=Path, help="a folder with import.json (scripts/make_scale_graph.py)")
    imp.add_argument(
        "--overwrite", action="store_true", help="required: the whole local database is replaced"
    )
    imp.set_defaults(func=run_import)


def run_start(args: argparse.Namespace) -> int:
    """Start the local server (or say it runs / that NEO4J_URI is set)."""
    from pathrag_gds import localdb
    from pathrag_gds.config import get_settings

    settings = get_settings()
    if localdb.start(settings):
        print(warm(settings).summary())
    return 0


def warm(settings: Settings) -> WarmUp:
    """Warm the search's queries on the server (`pathrag_gds.warmup`); returns its report."""
    from pathrag_gds.graph import Graph
    from pathrag_gds.warmup import warm_up

    with Graph.connect(settings) as graph:
        return warm_up(graph, settings)


def run_stop(args: argparse.Namespace) -> int:
    """Stop the local server; exit 0 also when none was running."""
    from pathrag_gds import localdb
    from pathrag_gds.config import get_settings

    localdb.stop(get_settings())
    return 0


def run_status(args: argparse.Namespace) -> int:
    """Print the versions of the server at the configured URI (exit 2: none runs there, and how to start)."""
    from pathrag_gds import localdb
    from pathrag_gds.config import get_settings

    localdb.status(get_settings())
    return 0


def run_install(args: argparse.Namespace) -> int:
    """Fetch the jars into the Neo4j home (what `start` does on first use)."""
    from pathrag_gds import localdb
    from pathrag_gds.config import get_settings

    settings = get_settings()
    localdb.find_java()
    localdb.ensure_installed(settings)
    print(f"Neo4j jars ready in {settings.neo4j_home}")
    return 0


def run_import(args: argparse.Namespace) -> int:
    """Stop the local server, import the folder over its database, start it and finish the schema."""
    from pathrag_gds.config import get_settings
    from pathrag_gds.datasets.bulk import finish_import, read_manifest
    from pathrag_gds.datasets.bulk import run_import as import_folder
    from pathrag_gds.encoders import get_embedder
    from pathrag_gds.errors import InvalidInput
    from pathrag_gds.graph import Graph

    if not args.overwrite:
        raise InvalidInput(
            "`db import` replaces the whole local database (every community): pass --overwrite to go on, "
            "or use `load triples` to add a community to it"
        )
    settings = get_settings()
    read_manifest(args.folder)  # a bad folder fails before the server is stopped
    import_folder(settings, args.folder)
    with Graph.connect(settings) as graph:
        finish_import(graph, args.folder, get_embedder(settings).dim)
    return 0
