"""The scale benchmark's smoke run on a small generated graph (the real ones are 100k to 5M; docs/scaling.md).

The graph is loaded through the batched loader into its own community and deleted afterwards;
questions are generated from it and asked with the service's expander and the per-node baseline.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest

from pathrag_gds.config import Settings
from pathrag_gds.datasets.loader import GraphLoader, community_counts, delete_community
from pathrag_gds.datasets.synthetic import generate, to_dataset
from pathrag_gds.encoders import get_embedder
from pathrag_gds.evaluation.scale import TimedRag, generate_questions, run_questions, server_memory, summarize
from pathrag_gds.graph import Graph
from pathrag_gds.indexing import ensure_vector_index

pytestmark = pytest.mark.integration

SIZE = 1_000


@pytest.fixture(scope="module")
def scale_community(graph: Graph, settings: Settings) -> Iterator[str]:
    cid = f"test_scale_{uuid.uuid4().hex[:10]}"
    synthetic = generate(SIZE, seed=1)
    try:
        report = GraphLoader(graph, progress=False).load(to_dataset(synthetic, cid))
        assert report.relationships_created == synthetic.relationship_count
        ensure_vector_index(graph, get_embedder(settings).dim, progress=False)
        yield cid
    finally:
        delete_community(graph, cid, drop_ontology=True)


def test_the_loaded_graph_is_the_generated_one(graph: Graph, scale_community: str) -> None:
    counts = community_counts(graph, scale_community)
    synthetic = generate(SIZE, seed=1)
    assert counts is not None
    assert counts["entities"] == sum(len(v) for v in synthetic.used().values())
    assert sum(counts["relationships"].values()) == synthetic.relationship_count
    assert counts["relationships"]["has_skill"] == len(synthetic.relationships["has_skill"][0])


def test_bench_run_times_every_depth(graph: Graph, settings: Settings, scale_community: str) -> None:
    rag = TimedRag(settings, "pathrag_gds", graph=graph)
    ontology = rag.ontology_for(scale_community, None)
    questions = generate_questions(graph, scale_community, ontology, 1, seed=0)
    assert [q.hop for q in questions] == [1, 2, 3]
    assert all(q.answers and q.topic_id.startswith(scale_community) for q in questions)
    runs = run_questions(rag, questions, scale_community, max_depth=3)
    s = summarize(runs)
    assert s["questions"] == 3 and s["timed_out"] == 0
    assert set(s["expand_ms"]) == {"1", "2", "3"} and all(v["p50"] > 0 for v in s["expand_ms"].values())
    assert 0 < s["db_ms"]["p50"] <= s["end_to_end_ms"]["p50"]
    assert all(r.round_trips <= 3 + 2 for r in runs)
    per_node = TimedRag(settings, "per-node", graph=graph, embedder=rag.embedder, scorer=rag.scorer)
    base = run_questions(per_node, questions[1:2], scale_community, max_depth=3)
    assert base[0].round_trips > runs[1].round_trips  # one call per frontier node and depth
    mem = server_memory(graph, settings)
    assert 0 < mem["heap_used_mib"] <= mem["heap_max_mib"]
