"""`python -m pathrag_gds adopt --community ID --label LABEL`: make your own nodes a community.

Your nodes, labels, properties and relationships stay as they are; what adopt adds is listed by
`--dry-run` and deleted whole by `--remove` (docs/graph-model.md, "Your own graph").
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pathrag_gds.adopt import AdoptPlan
    from pathrag_gds.graph import Graph


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the `adopt` command."""
    p = sub.add_parser(
        "adopt",
        help="make nodes pathrag_gds did not load (e.g. neo4j-graphrag's) a community, without changing them",
    )
    p.add_argument("--community", required=True, help="the id of the community to create (or --remove)")
    p.add_argument(
        "--label",
        action="append",
        default=[],
        help="adopt the nodes with this label, e.g. __Entity__ (repeat: any of them, e.g. Person, Movie)",
    )
    p.add_argument(
        "--with-label",
        action="append",
        default=[],
        help="... that also carry this label (repeat: all of them); it is not read as a type",
    )
    p.add_argument(
        "--lightrag",
        default=None,
        metavar="WORKSPACE",
        help="a LightRAG workspace (its label, e.g. base): entity_id names and keys the nodes, the "
        "DIRECTED edges become RELATED_TO with their keywords and description as text",
    )
    p.add_argument(
        "--thalabus",
        default=None,
        metavar="COMMUNITY",
        help="a Thalabus community's id: adopt the entities it AGGREGATES, their *_consolidated values "
        "(name, description, attributes), the ontology the graph stores for it and the chunks that "
        "mention them (MENTIONED_IN, or --chunk-rel); --community must be another id",
    )
    _thalabus_ontology_options(p)
    p.add_argument("--key", default=None, help="a property that identifies a node (default: its element id)")
    p.add_argument("--name-property", default=None, help="the property holding a node's name (default: name)")
    p.add_argument(
        "--description-property",
        default=None,
        help="the property holding a node's description (default: description)",
    )
    p.add_argument(
        "--chunk-rel",
        default=None,
        help="the relationship type between a node and its chunks, either way (neo4j-graphrag: FROM_CHUNK; "
        "--thalabus: MENTIONED_IN): they become the paths' sources, their text not copied",
    )
    p.add_argument("--dry-run", action="store_true", help="list what adopt would add, write nothing")
    p.add_argument("--remove", action="store_true", help="delete everything adopt added for this community")
    p.add_argument(
        "--index", action="store_true", help="also embed the adopted entities (as `index --community`)"
    )
    p.add_argument("--batch-size", type=int, default=2000, help="rows per transaction (default 2000)")
    p.set_defaults(func=run)


def _thalabus_ontology_options(p: argparse.ArgumentParser) -> None:
    """`--thalabus`: the relationships its ontology is read through (default: as found in the graph)."""
    g = p.add_argument_group(
        "--thalabus ontology (default: read from the graph; `--dry-run` says what was found)"
    )
    g.add_argument(
        "--ontology",
        default=None,
        metavar="ID",
        help="the id of the (:Ontology) to read, for a community that does not point to its own",
    )
    g.add_argument(
        "--ontology-rel",
        default=None,
        metavar="TYPE",
        help="only this relationship type between the community and its ontology (Thalabus: BASED_ON)",
    )
    g.add_argument(
        "--type-rel",
        default=None,
        metavar="TYPE",
        help="only this relationship type between the ontology and its EntityOntology / "
        "RelationshipOntology nodes (Thalabus: CONTAINS)",
    )
    g.add_argument(
        "--source-rel",
        default=None,
        metavar="TYPE",
        help="read a relation type's ends from its relationships to EntityOntology nodes: this one "
        "leads to the source type (with --target-rel; default: entity_source_labels, else as found)",
    )
    g.add_argument("--target-rel", default=None, metavar="TYPE", help="... and this one to the target type")


#: The options that only `--thalabus` reads.
THALABUS_ONLY = ("ontology", "ontology_rel", "type_rel", "source_rel", "target_rel")


def run(args: argparse.Namespace) -> int:
    """Run `adopt`."""
    from pathrag_gds.adopt import adopt, remove_adoption
    from pathrag_gds.config import get_settings
    from pathrag_gds.errors import InvalidInput
    from pathrag_gds.graph import Graph

    settings = get_settings()
    with Graph.connect(settings) as graph:
        if args.remove:
            others = [getattr(args, name) for name in THALABUS_ONLY]
            if args.label or args.with_label or args.lightrag or args.thalabus or args.dry_run or any(others):
                raise InvalidInput("--remove takes only --community: adopt --community ID --remove")
            deleted = remove_adoption(graph, args.community)
            print(
                f"removed community {args.community!r}: {deleted} adopted entities, their links, "
                "relationships and ontology; your nodes are as before"
            )
            return 0
        plan = _plan(graph, args)
        for line in plan.lines():
            print(line)
        if args.dry_run:
            print("dry run: nothing written")
            return 0
        report, pruned = adopt(graph, plan, batch_size=args.batch_size)
        for line in report.lines():
            print(line)
        if any(pruned.values()):
            print(
                f"  no longer in your graph, deleted: {pruned['entities']} entities, "
                f"{pruned['relationships']} relationships, {pruned['types']} ontology types"
            )
    if args.index:
        from pathrag_gds.commands.index import run_index

        run_index(community=args.community, batch_size=512, force=False)
    else:
        print(f"next: python -m pathrag_gds index --community {args.community}")
    return 0


def _plan(graph: Graph, args: argparse.Namespace) -> AdoptPlan:
    """The plan the options ask for: a Thalabus community, a LightRAG workspace, or labels."""
    from pathrag_gds.adopt import LIGHTRAG_RENAME, LIGHTRAG_SKIP, plan_adoption, plan_thalabus
    from pathrag_gds.adopt.thalabus_ontology import OntologyLinks
    from pathrag_gds.errors import InvalidInput

    if not args.thalabus:
        given = [f"--{name.replace('_', '-')}" for name in THALABUS_ONLY if getattr(args, name)]
        if given:
            raise InvalidInput(f"{' '.join(given)} go(es) with --thalabus COMMUNITY")
    if args.thalabus:
        names = ("label", "with_label", "lightrag", "key", "name_property", "description_property")
        given = [f"--{name.replace('_', '-')}" for name in names if getattr(args, name)]
        if given:
            raise InvalidInput(
                f"--thalabus reads its entities, names and descriptions itself: drop {' '.join(given)}"
            )
        links = OntologyLinks(*(getattr(args, name) for name in THALABUS_ONLY))
        return plan_thalabus(graph, args.community, args.thalabus, chunk_rel=args.chunk_rel, links=links)
    preset: dict[str, Any] = {}
    if args.lightrag:
        if args.label:
            raise InvalidInput("--lightrag names the nodes itself: drop --label (narrow with --with-label)")
        args.label, args.with_label = [args.lightrag], [args.lightrag, *args.with_label]
        args.key = args.key or "entity_id"
        args.name_property = args.name_property or "entity_id"
        preset = {"rename_types": LIGHTRAG_RENAME, "skip_properties": LIGHTRAG_SKIP}
    if not args.label:
        raise InvalidInput(
            "name the nodes to adopt: adopt --community ID --label LABEL (or --lightrag / --thalabus)"
        )
    return plan_adoption(
        graph,
        args.community,
        args.label,
        with_labels=args.with_label,
        key=args.key,
        name_property=args.name_property,
        description_property=args.description_property,
        chunk_rel=args.chunk_rel,
        **preset,
    )
