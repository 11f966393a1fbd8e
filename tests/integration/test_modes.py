"""The GDS clusters and the five retrieval modes against the real Neo4j (with GDS) on the demo graph.

`communities` is tested on a copy of the demo in a community of the test's own (`demo_copy`, the
CLI in-process); the modes read the demo's clusters (`demo_clusters`: built only when the demo has
none, and then removed). Each mode is asked from the library and the CLI (the HTTP side is in
test_api.py; local's CLI, library and HTTP answers are compared in test_api_hardening.py). Clusters
written here for a throw-away community are removed with it. The test's own checks read the
database through the driver.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

from pathrag_gds.cli import main
from pathrag_gds.clusters.store import cluster_state, delete_clusters, write_clusters
from pathrag_gds.clusters.summary import Cluster, Summary
from pathrag_gds.config import Settings
from pathrag_gds.datasets.loader import community_counts, delete_community
from pathrag_gds.errors import InvalidInput, SchemaError
from pathrag_gds.graph import Graph
from pathrag_gds.modes import MODES
from pathrag_gds.service import PathRag

pytestmark = pytest.mark.integration

QUESTION = "Who owns Bob the Cat?"
SMALL = {"top_n": 3, "max_depth": 2, "seed_n": 5}


def run(graph: Graph, query: str, **params: Any) -> list[dict[str, Any]]:
    records, _, _ = graph.driver.execute_query(query, params, database_=graph.database)
    return [r.data() for r in records]


@pytest.fixture(scope="module")
def service(graph: Graph, settings: Settings, demo_clusters: dict[str, Any]) -> PathRag:
    return PathRag(settings, graph=graph)


@pytest.fixture
def empty_community(graph: Graph) -> Iterator[str]:
    """A community of no entities (so of no clusters), deleted afterwards with whatever it got."""
    cid = f"_test_modes_{uuid.uuid4().hex[:10]}"
    graph.write("load_community", community_id=cid, ontology_id=None)
    yield cid
    delete_community(graph, cid)
    assert run(graph, "MATCH (c:Cluster {community_id: $c}) RETURN count(c) AS n", c=cid) == [{"n": 0}]


def _communities_report(community: str, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    capsys.readouterr()
    assert main(["communities", "--community", community, "--json"]) == 0
    report: dict[str, Any] = json.loads(capsys.readouterr().out)
    return report


def test_communities_writes_clusters_of_the_community_only(
    graph: Graph, demo_copy: str, capsys: pytest.CaptureFixture[str]
) -> None:
    demo_community = demo_copy  # the demo's graph in a community of the test's own
    report = _communities_report(demo_community, capsys)
    counts = community_counts(graph, demo_community)
    assert counts is not None and report["entities"] == counts["entities"]
    assert report["clusters"] == sum(report["levels"].values()) > 0
    assert report["examples"] and all("Most central:" in e["summary"] for e in report["examples"])
    rows = run(
        graph,
        """MATCH (c:Community {id: $c})
           MATCH (cl:Cluster {community_id: $c}) WHERE cl.run = c.cluster_run
           RETURN count(cl) AS clusters, min(size(cl.embedding)) AS dim, min(cl.rating) AS low,
                  max(cl.rating) AS high,
                  sum(COUNT { (e)-[:MEMBER_OF]->(cl) WHERE NOT (c)-[:AGGREGATES]->(e) }) AS strangers,
                  min(COUNT { ()-[:MEMBER_OF]->(cl) }) AS smallest""",
        c=demo_community,
    )
    row = rows[0]
    assert (row["clusters"], row["dim"], row["high"], row["strangers"]) == (report["clusters"], 384, 10.0, 0)
    assert row["low"] >= 0 and row["smallest"] >= Settings().cluster_min_size
    projections = (
        "CALL gds.graph.list() YIELD graphName WHERE graphName STARTS WITH 'pathrag_clusters_' RETURN 1"
    )
    assert run(graph, projections) == [], "the GDS projection was dropped"


def _summaries(n: int) -> list[Summary]:
    return [Summary(Cluster(0, i, ()), f"c{i}", "s.", 1.0, {}) for i in range(n)]


def test_a_rerun_replaces_and_a_failed_one_leaves_the_last(
    graph: Graph, empty_community: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    cid = empty_community
    vec = np.ones((3, 384), dtype=np.float32)
    assert write_clusters(graph, cid, "run_a", _summaries(3), vec, progress=False) == 3
    assert write_clusters(graph, cid, "run_b", _summaries(2), vec[:2], progress=False) == 2
    assert delete_clusters(graph, cid, keep="run_b") == 3
    assert cluster_state(graph, cid) == {"run": "run_b", "levels": {0: 2}}

    writes: list[str] = []
    real = graph.write

    def failing(name: str, *args: Any, **kwargs: Any) -> list[dict[str, Any]]:
        writes.append(name)
        if name == "cluster_write" and writes.count(name) == 2:
            raise RuntimeError("the database went away in the middle")
        return real(name, *args, **kwargs)

    monkeypatch.setattr("pathrag_gds.clusters.store.MEMBERS_PER_BATCH", 0)  # one cluster a batch
    monkeypatch.setattr(graph, "write", failing)
    with pytest.raises(RuntimeError, match="in the middle"):
        write_clusters(graph, cid, "run_c", _summaries(3), vec, progress=False)
    monkeypatch.undo()
    assert cluster_state(graph, cid) == {"run": "run_b", "levels": {0: 2}}
    assert run(
        graph, "MATCH (c:Cluster {community_id: $c}) RETURN collect(DISTINCT c.run) AS runs", c=cid
    ) == [{"runs": ["run_b"]}], "the failed run's first cluster was removed"


def test_global_before_communities_names_the_command(
    service: PathRag, empty_community: str, capsys: pytest.CaptureFixture[str]
) -> None:
    command = f"python -m pathrag_gds communities --community {empty_community}"
    for mode in ("global", "hybrid"):
        with pytest.raises(SchemaError, match=command):
            service.pathrag(QUESTION, community_id=empty_community, mode=mode)
    assert main(["query", QUESTION, "--community", empty_community, "--mode", "global"]) == 2
    assert command in capsys.readouterr().err
    assert main(["communities", "--community", empty_community]) == 2
    assert "has no entities to cluster" in capsys.readouterr().err
    with pytest.raises(InvalidInput, match="community_id"):
        service.pathrag(QUESTION, mode="global")


@pytest.mark.parametrize("mode", [m for m in MODES if m != "local"])  # local: test_api_hardening
def test_each_mode_from_the_library_and_the_cli(
    service: PathRag, settings: Settings, demo_community: str, mode: str, capsys: pytest.CaptureFixture[str]
) -> None:
    lib = service.pathrag(QUESTION, community_id=demo_community, mode=mode, **SMALL)
    args = ["--top-n", "3", "--max-depth", "2", "--seed-n", "5", "--json"]
    assert main(["query", QUESTION, "--community", demo_community, "--mode", mode, *args]) == 0
    cli = json.loads(capsys.readouterr().out)
    assert lib.mode == cli["mode"] == mode and lib.answer is not None
    assert cli["answer"] == lib.answer.text and cli["answer_detail"] == lib.answer.model_dump(mode="json")
    assert [[n["id"] for n in p["nodes"]] for p in cli["paths"]] == [p.node_ids for p in lib.paths]
    if mode == "global":
        assert not lib.paths and 1 <= len(lib.clusters) <= 3 and lib.round_trips == 2
        assert [c.score for c in lib.clusters] == sorted((c.score for c in lib.clusters), reverse=True)
        query = "MATCH (:Community {id: $c})-[:AGGREGATES]->(e) RETURN e.id AS id"
        members = {r["id"] for r in run(service.graph, query, c=demo_community)}
        assert all(e.id in members for c in lib.clusters for e in c.top_entities)
        assert lib.answer.text.startswith(lib.clusters[0].title + ": ")
        return
    best = lib.paths[0]
    assert best.answer_candidates and lib.answer.entity == best.answer_candidates[0].name
    assert lib.answer.text.startswith(f"{lib.answer.entity}. ")
    if lib.answer.sentence:
        assert any(lib.answer.sentence.rstrip("…") in " ".join(s.text.split()) for s in best.sources)
    assert all(p.depth <= (0 if mode == "naive" else 2) for p in lib.paths)
    if mode == "hybrid":
        w = settings.hybrid_global_weight
        ids = {c.id for c in lib.clusters}
        for p in lib.paths:
            parts = p.score_parts
            assert parts["combined"] == pytest.approx(parts["local"] + w * parts["global"], abs=1e-5)
            assert p.score == parts["combined"] and set(p.related) <= ids and len(p.related) == 1
    if mode == "mix":
        seeds = {s.id for s in lib.seeds}
        for p in lib.paths:
            parts = p.score_parts
            assert parts["combined"] == pytest.approx(0.7 * parts["vector"] + 0.3 * parts["graph"], abs=1e-5)
            assert parts["graph"] >= parts["inherited"] and p.reason
            if p.depth:
                assert p.related == [p.node_ids[0]] and p.node_ids[0] in seeds


def test_mix_takes_weights_from_the_request(service: PathRag, demo_community: str) -> None:
    r = service.pathrag(
        QUESTION, community_id=demo_community, mode="mix", weights={"vector": 1.0, "graph": 0.0}, **SMALL
    )
    assert r.paths and all(p.score == pytest.approx(p.score_parts["vector"]) for p in r.paths)
    with pytest.raises(InvalidInput, match="between 0 and 1"):
        service.pathrag(QUESTION, community_id=demo_community, mode="mix", weights={"graph": 1.2})
