"""The synthetic scale graph, its import folder and the scale report: pure, no database."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np
import pytest

from pathrag_gds.config import Settings
from pathrag_gds.datasets.bulk import import_command, read_manifest, write_import_folder
from pathrag_gds.datasets.loader import DatasetError, EntityRow
from pathrag_gds.datasets.synthetic import (
    ONTOLOGY,
    RELATIONS,
    SyntheticGraph,
    generate,
    parse_size,
    size_label,
    to_dataset,
)
from pathrag_gds.evaluation.benchkit import DepthTiming
from pathrag_gds.evaluation.scale import QuestionRun, summarize
from pathrag_gds.evaluation.scale_report import render_section, write_plot
from pathrag_gds.indexing import IndexReport

SIZE = 20_000


@pytest.fixture(scope="module")
def small() -> SyntheticGraph:
    return generate(SIZE, seed=3)


def test_the_same_size_and_seed_give_the_same_graph(small: SyntheticGraph) -> None:
    again, other = generate(SIZE, seed=3), generate(SIZE, seed=4)
    for rel, (src, tgt) in small.relationships.items():
        assert np.array_equal(src, again.relationships[rel][0])
        assert np.array_equal(tgt, again.relationships[rel][1])
    assert any(
        not np.array_equal(small.relationships[r][1], other.relationships[r][1]) for r in small.relationships
    )


def test_size_ontology_and_functional_relations(small: SyntheticGraph) -> None:
    g = small
    assert g.relationship_count == SIZE
    assert len(ONTOLOGY.entity_types) >= 8 and len(ONTOLOGY.relation_types) >= 12
    assert all(len(g.relationships[rt.type][0]) > 0 for rt in ONTOLOGY.relation_types)
    for spec in RELATIONS:
        src, tgt = g.relationships[spec.type]
        pairs = set(zip(src.tolist(), tgt.tolist(), strict=True))
        assert len(pairs) == len(src), f"{spec.type} repeats a pair"
        if spec.functional:
            assert len(set(src.tolist())) == len(src), f"{spec.type} gives a source two targets"


def test_degrees_follow_a_power_law_with_hubs(small: SyntheticGraph) -> None:
    deg = small.degrees()
    people = deg["Person"][deg["Person"] > 0]
    assert deg["Skill"].max() >= 20 * np.median(deg["Skill"][deg["Skill"] > 0]) / 4
    assert people.max() >= 10 * np.median(people)
    # a few skills hold a large share of has_skill
    top = np.sort(np.bincount(small.relationships["has_skill"][1]))[::-1]
    assert top[:5].sum() >= 0.2 * top.sum()


def test_names_are_unique_and_every_entity_is_described(small: SyntheticGraph) -> None:
    ds = to_dataset(small, "s")
    ids = [e.id for e in ds.entities]
    assert len(set(ids)) == len(ids) and all(i.startswith("s:") for i in ids)
    assert all(e.description.startswith(e.name) for e in ds.entities)
    assert {e.labels[0] for e in ds.entities} == set(ONTOLOGY.labels)
    known = set(ids)
    assert all(r.source in known and r.target in known for r in ds.relationships)


def test_the_import_folder_holds_what_the_loader_writes(small: SyntheticGraph, tmp_path: Path) -> None:
    settings = Settings.from_env({})
    ds = to_dataset(small, "scale-t")
    m = write_import_folder(tmp_path, settings, ONTOLOGY, ds.community_id, ds.entities, ds.relationships)
    assert read_manifest(tmp_path) == m
    assert (m["entities"], m["relationships"]) == (len(ds.entities), len(ds.relationships))
    with (tmp_path / "entities.csv").open(encoding="utf-8", newline="") as fh:
        rows = list(csv.reader(fh))
    assert rows[0] == ["id:ID(Entity)", "name", "description", ":LABEL"]
    assert [(r[0], r[1], r[2], r[3]) for r in rows[1:]] == [
        (e.id, e.name, e.description, f"Entity;{e.labels[0]}") for e in ds.entities
    ]
    with (tmp_path / "relationships.csv").open(encoding="utf-8", newline="") as fh:
        rels = list(csv.reader(fh))[1:]
    assert rels == [[r.source, r.target, r.type] for r in ds.relationships]
    aggregates = (tmp_path / "aggregates.csv").read_text(encoding="utf-8").splitlines()
    assert len(aggregates) == 1 + len(ds.entities) and aggregates[1].endswith(",AGGREGATES")
    assert (tmp_path / "community.csv").read_text().splitlines()[1] == "scale-t,ScaleWorld,Community"
    cmd = import_command(settings, Path("/usr/bin/java"), tmp_path, m)
    assert cmd[cmd.index("full") + 1] == "neo4j" and "--overwrite-destination=true" in cmd
    assert sum(a.startswith("--nodes=") for a in cmd) == 2
    assert sum(a.startswith("--relationships=") for a in cmd) == 2


def test_the_import_folder_refuses_attributes_and_a_missing_manifest(tmp_path: Path) -> None:
    with pytest.raises(DatasetError, match="batched loader"):
        write_import_folder(
            tmp_path,
            Settings.from_env({}),
            ONTOLOGY,
            "c",
            [EntityRow("c:a", "a", ("Person",), "", {"x": 1})],
            [],
        )
    with pytest.raises(DatasetError, match="make_scale_graph"):
        read_manifest(tmp_path / "nowhere")


@pytest.mark.parametrize(
    ("text", "size"), [("100k", 100_000), ("1m", 1_000_000), ("5M", 5_000_000), ("2500", 2500)]
)
def test_sizes(text: str, size: int) -> None:
    assert parse_size(text) == size
    assert parse_size(size_label(size)) == size


def test_a_bad_size_or_a_tiny_graph_is_refused() -> None:
    with pytest.raises(ValueError, match="100k"):
        parse_size("lots")
    with pytest.raises(ValueError, match="at least 1,000"):
        generate(10)


def test_index_report_gives_the_time_the_rest_needs() -> None:
    r = IndexReport(total=10_000, pending=10_000, embedded=1_000, embed_seconds=10.0)
    assert "9,000" in r.lines()[-1] and "~2 min" in r.lines()[-1]
    assert len(IndexReport(total=5, pending=5, embedded=5, embed_seconds=1.0).lines()) == 2


def _result(size: int, ms: float) -> dict[str, object]:
    runs = [
        QuestionRun(
            h, 100.0 * h, 10.0 * h, 2 + h, h == 1, [DepthTiming(d, ms * d, 10, 1) for d in range(1, h + 1)]
        )
        for h in (1, 2, 3)
    ]
    summary = summarize(runs)
    return {
        "community": f"c{size}",
        "relationships": size,
        "entities": size // 5,
        "per_hop": 1,
        "seed": 0,
        "max_depth": 3,
        "beam": {"beam_width": 30, "expand_per_path": 20, "cap_per_relation": 50, "local_keep_m": 2},
        "machine": "test",
        "systems": {"pathrag_gds": {"scorer": "bi-encoder", "summary": summary}},
        "memory": {"heap_used_mib": 100, "heap_max_mib": 1024, "pagecache_setting": "512m", "store_mib": 20},
    }


def test_summary_and_report(tmp_path: Path) -> None:
    small_r, big_r = _result(100_000, 2.0), _result(1_000_000, 3.0)
    s = small_r["systems"]["pathrag_gds"]["summary"]  # type: ignore[index]
    assert s["expand_ms"]["1"] == {"p50": 2.0, "p95": 2.0, "n": 3}
    assert s["expand_ms"]["3"]["n"] == 1 and s["hits_at_1"] == pytest.approx(0.333)
    plot = tmp_path / "docs" / "curve.png"
    write_plot([small_r, big_r], plot)
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    text = render_section(
        [small_r, big_r],
        {100_000: {"import_s": 12.0, "largest_hub": {"Skill": 3289, "City": 9}}},
        plot,
        tmp_path / "docs" / "s.md",
        "x",
    )
    assert "(curve.png)" in text and "| 1,000,000 | 200,000 | 1 | 3.0 | 3.0 | 1.50x |" in text
    assert "| 100,000 | 20,000 | 0 | 12 |" in text and "| 3,289 (Skill) |" in text
    json.dumps(small_r)  # plain data


def test_db_import_asks_for_overwrite_and_a_folder_before_touching_the_server(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from pathrag_gds.cli import main

    assert main(["db", "import", str(tmp_path)]) == 2
    assert "pass --overwrite" in capsys.readouterr().err
    assert main(["db", "import", str(tmp_path), "--overwrite"]) == 2
    assert f"{tmp_path / 'import.json'} not found" in capsys.readouterr().err


def test_baselines_are_compared_on_the_questions_they_were_asked() -> None:
    from pathrag_gds.evaluation.scale_report import same_questions

    runs = [QuestionRun(h, float(i), 1.0, 5, False) for i, h in enumerate((1, 1, 2, 2, 3, 3))]
    systems = {"pathrag_gds": {}, "per-node": {"runs": [{"hop": 1}, {"hop": 2}]}}
    assert [r.latency_ms for r in same_questions(runs, systems)] == [0.0, 2.0]
