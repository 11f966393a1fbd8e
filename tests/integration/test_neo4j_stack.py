"""The three parts of the stack answer on the live server: Neo4j (vector index), APOC, GDS (Cypher and
the Python client).

Other developers use the same server at the same time: every test works on its own label
(`_TestStack<random>`), graph projection and index name, and removes them at the end. The test Cypher is
sent through the driver directly (product Cypher lives in cypher/*.cypher).
"""

from __future__ import annotations

import uuid
import warnings
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

from pathrag_gds import localdb
from pathrag_gds.graph import Graph

pytestmark = pytest.mark.integration

DIM = 384


def run(graph: Graph, query: str, **params: Any) -> list[dict[str, Any]]:
    records, _, _ = graph.driver.execute_query(query, params, database_=graph.database)
    return [r.data() for r in records]


@pytest.fixture
def label(graph: Graph) -> Iterator[str]:
    """A label of this test alone; its nodes are deleted afterwards."""
    name = f"_TestStack{uuid.uuid4().hex[:12]}"
    yield name
    run(graph, f"MATCH (n:`{name}`) DETACH DELETE n")
    assert run(graph, f"MATCH (n:`{name}`) RETURN count(n) AS c")[0]["c"] == 0


def _ring(graph: Graph, label: str, n: int = 6) -> None:
    """n nodes in a directed ring plus a hub every node points to."""
    run(
        graph,
        f"""
        UNWIND range(0, $n - 1) AS i
        CREATE (:`{label}` {{i: i}})
        WITH count(*) AS created
        MATCH (a:`{label}`), (b:`{label}`) WHERE b.i = (a.i + 1) % $n
        CREATE (a)-[:`{label}_REL`]->(b)
        WITH count(*) AS ring
        CREATE (h:`{label}` {{i: -1}})
        WITH h
        MATCH (a:`{label}`) WHERE a.i >= 0
        CREATE (a)-[:`{label}_REL`]->(h)
        """,
        n=n,
    )


def test_versions(graph: Graph) -> None:
    info = localdb.versions(graph)
    assert info["neo4j"].startswith("5.26.")
    assert run(graph, "RETURN apoc.version() AS v")[0]["v"].startswith("5.26.")
    assert run(graph, "RETURN gds.version() AS v")[0]["v"].startswith("2.13.")
    assert info["apoc"] and info["gds"]


def test_apoc_procedure_runs(graph: Graph) -> None:
    rows = run(graph, "RETURN apoc.text.join(['a', 'b'], '-') AS s, apoc.coll.sum([1, 2, 3]) AS total")
    assert rows == [{"s": "a-b", "total": 6.0}]


def test_gds_project_and_pagerank(graph: Graph, label: str) -> None:
    _ring(graph, label)
    name = f"{label}_graph"
    try:
        projected = run(
            graph,
            "CALL gds.graph.project($name, $label, $rel) YIELD nodeCount, relationshipCount "
            "RETURN nodeCount, relationshipCount",
            name=name,
            label=label,
            rel=f"{label}_REL",
        )
        assert projected == [{"nodeCount": 7, "relationshipCount": 12}]
        ranks = run(
            graph,
            "CALL gds.pageRank.stream($name) YIELD nodeId, score "
            "RETURN gds.util.asNode(nodeId).i AS i, score ORDER BY score DESC",
            name=name,
        )
        assert len(ranks) == 7
        assert ranks[0]["i"] == -1  # the hub everybody links to ranks first
    finally:
        run(graph, "CALL gds.graph.drop($name, false) YIELD graphName RETURN graphName", name=name)
    exists = run(graph, "CALL gds.graph.exists($name) YIELD exists RETURN exists", name=name)
    assert exists == [{"exists": False}]


def test_vector_index_384(graph: Graph, label: str) -> None:
    index = f"{label}_vec"
    rng = np.random.default_rng(7)
    vectors = rng.normal(size=(20, DIM)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    try:
        run(
            graph,
            f"CREATE VECTOR INDEX `{index}` IF NOT EXISTS FOR (n:`{label}`) ON n.embedding "
            "OPTIONS {indexConfig: {`vector.dimensions`: $dim, `vector.similarity_function`: 'cosine'}}",
            dim=DIM,
        )
        run(
            graph,
            f"UNWIND range(0, size($vectors) - 1) AS i CREATE (n:`{label}` {{i: i}}) "
            "WITH n, i CALL db.create.setNodeVectorProperty(n, 'embedding', $vectors[i])",
            vectors=vectors.tolist(),
        )
        run(graph, "CALL db.awaitIndex($index, 120)", index=index)
        hits = run(
            graph,
            "CALL db.index.vector.queryNodes($index, 3, $q) YIELD node, score RETURN node.i AS i, score",
            index=index,
            q=vectors[11].tolist(),
        )
        assert len(hits) == 3
        assert hits[0]["i"] == 11
        assert hits[0]["score"] == pytest.approx(1.0, abs=1e-4)
    finally:
        run(graph, f"DROP INDEX `{index}` IF EXISTS")


def test_graphdatascience_client_runs_an_algorithm(graph: Graph, label: str) -> None:
    """The official Python client (2.x API) connects and runs algorithms over Bolt.

    Open GDS has no `gds.debug.arrow`; the client probes it (arrow=True is the default) and falls back to
    Cypher over Bolt when the procedure is missing.
    """
    from graphdatascience import GraphDataScience

    _ring(graph, label)
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)  # "client does not support the server version"
        gds = GraphDataScience(graph.driver, database=graph.database, arrow=True)
    assert str(gds.server_version()).startswith("2.13.")
    name = f"{label}_client"
    g, result = gds.graph.project.native(name, label, f"{label}_REL")
    try:
        assert (result.node_count, result.relationship_count) == (7, 12)
        ranks = gds.page_rank.stream(g)
        assert len(ranks) == 7
        top_id = int(ranks.sort_values("score", ascending=False).iloc[0]["nodeId"])
        assert run(graph, "MATCH (n) WHERE id(n) = $id RETURN n.i AS i", id=top_id) == [{"i": -1}]
        assert gds.wcc.stats(g).component_count == 1
    finally:
        g.drop()
    assert not gds.graph.exists(name)
