"""Loader input checks without a database: collision-free ids, bad characters, invalid UTF-8 lines."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any, cast

import pytest

from pathrag_gds.config import Settings
from pathrag_gds.datasets.demo import dataset_from_mapping, read_graph_file
from pathrag_gds.datasets.loader import (
    Dataset,
    DatasetError,
    EntityRow,
    GraphLoader,
    bad_character,
    entity_id,
    split_entity_id,
)
from pathrag_gds.datasets.triples import read_triples, read_triples_text
from pathrag_gds.graph import Graph
from pathrag_gds.ontology import Ontology

ONTO = Ontology.from_mapping(
    {
        "id": "o",
        "entity_types": [{"label": "Person"}, {"label": "Plan"}],
        "relationship_types": [{"type": "owns", "source": ["Person"], "target": ["Plan"]}],
    }
)


def test_the_issue_collision_gives_two_ids() -> None:
    a = read_triples_text("Alice|owns|secret:Vault Plan\n", "metaqa", ONTO, "acme")
    b = read_triples_text("Bob|owns|Vault Plan\n", "metaqa", ONTO, "acme:secret")
    ids_a = {e.id for e in a.dataset.entities}
    ids_b = {e.id for e in b.dataset.entities}
    assert "acme:secret:Vault Plan" in ids_a
    assert "acme\\:secret:Vault Plan" in ids_b
    assert not ids_a & ids_b
    assert [(r.source, r.target) for r in b.dataset.relationships] == [
        ("acme\\:secret:Bob", "acme\\:secret:Vault Plan")
    ]


def test_entity_ids_are_injective_and_invertible() -> None:
    parts = ["a", "a:b", "a\\", "\\:", ":", "a\\:b", "b", ":b", "a:b:c", ""]
    pairs = [(c, n) for c, n in itertools.product(parts, parts) if c]
    ids = [entity_id(c, n) for c, n in pairs]
    assert len(set(ids)) == len(pairs), "two (community, name) pairs share an id"
    assert [split_entity_id(i) for i in ids] == pairs
    assert entity_id("metaqa", "Heat") == "metaqa:Heat", "plain community ids keep their form"
    with pytest.raises(ValueError, match="not a community-scoped"):
        split_entity_id("jane")


@pytest.mark.parametrize(
    ("value", "multiline", "expected"),
    [
        ("Bob\x00", False, "control character U+0000"),
        ("Bob\x1b[31m", False, "control character U+001B"),
        ("a\tb", False, "control character U+0009"),
        ("a\tb\nc", True, None),
        ("a\x85b", False, "control character U+0085"),
        ("a\u2028b", False, "line separator U+2028"),
        ("a\ud800b", True, "lone surrogate U+D800 (not valid Unicode text)"),
        ("Zoë – café", False, None),
    ],
)
def test_bad_character(value: str, multiline: bool, expected: str | None) -> None:
    assert bad_character(value, multiline=multiline) == expected


def test_control_characters_in_triples_are_bad_rows_with_line_numbers() -> None:
    text = "Alice|owns|Plan A\nEve\x00|owns|Plan B\nBob|owns|Plan\u2028C\nCarol|owns|Plan D\n"
    tf = read_triples_text(text, "metaqa", ONTO, "c")
    assert [(b.line, b.reason.split(";")[0]) for b in tf.bad_rows] == [
        (2, "bad character in subject: control character U+0000"),
        (3, "bad character in object: line separator U+2028"),
    ]
    assert "\x00" not in tf.bad_rows[0].text and "\\x00" in tf.bad_rows[0].text, "printable"
    assert sorted(e.name for e in tf.dataset.entities) == ["Alice", "Carol", "Plan A", "Plan D"]
    assert tf.bad_summary() == {"bad character": 2}


def test_json_escapes_of_nul_and_lone_surrogates_are_bad_rows() -> None:
    text = (
        '{"subject": "A\\u0000", "relation": "owns", "object": "P"}\n'
        '{"subject": "B", "relation": "owns", "object": "\\ud800"}\n'
        '{"subject": "C", "relation": "owns", "object": "Q", "attributes": {"note": "x\\u0007"}}\n'
        '{"subject": "D", "relation": "owns", "object": "R"}\n'
    )
    tf = read_triples_text(text, "jsonl", ONTO, "c")
    assert [b.line for b in tf.bad_rows] == [1, 2, 3]
    assert "U+0000" in tf.bad_rows[0].reason
    assert "lone surrogate U+D800" in tf.bad_rows[1].reason
    assert "attribute 'note'" in tf.bad_rows[2].reason
    assert tf.triples == 1


@pytest.mark.parametrize(
    ("fmt", "lines"),
    [
        ("metaqa", [b"Alice|owns|Plan A", b"Eve|owns|Plan \xff B", b"Carol|owns|Plan D"]),
        ("csv", [b"Alice,owns,Plan A", b"Eve,owns,Plan \xc3\x28", b"Carol,owns,Plan D"]),
        ("tsv", [b"Alice\towns\tPlan A", b"Eve\towns\t\xe2\x82", b"Carol\towns\tPlan D"]),
        (
            "jsonl",
            [
                b'{"subject":"Alice","relation":"owns","object":"Plan A"}',
                b'{"subject":"\xfe"}',
                b'{"subject":"Carol","relation":"owns","object":"Plan D"}',
            ],
        ),
    ],
)
def test_invalid_utf8_spoils_only_its_line(tmp_path: Path, fmt: str, lines: list[bytes]) -> None:
    f = tmp_path / f"kb.{fmt}"
    f.write_bytes(b"\r\n".join(lines) + b"\r\n")
    tf = read_triples(f, fmt, ONTO, "c")
    assert [b.line for b in tf.bad_rows] == [2]
    assert tf.bad_rows[0].reason.startswith("invalid UTF-8: byte 0x")
    assert "\\x" in tf.bad_rows[0].text and tf.bad_rows[0].text.replace("\t", " ").isprintable()
    assert sorted(e.name for e in tf.dataset.entities) == ["Alice", "Carol", "Plan A", "Plan D"]


def test_cli_reports_the_invalid_utf8_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from pathrag_gds.cli import main

    f = tmp_path / "kb.txt"
    f.write_bytes(b"Heat|directed_by|Michael Mann\nHeat|directed_by|Mich\xffel\nHeat|release_year|1995\n")
    out = tmp_path / "bad.tsv"
    assert main(["load", "triples", str(f), "--community", "t", "--bad-rows", str(out)]) == 2
    err = capsys.readouterr().err
    assert f"{f}:2: invalid UTF-8: byte 0xFF at character 22" in err
    assert "nothing loaded" in err and "--skip-bad" in err
    assert out.read_text(encoding="utf-8").splitlines()[1].startswith("2\tinvalid UTF-8")


def _graph_mapping(name: str = "Bob", chunk_text: str = "Bob owns it.") -> dict[str, Any]:
    return {
        "ontology": {
            "id": "o",
            "entity_types": [{"label": "Person"}, {"label": "Plan"}],
            "relationship_types": [{"type": "owns", "source": ["Person"], "target": ["Plan"]}],
        },
        "community": {"id": "c"},
        "entities": [{"id": "bob", "label": "Person", "name": name}, {"id": "p", "label": "Plan"}],
        "relationships": [{"source": "bob", "type": "owns", "target": "p"}],
        "chunks": [{"id": "c1", "text": chunk_text, "mentions": ["bob"]}],
    }


def test_graph_file_with_nul_in_a_name_is_refused() -> None:
    assert dataset_from_mapping(_graph_mapping(chunk_text="line one\nline two"), "f.yaml")
    with pytest.raises(DatasetError, match=r"entity 'bob': name holds a control character U\+0000"):
        dataset_from_mapping(_graph_mapping(name="Bob\x00"), "f.yaml")
    with pytest.raises(DatasetError, match=r"chunk 'c1': text holds a control character U\+001B"):
        dataset_from_mapping(_graph_mapping(chunk_text="\x1b[2J"), "f.yaml")


def test_graph_file_with_invalid_utf8_names_the_line(tmp_path: Path) -> None:
    f = tmp_path / "g.yaml"
    f.write_bytes(b"ontology:\n  id: o\n  entity_types: [{label: A\xff}]\n")
    with pytest.raises(DatasetError, match=r"g\.yaml:3: invalid UTF-8 \(byte 0xFF\)"):
        read_graph_file(f)


class _NoWrites:
    """A stand-in graph (settings only) that fails the test if the loader reads or writes."""

    settings = Settings.from_env({})

    def __getattr__(self, name: str) -> Any:
        raise AssertionError(f"the loader used the database ({name}) before checking the data")


def test_loader_refuses_bad_text_before_writing_anything() -> None:
    loader = GraphLoader(cast(Graph, _NoWrites()), progress=False)
    bad = Dataset(ONTO, "c", entities=[EntityRow("c:a", "a"), EntityRow("c:b", "B\x00b")])
    with pytest.raises(DatasetError, match=r"entity 'c:b' name 'B\\x00b' holds a control character U\+0000"):
        loader.load(bad)
    with pytest.raises(DatasetError, match="community id"):
        loader.load(Dataset(ONTO, "c\x07", entities=[EntityRow("x", "x")]))
