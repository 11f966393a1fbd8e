"""The neo4j-graphrag adapter's pure parts: records, items, metadata and argument checks (no database)."""

from __future__ import annotations

import pytest

pytest.importorskip("neo4j_graphrag", reason="needs the graphrag extra: pip install -e '.[graphrag]'")

from pathrag_gds.errors import InvalidInput
from pathrag_gds.integrations.neo4j_graphrag import (
    PathRagRetriever,
    default_formatter,
    path_record,
    path_words,
    result_metadata,
)
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
    assert meta["nodes"][0]["attributes"] == {"fur_color": "orange"}
    assert meta["edges"][0] == {
        "type": "owns",
        "source": "jane",
        "target": "bob",
        "direction": "in",
        "attributes": {},
    }
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
        "scorer": "s",
        "round_trips": 4,
        "timings_ms": {"total": 12.5},
        "explored": 30,
    }
    assert result_metadata(result.model_copy(update={"paths": []}))["answer"] is None


@pytest.mark.parametrize(
    ("kwargs", "words"),
    [
        ({"community_id": ""}, "community_id is required"),
        ({"community_id": "c", "top_k": 0}, "top_k must be a whole number of at least 1"),
        ({"community_id": "c", "hop_depth": -1}, "hop_depth must be"),
        ({"community_id": "c", "seed_n": 2.5}, "seed_n must be"),
    ],
)
def test_bad_arguments_are_refused_before_touching_the_driver(kwargs: dict[str, object], words: str) -> None:
    with pytest.raises(InvalidInput, match=words):
        PathRagRetriever(None, **kwargs)  # type: ignore[arg-type]
