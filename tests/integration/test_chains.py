"""Chain planning end to end on the demo graph with its shipped chain model (real Neo4j).

The questions are the ones the chain-planning issue reported as wrong (relation direction), plus a
two-hop chain; each asserts the answer AND the relation chain (type and direction) of the #1 path.
"""

from __future__ import annotations

import pytest

from pathrag_gds.chain_model import chain_model_dir, get_chain_scorer, reset_chain_scorers
from pathrag_gds.config import Settings
from pathrag_gds.graph import Graph
from pathrag_gds.scoring import reset_scorers
from pathrag_gds.service import PathRag

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def chain_service(graph: Graph, demo_community: str) -> PathRag:
    # the path-text scorer alone beside the chains (no cascade): what the chain model decides shows
    s = Settings.from_env(cascade_k=0)
    assert (chain_model_dir(s, demo_community) / "manifest.json").is_file(), "the demo ships its chain model"
    reset_chain_scorers()
    reset_scorers()
    return PathRag(s, graph=graph)


@pytest.mark.parametrize(
    ("question", "answer", "chain"),
    [
        ("Who owns Bob the Cat?", "jane", ["owns:in"]),
        ("Which bird does Bob like to chase?", "pip", ["chases:out"]),
        ("Who chases Bob?", "rex", ["chases:in"]),
        ("Who is Jane's mother?", "martha", ["is_child_of:out"]),
    ],
)
def test_the_planned_chain_decides_direction(
    chain_service: PathRag, demo_community: str, question: str, answer: str, chain: list[str]
) -> None:
    result = chain_service.pathrag(question, community_id=demo_community, max_depth=3)
    best = result.paths[0]
    assert best.chain == chain, [(p.chain, p.score_parts) for p in result.paths[:3]]
    assert best.answer_candidates[0].id.endswith(answer)
    assert 0.0 < best.score_parts["chain"] <= 1.0
    assert "instance" in best.score_parts


def test_paths_from_the_topic_walk_only_planned_chains(chain_service: PathRag, demo_community: str) -> None:
    result = chain_service.pathrag("Who owns Bob the Cat?", community_id=demo_community, max_depth=3)
    plan_scorer = get_chain_scorer(chain_service.settings, demo_community)
    assert plan_scorer is not None
    bob_paths = [p for p in result.paths if p.nodes[0].name.startswith("Bob")]
    assert bob_paths
    # every path from the topic has a chain probability; a round trip per depth at most, plus
    # seeds and sources
    assert all("chain" in p.score_parts for p in bob_paths)
    assert result.round_trips <= 3 + 2


def test_without_a_chain_model_the_search_falls_back(graph: Graph, demo_community: str, tmp_path) -> None:  # type: ignore[no-untyped-def]
    # the same models folder without the community's tuned folder
    (tmp_path / "all-MiniLM-L6-v2").symlink_to(Settings.from_env().models_dir / "all-MiniLM-L6-v2")
    s = Settings.from_env(models_dir=tmp_path, cascade_k=0)
    reset_chain_scorers()
    result = PathRag(s, graph=graph).pathrag("Who owns Bob the Cat?", community_id=demo_community)
    reset_chain_scorers()
    assert result.paths
    assert all("chain" not in p.score_parts for p in result.paths)
