"""Sentence-pooled bi-encoder: splitting, the sentence cache, score range, pooling, empty input."""

from __future__ import annotations

import numpy as np
import pytest

from pathrag_gds.config import Settings
from pathrag_gds.encoders import Embedder
from pathrag_gds.errors import InvalidInput
from pathrag_gds.ontology import Ontology
from pathrag_gds.paths import Edge, EntityRecord, Path
from pathrag_gds.scoring import (
    BiEncoderScorer,
    PooledBiEncoderScorer,
    get_scorer,
    reset_scorers,
    split_path_text,
)
from pathrag_gds.serialize import chain_summary, entity_sentences, serialize_path

ONT = Ontology.from_mapping(
    {
        "id": "t",
        "relationship_types": [
            {"type": "owns", "phrase": "owns", "inverse_phrase": "is owned by"},
            {"type": "lives_in", "phrase": "lives in", "inverse_phrase": "is the home of"},
        ],
    }
)
ENTS = {
    "jane": EntityRecord("jane", ("Person",), "Jane", "Bob's owner", {"age": 34}),
    "bob": EntityRecord("bob", ("Animal",), "Bob", "A grey cat", {"fur_color": "orange"}),
    "paris": EntityRecord("paris", ("Place",), "Paris", "", {"country": "France"}),
}
PATHS = [
    Path(("bob",)),
    Path(("bob", "jane"), (Edge("owns", "jane", "bob", "in"),)),
    Path(
        ("bob", "jane", "paris"),
        (Edge("owns", "jane", "bob", "in"), Edge("lives_in", "jane", "paris", "out", {"since": 2019})),
    ),
]


@pytest.fixture(scope="module")
def embedder() -> Embedder:
    return Embedder.load(threads=2)


@pytest.fixture()
def pooled(embedder: Embedder) -> PooledBiEncoderScorer:
    return PooledBiEncoderScorer(embedder)


@pytest.mark.parametrize("path", PATHS, ids=lambda p: f"depth{p.depth}")
def test_split_matches_what_serialize_writes(path: Path) -> None:
    text = serialize_path(path, ENTS, ONT, max_tokens=512)
    hops, ents = split_path_text(text)
    summary = chain_summary(path, ENTS, ONT)
    assert " ".join(hops) == summary
    assert all(s.endswith(".") for s in hops + ents)
    expected = [s for n in dict.fromkeys(path.node_ids) for s in entity_sentences(ENTS[n])]
    assert ents == expected
    assert len(hops) == max(path.depth, 1)


def test_split_edge_cases() -> None:
    assert split_path_text("Bob is owned by Jane.") == (["Bob is owned by Jane."], [])
    assert split_path_text("A owns B. B lives in C. ||| A is a X.") == (
        ["A owns B.", "B lives in C."],
        ["A is a X."],
    )
    # a value holding ". " splits there: pieces stay sentences of the same text
    assert split_path_text("x ||| Bob's description is A cat. He purrs.")[1] == [
        "Bob's description is A cat.",
        "He purrs.",
    ]


def test_cache_never_embeds_a_sentence_twice(embedder: Embedder, monkeypatch: pytest.MonkeyPatch) -> None:
    scorer = PooledBiEncoderScorer(embedder)
    seen: list[str] = []
    real = embedder.encode

    def spy(texts: list[str], **kw: object) -> np.ndarray:
        seen.extend(texts)
        return real(texts)

    monkeypatch.setattr(embedder, "encode", spy)
    texts = [serialize_path(p, ENTS, ONT, max_tokens=512) for p in PATHS]
    scorer.score("Who owns Bob?", texts)
    qs = scorer.for_question("Where does Bob's owner live?")
    qs.score(texts[1:])
    scorer.score("What color is Bob?", texts + ["Bob is owned by Jane. ||| Jane is a Person."])
    sentences = [s for s in seen if not s.endswith("?")]
    assert len(sentences) == len(set(sentences))
    distinct = {s for t in texts for part in split_path_text(t) for s in part}
    assert set(sentences) == distinct
    assert scorer.sentences_embedded == len(distinct)


