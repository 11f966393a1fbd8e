"""WordNet synonyms for generated questions: reading the files, putting a synonym back into a
relation phrase, choosing the sense nearest the relation's meaning, and the generator's share."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest

from pathrag_gds.training.synonyms import WordNet, phrase_word, rewordings, synonym_table, wordnet_dir

# two senses of "direct" (aim, and lead a film), one of "owner"; offsets are byte positions in data.*
VERB_DATA = [
    "00000000 40 v 03 direct 0 aim 0 point 0 000 | point or cause to go towards a target\n",
    "00000086 40 v 02 direct 0 film_over 0 000 | be the director of a film or play\n",
]
NOUN_DATA = ["00000000 18 n 02 owner 0 proprietor 0 000 | someone who owns a business\n"]


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    verb = "".join(VERB_DATA)
    second = verb.index("00000086")
    fixed = verb.replace("00000086", f"{second:08d}", 1)
    (tmp_path / "data.verb").write_text(fixed, encoding="utf-8")
    (tmp_path / "data.noun").write_text("".join(NOUN_DATA), encoding="utf-8")
    header = "  1 This software and database is being provided to you, the LICENSEE\n"
    (tmp_path / "index.verb").write_text(
        header + f"direct v 2 1 @ 2 0 00000000 {second:08d}\n", encoding="utf-8"
    )
    (tmp_path / "index.noun").write_text(header + "owner n 1 1 @ 1 0 00000000\n", encoding="utf-8")
    return tmp_path


def test_wordnet_reads_senses_most_frequent_first_from_the_files(folder: Path) -> None:
    wn = WordNet.load(folder)
    senses = wn.senses("direct", "verb")
    assert [s[0] for s in senses] == [["aim", "point"], ["film over"]]
    assert senses[1][1] == "be the director of a film or play"
    assert wn.synonyms("owner", "noun") == ["proprietor"]
    assert wn.synonyms("unknown", "verb") == []


def test_a_synonym_is_put_back_in_the_phrase_s_grammar() -> None:
    def words(word: str, pos: str) -> list[str]:
        return {
            "supply": ["provide"],
            "write": ["pen"],
            "friend": ["friend", "ally"],
            "take place": ["occur"],
        }[word]

    assert rewordings("supplies", words) == ["provides"]
    assert rewordings("supplied", words) == ["provided"]
    assert rewordings("was written by", words) == ["was penned by"]
    assert rewordings("is a friend of", words) == ["is an ally of"]  # the article follows the noun
    assert rewordings("takes place in", words) == ["occurs in"]
    assert rewordings("is part of", words) == []  # no verb, participle or role noun
    assert phrase_word("") is None


def test_a_synonym_ending_in_a_preposition_is_not_put_before_another() -> None:
    assert rewordings("hides in", lambda w, pos: ["hide out", "conceal", "hide out in"]) == [
        "hides out in",
        "conceals in",
    ]


def test_the_sense_nearest_the_relation_s_meaning_gives_the_synonyms(folder: Path) -> None:
    wn = WordNet.load(folder)

    def encode(texts: list[str]) -> np.ndarray:  # film words one way, aiming words the other
        return np.asarray([[1.0, 0.0] if "film" in t else [0.0, 1.0] for t in texts])

    table = synonym_table({"directed": "a person directed a film", "is the owner of": "owns"}, wn, encode)
    assert table == {"directed": ["filmed over"], "is the owner of": ["is the proprietor of"]}
    # without an encoder: the most frequent senses
    assert synonym_table({"directed": "a film"}, wn)["directed"] == ["aimed", "pointed", "filmed over"]


def test_wordnet_dir_reads_the_setting(folder: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("PATHRAG_WORDNET_DIR", str(folder))
    assert wordnet_dir() == folder
    monkeypatch.setenv("PATHRAG_WORDNET_DIR", str(tmp_path / "missing"))
    assert wordnet_dir() is None


def test_the_phraser_says_a_share_of_phrases_another_way_from_its_own_random_stream() -> None:
    from pathrag_gds.ontology import Ontology
    from pathrag_gds.training.phraser import Phraser

    onto = Ontology.from_mapping(
        {
            "id": "t",
            "entity_types": [{"label": "Person"}, {"label": "Thing"}],
            "relationship_types": [
                {
                    "type": "owns",
                    "phrase": "owns",
                    "inverse_phrase": "is owned by",
                    "source": ["Person"],
                    "target": ["Thing"],
                }
            ],
        }
    )
    rng = random.Random(0)
    never = Phraser(
        onto, {}, rng, rewordings={"owns": ["possesses"]}, reword_share=0.0, reword_rng=random.Random(1)
    )
    always = Phraser(
        onto, {}, rng, rewordings={"owns": ["possesses"]}, reword_share=1.0, reword_rng=random.Random(1)
    )
    state = rng.getstate()
    assert never.say("owns") == "owns" and always.say("owns") == "possesses"
    assert always.say("is owned by") == "is owned by"  # no rewording known
    assert rng.getstate() == state  # the walk's random stream is untouched


def test_without_wordnet_files_the_tune_says_how_to_get_them(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from pathrag_gds.errors import ModelError
    from pathrag_gds.ontology import Ontology
    from pathrag_gds.training import synonyms
    from pathrag_gds.training.chain_data import relation_rewordings

    monkeypatch.setenv("PATHRAG_WORDNET_DIR", str(tmp_path / "missing"))
    monkeypatch.setattr(synonyms, "WORDNET_DIRS", ())
    with pytest.raises(ModelError, match="apt-get install wordnet-base"):
        relation_rewordings(Ontology.from_mapping({"relationship_types": [{"type": "owns"}]}), None)
