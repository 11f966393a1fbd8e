"""The routing driver (`neo4j://`, as for a cluster or Aura) against the local server (issue 55).

A `neo4j://` URI makes the driver fetch a routing table and send each transaction by its kind:
reads to readers, writes to the writer. Against the single local server every role is the same
server, but every statement still goes through the routing path: a search, a load, and a read
right after the load (through another session, chained by the shared bookmark manager).
"""

from __future__ import annotations

import dataclasses
import uuid
from collections.abc import Iterator

import pytest

from pathrag_gds.config import Settings
from pathrag_gds.datasets.loader import GraphLoader, community_counts, delete_community
from pathrag_gds.datasets.ontology_files import read_ontology
from pathrag_gds.datasets.people import PEOPLE_ONTOLOGY, generate
from pathrag_gds.datasets.triples import read_triples_text
from pathrag_gds.graph import Graph
from pathrag_gds.service import PathRag

pytestmark = pytest.mark.integration

QUESTION = "In which village was Bob when the milk was spilled?"


def routing_uri(uri: str) -> str:
    """The same server through the routing scheme (`bolt+s://h` -> `neo4j+s://h`)."""
    scheme, rest = uri.split("://", 1)
    return f"{scheme.replace('bolt', 'neo4j')}://{rest}"


@pytest.fixture(scope="module")
def routed(graph: Graph, settings: Settings) -> Iterator[Graph]:
    """A Graph on the test server through a `neo4j://` URI."""
    g = Graph.connect(settings.model_copy(update={"neo4j_uri": routing_uri(settings.neo4j_uri)}))
    try:
        yield g
    finally:
        g.close()


def test_the_routing_driver_is_used(routed: Graph) -> None:
    assert routed.settings.neo4j_uri.startswith("neo4j")
    table = routed.driver.execute_query(
        "CALL dbms.routing.getRoutingTable({}, $db)", db=routed.database, database_=routed.database
    ).records[0]
    roles = {s["role"] for s in table["servers"]}
    assert {"READ", "WRITE", "ROUTE"} <= roles, table


def test_a_search_through_a_routing_uri(routed: Graph, settings: Settings, demo_community: str) -> None:
    r = PathRag(settings, graph=routed).pathrag(QUESTION, community_id=demo_community, max_depth=2, seed_n=10)
    assert r.paths and 1 <= r.round_trips <= 4


def test_a_load_is_read_at_once_through_a_routing_uri(routed: Graph) -> None:
    cid = f"routing_{uuid.uuid4().hex[:10]}"
    onto = dataclasses.replace(read_ontology(PEOPLE_ONTOLOGY), id=f"{cid}_onto")
    tf = read_triples_text(generate(seed=3, scale=0.02).tsv(), "tsv", onto, cid)
    before = routed.bookmarks.get_bookmarks()
    try:
        report = GraphLoader(routed, batch_size=500, progress=False).load(tf.dataset)
        assert routed.bookmarks.get_bookmarks() != before, "the load's commits left their bookmarks"
        counts = community_counts(routed, cid)  # a read in a new session, right after the load
        assert counts is not None and counts["entities"] == len(tf.dataset.entities) > 0, (counts, report)
    finally:
        delete_community(routed, cid, drop_ontology=True)
