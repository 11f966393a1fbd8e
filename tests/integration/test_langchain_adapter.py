"""The LangChain `PathRagRetriever` on the real Neo4j with the demo graph, sync and async.

Read only: the demo community is expected loaded and indexed (`python -m pathrag_gds demo`); these
tests neither load nor rewrite it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest

pytest.importorskip("langchain_core", reason="needs the langchain extra: pip install -e '.[langchain]'")

from langchain_core.documents import Document

from pathrag_gds.config import Settings
from pathrag_gds.graph import Graph
from pathrag_gds.integrations.langchain import PathRagRetriever, path_words

pytestmark = pytest.mark.integration

COMMUNITY = "DefaultCommunity_FictionalStories"
#: The demo's question whose answer is three hops from Bob.
DEEP_QUESTION = "In which village was Bob when the milk was spilled?"


@pytest.fixture(scope="module")
def on_driver(graph: Graph, settings: Settings) -> PathRagRetriever:
    """On the user's own driver (the test's connection)."""
    return PathRagRetriever(community_id=COMMUNITY, driver=graph.driver, settings=settings)


@pytest.fixture(scope="module")
def on_settings(graph: Graph, settings: Settings) -> Iterator[PathRagRetriever]:
    """On the package's own connection, opened from the settings."""
    retriever = PathRagRetriever(community_id=COMMUNITY, settings=settings)
    yield retriever
    retriever.service.graph.close()


def _check_documents(docs: list[Document]) -> None:
    assert docs, "no documents"
    assert docs[0].metadata["answer"] == "Whiskerville"
    assert [d.metadata["rank"] for d in docs] == list(range(1, len(docs) + 1))
    for doc in docs:
        meta = doc.metadata
        assert doc.page_content and meta["community_id"] == COMMUNITY and meta["mode"] == "local"
        assert len(meta["edges"]) == meta["depth"] == len(meta["nodes"]) - 1
        assert meta["score_parts"] and meta["score"] == pytest.approx(meta["score_parts"]["final"])
        assert {n["id"] for n in meta["nodes"]} >= {e["source"] for e in meta["edges"]}


def test_invoke_on_the_users_driver_answers_the_demo_question(on_driver: PathRagRetriever) -> None:
    docs = on_driver.invoke(DEEP_QUESTION)
    _check_documents(docs)
    assert "Whiskerville" in docs[0].page_content
    assert any(s["text"] for d in docs for s in d.metadata["sources"])


def test_ainvoke_with_the_package_settings_answers_the_demo_question(on_settings: PathRagRetriever) -> None:
    docs = asyncio.run(on_settings.ainvoke(DEEP_QUESTION, top_k=3))
    assert len(docs) <= 3
    _check_documents(docs)


def test_documents_are_the_services_paths(on_driver: PathRagRetriever) -> None:
    result = on_driver.service.pathrag(DEEP_QUESTION, community_id=COMMUNITY, top_n=4)
    docs = on_driver.invoke(DEEP_QUESTION, top_k=4)
    assert [d.page_content for d in docs] == [path_words(p) for p in result.paths]
    assert [d.id for d in docs] == [p.key for p in result.paths]


def test_per_call_hop_depth_and_mode(on_driver: PathRagRetriever) -> None:
    shallow = on_driver.invoke(DEEP_QUESTION, hop_depth=1, top_k=5)
    assert shallow and max(d.metadata["depth"] for d in shallow) <= 1
    assert shallow[0].metadata["answer"] != "Whiskerville"  # three hops away: out of reach at depth 1
    naive = asyncio.run(on_driver.ainvoke(DEEP_QUESTION, mode="naive", top_k=3))
    assert naive and {d.metadata["mode"] for d in naive} == {"naive"}
    assert {d.metadata["depth"] for d in naive} == {0}
