"""The LangChain adapter's pure parts: paths as Documents, options and argument checks (no database)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import neo4j
import pytest

pytest.importorskip("langchain_core", reason="needs the langchain extra: pip install -e '.[langchain]'")

from langchain_core.retrievers import BaseRetriever

from pathrag_gds.errors import InvalidInput
from pathrag_gds.integrations.langchain import (
    PathRagRetriever,
    path_metadata,
    path_words,
    to_documents,
)
from pathrag_gds.results import AnswerCandidate, EdgeOut, NodeOut, PathRagResult, PathResult, SourceChunk

COMMUNITY = "DefaultCommunity_FictionalStories"


def _path(rank: int = 1, key: str = "jane:owns:bob") -> PathResult:
    return PathResult(
        rank=rank,
        score=1.25,
        score_parts={"model": 0.8, "chain": 0.9, "type": 1.0, "final": 1.25},
        depth=1,
        key=key,
        text="Bob is owned by Jane (since is kitten). ||| Bob is a Animal. Jane is a Person.",
        path_context=["Bob <- owns <- Jane"],
        nodes=[
            NodeOut(id="bob", name="Bob", labels=["Animal"], attributes={"fur_color": "orange"}),
            NodeOut(id="jane", name="Jane", labels=["Person"]),
        ],
        edges=[EdgeOut(type="owns", source="jane", target="bob", direction="in")],
        answer_candidates=[
            AnswerCandidate(id="jane", name="Jane", labels=["Person"], reason="expected type")
        ],
        sources=[SourceChunk(id="c1", text="Jane has owned Bob since he was a kitten.", entity_id="jane")],
        chain=["owns:in"],
    )


def _result(*paths: PathResult) -> PathRagResult:
    return PathRagResult(
        query="Who owns Bob the Cat?",
        mode="local",
        scorer="bi-encoder",
        community_id=COMMUNITY,
        paths=list(paths),
        seeds=[],
        timings_ms={"total": 12.0},
        round_trips=3,
    )


class _FakeService:
    """Records the service calls; answers with a fixed result."""

    def __init__(self, result: PathRagResult) -> None:
        self.result = result
        self.calls: list[dict[str, Any]] = []

    def pathrag(self, query: str, **kwargs: Any) -> PathRagResult:
        self.calls.append({"query": query, **kwargs})
        return self.result


@pytest.fixture
def driver() -> Iterator[neo4j.Driver]:
    """A driver to a port nobody listens on: constructing a retriever must not connect."""
    d = neo4j.GraphDatabase.driver("bolt://127.0.0.1:1", auth=("neo4j", "unused"))
    yield d
    d.close()


def _retriever(driver: neo4j.Driver, **kwargs: Any) -> tuple[PathRagRetriever, _FakeService]:
    retriever = PathRagRetriever(community_id=COMMUNITY, driver=driver, **kwargs)
    fake = _FakeService(_result(_path(1), _path(2, key="jane:owns:bob:lives_in:x")))
    retriever._service = fake  # type: ignore[assignment]
    return retriever, fake


def test_a_path_becomes_a_document_with_its_words_and_metadata() -> None:
    (doc,) = to_documents(_result(_path()))
    assert doc.page_content == path_words(_path()) == "Bob is owned by Jane (since is kitten)."
    assert doc.id == "jane:owns:bob"
    meta = doc.metadata
    assert meta["rank"] == 1 and meta["score"] == 1.25 and meta["depth"] == 1
    assert meta["score_parts"] == {"model": 0.8, "chain": 0.9, "type": 1.0, "final": 1.25}
    assert meta["answer"] == "Jane" and meta["answer_candidates"][0]["reason"] == "expected type"
    assert [n["name"] for n in meta["nodes"]] == ["Bob", "Jane"]
    assert meta["nodes"][0]["attributes"] == {"fur_color": "orange"}
    assert meta["edges"] == [
        {"type": "owns", "source": "jane", "target": "bob", "direction": "in", "attributes": {}}
    ]
    assert meta["sources"][0]["text"] == "Jane has owned Bob since he was a kitten."
    assert meta["community_id"] == COMMUNITY and meta["mode"] == "local"
    assert meta["path_context"] == ["Bob <- owns <- Jane"] and meta["chain"] == ["owns:in"]
    json.dumps(meta)  # plain values only: a Document must serialise


def test_a_path_without_answer_candidates_has_no_answer() -> None:
    bare = _path().model_copy(update={"answer_candidates": []})
    assert path_metadata(bare, _result(bare))["answer"] is None


def test_documents_keep_the_rank_order() -> None:
    docs = to_documents(_result(_path(1, "a"), _path(2, "b"), _path(3, "c")))
    assert [d.metadata["rank"] for d in docs] == [1, 2, 3] and [d.id for d in docs] == ["a", "b", "c"]
    assert to_documents(_result()) == []


def test_it_is_a_langchain_retriever_built_on_the_users_driver(driver: neo4j.Driver) -> None:
    retriever = PathRagRetriever(community_id=COMMUNITY, driver=driver, neo4j_database="neo4j")
    assert isinstance(retriever, BaseRetriever)
    assert retriever.service.graph.driver is driver
    assert retriever.service.settings.neo4j_database == "neo4j"


def test_invoke_passes_per_call_options_over_the_retrievers_defaults(driver: neo4j.Driver) -> None:
    retriever, fake = _retriever(driver, top_k=4, hop_depth=2, seed_n=7, mode="local")
    docs = retriever.invoke("Who owns Bob the Cat?")
    assert [d.metadata["rank"] for d in docs] == [1, 2]
    assert fake.calls[-1] == {
        "query": "Who owns Bob the Cat?",
        "community_id": COMMUNITY,
        "top_n": 4,
        "max_depth": 2,
        "seed_n": 7,
        "mode": "local",
        "generate": False,  # the chain's own LLM answers: the server's answer model is never asked
    }
    retriever.invoke("Who owns Bob the Cat?", top_k=1, hop_depth=3, mode="naive")
    assert fake.calls[-1]["top_n"] == 1 and fake.calls[-1]["max_depth"] == 3
    assert fake.calls[-1]["mode"] == "naive" and fake.calls[-1]["community_id"] == COMMUNITY


def test_search_kwargs_are_defaults_that_a_call_overrides(driver: neo4j.Driver) -> None:
    retriever, fake = _retriever(driver, top_k=9, search_kwargs={"top_k": 2, "mode": "mix"})
    retriever.invoke("q?")
    assert fake.calls[-1]["top_n"] == 2 and fake.calls[-1]["mode"] == "mix"
    retriever.invoke("q?", top_k=5)
    assert fake.calls[-1]["top_n"] == 5 and fake.calls[-1]["mode"] == "mix"


async def _ainvoke(retriever: PathRagRetriever, **kwargs: Any) -> list[Any]:
    return await retriever.ainvoke("Who owns Bob the Cat?", **kwargs)


def test_ainvoke_takes_the_same_options(driver: neo4j.Driver) -> None:
    retriever, fake = _retriever(driver)
    docs = asyncio.run(_ainvoke(retriever, top_k=1, hop_depth=1))
    assert docs[0].page_content == "Bob is owned by Jane (since is kitten)."
    assert fake.calls[-1]["top_n"] == 1 and fake.calls[-1]["max_depth"] == 1


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"community_id": " "}, "community_id is required"),
        ({"top_k": 0}, "top_k must be a whole number"),
        ({"hop_depth": 11}, "hop_depth must be a whole number between 1 and 10"),
        ({"seed_n": 0}, "seed_n must be a whole number"),
        ({"mode": "deepest"}, "mode must be one of"),
        ({"search_kwargs": {"k": 3}}, r"unknown search option\(s\) \['k'\]"),
    ],
)
def test_bad_construction_is_refused(driver: neo4j.Driver, kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(InvalidInput, match=message):
        PathRagRetriever(**{"community_id": COMMUNITY, "driver": driver, **kwargs})


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"top_k": -1}, "top_k must be a whole number"),
        ({"hop_depth": "3"}, "hop_depth must be a whole number"),
        ({"mode": "deepest"}, "mode must be one of"),
        ({"community_id": "Other"}, r"unknown search option\(s\) \['community_id'\]"),
    ],
)
def test_bad_per_call_options_are_refused(driver: neo4j.Driver, kwargs: dict[str, Any], message: str) -> None:
    retriever, fake = _retriever(driver)
    with pytest.raises(InvalidInput, match=message):
        retriever.invoke("q?", **kwargs)
    assert fake.calls == []  # nothing was searched, and the community cannot be widened per call