def test_scores_are_cosines(pooled: PooledBiEncoderScorer, embedder: Embedder) -> None:
    texts = [serialize_path(p, ENTS, ONT, max_tokens=512) for p in PATHS]
    for scorer in (
        pooled,
        PooledBiEncoderScorer(embedder, pooling="mean", hop_weight=2.0, entity_weight=1.0),
    ):
        scores = scorer.score("Who owns Bob the cat?", texts)
        assert len(scores) == len(texts)
        assert all(-1.0 <= s <= 1.0 for s in scores)
    # the owner path beats the bare seed for an ownership question
    scores = pooled.score("Who owns Bob the cat?", texts)
    assert scores[1] > scores[0]


def test_single_sentence_text_is_that_sentence(pooled: PooledBiEncoderScorer) -> None:
    sentence = "Bob's fur color is orange."
    vec = pooled.embed_texts([sentence])[0]
    np.testing.assert_allclose(vec, pooled.embed_sentences([sentence])[0], atol=1e-6)
    full = BiEncoderScorer(pooled.embedder)
    q = "What color is Bob's fur?"
    np.testing.assert_allclose(pooled.score(q, [sentence]), full.score(q, [sentence]), atol=1e-5)


def test_empty_and_bad_input(pooled: PooledBiEncoderScorer, embedder: Embedder) -> None:
    assert pooled.score("anything?", []) == []
    assert pooled.for_question("anything?").score([]) == []
    assert pooled.embed_texts([]).shape == (0, embedder.dim)
    with pytest.raises(InvalidInput, match="question is empty"):
        pooled.score(" ", ["x."])
    with pytest.raises(InvalidInput, match="pooling"):
        PooledBiEncoderScorer(embedder, pooling="sum")  # type: ignore[arg-type]
    with pytest.raises(InvalidInput, match="weights"):
        PooledBiEncoderScorer(embedder, hop_weight=0.0, entity_weight=0.0)


def test_get_scorer_pooling_setting() -> None:
    reset_scorers()
    try:
        pooled = get_scorer(Settings(bi_encoder_pooling="sentences"))
        assert isinstance(pooled, PooledBiEncoderScorer) and pooled.pooling == "max"
        assert pooled.name == "bi-encoder:sentences"
        full = get_scorer(Settings(bi_encoder_pooling="full"))
        assert type(full) is BiEncoderScorer and full.name == "bi-encoder"
    finally:
        reset_scorers()


def test_mean_weight_blends_best_and_mean_sentence(embedder: Embedder) -> None:
    q = "Which village is Bob's house in?"
    text = "Bob's house is located in Whiskerville. ||| Whiskerville is a Place. The park has a pond."
    best = PooledBiEncoderScorer(embedder).score(q, [text])[0]
    mean = PooledBiEncoderScorer(embedder, mean_weight=1.0).score(q, [text])[0]
    half = PooledBiEncoderScorer(embedder, mean_weight=0.5).score(q, [text])[0]
    assert mean < best
    assert half == pytest.approx((best + mean) / 2, abs=1e-6)
    with pytest.raises(InvalidInput, match="mean_weight"):
        PooledBiEncoderScorer(embedder, mean_weight=1.5)


def test_paths_sharing_their_best_sentence_are_told_apart_by_their_hops(
    pooled: PooledBiEncoderScorer,
) -> None:
    """Equal scores (the same best sentence, an entity's); the better hop has the higher tie-break."""
    q = "Where does Bob hide when the dog gets into the garden?"
    entity = "Bob hides when the dog gets into the garden."  # the best sentence of both texts
    shed = f"Bob hides in Garden shed (occasion is when Rex gets into the garden). ||| {entity}"
    attic = f"Bob hides in Attic (occasion is during the clean-up). ||| {entity}"
    qs = pooled.for_question(q)
    s_shed, s_attic = qs.score([shed, attic])
    assert s_shed == s_attic == pytest.approx(pooled.score(q, [entity])[0])
    t_shed, t_attic = qs.ties([shed, attic])
    assert t_shed > t_attic
    assert t_shed == pytest.approx(pooled.score(q, [shed.split(" |||")[0]])[0])
    assert qs.ties([entity]) == pytest.approx([s_shed])  # no hop: the best sentence
