"""The MetaQA harness and the expansion baselines against a live Neo4j, on a SMALL MetaQA slice.

The slice is its own community: the kb lines that mention the topic entities of a few dev questions,
plus the lines of the movies those mention (so 2-hop questions can be answered), loaded and embedded
through the loader's Python API and deleted afterwards. The full MetaQA load is not needed.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest

from pathrag_gds.baselines import PerNodeRag, VarLengthRag
from pathrag_gds.config import METAQA_DIR, Settings
from pathrag_gds.datasets.loader import GraphLoader, delete_community
from pathrag_gds.datasets.ontology_files import METAQA_ONTOLOGY, read_ontology
from pathrag_gds.datasets.triples import read_triples_text
from pathrag_gds.encoders import get_embedder
from pathrag_gds.evaluation.metaqa import (
    MetaQAQuestion,
    read_questions,
    run_questions,
    summarize,
    topic_id,
)
from pathrag_gds.graph import Graph
from pathrag_gds.indexing import index_entities
from pathrag_gds.service import PathRag

pytestmark = pytest.mark.integration

DATA = METAQA_DIR


def pick_questions() -> list[MetaQAQuestion]:
    one = read_questions(DATA / "1-hop/qa_dev.txt")
    two = read_questions(DATA / "2-hop/qa_dev.txt")
    return one[:6] + two[:4]


def slice_lines(topics: set[str]) -> list[str]:
    lines = (DATA / "kb.txt").read_text(encoding="utf-8").splitlines()
    ring1 = [
        ln
        for ln in lines
        if (parts := ln.split("|")) and len(parts) == 3 and (parts[0] in topics or parts[2] in topics)
    ]
    movies = {ln.split("|")[0] for ln in ring1}
    ring2 = [ln for ln in lines if ln.split("|")[0] in movies]
    return list(dict.fromkeys(ring1 + ring2))


@pytest.fixture(scope="module")
def metaqa_slice(graph: Graph, settings: Settings) -> Iterator[tuple[str, list[MetaQAQuestion]]]:
    questions = pick_questions()
    cid = f"test_metaqa_eval_{uuid.uuid4().hex[:10]}"
    text = "\n".join(slice_lines({q.topic for q in questions})) + "\n"
    tf = read_triples_text(text, "metaqa", read_ontology(METAQA_ONTOLOGY), cid)
    assert tf.triples > 0 and not tf.bad_rows
    try:
        GraphLoader(graph, batch_size=500, progress=False).load(tf.dataset)
        index_entities(graph, get_embedder(settings), community=cid, progress=False)
        yield cid, questions
    finally:
        delete_community(graph, cid, drop_ontology=True)


def test_harness_on_a_slice_reports_hits_in_the_json_shape(
    graph: Graph, settings: Settings, metaqa_slice: tuple[str, list[MetaQAQuestion]]
) -> None:
    cid, questions = metaqa_slice
    service = PathRag(settings, graph=graph)
    service.refresh()
    ontology = service.ontology_for(cid, None)
    for link in ("topic", "vector"):
        rows = run_questions(service, questions, cid, link=link, params={"max_depth": 2}, ontology=ontology)
        report = summarize(rows, link=link)
        assert {"suite", "total", "hits_at_1", "hits_at_5", "by_hop", "latency_ms", "round_trips"} <= set(
            report
        )
        assert report["suite"] == "metaqa" and report["total"] == len(questions)
        assert set(report["by_hop"]) == {"1", "2"}
        assert 0.0 <= report["hits_at_1"] <= report["hits_at_5"] <= 1.0
        assert report["latency_ms"]["p50"] > 0 and report["round_trips"]["max"] >= 1
        assert all(r.chain_hit is not None for r in rows)
        if link == "topic":
            assert sum(r.hit_at_1 for r in rows) >= 1, [(r.question, r.answer) for r in rows]
            assert report["round_trips"]["max"] <= 2 + 2


def test_server_side_expansion_makes_fewer_round_trips_than_per_node(
    graph: Graph, settings: Settings, metaqa_slice: tuple[str, list[MetaQAQuestion]]
) -> None:
    cid, questions = metaqa_slice
    depth = 3
    rag = PathRag(settings, graph=graph)
    per_node = PerNodeRag(settings, graph=graph, scorer=rag.scorer, embedder=rag.embedder)
    var_len = VarLengthRag(settings, graph=graph, scorer=rag.scorer, embedder=rag.embedder)
    q = questions[-1]  # a 2-hop question
    seeds = [topic_id(cid, q.topic)]
    a = rag.pathrag(q.question, community_id=cid, max_depth=depth, seed_ids=seeds)
    b = per_node.pathrag(q.question, community_id=cid, max_depth=depth, seed_ids=seeds)
    c = var_len.pathrag(q.question, community_id=cid, max_depth=depth, seed_ids=seeds)
    assert a.paths and b.paths and c.paths
    assert a.round_trips <= depth + 2
    assert b.round_trips > a.round_trips
    # same plan, same filters, same order: both baselines find the same best path
    assert a.paths[0].score == pytest.approx(b.paths[0].score, abs=1e-4)
    assert a.paths[0].key == b.paths[0].key == c.paths[0].key
