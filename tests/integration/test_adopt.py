"""`adopt` on a graph written by neo4j-graphrag's own `Neo4jWriter` (a KG builder's output, no LLM).

The bar of issue 57: the graph is adopted, indexed and answers a 1-hop and a 2-hop question with
the right entity; `adopt --remove` then leaves every label, property and relationship of the
user's nodes exactly as before (a full dump compared). The nodes carry a unique tag label so that
the test adopts only its own nodes in the shared database.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import os
import secrets
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("neo4j_graphrag", reason="needs the graphrag extra: pip install -e '.[graphrag]'")

from fastapi.testclient import TestClient
from neo4j_graphrag.components.kg_writer import Neo4jWriter
from neo4j_graphrag.components.types import Neo4jGraph, Neo4jNode, Neo4jRelationship
from pathrag_testutil import run_cli

from pathrag_gds.api import create_app
from pathrag_gds.cli import main
from pathrag_gds.config import Settings
from pathrag_gds.datasets.loader import Dataset, EntityRow, GraphLoader, delete_community
from pathrag_gds.graph import Graph
from pathrag_gds.integrations.neo4j_graphrag import PathRagRetriever
from pathrag_gds.ontology import Ontology
from pathrag_gds.scoring import get_scorer
from pathrag_gds.service import PathRag

pytestmark = pytest.mark.integration

NODES = [
    ("alice", "Person", {"name": "Alice Moreau", "description": "A chemist who builds sensors."}),
    ("bruno", "Person", {"name": "Bruno Keller", "description": "An engineer and entrepreneur."}),
    ("carla", "Person", {"name": "Carla Diaz", "description": "A glassblower."}),
    ("lumen", "Organization", {"name": "Lumen Labs", "description": "A company making optical sensors."}),
    ("quill", "Organization", {"name": "Quill Foundry", "description": "A glassworks."}),
    ("tarvik", "City", {"name": "Tarvik", "description": "A port city in the north."}),
    ("sorrel", "City", {"name": "Sorrel", "description": "A hill town known for its glass."}),
    ("norvale", "Country", {"name": "Norvale", "description": "A small northern country."}),
]
RELS = [
    ("alice", "WORKS_FOR", "lumen", {"since": 2019}),
    ("carla", "WORKS_FOR", "quill", {}),
    ("bruno", "FOUNDED", "lumen", {"year": 2015}),
    ("lumen", "LOCATED_IN", "tarvik", {}),
    ("quill", "LOCATED_IN", "sorrel", {}),
    ("tarvik", "LOCATED_IN", "norvale", {}),
    ("sorrel", "LOCATED_IN", "norvale", {}),
]


def _cli(*args: str) -> tuple[int, str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(list(args))
    return code, out.getvalue()


def _dump(graph: Graph, tag: str) -> dict[str, Any]:
    """Every tagged node (labels, properties) and every relationship touching one, by element id."""
    with graph.session() as s:
        nodes = s.run(
            f"MATCH (n:`{tag}`) RETURN elementId(n) AS id, labels(n) AS labels, properties(n) AS props"
        ).data()
        rels = s.run(
            f"MATCH (n:`{tag}`)-[r]-() RETURN DISTINCT elementId(startNode(r)) AS s, type(r) AS t, "
            "elementId(endNode(r)) AS e, properties(r) AS props"
        ).data()
    return {
        "nodes": sorted((n["id"], sorted(n["labels"]), sorted(n["props"].items())) for n in nodes),
        "rels": sorted((r["s"], r["t"], r["e"], sorted(r["props"].items())) for r in rels),
    }


@pytest.fixture()
def kg(graph: Graph, settings: Settings) -> Iterator[str]:
    """A KG builder's graph (entities, a chunk, FROM_CHUNK) written by Neo4jWriter; its tag label."""
    tag = f"adopttest_kg_{uuid.uuid4().hex[:10]}"
    prefix = tag + ":"
    nodes = [Neo4jNode(id=prefix + i, label=label, properties=props) for i, label, props in NODES]
    nodes.append(
        Neo4jNode(
            id=prefix + "chunk0", label="Chunk", properties={"text": "Alice works at Lumen Labs.", "index": 0}
        )
    )
    rels = [
        Neo4jRelationship(start_node_id=prefix + s, end_node_id=prefix + t, type=ty, properties=props)
        for s, ty, t, props in RELS
    ]
    rels += [
        Neo4jRelationship(start_node_id=prefix + i, end_node_id=prefix + "chunk0", type="FROM_CHUNK")
        for i in ("alice", "lumen")
    ]
    # clean_db=False and the writer's cleaning done for these nodes only: the database is shared
    writer = Neo4jWriter(graph.driver, neo4j_database=settings.neo4j_database, clean_db=False)
    result = asyncio.run(writer.run(Neo4jGraph(nodes=nodes, relationships=rels)))
    assert result.status == "SUCCESS", result
    with graph.session() as s:
        s.run(
            "MATCH (n:__KGBuilder__) WHERE n.__tmp_internal_id STARTS WITH $p "
            f"SET n:`{tag}` SET n.__tmp_internal_id = NULL",
            p=prefix,
        ).consume()
    try:
        yield tag
    finally:
        if graph.read("adopt_state", community_id=tag):  # a failed test left its adoption
            _cli("adopt", "--community", tag, "--remove")
        with graph.session() as s:
            s.run(f"MATCH (n:`{tag}`) DETACH DELETE n").consume()


