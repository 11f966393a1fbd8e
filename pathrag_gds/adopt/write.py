"""Write an adoption plan, refresh it on a re-adopt, and remove it whole.

Example:
    >>> report, pruned = adopt(graph, plan_adoption(graph, "my_kg", ["__Entity__"]))  # doctest: +SKIP
    >>> remove_adoption(graph, "my_kg")  # doctest: +SKIP
"""

from __future__ import annotations

from pathrag_gds.adopt.plan import AdoptPlan
from pathrag_gds.datasets.load_report import LoadReport
from pathrag_gds.datasets.loader import GraphLoader, batched, delete_community
from pathrag_gds.errors import InvalidInput
from pathrag_gds.graph import Graph
from pathrag_gds.ontology import ADOPTED_TYPE_PREFIX


def adopt(graph: Graph, plan: AdoptPlan, *, batch_size: int = 2000) -> tuple[LoadReport, dict[str, int]]:
    """Write what `plan` lists: community (marked adopted first), ontology, entities, links.

    Adopting again refreshes: new nodes and relationships are added, changed ones updated, and what
    the user's graph no longer has is deleted (entities, mirrored relationships, ontology types).
    Returns the load report and those deleted counts.
    """
    cid = plan.community_id
    loader = GraphLoader(graph, batch_size=batch_size, progress=False)
    loader.ensure_schema()
    loader.load_community(cid, plan.ontology.id)
    graph.write(
        "adopt_mark",
        community_id=cid,
        labels=list(plan.labels),
        with_labels=list(plan.with_labels),
        source=plan.source,
        chunk_rel=plan.chunk_rel,
    )
    graph.write(
        "adopt_relabel",
        community_id=cid,
        entity_label=graph.settings.entity_label,
        prefix=ADOPTED_TYPE_PREFIX,
    )  # an adoption of before the prefix
    report = loader.load(plan.dataset)
    for rows in batched(plan.links, batch_size):
        graph.write("adopt_link", rows=list(rows))
    graph.write("adopt_unlink_chunks", community_id=cid)  # then the current ones
    for rows in batched(plan.chunk_links, batch_size):
        graph.write("adopt_link_chunks", rows=list(rows))
    return report, _prune(graph, plan, batch_size)


def _prune(graph: Graph, plan: AdoptPlan, batch_size: int) -> dict[str, int]:
    """Delete the community's entities, relationships and types that `plan` no longer has."""
    cid, ds = plan.community_id, plan.dataset
    wanted_ids = {e.id for e in ds.entities}
    wanted_rels = {(r.source, r.type, r.target) for r in ds.relationships}
    stale_ids: list[str] = []
    stale_rels: list[dict[str, str]] = []
    for row in graph.read("adopt_current", community_id=cid, structural=[graph.settings.adopts_rel]):
        if row["id"] not in wanted_ids:
            stale_ids.append(row["id"])
            continue
        for rel_type, target in row["out"]:
            if rel_type is not None and (row["id"], rel_type, target) not in wanted_rels:
                stale_rels.append({"source": row["id"], "type": rel_type, "target": target})
    pruned = {"entities": 0, "relationships": 0, "types": 0}
    for start in range(0, max(len(stale_ids), len(stale_rels)), batch_size):
        rows = graph.write(
            "adopt_prune",
            community_id=cid,
            entities=stale_ids[start : start + batch_size],
            rels=stale_rels[start : start + batch_size],
        )
        pruned["entities"] += int(rows[0]["entities"]) if rows else 0
        pruned["relationships"] += int(rows[0]["rels"]) if rows else 0
    rows = graph.write(
        "adopt_prune_ontology",
        ontology_id=plan.ontology.id,
        labels=plan.ontology.labels,
        types=plan.ontology.relation_names,
    )
    pruned["types"] = int(rows[0]["deleted"]) if rows else 0
    return pruned


def remove_adoption(graph: Graph, community_id: str) -> int:
    """Delete what `adopt` added for a community (its entities, links, ontology, community).

    Returns the number of entities deleted.

    Raises:
        InvalidInput: no such community, or one that was loaded rather than adopted.
    """
    state = graph.read("adopt_state", community_id=community_id)
    if not state:
        raise InvalidInput(f"there is no community {community_id!r}: `python -m pathrag_gds info` lists them")
    if state[0]["labels"] is None:
        raise InvalidInput(
            f"community {community_id!r} was loaded, not adopted: --remove only removes adopted communities "
            "(pathrag_gds.datasets.loader.delete_community deletes a loaded one with its entities)"
        )
    # first: deleting a community deletes the chunks only its entities mention, and these are the user's
    graph.write("adopt_unlink_chunks", community_id=community_id)
    return delete_community(graph, community_id, drop_ontology=True)
