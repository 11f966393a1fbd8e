"""Relation phrasings mined from a graph's own descriptions (training/mined_phrases.py)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from pathrag_gds.ontology import Ontology
from pathrag_gds.paths import Edge, EntityRecord
from pathrag_gds.training.chain_data import graph_phrasings
from pathrag_gds.training.graph_source import MemoryGraph
from pathrag_gds.training.mined_phrases import Side, kept_phrasings, mine, shaped, span_before

ONTOLOGY = Ontology.from_mapping(
    {
        "relationship_types": [
            {
                "type": "captains",
                "phrase": "is the skipper of",
                "inverse_phrase": "is skippered by",
                "description": "A person skippers a boat at sea.",
            },
            {
                "type": "crews",
                "phrase": "crews on",
                "inverse_phrase": "is crewed by",
                "description": "A person or a dog rides on a boat as crew.",
            },
            {
                "type": "child_of",
                "phrase": "is a child of",
                "inverse_phrase": "is a parent of",
                "description": "A son or daughter and the father or mother.",
            },
        ]
    }
)
VOCAB = [
    "skipper",
    "skippers",
    "skippered",
    "crew",
    "crews",
    "rides",
    "ride",
    "daughter",
    "son",
    "father",
    "child",
    "parent",
    "mother",
    "boat",
    "sea",
    "near",
    "top",
]


def bag(texts: list[str]) -> np.ndarray:
    """A tiny stand-in for the sentence encoder: unit bag-of-words vectors over VOCAB."""
    out = np.zeros((len(texts), len(VOCAB) + 1), dtype=np.float32)
    for i, t in enumerate(texts):
        for w in t.lower().replace(":", " ").replace(".", " ").split():
            if w in VOCAB:
                out[i, VOCAB.index(w)] += 1.0
        out[i, -1] = 0.1
        out[i] /= np.linalg.norm(out[i])
    return out


def entities() -> dict[str, EntityRecord]:
    people = [
        EntityRecord(
            "jory", ("Person",), "Jory Penhallow", "A fisherman who skippers the trawler Morning Star."
        ),
        EntityRecord(
            "mara", ("Person",), "Mara Penhallow", "Jory's daughter; she rides on the Morning Star."
        ),
        EntityRecord("dog", ("Animal",), "Biscuit", "A collie, always near the top of the Morning Star."),
        EntityRecord("star", ("Boat",), "Morning Star", "", {"boat_type": "trawler"}),
    ]
    return {e.id: e for e in people}


EDGES = [
    Edge("captains", "jory", "star", "out"),
    Edge("crews", "mara", "star", "out"),
    Edge("crews", "dog", "star", "out"),
    Edge("child_of", "mara", "jory", "out"),
]


def test_a_span_is_cut_at_the_named_entitys_own_noun_phrase_and_at_the_subject() -> None:
    text = "She skippers the trawler Morning Star"
    assert span_before(text, text.index("Morning"), {"trawler", "boat"}) == "skippers"
    assert span_before("Moored here, Morning Star", 13, set()) is None


def test_only_spans_the_generator_can_say_are_shaped_into_phrases() -> None:
    assert shaped("rides on") == "rides on"
    assert shaped("cheerful deckhand who rides on") == "rides on"
    assert shaped("old lighthouse keeper of") == "is the keeper of"
    assert shaped("loves to chase") == "loves to chase"
    assert shaped("to chase") is None
    assert shaped("blue-doored cottage") is None


def test_mining_reads_verbs_and_possessives_in_the_right_direction() -> None:
    found = mine(entities(), EDGES)
    assert "skippers" in found[("captains", "phrase")]
    assert "rides on" in found[("crews", "phrase")]
    # Mara's text says she is Jory's daughter: the child_of phrase, read from Mara
    assert found[("child_of", "phrase")] == ["is the daughter of"]
    assert ("child_of", "inverse") not in found


def test_the_encoder_keeps_a_phrasing_only_for_the_relation_it_reads_as() -> None:
    candidates: dict[tuple[str, Side], list[str]] = {
        ("crews", "phrase"): ["rides on", "is the skipper of the boat"],
        ("captains", "phrase"): ["near the top of"],
    }
    kept = kept_phrasings(candidates, ONTOLOGY, bag)
    assert kept == {"crews on": ["rides on"]}


def test_graph_phrasings_read_the_whole_community_through_its_source() -> None:
    graph = MemoryGraph(entities(), EDGES)
    table = graph_phrasings(ONTOLOGY, graph, type("E", (), {"encode": staticmethod(bag)})())
    assert table["is the skipper of"] == ["skippers"]
    assert table["is a child of"] == ["is the daughter of"]
    assert "rides on" in table["crews on"]


def test_tune_takes_a_mined_share_and_refuses_one_out_of_range(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from pathrag_gds.cli import main
    from pathrag_gds.errors import InvalidInput
    from pathrag_gds.training import chain_tune

    seen: list[Any] = []

    def capture(options: Any, progress: Any = None) -> Any:
        seen.append(options)
        raise InvalidInput("stop before any training")

    monkeypatch.setattr(chain_tune, "tune_chains", capture)
    assert main(["tune", "--community", "people", "--mined-share", "0.3"]) == 2
    assert seen[0].mined_share == 0.3 and seen[0].synonym_share == 0.0
    assert main(["tune", "--community", "people", "--mined-share", "1.5"]) == 2
    assert "--mined-share must be between 0 and 1" in capsys.readouterr().err
    assert main(["tune", "--community", "people", "--mined-share", "0.6", "--synonym-share", "0.6"]) == 2
    assert "at most 1 in all" in capsys.readouterr().err
    assert len(seen) == 1