def test_a_neo4j_graphrag_graph_is_adopted_answers_and_is_removed_whole(
    kg: str, graph: Graph, settings: Settings
) -> None:
    community = kg
    before = _dump(graph, kg)
    assert len(before["nodes"]) == 9 and len(before["rels"]) == 9

    adopt = ["adopt", "--community", community, "--label", "__Entity__", "--with-label", kg]
    adopt += ["--chunk-rel", "FROM_CHUNK"]
    code, out = _cli(*adopt, "--dry-run")
    assert code == 0 and "dry run: nothing written" in out, out
    assert "LOCATED_IN: City/Organization -> City/Country, reads 'is located in'" in out, out
    assert "8 (:Entity) node(s)" in out and "7 relationship(s) between those entities" in out, out
    assert _dump(graph, kg) == before
    assert not graph.read("adopt_state", community_id=community)

    assert "2 (:Entity)-[:MENTIONED_IN]->(your :Chunk) relationship(s), to 1 chunk(s)" in out, out
    code, out = _cli(*adopt, "--index")
    assert code == 0, out
    during = _dump(graph, kg)
    assert during["nodes"] == before["nodes"]  # labels and properties of the user's nodes unchanged
    added = [r for r in during["rels"] if r not in before["rels"]]
    assert Counter(r[1] for r in added) == {"ADOPTS": 8, "MENTIONED_IN": 2}
    assert all(r in during["rels"] for r in before["rels"])

    ontology = {o["id"]: o for o in graph.read("ontology_read", ontology_id=f"adopted:{community}")}
    rts = {r["type"]: r for r in ontology[f"adopted:{community}"]["relation_types"]}
    assert set(rts) == {"WORKS_FOR", "FOUNDED", "LOCATED_IN"}  # FROM_CHUNK leads to a chunk: not adopted
    assert rts["WORKS_FOR"]["source_labels"] == ["Person"] and rts["WORKS_FOR"]["target_labels"] == [
        "Organization"
    ]
    assert rts["LOCATED_IN"]["phrase"] == "is located in"

    svc = PathRag(settings, graph=graph, scorer=get_scorer(settings))
    one_hop = svc.pathrag("Who founded Lumen Labs?", community_id=community)
    two_hop = svc.pathrag(
        "In which city is the company that Alice Moreau works for located?", community_id=community
    )
    assert _answer(one_hop) == "Bruno Keller", _paths(one_hop)
    assert _answer(two_hop) == "Tarvik", _paths(two_hop)
    assert two_hop.best is not None and two_hop.best.depth == 2, _paths(two_hop)
    texts = {c.text for c in two_hop.best.sources}  # the user's chunk, read where it is
    assert texts == {"Alice works at Lumen Labs."}, two_hop.best.sources
    assert all(n.id.startswith(community + ":") for p in two_hop.paths for n in p.nodes)  # confined

    # neo4j-graphrag's own pipeline on the graph it built: pathrag_gds's retriever, on the user's driver
    retriever = PathRagRetriever(graph.driver, community, settings=settings, hop_depth=2)
    found = retriever.search(query_text="Who founded Lumen Labs?", top_k=3)
    assert found.items and found.items[0].metadata["answer"] == "Bruno Keller", found.items

    env = {**os.environ, "PATHRAG_CLUSTER_MIN_SIZE": "3"}  # GDS clusters, summarized from the chunk
    proc = run_cli("communities", "--community", community, "--json", env=env)
    assert proc.returncode == 0 and json.loads(proc.stdout)["clusters"] >= 1, proc.stdout + proc.stderr

    code, out = _cli("adopt", "--community", community, "--remove")
    assert code == 0, out
    assert _dump(graph, kg) == before
    with graph.session() as session:  # the clusters went with the community
        left = session.run(
            "MATCH (cl:Cluster {community_id: $c}) RETURN count(cl) AS n", c=community
        ).single()
    assert left is not None and left["n"] == 0
    assert not graph.read("adopt_state", community_id=community)
    assert not graph.read("ontology_read", ontology_id=f"adopted:{community}")


