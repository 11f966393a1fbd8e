"""`python -m pathrag_gds drop --community ID --yes`: delete a loaded community and what it holds.

Without `--yes` it only says what would be deleted. Deleted: the community, its entities (an entity
another community shares stays), their relationships, the chunks and documents only it cites, its
clusters and, unless `--keep-ontology` or another community uses it, its ontology. A load that did
not complete is discarded first. An adopted community is removed with `adopt --community ID
--remove` (your own nodes stay); a community pathrag_gds did not load (a Thalabus one, which shares
the `Community` label) is refused; the tuned models in `models/tuned-<community>/` stay on disk.

Example:
    python -m pathrag_gds drop --community scratch          # what would be deleted
    python -m pathrag_gds drop --community scratch --yes    # delete it
"""

from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the `drop` command."""
    p = sub.add_parser(
        "drop", help="delete a loaded community: its entities, relationships, chunks, clusters"
    )
    p.add_argument("--community", required=True, help="the community to delete (`info` lists them)")
    p.add_argument("--yes", action="store_true", help="delete it (without: only say what would be deleted)")
    p.add_argument("--keep-ontology", action="store_true", help="keep its ontology for a later load")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Run `drop`."""
    from pathrag_gds.adopt.owner import check_own
    from pathrag_gds.config import get_settings
    from pathrag_gds.datasets.loader import community_counts, delete_community
    from pathrag_gds.errors import InvalidInput
    from pathrag_gds.graph import Graph
    from pathrag_gds.scoring.registry import community_folder

    settings = get_settings()
    cid = args.community
    with Graph.connect(settings) as graph:
        state = graph.read("adopt_state", community_id=cid)
        if not state:
            raise InvalidInput(f"there is no community {cid!r}: `python -m pathrag_gds info` lists them")
        if state[0]["labels"] is not None:
            raise InvalidInput(
                f"community {cid!r} was adopted from your own nodes: remove it with "
                f"`python -m pathrag_gds adopt --community {cid} --remove` (your nodes stay as they are)"
            )
        check_own(graph, cid, "drop")
        counts = community_counts(graph, cid) or {}
        rels = sum(int(n) for n in (counts.get("relationships") or {}).values())
        what = (
            f"community {cid!r}: {int(counts.get('entities') or 0):,} entities, {rels:,} relationships, "
            f"{int(counts.get('chunks') or 0):,} chunks"
        )
        if not args.yes:
            print(f"would delete {what}; nothing deleted: add --yes to delete it")
            return 0
        deleted = delete_community(graph, cid, drop_ontology=not args.keep_ontology)
    models = settings.models_dir / f"tuned-{community_folder(cid)}"
    kept = (
        f"; its tuned models stay in {models} (delete the folder to remove them)" if models.exists() else ""
    )
    print(f"deleted {what} ({deleted:,} entities not shared with another community){kept}")
    return 0
