"""`python -m pathrag_gds drop` against a live Neo4j: a community of this test's own is listed, not
deleted without `--yes`, deleted with it (entities, relationships, ontology), and an unknown
community gets an error that says where to look."""

from __future__ import annotations

import uuid

import pytest
from pathrag_testutil import PeopleFactory

from pathrag_gds import cli
from pathrag_gds.datasets.loader import community_counts
from pathrag_gds.graph import Graph

pytestmark = pytest.mark.integration


@pytest.fixture
def community(people_community: PeopleFactory) -> str:
    return people_community("test_drop", seed=5, scale=0.02)


def test_drop_says_what_it_would_delete_and_deletes_only_with_yes(
    graph: Graph, community: str, capsys: pytest.CaptureFixture[str]
) -> None:
    before = community_counts(graph, community)
    assert before and before["entities"] > 0
    assert cli.main(["drop", "--community", community]) == 0
    out = capsys.readouterr().out
    assert f"{before['entities']:,} entities" in out and "add --yes" in out
    assert community_counts(graph, community) == before  # nothing deleted

    assert cli.main(["drop", "--community", community, "--yes"]) == 0
    assert "deleted community" in capsys.readouterr().out
    assert community_counts(graph, community) is None
    with graph.session() as s:
        left = s.run(
            "MATCH (e) WHERE e.id STARTS WITH $prefix OR e.id = $onto RETURN count(e) AS n",
            prefix=f"{community}:",
            onto=f"{community}_onto",
        ).single()
    assert left is not None and left["n"] == 0  # its entities and its ontology are gone too


def test_drop_of_an_unknown_community_says_where_to_look(
    graph: Graph, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(["drop", "--community", f"test_drop_missing_{uuid.uuid4().hex[:6]}", "--yes"]) == 2
    assert "`python -m pathrag_gds info` lists them" in capsys.readouterr().err
