"""Reading what cluster summaries need and writing clusters, one community at a time.

A run writes its clusters under a new run id, invisible to searches, then makes that run the
community's current one in one statement (`cluster_commit`), then the older runs are deleted: a
failed run leaves the previous clusters as they were (and its own are deleted).

Example:
    >>> facts = read_facts(graph, "DefaultCommunity_FictionalStories", ["owns"])  # doctest: +SKIP
    >>> len(facts.entities)  # doctest: +SKIP
    45
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

from pathrag_gds.clusters.summary import Facts, Member, Summary
from pathrag_gds.graph import Graph
from pathrag_gds.ontology import type_labels
from pathrag_gds.progress import bar

#: MEMBER_OF edges written per transaction (clusters are batched until they reach it).
MEMBERS_PER_BATCH = 20000
#: Clusters deleted per transaction.
DELETE_BATCH = 2000


def read_facts(graph: Graph, community: str, relations: Sequence[str]) -> Facts:
    """The community's entities, the relationships of `relations` between them, and its chunks."""
    s = graph.settings
    entities: dict[str, Member] = {}
    edges: list[tuple[str, str, str]] = []
    for r in graph.read(
        "cluster_facts", community=community, rels=list(relations), entity_label=s.entity_label
    ):
        eid = str(r["id"])
        name = str(r["name"] if r["name"] is not None else eid)
        entities[eid] = Member(eid, name, type_labels(r["labels"]))
        edges.extend((eid, str(rel), str(tgt)) for rel, tgt in r["out"])
    chunks: list[tuple[str, Sequence[str]]] = []
    if s.chunk_label in graph.schema()["labels"]:
        chunks = [
            (str(r["text"] or ""), [str(e) for e in r["entities"]])
            for r in graph.read("cluster_chunks", community=community)
        ]
    return Facts(entities, edges, chunks)


def _batches(rows: Sequence[dict[str, Any]]) -> Iterator[list[dict[str, Any]]]:
    batch: list[dict[str, Any]] = []
    members = 0
    for row in rows:
        batch.append(row)
        members += len(row["members"])
        if members >= MEMBERS_PER_BATCH:
            yield batch
            batch, members = [], 0
    if batch:
        yield batch


def delete_clusters(graph: Graph, community: str, keep: str | None = None) -> int:
    """Delete the community's clusters (those not of run `keep`), in batches; returns how many."""
    total = 0
    while True:
        rows = graph.write("cluster_delete_batch", community=community, keep=keep, limit=DELETE_BATCH)
        deleted = int(rows[0]["deleted"]) if rows else 0
        total += deleted
        if deleted == 0:
            return total


def write_clusters(
    graph: Graph,
    community: str,
    run: str,
    summaries: Sequence[Summary],
    vectors: np.ndarray[Any, Any],
    *,
    progress: bool = True,
) -> int:
    """Write the run's clusters with their members and embeddings and make it current.

    Older runs stay until :func:`delete_clusters` (`keep=run`); searches no longer see them. On a
    failure the run's own clusters are deleted and the previous run stays current. Returns the
    number of clusters the community now has.
    """
    rows = [
        {
            "id": f"{community}:cluster:{run}:{sm.cluster.level}:{sm.cluster.number}",
            "level": sm.cluster.level,
            "title": sm.title,
            "summary": sm.summary,
            "rating": sm.rating,
            "size": len(sm.cluster.members),
            "embedding": [float(x) for x in vec],
            "members": [{"id": m, "centrality": sm.centrality.get(m, 0.0)} for m in sm.cluster.members],
        }
        for sm, vec in zip(summaries, vectors, strict=True)
    ]
    graph.schema_command("schema_cluster_community")
    try:
        with bar(len(rows), "write clusters", "cluster", enabled=progress) as shown:
            for batch in _batches(rows):
                graph.write(
                    "cluster_write",
                    rows=batch,
                    community=community,
                    run=run,
                    embedding_key=graph.settings.embedding_property,
                )
                shown.update(len(batch))
        committed = graph.write("cluster_commit", community=community, run=run)
    except BaseException:
        delete_clusters_of_run(graph, community, run)
        raise
    return int(committed[0]["clusters"]) if committed else 0


def delete_clusters_of_run(graph: Graph, community: str, run: str) -> None:
    """Best effort: delete what a failed run wrote (the previous run stays current)."""
    try:
        state = cluster_state(graph, community)
        if state["run"] != run:
            delete_clusters(graph, community, keep=state["run"])
    except Exception:  # the database may be what failed; the next run deletes them
        pass


def cluster_state(graph: Graph, community: str) -> dict[str, Any]:
    """The community's current run id and its clusters per level (`{run, levels: {level: n}}`)."""
    rows = graph.read("cluster_state", community=community)
    if not rows:
        return {"run": None, "levels": {}}
    return {
        "run": rows[0]["run"],
        "levels": {int(lv): int(n) for lv, n in rows[0]["levels"] if lv is not None},
    }
