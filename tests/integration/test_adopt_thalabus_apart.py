"""A Thalabus graph and pathrag_gds's own communities in one database are kept apart, both ways.

Thalabus writes `(:Community)-[:AGGREGATES]->(:Entity)` and `(:Ontology)`, the labels pathrag_gds
uses for its own loads. Here a Thalabus graph (`thalabus_graph.py`, its embeddings as long as
pathrag_gds's so that they sit in pathrag_gds's vector index) lives beside a people community that
pathrag_gds loaded and indexed (and the demo story graph, through its shared fixture, read only:
it has a Bob and a Jane too). Checked: queries on each return only its own entities; `adopt`,
`index` and `adopt --remove` leave both the Thalabus graph and pathrag_gds's community exactly as
they were (every node's labels and properties, every relationship touching one); pathrag_gds's
commands refuse what is not theirs (`drop`, `index --community`, `--thalabus` of its own), and
`index` of every community passes Thalabus's entities over (their `embedding` is their own). Ids
start with `adopttest_` (the database is shared).
"""

from __future__ import annotations

import contextlib
import dataclasses
import io
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import thalabus_graph
from pathrag_testutil import PeopleFactory

from pathrag_gds.cli import main
from pathrag_gds.config import Settings
from pathrag_gds.datasets.loader import GraphLoader, delete_community
from pathrag_gds.datasets.ontology_files import read_ontology
from pathrag_gds.datasets.people import PEOPLE_ONTOLOGY, generate
from pathrag_gds.datasets.triples import read_triples_text
from pathrag_gds.graph import Graph
from pathrag_gds.scoring import get_scorer
from pathrag_gds.service import PathRag

pytestmark = pytest.mark.integration

#: the length of pathrag_gds's embeddings (all-MiniLM-L6-v2)
DIM = 384


def _cli(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(args))
    return code, out.getvalue(), err.getvalue()


def _dump_community(graph: Graph, community: str) -> dict[str, Any]:
    """A pathrag_gds community: its node, entities, ontology and types (labels, properties), and
    every relationship touching one of them."""
    with graph.session() as s:
        nodes = s.run(
            "MATCH (c:Community {id: $c}) "
            "CALL (c) { MATCH (c)-[:AGGREGATES]->(e) RETURN e AS n "
            "  UNION MATCH (o:Ontology {id: c.ontology_id}) RETURN o AS n "
            "  UNION MATCH (:Ontology {id: c.ontology_id})-->(t) RETURN t AS n "
            "  UNION RETURN c AS n } "
            "RETURN elementId(n) AS id, labels(n) AS labels, properties(n) AS props",
            c=community,
        ).data()
        rels = s.run(
            "MATCH (n)-[r]-() WHERE elementId(n) IN $ids RETURN DISTINCT elementId(startNode(r)) AS s, "
            "type(r) AS t, elementId(endNode(r)) AS e, properties(r) AS props",
            ids=[n["id"] for n in nodes],
        ).data()
    return {
        "nodes": sorted((n["id"], sorted(n["labels"]), sorted(n["props"].items())) for n in nodes),
        "rels": sorted((r["s"], r["t"], r["e"], sorted(r["props"].items())) for r in rels),
    }


def _ids(result: Any) -> set[str]:
    return {n.id for p in result.paths for n in p.nodes}


def _aggregated(graph: Graph, community: str, ids: set[str]) -> set[str]:
    with graph.session() as s:
        rows = s.run(
            "MATCH (:Community {id: $c})-[:AGGREGATES]->(e:Entity) WHERE e.id IN $ids RETURN e.id AS id",
            c=community,
            ids=sorted(ids),
        ).data()
    return {r["id"] for r in rows}


@pytest.fixture()
def thalabus(graph: Graph) -> Iterator[tuple[str, str]]:
    """A Thalabus graph in pathrag_gds's vector index, and the community to adopt it as; removed after."""
    prefix = f"adopttest_apart_{uuid.uuid4().hex[:10]}"
    community = f"{prefix}_paths"
    thalabus_graph.build(graph, prefix, embedding_dim=DIM)
    try:
        yield prefix, community
    finally:
        if graph.read("adopt_state", community_id=community):
            _cli("adopt", "--community", community, "--remove")
        thalabus_graph.drop(graph, prefix)


