"""Sentence vectors kept on disk across processes: exact read-back, keyed by model, never fatal."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from pathrag_gds.backend.vector_store import VectorStore, store_name
from pathrag_gds.config import Settings
from pathrag_gds.encoders import Embedder
from pathrag_gds.scoring.pooled import PooledBiEncoderScorer

QUESTION = "Who owns Bob?"
TEXTS = ["Bob is owned by Jane. ||| Bob is a Animal. Jane is a Person.", "Rex chases Bob. ||| Rex is a Dog."]


@pytest.fixture(scope="module")
def embedder() -> Embedder:
    s = Settings()
    return Embedder(s.models_dir / s.embedding_model)


def test_a_new_scorer_reads_what_an_earlier_one_embedded_and_scores_the_same(
    embedder: Embedder, tmp_path: Path
) -> None:
    path = tmp_path / store_name(embedder.model_dir, "int8", max_length=embedder.max_length)
    first = PooledBiEncoderScorer(embedder, store=VectorStore(path, embedder.dim))
    scores = first.score(QUESTION, TEXTS)
    assert first.sentences_embedded == 5  # the distinct sentences of the two texts

    # another process: an empty in-memory cache, the same file
    second = PooledBiEncoderScorer(embedder, store=VectorStore(path, embedder.dim))
    assert second.score(QUESTION, TEXTS) == scores  # exactly: float32 stored as computed
    assert second.sentences_embedded == 0
    assert second.store is not None and second.store.hits == 5

    plain = PooledBiEncoderScorer(embedder)  # no store at all: the same scores
    assert plain.score(QUESTION, TEXTS) == scores


def test_the_file_is_named_by_the_model_and_what_shapes_its_vectors(
    embedder: Embedder, tmp_path: Path
) -> None:
    a = store_name(embedder.model_dir, "int8", max_length=128)
    assert a == store_name(embedder.model_dir, "int8", max_length=128)
    assert a != store_name(embedder.model_dir, "fp32", max_length=128)
    assert a != store_name(embedder.model_dir, "int8", max_length=64)
    assert a != store_name(tmp_path, "int8", max_length=128)  # another model folder


def test_a_store_that_cannot_be_written_warns_once_and_the_scorer_goes_on(
    embedder: Embedder, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder", encoding="utf-8")
    store = VectorStore(blocker / "v.sqlite", embedder.dim)  # its folder cannot be created
    scorer = PooledBiEncoderScorer(embedder, store=store)
    with caplog.at_level("WARNING", logger="pathrag_gds.backend.vector_store"):
        scores = scorer.score(QUESTION, TEXTS)
        scorer.score("Who chases Bob?", TEXTS)
    assert scores == PooledBiEncoderScorer(embedder).score(QUESTION, TEXTS)
    assert len([r for r in caplog.records if "not usable" in r.getMessage()]) == 1
    assert str(blocker / "v.sqlite") in caplog.records[0].getMessage()


def test_vectors_of_another_size_are_not_read_back(tmp_path: Path) -> None:
    VectorStore(tmp_path / "v.sqlite", dim=3).put({"a": np.ones(3, dtype=np.float32)})
    assert VectorStore(tmp_path / "v.sqlite", dim=2).get(["a"]) == {}
    assert VectorStore(tmp_path / "v.sqlite", dim=3).get(["a"])["a"].tolist() == [1.0, 1.0, 1.0]


def test_intent_texts_are_read_back_whole_and_equal_to_the_embedders(
    embedder: Embedder, tmp_path: Path
) -> None:
    """The scorer as intent's encoder: each text embedded whole (not pooled by sentence), stored."""
    texts = ["a person", "Person owns Animal. Animal is owned by Person. A pet and its owner."]
    path = tmp_path / store_name(embedder.model_dir, "int8", max_length=embedder.max_length)
    first = PooledBiEncoderScorer(embedder, store=VectorStore(path, embedder.dim))
    assert np.array_equal(first.encode(texts), embedder.encode(texts))

    second = PooledBiEncoderScorer(embedder, store=VectorStore(path, embedder.dim))
    assert np.array_equal(second.encode(texts), embedder.encode(texts))
    assert second.store is not None and second.store.hits == 2
    assert second.cache_misses == 0
