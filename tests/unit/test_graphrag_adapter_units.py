"""The neo4j-graphrag adapter's pure parts: records, items, metadata and argument checks (no database)."""

from __future__ import annotations

import inspect

import pytest

pytest.importorskip("neo4j_graphrag", reason="needs the graphrag extra: pip install -e '.[graphrag]'")

from pathrag_gds.config import Settings
from pathrag_gds.errors import InvalidInput
from pathrag_gds.graph import Graph
from pathrag_gds.integrations.neo4j_graphrag import (
    PathRagRetriever,
    default_formatter,
    path_record,
    path_words,
    result_metadata,
)
from pathrag_gds.modes import MODES
from pathrag_gds.results import AnswerCandidate, EdgeOut, NodeOut, PathRagResult, PathResult, SourceChunk


def _path(rank: int = 1) -> PathResult:
    return PathResult(
        rank=rank,
        score=1.25,
        score_parts={"model": 0.8, "chain": 0.9, "type": 1.0, "final": 1.25},
        depth=1,
        key="jane:owns:bob",
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


def test_path_words_drop_the_descriptions() -> None:
    assert path_words(_path()) == "Bob is owned by Jane (since is kitten)."
    alone = _path().model_copy(update={"text": "Bob is a fluffy cat.", "depth": 0})
    assert path_words(alone) == "Bob is a fluffy cat."


def test_record_and_default_item_carry_answer_score_parts_and_sources() -> None:
    record = path_record(_path())
    assert record["answer"] == "Jane" and record["rank"] == 1 and record["chain"] == ["owns:in"]
    item = default_formatter(record)
    assert item.content == "Bob is owned by Jane (since is kitten)."
    meta = item.metadata or {}
    assert "words" not in meta and meta["answer"] == "Jane" and meta["score"] == 1.25
    assert meta["score_parts"]["chain"] == 0.9
    assert [{k: c[k] for k in ("id", "text", "entity_id")} for c in meta["sources"]] == [
        {"id": "c1", "text": "Jane has owned Bob since he was a kitten.", "entity_id": "jane"}
    ]
    assert meta["depth"] == 1 and "edges" not in meta
    assert meta["nodes"] == [
        {"id": "bob", "label": "Animal", "properties": {"fur_color": "orange", "name": "Bob"}},
        {"id": "jane", "label": "Person", "properties": {"name": "Jane"}},
    ]
    assert meta["relationships"] == [
        {"start_node_id": "jane", "end_node_id": "bob", "type": "owns", "properties": {}}
    ]
    no_answer = _path().model_copy(update={"answer_candidates": []})
    assert path_record(no_answer)["answer"] is None


def test_result_metadata() -> None:
    result = PathRagResult(
        query="Who owns Bob?",
        mode="option-d",
        scorer="s",
        community_id="c",
        paths=[_path(1), _path(2)],
        seeds=[],
        timings_ms={"total": 12.5},
        round_trips=4,
        explored=30,
    )
    assert result_metadata(result) == {
        "answer": "Jane",
        "community_id": "c",
        "mode": "option-d",
        "scorer": "s",
        "round_trips": 4,
        "timings_ms": {"total": 12.5},
        "explored": 30,
    }
    assert result_metadata(result.model_copy(update={"paths": []}))["answer"] is None


def test_nodes_and_relationships_are_neo4j_graphrag_graph_context() -> None:
    """`nodes` and `relationships` validate as neo4j-graphrag's own `Neo4jGraph` (its graph shape)."""
    from neo4j_graphrag.components.types import Neo4jGraph

    path = _path()
    path.nodes[1].description = "Bob's owner."
    path.nodes.append(NodeOut(id="x", name="X", labels=[]))
    path.edges[0].attributes = {"since": 2020}
    record = path_record(path, entity_label="Thing")
    graph = Neo4jGraph.model_validate({"nodes": record["nodes"], "relationships": record["relationships"]})
    assert [(n.id, n.label) for n in graph.nodes] == [("bob", "Animal"), ("jane", "Person"), ("x", "Thing")]
    assert graph.nodes[1].properties == {"name": "Jane", "description": "Bob's owner."}
    (rel,) = graph.relationships
    assert (rel.start_node_id, rel.type, rel.end_node_id, rel.properties) == (
        "jane",
        "owns",
        "bob",
        {"since": 2020},
    )


def test_tool_schema_declares_integers_and_the_modes() -> None:
    """`convert_to_tool` must not declare `top_k` a string (a tool-calling LLM would send "3")."""
    retriever = object.__new__(PathRagRetriever)  # the schema needs no driver
    tool = retriever.convert_to_tool("paths", "ranked graph paths", {"top_k": "how many"})
    schema = tool.get_parameters()
    props = schema["properties"]
    assert props["top_k"] == {"type": "integer", "description": "how many", "minimum": 1}
    assert props["hop_depth"]["type"] == "integer" and props["hop_depth"]["minimum"] == 1
    assert props["mode"]["type"] == "string" and props["mode"]["enum"] == list(MODES)
    assert props["query_text"]["type"] == "string" and schema["required"] == ["query_text"]
    assert schema["additionalProperties"] is False
    assert set(props) == set(inspect.signature(PathRagRetriever.search).parameters) - {"self"}


@pytest.mark.parametrize(
    ("kwargs", "words"),
    [
        ({"top_k": "3"}, "top_k must be a whole number of at least 1"),
        ({"hop_depth": 0}, "hop_depth must be a whole number between 1 and 10"),
        ({"hop_depth": True}, "hop_depth must be"),
    ],
)
def test_bad_per_call_limits_are_refused_before_the_search(kwargs: dict[str, object], words: str) -> None:
    retriever = object.__new__(PathRagRetriever)
    with pytest.raises(InvalidInput, match=words):
        retriever.search(query_text="Who owns Bob?", **kwargs)


@pytest.mark.parametrize(
    ("kwargs", "words"),
    [
        ({"community_id": ""}, "community_id is required"),
        ({"community_id": "c", "top_k": 0}, "top_k must be a whole number of at least 1"),
        ({"community_id": "c", "hop_depth": -1}, "hop_depth must be"),
        ({"community_id": "c", "seed_n": 2.5}, "seed_n must be"),
        ({"community_id": "c", "mode": "deep"}, "mode must be one of local"),
    ],
)
def test_bad_arguments_are_refused_before_touching_the_driver(kwargs: dict[str, object], words: str) -> None:
    with pytest.raises(InvalidInput, match=words):
        PathRagRetriever(None, **kwargs)  # type: ignore[arg-type]


def test_searches_ask_the_drivers_server_for_no_notifications() -> None:
    """A user's driver logs every server notification; the package's own statements ask for none."""

    class FakeSession:
        def __enter__(self) -> FakeSession:
            return self

        def __exit__(self, *exc: object) -> None:
            return None

        def execute_read(self, work: object) -> list[dict[str, int]]:
            return [{"ok": 1}]

    class FakeDriver:
        def __init__(self) -> None:
            self.sessions: list[dict[str, object]] = []

        execute_query_bookmark_manager = object()  # the driver's own, shared by every session

        def session(self, **config: object) -> FakeSession:
            self.sessions.append(config)
            return FakeSession()

    driver = FakeDriver()
    assert Graph(driver, Settings()).read("ping") == [{"ok": 1}]  # type: ignore[arg-type]
    assert driver.sessions == [
        {
            "database": "neo4j",
            "notifications_min_severity": "OFF",
            "bookmark_manager": FakeDriver.execute_query_bookmark_manager,
        }
    ]
