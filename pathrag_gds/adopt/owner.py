"""Whose is a community: pathrag_gds's own, or the user's graph that shares its labels (Thalabus).

Thalabus writes `(:Community)-[:AGGREGATES]->(:Entity {embedding})` and `(:Ontology)`, the names
pathrag_gds uses for its own loads. Commands that delete or rewrite a community's entities (`drop`,
`index`) first ask :func:`check_own`, which reads `adopt_state.cypher`.

Example:
    >>> foreign_reason({"labels": None, "thalabus": True, "thalabus_ontology": False,
    ...                 "adopted_by": [], "pathrag_ontology": False})
    'it is tied to a Thalabus ontology (EntityOntology / RelationshipOntology nodes)'
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pathrag_gds.errors import InvalidInput
from pathrag_gds.graph import Graph


def foreign_reason(state: Mapping[str, Any], *, tied_only: bool = False) -> str | None:
    """Why the community of an `adopt_state` row may be the user's own graph; None: pathrag_gds's.

    `tied_only`: only a tie to a Thalabus ontology or an adoption from it counts (a load that has
    not written its ontology yet names none).
    """
    if state["labels"] is not None:
        return None  # adopted: pathrag_gds's copies
    adopted = state["adopted_by"] or []
    reasons = []
    if state["thalabus"] or state["thalabus_ontology"]:
        reasons.append("it is tied to a Thalabus ontology (EntityOntology / RelationshipOntology nodes)")
    if adopted:
        reasons.append(f"it was adopted from (as {', '.join(map(str, adopted))})")
    if not reasons and not tied_only and not state["pathrag_ontology"]:
        reasons.append("its ontology_id names no ontology pathrag_gds wrote")
    return "; ".join(reasons) or None


def check_own(graph: Graph, community_id: str, action: str, *, tied_only: bool = False) -> None:
    """Refuse to `action` a community that may be the user's own graph (see :func:`foreign_reason`).

    A community that does not exist passes (the caller says what that means).

    Raises:
        InvalidInput: the community may be the user's: the message says why.
    """
    state = graph.read("adopt_state", community_id=community_id)
    reason = foreign_reason(state[0], tied_only=tied_only) if state else None
    if reason:
        raise InvalidInput(
            f"community {community_id!r} was not loaded by pathrag_gds alone: {reason}, so it may be your "
            f"own graph (a Thalabus community shares pathrag_gds's labels), and pathrag_gds does not "
            f"{action} it; adopt it instead: `python -m pathrag_gds adopt --community ID --thalabus "
            f"{community_id}` (an adoption is removed with `adopt --community ID --remove`)"
        )
