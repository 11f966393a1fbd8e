"""The story suites (Bob: spec, fresh, heldout; the harbour, orchard, biomed, media, supply, league,
scholar, ops and dynasty graphs: heldout) read and agree with their graphs.

Every question's intended path, written at the head of its `note` ("a -rel-> b <-rel- c"), is walked
in the graph file: each edge exists, the path has the question's hop count and holds the entities
the #1 path must contain and an acceptable answer (a symmetric relation, whose phrase reads the
same both ways, is stored once and may be written either way). No database: the YAML files only.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from pathrag_gds.datasets.bob_suite import DATA, intended_path, load_suite
from pathrag_gds.errors import InvalidInput

SUITES = {
    "bob_eval.yaml": "bob.yaml",
    "harbour_eval.yaml": "harbour.yaml",
    "orchard_eval.yaml": "orchard.yaml",
    "biomed_eval.yaml": "biomed.yaml",
    "media_eval.yaml": "media.yaml",
    "supply_eval.yaml": "supply.yaml",
    "league_eval.yaml": "league.yaml",
    "scholar_eval.yaml": "scholar.yaml",
    "ops_eval.yaml": "ops.yaml",
    "dynasty_eval.yaml": "dynasty.yaml",
}


def _graph(name: str) -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load((DATA / name).read_text(encoding="utf-8"))
    return data


def test_the_suites_hold_their_sets() -> None:
    bob = load_suite()
    assert {k: len(v) for k, v in bob.sets.items()} == {"spec": 10, "fresh": 10, "heldout": 24}
    assert bob.queries[0].id == "1" and bob.fresh[0].id == "11"
    harbour = load_suite(DATA / "harbour_eval.yaml")
    assert harbour.community_id == "Harbour_Stories" and len(harbour.sets["heldout"]) == 30
    orchard = load_suite(DATA / "orchard_eval.yaml")
    assert orchard.community_id == "Orchard_Stories" and len(orchard.sets["heldout"]) == 40


@pytest.mark.parametrize(("suite_file", "graph_file"), sorted(SUITES.items()))
def test_every_intended_path_is_in_the_graph(suite_file: str, graph_file: str) -> None:
    graph = _graph(graph_file)
    ids = {e["id"] for e in graph["entities"]}
    edges = {(r["source"], r["type"], r["target"]) for r in graph["relationships"]}
    types = graph["ontology"]["relationship_types"]
    symmetric = {t["type"] for t in types if t["phrase"] == t["inverse_phrase"]}
    edges |= {(b, t, a) for a, t, b in edges if t in symmetric}  # stored once, read either way
    suite = load_suite(DATA / suite_file)
    assert suite.community_id == graph["community"]["id"]
    for name, questions in suite.sets.items():
        for q in questions:
            start, path = intended_path(q.note)
            on_path = {start} | {n for e in path for n in (e[0], e[2])}
            assert set(q.must_contain) | set(q.answer) <= ids, (name, q.id)
            assert all(e in edges for e in path), (name, q.id, [e for e in path if e not in edges])
            assert q.hops is None or len(path) == q.hops, (name, q.id, len(path))
            assert set(q.must_contain) <= on_path, (name, q.id)
            assert set(q.answer) & on_path, (name, q.id)


def test_a_bad_suite_file_is_refused_with_what_to_do(tmp_path: Path) -> None:
    with pytest.raises(InvalidInput, match="cannot read"):
        load_suite(tmp_path / "missing.yaml")
    (tmp_path / "list.yaml").write_text("- a\n- b\n", encoding="utf-8")
    with pytest.raises(InvalidInput, match="mapping of question sets"):
        load_suite(tmp_path / "list.yaml")
    (tmp_path / "empty.yaml").write_text("community_id: c\nheldout: []\n", encoding="utf-8")
    with pytest.raises(InvalidInput, match="no questions"):
        load_suite(tmp_path / "empty.yaml")
    (tmp_path / "bad.yaml").write_text("heldout:\n  - {query: 'Who?'}\n", encoding="utf-8")
    with pytest.raises(InvalidInput, match="needs an id"):
        load_suite(tmp_path / "bad.yaml")


def test_eval_bob_names_the_sets_a_file_has(capsys: pytest.CaptureFixture[str]) -> None:
    from pathrag_gds.cli import main

    assert main(["eval", "bob", "--set", "nope"]) == 2
    assert "no question set 'nope' in the file; it has spec, fresh, heldout" in capsys.readouterr().err
