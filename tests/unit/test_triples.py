"""Triple readers, ontology files and graph YAML checks: no database."""

from __future__ import annotations

from pathlib import Path

import pytest

from pathrag_gds.config import METAQA_DIR
from pathrag_gds.datasets.demo import DEMO_COMMUNITY, DEMO_FILE, dataset_from_mapping, read_graph_file
from pathrag_gds.datasets.loader import DatasetError, check_value
from pathrag_gds.datasets.ontology_files import METAQA_ONTOLOGY, ontology_from_mapping, read_ontology
from pathrag_gds.datasets.triples import FORMATS, read_triples, read_triples_text
from pathrag_gds.errors import PathRagError
from pathrag_gds.ontology import Ontology

KB = METAQA_DIR / "kb.txt"


@pytest.fixture(scope="module")
def metaqa() -> Ontology:
    return read_ontology(METAQA_ONTOLOGY)


def test_metaqa_ontology_has_nine_relations_with_phrases(metaqa: Ontology) -> None:
    assert metaqa.id == "MetaQA"
    assert sorted(metaqa.labels) == sorted(
        ["Movie", "Person", "Year", "Language", "Tag", "Genre", "Votes", "Rating"]
    )
    assert len(metaqa.relation_types) == 9
    d = metaqa.relation("directed_by")
    assert (d.phrase, d.inverse_phrase, d.source_labels, d.target_labels) == (
        "was directed by",
        "directed",
        ("Movie",),
        ("Person",),
    )
    assert metaqa.relation("starred_actors").inverse_phrase == "starred in"
    assert metaqa.relation("has_tags").phrase == "is tagged"
    assert all(et.description for et in metaqa.entity_types)


def test_metaqa_format_maps_types_and_ids(metaqa: Ontology) -> None:
    text = "Heat|directed_by|Michael Mann\nHeat|release_year|1995\nHeat|has_tags|heist\n"
    tf = read_triples_text(text, "metaqa", metaqa, "mq")
    assert not tf.bad_rows
    ents = {e.id: e for e in tf.dataset.entities}
    assert ents["mq:Heat"].labels == ("Movie",)
    assert ents["mq:Heat"].name == "Heat"
    assert ents["mq:Michael Mann"].labels == ("Person",)
    assert ents["mq:1995"].labels == ("Year",)
    assert ents["mq:heist"].labels == ("Tag",)
    rels = [(r.source, r.type, r.target) for r in tf.dataset.relationships]
    assert ("mq:Heat", "directed_by", "mq:Michael Mann") in rels
    assert tf.dataset.community_id == "mq"
    assert tf.dataset.ontology is metaqa


def test_same_string_with_two_types_is_one_entity_with_two_labels(metaqa: Ontology) -> None:
    text = "Heat|has_tags|Crash\nCrash|directed_by|Paul Haggis\n"
    tf = read_triples_text(text, "metaqa", metaqa, "c")
    crash = next(e for e in tf.dataset.entities if e.name == "Crash")
    assert set(crash.labels) == {"Tag", "Movie"}
    assert len(tf.dataset.entities) == 3


def test_metaqa_bad_rows_have_line_numbers(metaqa: Ontology) -> None:
    text = (
        "Heat|directed_by|Michael Mann\n"  # 1 ok
        "Heat|directed_by\n"  # 2 too few fields
        "\n"  # 3 blank: skipped
        "|starred_actors|Al Pacino\n"  # 4 empty subject
        "Heat|acted_in|Al Pacino\n"  # 5 unknown relation
        "Heat|starred_actors|Al Pacino|extra\n"  # 6 too many fields
        "Heat| |x\n"  # 7 empty relation
        "Heat|starred_actors|  \n"  # 8 empty object
        "Heat|starred_actors|Al Pacino\n"  # 9 ok
    )
    tf = read_triples_text(text, "metaqa", metaqa, "c")
    bad = {b.line: b.reason for b in tf.bad_rows}
    assert sorted(bad) == [2, 4, 5, 6, 7, 8]
    assert "expected 3 fields" in bad[2] and "found 2" in bad[2]
    assert bad[4] == "empty subject"
    assert "'acted_in' is not in ontology MetaQA" in bad[5]
    assert "found 4" in bad[6]
    assert bad[7] == "empty relation"
    assert bad[8] == "empty object"
    assert tf.triples == 2
    assert tf.lines_read == 9
    assert tf.bad_summary() == {"expected": 2, "empty": 3, "relation": 1}


def test_duplicates_are_counted_not_repeated(metaqa: Ontology) -> None:
    text = "Heat|directed_by|Michael Mann\nHeat|directed_by|Michael Mann\n"
    tf = read_triples_text(text, "metaqa", metaqa, "c")
    assert tf.duplicates == 1
    assert len(tf.dataset.relationships) == 1
    assert tf.triples == 2


