"""`PathRagRetriever` on the real Neo4j with the demo graph, alone and inside neo4j-graphrag's `GraphRAG`.

The LLM is a small fake implementing neo4j-graphrag's LLM interfaces (v1 `LLMInterface` and
`LLMInterfaceV2`): it answers with the first line of the context it was given, so the test can see
exactly what the retriever handed to the prompt.
"""

from __future__ import annotations

import json
import logging
from typing import Any

import pytest

pytest.importorskip("neo4j_graphrag", reason="needs the graphrag extra: pip install -e '.[graphrag]'")

from neo4j import GraphDatabase
from neo4j_graphrag.generation import GraphRAG
from neo4j_graphrag.llm import LLMInterface, LLMInterfaceV2, LLMResponse
from neo4j_graphrag.types import RetrieverResult, RetrieverResultItem

from pathrag_gds.config import Settings
from pathrag_gds.errors import InvalidInput
from pathrag_gds.graph import Graph
from pathrag_gds.integrations.neo4j_graphrag import PathRagRetriever, path_words
from pathrag_gds.service import PathRag

pytestmark = pytest.mark.integration

QUESTION = "Who owns Bob the Cat?"
#: The demo's question whose answer is three hops from Bob.
DEEP_QUESTION = "In which village was Bob when the milk was spilled?"


def _first_context_line(prompt: str) -> str:
    context = prompt.split("Context:", 1)[1].split("Examples:", 1)[0]
    return next(line.strip() for line in context.splitlines() if line.strip())


class FakeLLM(LLMInterface):
    """v1: a prompt string in, the first line of its context out."""

    def __init__(self) -> None:
        super().__init__(model_name="fake-v1")
        self.prompts: list[str] = []

    def invoke(self, input: str, message_history: Any = None, system_instruction: Any = None) -> LLMResponse:
        self.prompts.append(input)
        return LLMResponse(content=_first_context_line(input))

    async def ainvoke(
        self, input: str, message_history: Any = None, system_instruction: Any = None
    ) -> LLMResponse:
        return self.invoke(input, message_history, system_instruction)


class FakeLLMV2(LLMInterfaceV2):
    """v2: messages in (the prompt is the last user message), the first line of its context out."""

    def __init__(self) -> None:
        super().__init__(model_name="fake-v2")
        self.prompts: list[str] = []

    def invoke(self, input: list[Any], *, response_format: Any = None, **kwargs: Any) -> LLMResponse:
        prompt = [m["content"] for m in input if m["role"] == "user"][-1]
        self.prompts.append(prompt)
        return LLMResponse(content=_first_context_line(prompt))

    async def ainvoke(self, input: list[Any], *, response_format: Any = None, **kwargs: Any) -> LLMResponse:
        return self.invoke(input, response_format=response_format, **kwargs)


@pytest.fixture(scope="module")
def retriever(graph: Graph, settings: Settings, demo_community: str) -> PathRagRetriever:
    return PathRagRetriever(graph.driver, demo_community, settings=settings, hop_depth=1)


def test_search_returns_the_services_paths_as_items(
    retriever: PathRagRetriever, graph: Graph, settings: Settings, demo_community: str
) -> None:
    found = retriever.search(query_text=QUESTION, top_k=3)
    assert isinstance(found, RetrieverResult)
    direct = PathRag(settings, graph=graph).pathrag(
        QUESTION, community_id=demo_community, top_n=3, max_depth=1
    )
    assert 1 <= len(found.items) == len(direct.paths) <= 3
    assert [i.content for i in found.items] == [path_words(p) for p in direct.paths]
    meta = found.metadata or {}
    best = direct.paths[0]
    assert meta["__retriever"] == "PathRagRetriever" and meta["community_id"] == demo_community
    assert meta["answer"] == best.answer_candidates[0].name and meta["round_trips"] >= 2
    first = found.items[0].metadata or {}
    assert first["rank"] == 1 and first["answer"] == meta["answer"]
    assert first["score_parts"] == best.score_parts and "model" in first["score_parts"]
    assert first["path_context"] == best.path_context
    assert [s["text"] for s in first["sources"]] == [s.text for s in best.sources]


def test_result_formatter_hook(graph: Graph, settings: Settings, demo_community: str) -> None:
    def with_sources(record: Any) -> RetrieverResultItem:
        passages = " ".join(s["text"] for s in record["sources"])
        return RetrieverResultItem(
            content=f"{record['words']} Sources: {passages}", metadata={"rank": record["rank"]}
        )

    custom = PathRagRetriever(
        graph.driver, demo_community, settings=settings, hop_depth=1, result_formatter=with_sources
    )
    items = custom.search(query_text=QUESTION, top_k=2).items
    assert items and all(" Sources: " in i.content for i in items)
    assert [i.metadata for i in items] == [{"rank": r} for r in range(1, len(items) + 1)]