def _answer(result: Any) -> str | None:
    best = result.best
    return best.answer_candidates[0].name if best and best.answer_candidates else None


def _paths(result: Any) -> list[str]:
    return [" ; ".join(p.path_context) for p in result.paths[:5]]


def test_adopt_and_remove_refuse_a_loaded_community(graph: Graph, capsys: pytest.CaptureFixture[str]) -> None:
    community = f"adopttest_loaded_{uuid.uuid4().hex[:10]}"
    dataset = Dataset(
        ontology=Ontology(f"{community}_o"),
        community_id=community,
        entities=[EntityRow(f"{community}:a", "a")],
    )
    GraphLoader(graph, progress=False).load(dataset)
    try:
        assert main(["adopt", "--community", community, "--remove"]) == 2
        assert "was loaded, not adopted: --remove only removes adopted communities" in capsys.readouterr().err
        assert main(["adopt", "--community", community, "--label", "Community"]) == 2
        assert "exists and was loaded, not adopted: choose another --community id" in capsys.readouterr().err
        assert graph.read("adopt_state", community_id=community)[0]["entities"] == 1  # nothing deleted
    finally:
        delete_community(graph, community, drop_ontology=True)


def test_adopt_says_what_to_do_with_an_unknown_label(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["adopt", "--community", "adopttest_x", "--label", "NoSuchLabel57"]) == 2
    assert "no node has label(s) ['NoSuchLabel57']: check the spelling" in capsys.readouterr().err


@pytest.fixture()
def plain(graph: Graph) -> Iterator[str]:
    """A plain labelled graph (Person, Movie; films named by `title`) under a unique tag label."""
    tag = f"adopttest_plain_{uuid.uuid4().hex[:10]}"
    with graph.session() as s:
        s.run(
            f"CREATE (a:Person:`{tag}` {{name: 'Ingrid Vale', born: 1961}}),"
            f" (b:Person:`{tag}` {{name: 'Tomas Reyn'}}), (c:Person:`{tag}` {{name: 'Mira Solberg'}}),"
            f" (m1:Movie:`{tag}` {{title: 'The Salt Road', released: 1999, vec: $vec}}),"
            f" (m2:Movie:`{tag}` {{title: 'Glass Harbour', released: 2004}}),"
            " (a)-[:DIRECTED]->(m1), (c)-[:DIRECTED]->(m2),"
            " (b)-[:ACTED_IN {roles: ['Sam']}]->(m1), (b)-[:ACTED_IN {roles: ['Ola']}]->(m2)",
            vec=[0.5] * 32,
        ).consume()
    try:
        yield tag
    finally:
        if graph.read("adopt_state", community_id=tag):
            _cli("adopt", "--community", tag, "--remove")
        with graph.session() as s:
            s.run(f"MATCH (n:`{tag}`) DETACH DELETE n").consume()


