"""`communities`: one community's clusters found by GDS, summarized, embedded and stored (replacing the old).

Steps, each shown: GDS detection and centrality (:mod:`~pathrag_gds.clusters.detect`), the facts
summaries are written from (:func:`~pathrag_gds.clusters.store.read_facts`), the extractive
summaries (:mod:`~pathrag_gds.clusters.summary`), their embeddings, the write (a new run made current
at once, then the old runs deleted) and the cluster vector index.

Example:
    >>> report = build_clusters(graph, get_embedder(), "DefaultCommunity_FictionalStories")  # doctest: +SKIP
    >>> report.clusters > 0  # doctest: +SKIP
    True
"""

from __future__ import annotations

import resource
import time
import uuid
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from pathrag_gds.catalog import community_state, governing_ontology, read_graph_info, relation_whitelist
from pathrag_gds.clusters.detect import detect
from pathrag_gds.clusters.store import cluster_state, delete_clusters, read_facts, write_clusters
from pathrag_gds.clusters.summary import Summary, clusters_of, summarize
from pathrag_gds.errors import InvalidInput, SchemaError
from pathrag_gds.graph import Graph
from pathrag_gds.indexing import TextEncoder, ensure_vector_index
from pathrag_gds.load_versions import refuse_open_load

#: Example summaries a report keeps (the best rated of the coarsest levels).
EXAMPLES = 3


@dataclass
class CommunitiesReport:
    """What one `communities` run did."""

    community: str
    algorithm: str
    entities: int = 0
    relationships: int = 0
    #: level -> clusters written
    levels: dict[int, int] = field(default_factory=dict)
    clusters: int = 0
    projection_memory: str = ""
    #: peak resident memory of this process, MiB
    peak_rss_mib: float = 0.0
    seconds: dict[str, float] = field(default_factory=dict)
    examples: list[Summary] = field(default_factory=list)

    def lines(self) -> list[str]:
        """The report as human-readable lines."""
        per_level = ", ".join(f"level {lv}: {n}" for lv, n in sorted(self.levels.items()))
        out = [
            f"community {self.community}: {self.entities:,} entities, {self.relationships:,} relationships "
            f"-> {self.clusters:,} clusters ({per_level}) by {self.algorithm}",
            f"time {self.seconds.get('total', 0.0):.1f} s ("
            + ", ".join(f"{k} {v:.1f}" for k, v in self.seconds.items() if k != "total")
            + f"); GDS projection {self.projection_memory or '?'}; peak memory of this process "
            f"{self.peak_rss_mib:,.0f} MiB",
        ]
        for sm in self.examples:
            out.append(f"- level {sm.cluster.level}, rating {sm.rating}: {sm.title}: {sm.summary}")
        return out

    def as_dict(self) -> dict[str, Any]:
        """Plain data for JSON."""
        return {
            "community": self.community,
            "algorithm": self.algorithm,
            "entities": self.entities,
            "relationships": self.relationships,
            "clusters": self.clusters,
            "levels": self.levels,
            "projection_memory": self.projection_memory,
            "peak_rss_mib": round(self.peak_rss_mib, 1),
            "seconds": {k: round(v, 2) for k, v in self.seconds.items()},
            "examples": [
                {"level": s.cluster.level, "rating": s.rating, "title": s.title, "summary": s.summary}
                for s in self.examples
            ],
        }


def build_clusters(
    graph: Graph, encoder: TextEncoder, community: str, *, progress: bool = True
) -> CommunitiesReport:
    """Find, summarize, embed and store the clusters of one community (replacing its old ones).

    Raises:
        SchemaError: the community does not exist, or the server has no GDS.
        LoadConflict: a load of the community has not completed (its entities would be clustered).
        InvalidInput: it has no entities, no cluster reaches `PATHRAG_CLUSTER_MIN_SIZE` entities, or
            it is a community pathrag_gds did not load alone (a Thalabus one).
    """
    s = graph.settings
    t0 = time.perf_counter()
    if not graph.read("load_community_exists", community_id=community):
        raise SchemaError(f"no community {community!r} in the database: load it first or fix --community")
    from pathrag_gds.adopt.owner import check_own

    info = read_graph_info(graph, s)
    refuse_open_load(community_state(info, community), s.load_stale_s, "communities")
    if not int(info.communities.get(community, {}).get("size") or 0):
        raise InvalidInput(f"community {community!r} has no entities to cluster: load its data first")
    # whose entities they are, once there are some: clusters tie MEMBER_OF edges to them
    check_own(graph, community, "cluster")
    ontology = governing_ontology(info, s, community, None)
    relations = relation_whitelist(info, ontology, None)
    report = CommunitiesReport(community, s.cluster_algorithm)

    found = detect(
        graph,
        community,
        relations,
        algorithm=s.cluster_algorithm,
        max_levels=s.cluster_max_levels,
        progress=progress,
    )
    report.entities, report.relationships, report.projection_memory = (
        found.nodes,
        found.relationships,
        found.memory,
    )
    report.seconds.update({f"gds {k}": v for k, v in found.seconds.items()})
    clusters = clusters_of(found.levels, s.cluster_min_size)
    if not clusters:
        raise InvalidInput(
            f"community {community!r} has no cluster of {s.cluster_min_size} or more related entities: "
            "load its relationships, or lower PATHRAG_CLUSTER_MIN_SIZE"
        )

    t1 = time.perf_counter()
    facts = read_facts(graph, community, relations)
    summaries = summarize(clusters, facts, found.pagerank, phrase=lambda t: ontology.relation(t).phrase)
    report.seconds["summaries"] = time.perf_counter() - t1

    t1 = time.perf_counter()
    vectors = np.asarray(
        encoder.encode([sm.profile for sm in summaries], show_progress=progress), dtype=np.float32
    )
    report.seconds["embed"] = time.perf_counter() - t1

    t1 = time.perf_counter()
    ensure_vector_index(graph, encoder.dim, progress=False, kind="cluster")
    run = uuid.uuid4().hex[:12]
    report.clusters = write_clusters(graph, community, run, summaries, vectors, progress=progress)
    ensure_vector_index(graph, encoder.dim, progress=progress, kind="cluster")
    report.seconds["write"] = time.perf_counter() - t1
    t1 = time.perf_counter()
    delete_clusters(graph, community, keep=run)
    report.seconds["delete old"] = time.perf_counter() - t1

    report.levels = cluster_state(graph, community)["levels"]
    report.examples = sorted(summaries, key=lambda sm: (-sm.cluster.level, -sm.rating, sm.title))[:EXAMPLES]
    report.seconds["total"] = time.perf_counter() - t0
    report.peak_rss_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
    return report
