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


def test_warm_up_takes_only_the_largest_communities(
    graph: Graph, settings: Settings, demo_community: str
) -> None:
    report = warm_up(graph, settings, max_communities=1)
    sizes = {c: int(v.get("size") or 0) for c, v in read_graph_info(graph, settings).communities.items()}
    assert report.communities == [max(sizes, key=lambda c: sizes[c])]


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
