"""The expansion baselines walk the default search's chain plan and find its paths (live Neo4j).

Read-only on the demo community (its shipped chain model plans these questions): the per-node and
variable-length baselines start from the same seeds, follow the same plans and score with the same
scorer, so they return the same top paths with the same scores; only the expansion's round trips
differ (per node: one per frontier node and depth, against one per depth).
"""

from __future__ import annotations

import pytest

from pathrag_gds.baselines import PerNodeRag, VarLengthRag
from pathrag_gds.config import Settings
from pathrag_gds.graph import Graph
from pathrag_gds.service import PathRag

pytestmark = pytest.mark.integration

QUESTIONS = (
    "Who owns Bob the Cat?",
    "Who is the owner of the dog that chases Bob?",
    "What toy did Bob pinch from Martha's knitting basket?",
)


@pytest.fixture(scope="module")
def demo(demo_community: str) -> str:
    """The demo community, loaded and indexed (the shared session fixture)."""
    return demo_community


@pytest.mark.parametrize("question", QUESTIONS)
def test_baselines_walk_the_plan_and_return_the_default_paths(
    graph: Graph, settings: Settings, demo: str, question: str
) -> None:
    rag = PathRag(settings, graph=graph)
    per_node = PerNodeRag(settings, graph=graph, scorer=rag.scorer, embedder=rag.embedder)
    var_len = VarLengthRag(settings, graph=graph, scorer=rag.scorer, embedder=rag.embedder)
    a = rag.pathrag(question, community_id=demo)
    b = per_node.pathrag(question, community_id=demo)
    c = var_len.pathrag(question, community_id=demo)
    assert a.paths, question
    assert any("chain" in p.score_parts for p in a.paths), "planned paths expected (shipped chain model)"
    top = [(p.key, round(p.score, 5)) for p in a.paths]
    assert [(p.key, round(p.score, 5)) for p in b.paths] == top
    assert [(p.key, round(p.score, 5)) for p in c.paths] == top
    assert b.round_trips > a.round_trips