def test_a_plain_labelled_graph_is_adopted_by_its_labels_and_removed_whole(
    plain: str, graph: Graph, settings: Settings
) -> None:
    community, before = plain, _dump(graph, plain)
    args = ("adopt", "--community", community, "--label", "Person", "--label", "Movie", "--with-label", plain)
    code, out = _cli(*args)
    assert code == 0 and "5 (:Entity) node(s)" in out and "(Movie 2, Person 3)" in out, out
    assert "ACTED_IN: Person -> Movie, reads 'acted in'" in out, out
    code, out = _cli(*args, "--index")  # again: nothing new
    assert code == 0 and "5 (0 created, 5 existing, 0 of them changed)" in out, out
    rows = graph.read(
        "index_pending_community",
        community=community,
        after="",
        force=True,
        limit=10,
        embedding_key="embedding",
        entity_label=settings.entity_label,
    )
    movie = next(r for r in rows if r["props"]["name"] == "The Salt Road")
    assert movie["labels"] == ["Adopted__Movie"]  # not the user's Movie label: their MATCH misses it
    assert movie["props"]["released"] == 1999 and "vec" not in movie["props"]
    assert _dump(graph, plain)["nodes"] == before["nodes"]

    svc = PathRag(settings, graph=graph, scorer=get_scorer(settings))
    assert _answer(svc.pathrag("Who directed The Salt Road?", community_id=community)) == "Ingrid Vale"

    with graph.session() as s:  # the user's graph changes: adopting again follows it
        s.run(
            f"MATCH (c:`{plain}` {{name: 'Mira Solberg'}}) DETACH DELETE c WITH 1 AS one "
            f"MATCH (:`{plain}` {{name: 'Ingrid Vale'}})-[r:DIRECTED]->() DELETE r WITH 1 AS one "
            f"MATCH (m:`{plain}` {{title: 'Glass Harbour'}}) "
            f"CREATE (:Person:`{plain}` {{name: 'Ola Brink'}})-[:ACTED_IN]->(m)"
        ).consume()
    now = _dump(graph, plain)
    before = {"nodes": now["nodes"], "rels": [r for r in now["rels"] if r[1] != "ADOPTS"]}  # as without adopt
    code, out = _cli(*args)
    assert code == 0 and "deleted: 1 entities, 1 relationships, 1 ontology types" in out, out
    counts = graph.read("community_counts", community_id=community, entity_label=settings.entity_label)[0]
    assert counts["entities"] == 5 and counts["relationships"] == {"ACTED_IN": 3}, counts
    (onto,) = graph.read("ontology_read", ontology_id=f"adopted:{community}")
    assert [r["type"] for r in onto["relation_types"]] == ["ACTED_IN"]

    assert _cli("adopt", "--community", community, "--remove")[0] == 0
    assert _dump(graph, plain) == before


def test_key_names_the_entity_ids_and_a_node_without_it_keeps_its_element_id(
    plain: str, graph: Graph
) -> None:
    code, out = _cli(
        "adopt",
        "--community",
        plain,
        "--label",
        "Person",
        "--label",
        "Movie",
        "--with-label",
        plain,
        "--key",
        "name",
    )
    assert code == 0, out
    ids = {r["id"] for r in graph.read("adopt_current", community_id=plain, structural=["ADOPTS"])}
    people = {f"{plain}:Ingrid Vale", f"{plain}:Tomas Reyn", f"{plain}:Mira Solberg"}
    assert people <= ids and len(ids - people) == 2  # the movies have no `name`: their element ids
    assert _cli("adopt", "--community", plain, "--remove")[0] == 0