def test_queries_stay_in_their_community_and_remove_leaves_both_graphs_as_they_were(
    thalabus: tuple[str, str],
    graph: Graph,
    settings: Settings,
    people_community: PeopleFactory,
    demo_community: str,
    tmp_path: Path,
) -> None:
    prefix, community = thalabus
    triples = tmp_path / "people.tsv"
    triples.write_text(generate(seed=5, scale=0.02).tsv(), encoding="utf-8")
    own = people_community("adopttest_apart_people", seed=5, scale=0.02)
    assert _cli("index", "--community", own)[0] == 0
    before_own, before_thal = _dump_community(graph, own), thalabus_graph.dump(graph, prefix)

    code, out, err = _cli("adopt", "--community", community, "--thalabus", prefix, "--index")
    assert code == 0, out + err
    assert _dump_community(graph, own) == before_own
    mine = {n[0] for n in before_thal["nodes"]}
    during = thalabus_graph.dump(graph, prefix)
    assert [n for n in during["nodes"] if n[0] in mine] == before_thal["nodes"]  # embeddings too

    svc = PathRag(settings, graph=graph, scorer=get_scorer(settings))
    adopted = svc.pathrag("Who owns Bob?", community_id=community)
    assert adopted.paths and all(i.startswith(f"{community}:") for i in _ids(adopted)), _ids(adopted)
    assert adopted.best and adopted.best.answer_candidates[0].name == "Jane Holt"
    for other in (own, demo_community):  # Thalabus's Bob and Jane, and their copies, are in the index too
        result = svc.pathrag("Who owns Bob?", community_id=other)
        ids = _ids(result)
        assert result.paths and not any(i.startswith(prefix) for i in ids), ids
        assert _aggregated(graph, other, ids) == ids, ids
    theirs = _ids(svc.pathrag("Who owns Bob?", community_id=prefix))  # searched as a loaded one
    assert theirs and all(i.startswith(f"{prefix}_") and not i.startswith(community) for i in theirs), theirs

    tied = "Thalabus ontology (EntityOntology / RelationshipOntology nodes); it was adopted from"
    refused = (
        (("drop", "--community", prefix, "--yes"), f"{tied} (as {community})"),
        (("drop", "--community", community, "--yes"), "was adopted from your own nodes"),
        (("adopt", "--community", f"{prefix}_x", "--thalabus", own), "is a community pathrag_gds loaded"),
        (("adopt", "--community", f"{prefix}_x", "--thalabus", community), "is a community adopt made"),
        (("adopt", "--community", prefix, "--remove"), "was loaded, not adopted"),
        (("index", "--community", prefix, "--force"), "pathrag_gds does not index it"),
        (("communities", "--community", prefix), "pathrag_gds does not cluster it"),
        (
            (
                "load",
                "triples",
                str(triples),
                "--format",
                "tsv",
                "--ontology",
                str(PEOPLE_ONTOLOGY),
                "--community",
                prefix,
            ),
            "pathrag_gds does not load into it",
        ),
    )
    for args, says in refused:
        code, out, err = _cli(*args)
        assert code == 2 and says in err, (args, out, err)

    s = graph.settings  # `index` of every community: one page from the test's ids on, forced
    page = graph.read(
        "index_pending_all",
        after=prefix,
        limit=100,
        force=True,
        entity_label=s.entity_label,
        embedding_key=s.embedding_property,
    )
    ids = {r["id"] for r in page if r["id"].startswith(prefix)}
    assert ids and all(i.startswith(f"{community}:") for i in ids), ids  # the copies, not Thalabus's

    code, out, err = _cli("adopt", "--community", community, "--remove")
    assert code == 0, out + err
    assert thalabus_graph.dump(graph, prefix) == before_thal
    assert _dump_community(graph, own) == before_own


def test_deleting_a_community_whose_ontology_id_is_thalabuss_leaves_the_thalabus_ontology(
    thalabus: tuple[str, str], graph: Graph
) -> None:
    """pathrag_gds's load merges onto an `Ontology` of the same id; `drop` refuses that community (it
    cannot tell whose it is), and deleting it takes only pathrag_gds's types off the Thalabus node."""
    prefix, _ = thalabus
    before = thalabus_graph.dump(graph, prefix)
    cid = f"{prefix}_own"
    onto = dataclasses.replace(read_ontology(PEOPLE_ONTOLOGY), id=f"{prefix}_onto")  # Thalabus's id
    tf = read_triples_text(generate(seed=5, scale=0.02).tsv(), "tsv", onto, cid)
    try:
        GraphLoader(graph, batch_size=500, progress=False).load(tf.dataset)
        assert thalabus_graph.dump(graph, prefix) != before  # its types hang on the Thalabus node
        code, out, err = _cli("adopt", "--community", f"{prefix}_paths", "--thalabus", prefix, "--dry-run")
        assert code == 0 and "4 entity type(s), 6 relation type(s)" in out, out + err  # not the people's
        code, out, err = _cli("drop", "--community", cid, "--yes")  # whose is it? not only pathrag_gds's
        assert code == 2 and "it is tied to a Thalabus ontology" in err, out + err
        delete_community(graph, cid, drop_ontology=True)  # as a reload or a library caller does
        assert thalabus_graph.dump(graph, prefix) == before
    finally:
        delete_community(graph, cid, drop_ontology=True)