@pytest.mark.parametrize("llm_class", [FakeLLM, FakeLLMV2])
def test_inside_graphrag(retriever: PathRagRetriever, llm_class: type[Any]) -> None:
    llm = llm_class()
    rag = GraphRAG(retriever=retriever, llm=llm)
    answer = rag.search(query_text=QUESTION, retriever_config={"top_k": 3}, return_context=True)
    items = answer.retriever_result.items
    assert items and answer.answer == items[0].content  # the #1 path reached the LLM first
    (prompt,) = llm.prompts
    assert QUESTION in prompt
    positions = [prompt.index(i.content) for i in items]
    assert positions == sorted(positions)
    assert (answer.retriever_result.metadata or {})["answer"] in items[0].content


def test_an_llm_tool_call_with_json_arguments(retriever: PathRagRetriever) -> None:
    """`convert_to_tool` declares integers, so the arguments an LLM sends (JSON) run the search."""
    tool = retriever.convert_to_tool("graph_paths", "Ranked paths through the story graph")
    assert tool.get_parameters()["properties"]["top_k"]["type"] == "integer"
    arguments = json.loads(
        '{"query_text": "Who owns Bob the Cat?", "top_k": 2, "hop_depth": 2, "mode": "local"}'
    )
    found = tool.execute(**arguments)
    assert 1 <= len(found.items) <= 2 and (found.metadata or {})["answer"] == "Jane"


def test_per_call_hop_depth_and_mode(retriever: PathRagRetriever) -> None:
    """The retriever's own hop depth is 1; a call may ask for more, or for another mode."""

    def depths(found: RetrieverResult) -> list[int]:
        return [(i.metadata or {})["depth"] for i in found.items]

    shallow = retriever.search(query_text=DEEP_QUESTION, top_k=5)
    deep = retriever.search(query_text=DEEP_QUESTION, top_k=5, hop_depth=3)
    assert depths(shallow) and max(depths(shallow)) <= 1
    assert max(depths(deep)) >= 2 and max(depths(deep)) <= 3
    for item in deep.items:
        meta = item.metadata or {}
        assert len(meta["relationships"]) == meta["depth"] == len(meta["nodes"]) - 1
    naive = retriever.search(query_text=QUESTION, top_k=3, mode="naive")
    assert (naive.metadata or {})["mode"] == "naive" and set(depths(naive)) == {0}
    assert (shallow.metadata or {})["mode"] == "local"
    with pytest.raises(InvalidInput, match="mode must be one of"):
        retriever.search(query_text=QUESTION, mode="deepest")


def test_a_users_own_driver_logs_no_notifications(
    settings: Settings, demo_community: str, caplog: pytest.LogCaptureFixture
) -> None:
    """A driver opened with the defaults logs every server notification as a warning; searches give none."""
    driver = GraphDatabase.driver(
        settings.neo4j_uri, auth=(settings.neo4j_user, settings.resolved_password())
    )
    try:
        with caplog.at_level(logging.INFO, logger="neo4j"):
            driver.execute_query(
                "MATCH (n:PathragNoSuchLabel) RETURN n.pathrag_no_such_key", database_=settings.neo4j_database
            )
            assert any(r.name == "neo4j.notifications" for r in caplog.records), "the control logs a hint"
            caplog.clear()
            retriever = PathRagRetriever(driver, demo_community, settings=settings, hop_depth=2)
            found = retriever.search(query_text=QUESTION, top_k=3)
        assert found.items and (found.items[0].metadata or {})["sources"], "provenance.cypher ran"
        assert [r.getMessage()[:200] for r in caplog.records if r.name == "neo4j.notifications"] == []
    finally:
        driver.close()


def test_bad_question_and_unknown_community_say_what_to_do(
    retriever: PathRagRetriever, graph: Graph, settings: Settings
) -> None:
    with pytest.raises(InvalidInput):
        retriever.search(query_text="   ")
    with pytest.raises(InvalidInput, match="top_k must be a whole number"):
        retriever.search(query_text=QUESTION, top_k=0)
    elsewhere = PathRagRetriever(graph.driver, "no-such-community-xyz", settings=settings)
    with pytest.raises(InvalidInput, match="unknown community"):
        elsewhere.search(query_text=QUESTION)