#: LightRAG's Neo4j storage, as its `upsert_node` and `upsert_edge` write (lightrag/kg/neo4j_impl.py).
LIGHTRAG_NODE = "MERGE (n:`{ws}` {{entity_id: $entity_id}}) SET n += $properties SET n:`{entity_type}`"
LIGHTRAG_EDGE = (
    "MATCH (source:`{ws}` {{entity_id: $source_entity_id}}) WITH source "
    "MATCH (target:`{ws}` {{entity_id: $target_entity_id}}) "
    "MERGE (source)-[r:DIRECTED]-(target) SET r += $properties"
)
LIGHTRAG_NODES = [
    ("Alice Moreau", "person", "A chemist who builds sensors."),
    ("Bruno Keller", "person", "An engineer and entrepreneur."),
    ("Lumen Labs", "organization", "A company making optical sensors."),
    ("Tarvik", "geo", "A port city in the north."),
]
LIGHTRAG_EDGES = [
    ("Alice Moreau", "Lumen Labs", "employment, research", "Alice Moreau works at Lumen Labs as a chemist."),
    ("Bruno Keller", "Lumen Labs", "founder, creation", "Bruno Keller founded Lumen Labs in 2015."),
    ("Lumen Labs", "Tarvik", "location, headquarters", "Lumen Labs has its headquarters in Tarvik."),
]


@pytest.fixture()
def lightrag(graph: Graph) -> Iterator[str]:
    """A LightRAG workspace (its label) written with LightRAG's own Cypher."""
    ws = f"adopttest_lightrag_{uuid.uuid4().hex[:10]}"
    with graph.session() as s:
        for name, entity_type, desc in LIGHTRAG_NODES:
            props = {"entity_id": name, "entity_type": entity_type, "description": desc}
            props |= {"source_id": "chunk-1<SEP>chunk-2", "file_path": "notes.txt", "created_at": 1733400000}
            s.run(
                LIGHTRAG_NODE.format(ws=ws, entity_type=entity_type), entity_id=name, properties=props
            ).consume()
        for src, tgt, keywords, desc in LIGHTRAG_EDGES:
            props = {"weight": 1.0, "keywords": keywords, "description": desc, "source_id": "chunk-1"}
            s.run(
                LIGHTRAG_EDGE.format(ws=ws), source_entity_id=src, target_entity_id=tgt, properties=props
            ).consume()
    try:
        yield ws
    finally:
        if graph.read("adopt_state", community_id=ws):
            _cli("adopt", "--community", ws, "--remove")
        with graph.session() as s:
            s.run(f"MATCH (n:`{ws}`) DETACH DELETE n").consume()


