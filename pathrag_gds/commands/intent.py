"""`python -m pathrag_gds intent "QUESTION"`: what the question asks for (types, relations, names)."""

from __future__ import annotations

import argparse
import json


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the `intent` command."""
    p = sub.add_parser("intent", help="show the inferred intent of a question (expected types, relations)")
    p.add_argument("question", help="the question, in words (quote it)")
    p.add_argument("--community", default=None, help="the community whose ontology to use")
    p.add_argument("--ontology", default=None, help="ontology id (default: the community's, or all)")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Infer and print the intent; named entities come from the vector seeds of the question."""
    from pathrag_gds.config import get_settings
    from pathrag_gds.service import get_pathrag_service
    from pathrag_gds.validation import QueryLimits, check_question

    check_question(args.question, QueryLimits.of(get_settings()).question_chars)  # as `query` and HTTP
    service = get_pathrag_service()
    ontology = service.ontology_for(args.community, args.ontology)
    entities = service.seed_entities(args.question, args.community)
    intent = service.intent(args.question, ontology, entities)
    data = {"ontology": ontology.id, "inferred_ontology": ontology.inferred, **intent.as_dict()}
    if args.json:
        print(json.dumps(data, indent=2, ensure_ascii=False))
        return 0
    for key in (
        "ontology",
        "kind",
        "expected_types",
        "hinted_relations",
        "wh",
        "noun",
        "named",
        "named_as",
        "named_types",
        "described",
        "link_types",
    ):
        print(f"{key:>17}: {data[key]}")
    for r in data["reasons"]:
        print(f"{'why':>17}: {r}")
    return 0
