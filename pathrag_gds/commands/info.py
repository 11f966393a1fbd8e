"""`python -m pathrag_gds info`: the communities in the database, their sizes, types and models.

One row per community: its ontology, its version (the last complete load) and a load that has not
completed (running or interrupted: readers do not see what it wrote), entities (and how many are
embedded: the search needs them all), relationships between its entities, type labels with their
counts, and whether it has a chain model and a path cross-encoder, with when each was built (from
its manifest) and whether the installed wheel ships it. `--json` prints the same as JSON.
(`communities` is another command: it clusters one community's entities with GDS for the global
mode.)
"""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pathrag_gds.inventory import CommunityInfo, ModelInfo


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the `info` command."""
    p = sub.add_parser(
        "info", help="list the communities: sizes, type labels, chain model and when it was built"
    )
    p.add_argument("--community", default=None, help="describe this community only")
    p.add_argument("--json", action="store_true", help="print the list as JSON")
    p.set_defaults(func=run)


def _model_line(kind: str, model: ModelInfo | None, hint: str) -> str:
    if model is None:
        return f"  {kind}: none{hint}"
    built = f"built {model.built}" if model.built else "build time not recorded"
    where = "shipped with the package" if model.shipped else model.folder
    return f"  {kind}: {built} ({where})"


def _load_lines(c: CommunityInfo) -> list[str]:
    """Its version, and a load that has not completed (what readers see meanwhile, what to do)."""
    load = c.load
    out = []
    if load.get("version"):
        out.append(f"  version {load['version']} (completed {load.get('loaded_at')})")
    pending = load.get("open_load")
    if pending:
        idle = pending.get("idle_s")
        seen = (
            "readers see the version above"
            if load.get("complete")
            else "readers see nothing of the community yet (queries are refused)"
        )
        out.append(
            f"  load {pending['id']} NOT COMPLETED ({load.get('state')}): started {pending.get('started')}, "
            f"last write {'never' if idle is None else f'{idle:,.0f} s ago'}, "
            f"{pending.get('entities_written', 0):,} entities and "
            f"{pending.get('relationships_written', 0):,} relationships written so far; {seen}. If it is "
            "not running, "
            "run the same load again to complete it"
        )
    return out


def lines(communities: list[CommunityInfo], header: str) -> list[str]:
    """The text report: a header, then one block per community."""
    out = [header]
    for c in communities:
        embedded = (
            "all embedded"
            if c.indexed
            else "none yet: no load has completed"
            if not c.load.get("complete", True)
            else f"{c.embedded} embedded: run `python -m pathrag_gds index --community {c.id}` before "
            "searching it"
        )
        labels = ", ".join(f"{label} {n}" for label, n in sorted(c.labels.items(), key=lambda kv: -kv[1]))
        out += ["", f"{c.id} (ontology {c.ontology_id or 'none'})", *_load_lines(c)]
        out += [
            f"  {c.entities} entities ({embedded}), {c.relationships} relationships, {c.chunks} chunks",
            f"  type labels: {labels or 'none'}",
            _model_line(
                "chain model",
                c.chain_model,
                f" (paths scored by their text alone; `python -m pathrag_gds tune --community {c.id}` "
                "trains one)",
            ),
            _model_line("path cross-encoder", c.path_model, " (optional: docs/tuning.md)"),
        ]
    return out


def run(args: argparse.Namespace) -> int:
    """Print the communities (exit 2 when `--community` names none that exists)."""
    from pathrag_gds import __version__
    from pathrag_gds.config import get_settings
    from pathrag_gds.errors import InvalidInput
    from pathrag_gds.graph import Graph
    from pathrag_gds.inventory import inventory

    settings = get_settings()
    with Graph.connect(settings) as graph:
        communities = inventory(graph, settings, args.community)
    if args.community is not None and not communities:
        raise InvalidInput(
            f"no community {args.community!r} in the database at {settings.neo4j_uri}: "
            "`python -m pathrag_gds info` lists them"
        )
    if args.json:
        print(json.dumps([c.as_dict() for c in communities], indent=2, ensure_ascii=False))
        return 0
    where = f"{settings.neo4j_uri}, database {settings.neo4j_database}"
    if not communities:
        print(
            f"no communities in the database at {where}: load one (`python -m pathrag_gds load demo`, "
            "or `load graph|triples ...`: docs/graph-model.md)"
        )
        return 0
    n = f"{len(communities)} {'community' if len(communities) == 1 else 'communities'}"
    print("\n".join(lines(communities, f"pathrag_gds {__version__}: {n} at {where}")))
    return 0
