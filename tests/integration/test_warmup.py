"""The warm-up `db start` runs: one real question for each of the largest communities."""

from __future__ import annotations

import pytest

from pathrag_gds.catalog import read_graph_info
from pathrag_gds.config import Settings
from pathrag_gds.graph import Graph
from pathrag_gds.warmup import warm_up

pytestmark = pytest.mark.integration


def test_warm_up_runs_the_search_queries_of_each_community(
    graph: Graph, settings: Settings, demo_community: str
) -> None:
    communities = read_graph_info(graph, settings).communities
    report = warm_up(graph, settings, max_communities=len(communities))
    assert demo_community in report.communities
    assert set(report.communities) == set(communities)
    # the catalog (3), then per community its entity and a whole search: seeds, an expansion per
    # depth, the sources (only the entity query where nothing is embedded yet)
    assert report.queries >= 3 + len(communities) + 3
    assert report.summary().startswith(f"warmed up the search queries for {len(communities)} communit")
    # and a question with no community given (the CLI's default), which reads every community
    assert report.unscoped


def test_warm_up_takes_the_demo_community_then_the_largest(
    graph: Graph, settings: Settings, demo_community: str
) -> None:
    """A graph loaded beside the demo's (larger than it) does not push the demo out of the warm-up."""
    sizes = {c: int(v.get("size") or 0) for c, v in read_graph_info(graph, settings).communities.items()}
    others = sorted((c for c in sizes if c != demo_community), key=lambda c: -sizes[c])
    assert others, sizes  # the test session loads MetaQA samples and other graphs beside the demo
    assert warm_up(graph, settings, max_communities=1).communities == [demo_community]
    assert warm_up(graph, settings, max_communities=2).communities == [demo_community, others[0]]


def test_a_community_with_a_chain_model_is_also_warmed_walking_free(
    graph: Graph, settings: Settings, demo_community: str
) -> None:
    """The demo graph ships a chain model: its plan is walked, then the free walk of an unsure plan."""
    from pathrag_gds.chain_model import chain_model_dir

    assert chain_model_dir(settings, demo_community).is_dir()
    n = len(read_graph_info(graph, settings).communities)
    planned = warm_up(graph, settings, max_communities=n)
    free_only = warm_up(graph, settings.model_copy(update={"chain_planning": False}), max_communities=n)
    assert planned.communities == free_only.communities
    # every community asked the same free question, and the ones with a chain model once more
    assert planned.queries > free_only.queries
