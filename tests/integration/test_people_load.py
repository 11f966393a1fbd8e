"""The generated "people" graph against a live Neo4j: it loads through the triple loader with the
expected counts, and an annotated 2-hop chain walked in Cypher reaches exactly its gold answers.

The test writes its own community (random id, its own ontology id) and deletes it at the end.
"""

from __future__ import annotations

import dataclasses
import uuid
from collections.abc import Iterator

import pytest

from pathrag_gds.datasets.loader import GraphLoader, community_counts, delete_community
from pathrag_gds.datasets.ontology_files import read_ontology
from pathrag_gds.datasets.people import PEOPLE_ONTOLOGY, SYMMETRIC, PeopleWorld, generate
from pathrag_gds.datasets.triples import read_triples_text
from pathrag_gds.evaluation.metaqa import ChainStep, parse_chain
from pathrag_gds.graph import Graph, quote_identifier

pytestmark = pytest.mark.integration


@pytest.fixture
def community(graph: Graph) -> Iterator[str]:
    cid = f"test_people_{uuid.uuid4().hex[:10]}"
    yield cid
    delete_community(graph, cid, drop_ontology=True)
    assert community_counts(graph, cid) is None


def _pattern(chain: tuple[ChainStep, ...]) -> str:
    """`(t)<-[:parent_of]-(n1)-[:born_in]->(a)` for `parent_of:in,born_in:out`."""
    out = "(t)"
    for i, (rel, d) in enumerate(chain):
        node = "(a)" if i == len(chain) - 1 else f"(n{i})"
        r = f"[:{quote_identifier(rel)}]"
        out += {"out": f"-{r}->", "in": f"<-{r}-", "both": f"-{r}-"}[d] + node
    return out


def _cypher_walk(graph: Graph, topic_id: str, chain: tuple[ChainStep, ...]) -> set[str]:
    label = quote_identifier(graph.settings.entity_label)
    query = (
        f"MATCH p = {_pattern(chain)} WHERE t:{label} AND t.id = $tid "
        "AND size(apoc.coll.toSet(nodes(p))) = size(nodes(p)) RETURN DISTINCT a.name AS name"
    )
    records, _, _ = graph.driver.execute_query(query, {"tid": topic_id}, database_=graph.database)
    return {r["name"] for r in records}


def _two_hop_topic(world: PeopleWorld, chain: tuple[ChainStep, ...]) -> tuple[str, set[str]]:
    for name in world.entities_of("Person"):
        answers = world.walk(name, chain)
        if len(answers) >= 2:
            return name, answers
    raise AssertionError("no person with two or more answers")  # pragma: no cover


def test_people_graph_loads_and_a_gold_chain_reaches_its_answers(graph: Graph, community: str) -> None:
    world = generate(seed=3, scale=0.1)
    onto = dataclasses.replace(read_ontology(PEOPLE_ONTOLOGY), id=f"{community}_onto")
    tf = read_triples_text(world.tsv(), "tsv", onto, community)
    assert not tf.bad_rows
    report = GraphLoader(graph, batch_size=500, progress=False).load(tf.dataset)
    assert report.relationships_missing_endpoint == 0

    counts = community_counts(graph, community)
    assert counts is not None
    assert counts["entities"] == len(world.labels)
    assert counts["relationships"] == world.relation_counts()
    assert counts["labels"] == world.label_counts()

    # parents' birthplaces: against the stored parent_of arrow, then along born_in
    chain = parse_chain("parent_of:in,born_in:out")
    topic, gold = _two_hop_topic(world, chain)
    assert _cypher_walk(graph, f"{community}:{topic}", chain) == gold
    # the wrong direction reaches the children's birthplaces instead
    assert _cypher_walk(graph, f"{community}:{topic}", parse_chain("parent_of:out,born_in:out")) != gold

    # a symmetric relation is stored once, so only `both` finds every spouse's employer
    sym = parse_chain("married_to:both,works_for:out")
    topic, gold = next((p, world.walk(p, sym)) for p in world.entities_of("Person") if world.walk(p, sym))
    assert "married_to" in SYMMETRIC
    assert _cypher_walk(graph, f"{community}:{topic}", sym) == gold
    one_way = _cypher_walk(graph, f"{community}:{topic}", parse_chain("married_to:out,works_for:out"))
    other_way = _cypher_walk(graph, f"{community}:{topic}", parse_chain("married_to:in,works_for:out"))
    assert (one_way or other_way) and not (one_way and other_way)