def test_limit_reads_first_lines(metaqa: Ontology) -> None:
    text = "".join(f"Movie {i}|release_year|{1900 + i}\n" for i in range(10))
    tf = read_triples_text(text, "metaqa", metaqa, "c", limit=4)
    assert tf.triples == 4
    assert tf.lines_read == 4


@pytest.mark.parametrize(
    ("fmt", "text"),
    [
        ("tsv", "Heat\tdirected_by\tMichael Mann\nHeat\tdirected_by\n"),
        ("csv", 'Heat,directed_by,Michael Mann\n"Heat, the film",directed_by\n'),
        (
            "jsonl",
            '{"subject": "Heat", "relation": "directed_by", "object": "Michael Mann"}\n{"subject": "x"\n',
        ),
    ],
)
def test_other_formats_parse_and_report_bad_rows(metaqa: Ontology, fmt: str, text: str) -> None:
    tf = read_triples_text(text, fmt, metaqa, "c")
    assert [(r.source, r.type, r.target) for r in tf.dataset.relationships] == [
        ("c:Heat", "directed_by", "c:Michael Mann")
    ]
    assert [b.line for b in tf.bad_rows] == [2]


def test_csv_header_extra_columns_become_relationship_properties(metaqa: Ontology) -> None:
    text = (
        "subject,relation,object,role\nHeat,starred_actors,Al Pacino,Vincent Hanna\nHeat,starred_actors,x,\n"
    )
    tf = read_triples_text(text, "csv", metaqa, "c")
    assert not tf.bad_rows
    props = {r.target: r.attributes for r in tf.dataset.relationships}
    assert props == {"c:Al Pacino": {"role": "Vincent Hanna"}, "c:x": {}}


def test_csv_quoted_comma_in_name(metaqa: Ontology) -> None:
    tf = read_triples_text('"Paris, Texas",directed_by,Wim Wenders\n', "csv", metaqa, "c")
    assert [e.name for e in tf.dataset.entities] == ["Paris, Texas", "Wim Wenders"]


def test_tsv_comments_and_wrong_width(metaqa: Ontology) -> None:
    text = "# a comment\nHeat\tdirected_by\tMichael Mann\tmore\n\nHeat\tin_language\tEnglish\n"
    tf = read_triples_text(text, "tsv", metaqa, "c")
    assert [(b.line, b.reason) for b in tf.bad_rows] == [(2, "expected 3 fields separated by tabs, found 4")]
    assert tf.triples == 1


def test_jsonl_aliases_attributes_and_errors(metaqa: Ontology) -> None:
    text = (
        '{"source": "Heat", "type": "starred_actors", "target": "Al Pacino", "attributes": {"billing": 1}}\n'
        '["not", "an", "object"]\n'
        '{"head": "Heat", "relation": "release_year", "tail": 1995}\n'
        '{"subject": "Heat", "relation": "has_tags", "object": "x", "attributes": {"a": {"nested": 1}}}\n'
        '{"subject": "Heat", "relation": "has_tags"}\n'
        "not json\n"
    )
    tf = read_triples_text(text, "jsonl", metaqa, "c")
    bad = {b.line: b.reason for b in tf.bad_rows}
    assert sorted(bad) == [2, 4, 5, 6]
    assert bad[2] == "not a JSON object"
    assert bad[4].startswith("attribute values")
    assert bad[5] == "empty object"
    assert bad[6].startswith("invalid JSON")
    rels = {r.type: r for r in tf.dataset.relationships}
    assert rels["starred_actors"].attributes == {"billing": 1}
    assert rels["release_year"].target == "c:1995"


def test_unknown_format_and_missing_file(metaqa: Ontology, tmp_path: Path) -> None:
    with pytest.raises(DatasetError, match="unknown triple format 'xml'"):
        read_triples_text("", "xml", metaqa, "c")
    with pytest.raises(DatasetError, match="not found"):
        read_triples(tmp_path / "nope.txt", "metaqa", metaqa, "c")
    assert issubclass(DatasetError, PathRagError)
    assert FORMATS == ("metaqa", "tsv", "csv", "jsonl")


def test_empty_community_is_refused(metaqa: Ontology) -> None:
    with pytest.raises(DatasetError, match="--community"):
        read_triples_text("a|directed_by|b\n", "metaqa", metaqa, " ")


def test_ontology_file_errors(tmp_path: Path) -> None:
    with pytest.raises(DatasetError, match="not found"):
        read_ontology(tmp_path / "missing.yaml")
    bad = tmp_path / "bad.yaml"
    bad.write_text("ontology: [unclosed\n", encoding="utf-8")
    with pytest.raises(DatasetError, match="not valid YAML"):
        read_ontology(bad)
    with pytest.raises(DatasetError, match="does not declare"):
        ontology_from_mapping(
            {
                "id": "o",
                "entity_types": [{"label": "A"}],
                "relationship_types": [{"type": "r", "source": ["B"]}],
            },
            "x",
        )
    with pytest.raises(DatasetError, match="not a valid name"):
        ontology_from_mapping({"id": "o", "relationship_types": [{"type": "has space"}]}, "x")
    with pytest.raises(DatasetError, match="`id`"):
        ontology_from_mapping({"entity_types": []}, "x")