def test_a_lightrag_workspace_is_adopted_with_its_edge_text_and_removed_whole(
    lightrag: str, graph: Graph, settings: Settings
) -> None:
    community, before = lightrag, _dump(graph, lightrag)
    code, out = _cli("adopt", "--community", community, "--lightrag", lightrag, "--index")
    assert (
        code == 0
        and "(geo 1, organization 1, person 2)" in out
        and "with label(s) adopttest_lightrag_" in out
    ), out
    assert (
        "RELATED_TO: person/organization -> organization/geo, reads 'is related to' / 'is related to'" in out
    ), out
    svc = PathRag(settings, graph=graph, scorer=get_scorer(settings))
    result = svc.pathrag("Who founded Lumen Labs?", community_id=community)
    assert _answer(result) == "Bruno Keller", _paths(result)
    best = result.best
    assert best is not None and best.edges[0].attributes["keywords"] == "founder, creation"
    assert "source_id" not in best.edges[0].attributes and "source_id" not in best.nodes[0].attributes
    assert best.nodes[0].id == f"{community}:Lumen Labs" or best.nodes[-1].id == f"{community}:Bruno Keller"

    token = secrets.token_urlsafe(24)  # the HTTP API on the adopted community
    app_settings = settings.model_copy(update={"api_token": token, "api_timeout_s": 300.0})
    with TestClient(create_app(app_settings, warm_up=False), base_url="http://127.0.0.1") as client:
        deadline = time.monotonic() + 120
        while client.get("/readyz").status_code != 200:  # models load in the background
            assert time.monotonic() < deadline, "the API did not get ready"
            time.sleep(0.5)
        body = {"question": "Who founded Lumen Labs?", "community_id": community}
        r = client.post("/v1/query", json=body, headers={"Authorization": f"Bearer {token}"})
    assert r.status_code == 200 and r.json()["answer"].startswith("Bruno Keller"), r.text
    assert _cli("adopt", "--community", community, "--remove")[0] == 0
    assert _dump(graph, lightrag) == before


def test_a_match_on_the_users_own_labels_counts_the_same_with_the_graph_adopted(
    graph: Graph, settings: Settings
) -> None:
    """The copies carry `Adopted__<label>`, not the user's labels; an older adoption's plain ones go."""
    tag, run = f"adopttest_count_{uuid.uuid4().hex[:10]}", uuid.uuid4().hex[:8]
    lamp, room = f"Lamp_{run}", f"Room_{run}"  # type labels no one else has: the counts are exact
    with graph.session() as s:
        s.run(
            f"CREATE (a:`{lamp}`:`{tag}` {{name: 'Brass lamp'}}),"
            f" (b:`{lamp}`:`{tag}` {{name: 'Paper lamp'}}), (r:`{room}`:`{tag}` {{name: 'Study'}}),"
            " (a)-[:STANDS_IN]->(r), (b)-[:STANDS_IN]->(r)"
        ).consume()

    def counts() -> tuple[int, int]:
        with graph.session() as s:
            return (
                s.run(f"MATCH (n:`{lamp}`) RETURN count(n) AS n").single(strict=True)["n"],
                s.run(f"MATCH (n:`{room}`) RETURN count(n) AS n").single(strict=True)["n"],
            )

    try:
        before, dump = counts(), _dump(graph, tag)
        assert before == (2, 1)
        args = ("adopt", "--community", tag, "--label", lamp, "--label", room, "--with-label", tag)
        code, out = _cli(*args, "--index")
        assert code == 0 and f"({lamp} 2, {room} 1), each prefixed Adopted__" in out, out
        assert counts() == before
        with graph.session() as s:  # the copies are there, under their own labels
            copies = s.run(f"MATCH (n:`Adopted__{lamp}`) RETURN count(n) AS n").single(strict=True)["n"]
        assert copies == 2
        svc = PathRag(settings, graph=graph, scorer=get_scorer(settings))
        result = svc.pathrag("Where does the brass lamp stand?", community_id=tag)
        assert _answer(result) == "Study", _paths(result)
        assert result.best is not None and result.best.answer_candidates[0].labels == [room]  # no prefix

        with graph.session() as s:  # an adoption written before the prefix: copies with the plain label
            s.run(
                f"MATCH (:Community {{id: $c}})-[:AGGREGATES]->(e:Entity:`Adopted__{lamp}`) SET e:`{lamp}`",
                c=tag,
            ).consume()
        assert counts() == (4, 1)
        code, out = _cli(*args)  # adopting again takes them off
        assert code == 0 and counts() == before, out

        assert _cli("adopt", "--community", tag, "--remove")[0] == 0
        assert counts() == before and _dump(graph, tag) == dump
    finally:
        if graph.read("adopt_state", community_id=tag):
            _cli("adopt", "--community", tag, "--remove")
        with graph.session() as s:
            s.run(f"MATCH (n:`{tag}`) DETACH DELETE n").consume()
