"""`PathRagRetriever` on the real Neo4j with the demo graph, alone and inside neo4j-graphrag's `GraphRAG`.

The LLM is a small fake implementing neo4j-graphrag's LLM interfaces (v1 `LLMInterface` and
`LLMInterfaceV2`): it answers with the first line of the context it was given, so the test can see
exactly what the retriever handed to the prompt.
"""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("neo4j_graphrag", reason="needs the graphrag extra: pip install -e '.[graphrag]'")

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


def test_bad_question_and_unknown_community_say_what_to_do(
    retriever: PathRagRetriever, graph: Graph, settings: Settings
) -> None:
    with pytest.raises(InvalidInput):
        retriever.search(query_text="   ")
    with pytest.raises(InvalidInput, match="top_n"):
        retriever.search(query_text=QUESTION, top_k=0)
    elsewhere = PathRagRetriever(graph.driver, "no-such-community-xyz", settings=settings)
    with pytest.raises(InvalidInput, match="unknown community"):
        elsewhere.search(query_text=QUESTION)
