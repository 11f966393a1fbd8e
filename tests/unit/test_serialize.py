"""Path serialization: summary first, phrasing per direction, attributes, no double dots, budget."""

from __future__ import annotations

from pathrag_gds.ontology import Ontology
from pathrag_gds.paths import Edge, EntityRecord, Path
from pathrag_gds.serialize import (
    SEPARATOR,
    answer_candidates,
    chain_summary,
    entity_text,
    path_context,
    serialize_path,
    words_tokens,
)

ONT = Ontology.from_mapping(
    {
        "id": "t",
        "relationship_types": [
            {"type": "owns", "phrase": "owns", "inverse_phrase": "is owned by"},
            {"type": "takes_place", "phrase": "takes place in", "inverse_phrase": "is the place of"},
        ],
    }
)
ENTS = {
    "jane": EntityRecord("jane", ("Person",), "Jane", "Bob's owner.", {"age": 34, "embedding": [1.0]}),
    "bob": EntityRecord("bob", ("Animal",), "Bob", "A grey cat..", {"fur_color": "silver grey."}),
    "ev": EntityRecord("ev", ("Event",), "Milk spill", "", {}),
    "kitchen": EntityRecord("kitchen", ("Place",), "Kitchen", "", {"floor": ["tiles", "wood"]}),
}


def test_entity_text_skips_system_keys_and_double_dots() -> None:
    t = entity_text(ENTS["bob"])
    assert t == "Bob is a Animal. Bob's description is A grey cat. Bob's fur color is silver grey."
    assert ".." not in entity_text(ENTS["jane"]) and "embedding" not in entity_text(ENTS["jane"])
    assert "tiles, wood" in entity_text(ENTS["kitchen"])


def test_summary_uses_active_and_passive_phrases() -> None:
    p = Path(("bob", "jane"), (Edge("owns", "jane", "bob", "in"),))
    assert chain_summary(p, ENTS, ONT) == "Bob is owned by Jane."
    q = Path(("jane", "bob"), (Edge("owns", "jane", "bob", "out", {"since": 2019}),))
    assert chain_summary(q, ENTS, ONT) == "Jane owns Bob (since is 2019)."


def test_unknown_relation_without_inverse_reads_in_stored_direction() -> None:
    p = Path(("kitchen", "ev"), (Edge("happened_at", "ev", "kitchen", "in"),))
    assert chain_summary(p, ENTS, ONT) == "Milk spill happened at Kitchen."


def test_serialized_path_is_summary_then_entities() -> None:
    p = Path(("ev", "kitchen"), (Edge("takes_place", "ev", "kitchen", "out"),))
    text = serialize_path(p, ENTS, ONT)
    summary, entities = text.split(SEPARATOR)
    assert summary == "Milk spill takes place in Kitchen."
    assert entities.startswith("Milk spill is a Event.") and "Kitchen is a Place." in entities
    assert ".." not in text


def test_budget_keeps_summary_and_every_entity() -> None:
    long = {k: v for k, v in ENTS.items()}
    long["bob"] = EntityRecord("bob", ("Animal",), "Bob", "word " * 200, {"x": "y " * 100})
    p = Path(("jane", "bob"), (Edge("owns", "jane", "bob", "out"),))
    text = serialize_path(p, long, ONT, max_tokens=80, count_tokens=lambda s: len(s.split()))
    assert text.startswith("Jane owns Bob.")
    assert "Jane is a Person." in text and "Bob is a Animal." in text
    assert len(text.split()) <= 80 + 5


def test_path_context_and_answers() -> None:
    p = Path(("bob", "jane"), (Edge("owns", "jane", "bob", "in"),))
    assert path_context(p, ENTS) == ["Bob <- owns <- Jane"]
    assert answer_candidates(p, exclude=["bob"]) == ["jane"]
    assert answer_candidates(Path(("bob",)), exclude=["bob"]) == ["bob"]


def test_a_summary_counted_word_by_word_is_the_tokenizers_exact_count() -> None:
    """WordPiece splits at spaces first, so per-word counts (cached across paths) add up exactly."""
    from pathrag_gds.encoders import get_embedder

    count = get_embedder().token_count
    path = Path(
        ("jane", "bob", "kitchen"),
        (Edge("owns", "jane", "bob", "out", {"since": 2019}), Edge("happened_at", "kitchen", "bob", "in")),
    )
    texts = [
        chain_summary(path, ENTS, ONT) + SEPARATOR,
        "Grandpa George -> lives_in -> Rose Cottage ; Rose Cottage <- located_in <- Meadowbrook's lane",
        "It's Love I'm After -> written_by -> Casey Robinson (1935), naïve café",
    ]
    for text in texts:
        assert words_tokens(text, count) == count(text)
