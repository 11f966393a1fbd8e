"""Clusters of one community's entities with GDS: Leiden (or Louvain) levels and PageRank centrality.

Through the `graphdatascience` client (:meth:`pathrag_gds.graph.Graph.gds`): a Cypher projection
restricted to the community (`cypher/cluster_project.cypher`, undirected, only the walkable relation
types), the community detection with its intermediate levels, PageRank and degree on the same
projection, and the projection dropped at the end, on failure too. GDS shows its own progress bars.

Example:
    >>> found = detect(graph, "DefaultCommunity_FictionalStories", ["owns", "lives_in"])  # doctest: +SKIP
    >>> len(found.levels), found.nodes  # doctest: +SKIP
    (3, 45)
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from pathrag_gds.graph import Graph

#: Leiden's random seed (with one thread its levels are reproducible).
RANDOM_SEED = 42


@dataclass
class Detection:
    """What GDS found in one community's entity graph."""

    #: per level (0: the finest), entity id -> cluster number within that level
    levels: list[dict[str, int]]
    #: entity id -> PageRank over the community's undirected entity graph
    pagerank: dict[str, float]
    #: entity id -> number of relationships (undirected) within the community
    degree: dict[str, float]
    nodes: int = 0
    relationships: int = 0
    #: the projection's size in the GDS graph catalog, as GDS reports it (e.g. `12 MiB`)
    memory: str = ""
    seconds: dict[str, float] = field(default_factory=dict)


def _entity_ids(graph: Graph, node_ids: Sequence[int]) -> dict[int, str]:
    rows = graph.read("cluster_node_ids", node_ids=[int(n) for n in node_ids])
    return {int(r["nid"]): str(r["id"]) for r in rows}


def _levels(frame: Any, ids: dict[int, str]) -> list[dict[str, int]]:
    """Per level, entity id -> cluster, from a stream with `intermediateCommunityIds`."""
    levels: list[dict[str, int]] = []
    for nid, final, inter in zip(
        frame["nodeId"], frame["communityId"], frame["intermediateCommunityIds"], strict=True
    ):
        chain = [int(x) for x in inter] if inter is not None and len(inter) else [int(final)]
        while len(levels) < len(chain):
            levels.append({})
        for level, cluster in enumerate(chain):
            levels[level][ids[int(nid)]] = cluster
    return levels


def detect(
    graph: Graph,
    community: str,
    relations: Sequence[str],
    *,
    algorithm: str = "leiden",
    max_levels: int = 3,
    progress: bool = True,
) -> Detection:
    """Run community detection, PageRank and degree over one community's entity graph.

    Args:
        graph: the connection.
        community: the community whose entities are clustered (nothing outside it is projected).
        relations: the relationship types that join entities (the walkable ones).
        algorithm: `leiden` or `louvain`.
        max_levels: levels of the hierarchy to compute.
        progress: show GDS's progress bars.
    """
    gds = graph.gds()
    gds.set_show_progress(progress)
    name = f"pathrag_clusters_{uuid.uuid4().hex[:12]}"
    seconds: dict[str, float] = {}
    t0 = time.perf_counter()
    projection = gds.graph.project.cypher(
        graph.render("cluster_project"), graph_name=name, community=community, rels=list(relations)
    )
    with projection as g:
        seconds["project"] = time.perf_counter() - t0
        memory = str(g.memory_usage() or "")
        t1 = time.perf_counter()
        if algorithm == "louvain":
            frame = gds.louvain.stream(
                g, max_levels=max_levels, include_intermediate_communities=True, concurrency=1
            )
        else:
            frame = gds.leiden.stream(
                g,
                max_levels=max_levels,
                include_intermediate_communities=True,
                random_seed=RANDOM_SEED,
                concurrency=1,
            )
        seconds[algorithm] = time.perf_counter() - t1
        t1 = time.perf_counter()
        ranks = gds.page_rank.stream(g)
        degrees = gds.degree.stream(g)
        seconds["centrality"] = time.perf_counter() - t1
        nodes, rels = int(projection.result.node_count), int(projection.result.relationship_count)
    t1 = time.perf_counter()
    ids = _entity_ids(graph, list(frame["nodeId"]))
    seconds["ids"] = time.perf_counter() - t1
    return Detection(
        levels=_levels(frame, ids),
        pagerank={ids[int(n)]: float(s) for n, s in zip(ranks["nodeId"], ranks["score"], strict=True)},
        degree={ids[int(n)]: float(s) for n, s in zip(degrees["nodeId"], degrees["score"], strict=True)},
        nodes=nodes,
        relationships=rels // 2,  # undirected: GDS counts each relationship both ways
        memory=memory,
        seconds=seconds,
    )