def test_whole_metaqa_kb_reads_clean(metaqa: Ontology) -> None:
    tf = read_triples(KB, "metaqa", metaqa, "metaqa")
    assert not tf.bad_rows
    assert tf.triples == 133_582
    assert len(tf.dataset.relationships) == 133_582
    assert len(tf.dataset.entities) == 43_234
    assert all(e.id == f"metaqa:{e.name}" for e in tf.dataset.entities)


TINY = {
    "ontology": {
        "id": "TinyStories",
        "entity_types": [{"label": "Animal", "description": "an animal"}, {"label": "Place"}],
        "relationship_types": [
            {
                "type": "lives_in",
                "phrase": "lives in",
                "inverse_phrase": "is home of",
                "source": ["Animal"],
                "target": ["Place"],
            },
        ],
    },
    "community": {"id": "tiny", "ontology_id": "TinyStories"},
    "entities": [
        {
            "id": "tom",
            "label": "Animal",
            "name": "Tom",
            "description": "A cat.",
            "attributes": {"species": "cat", "moods": ["calm", "sleepy"]},
        },
        {"id": "barn", "label": "Place", "name": "Barn"},
    ],
    "relationships": [{"source": "tom", "type": "lives_in", "target": "barn", "attributes": {"since": 2020}}],
    "chunks": [
        {"id": "tiny_c1", "source": "s", "text": "Tom lives in the barn.", "mentions": ["tom", "barn"]}
    ],
}


def test_graph_yaml_builds_dataset() -> None:
    ds = dataset_from_mapping(TINY, "tiny.yaml")
    assert ds.community_id == "tiny"
    assert [e.id for e in ds.entities] == ["tom", "barn"]
    assert ds.entities[0].attributes == {"species": "cat", "moods": ["calm", "sleepy"]}
    assert ds.relationships[0].attributes == {"since": 2020}
    assert ds.chunks[0].mentions == ("tom", "barn")


def test_graph_yaml_lists_every_problem() -> None:
    data = {
        **TINY,
        "entities": [*TINY["entities"], {"id": "tom", "label": "Robot"}],
        "relationships": [{"source": "tom", "type": "flies_to", "target": "moon"}],
        "chunks": [{"id": "c", "text": "t", "mentions": ["nobody"]}],
    }
    with pytest.raises(DatasetError) as err:
        dataset_from_mapping(data, "tiny.yaml")
    msg = str(err.value)
    for needle in ("id repeated", "'Robot'", "'flies_to'", "no entity 'moon'", "unknown entity 'nobody'"):
        assert needle in msg
    assert msg.startswith("tiny.yaml: 5 problem(s)")


def test_check_value() -> None:
    assert check_value(["a", "b"], "x") == ["a", "b"]
    assert check_value(3, "x") == 3
    with pytest.raises(DatasetError, match="flatten"):
        check_value({"a": 1}, "x")
    with pytest.raises(DatasetError):
        check_value([1, "a"], "x")


def test_demo_file_is_consistent() -> None:
    ds = read_graph_file(DEMO_FILE)
    assert ds.community_id == DEMO_COMMUNITY == "DefaultCommunity_FictionalStories"
    assert ds.ontology.id == "FictionalStories"
    assert len(ds.entities) >= 20 and ds.relationships and not ds.chunks


def test_cli_refuses_bad_rows_before_touching_the_database(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from pathrag_gds.cli import main

    f = tmp_path / "kb.txt"
    f.write_text("Heat|directed_by|Michael Mann\nHeat|acted_in|x\nbroken line\n", encoding="utf-8")
    out = tmp_path / "bad.tsv"
    assert main(["load", "triples", str(f), "--community", "t", "--bad-rows", str(out)]) == 2
    err = capsys.readouterr().err
    assert f"{f}:2: relation 'acted_in' is not in ontology MetaQA" in err
    assert f"{f}:3: expected 3 fields" in err
    assert "nothing loaded" in err and "--skip-bad" in err
    assert out.read_text(encoding="utf-8").splitlines()[1:] == [
        "2\trelation 'acted_in' is not in ontology MetaQA\tHeat|acted_in|x",
        "3\texpected 3 fields separated by '|', found 1\tbroken line",
    ]


def test_cli_user_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from pathrag_gds.cli import main

    f = tmp_path / "kb.csv"
    f.write_text("a,directed_by,b\n", encoding="utf-8")
    assert main(["load", "triples", str(f), "--format", "xml"]) == 2
    assert "unknown triple format 'xml'" in capsys.readouterr().err
    assert main(["load", "triples", str(f), "--format", "csv"]) == 2
    assert "needs --ontology" in capsys.readouterr().err
    assert main(["load", "triples", str(tmp_path / "none.txt")]) == 2
    assert "not found" in capsys.readouterr().err
