"""What a community's loads may write, against a live Neo4j (issue 54, items 3 and 5).

A graph file cannot claim another community's ids (the squatting of finding 3), and a load refused
for its data writes nothing (no entity, no community, no ontology) while the report counts the bad
rows. Each test writes only uniquely named communities and deletes them.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from pathrag_gds.datasets.loader import (
    Dataset,
    DatasetError,
    EntityRow,
    GraphLoader,
    RelationRow,
    community_counts,
    delete_community,
)
from pathrag_gds.graph import Graph
from pathrag_gds.ontology import Ontology

pytestmark = pytest.mark.integration


def _uid() -> str:
    return uuid.uuid4().hex[:10]


@pytest.fixture
def cleanup(graph: Graph) -> Iterator[list[str]]:
    """Communities to delete (with their ontology) after the test."""
    made: list[str] = []
    yield made
    for cid in reversed(made):
        delete_community(graph, cid, drop_ontology=True)
        assert community_counts(graph, cid) is None


def _ontology_mapping(oid: str) -> dict[str, object]:
    return {
        "id": oid,
        "entity_types": [{"label": "Person"}, {"label": "Place"}],
        "relationship_types": [
            {"type": "lives_in", "phrase": "lives in", "source": ["Person"], "target": ["Place"]}
        ],
    }


def _existing(graph: Graph, ids: list[str]) -> list[str]:
    s = graph.settings
    rows = graph.read(
        "train_entities", ids=ids, entity_label=s.entity_label, embedding_key=s.embedding_property
    )
    return sorted(str(r["id"]) for r in rows)


def _nothing_written(graph: Graph, cid: str, oid: str, ids: list[str]) -> None:
    assert community_counts(graph, cid) is None, "no community node"
    assert graph.read("ontology_read", ontology_id=oid) == [], "no ontology node"
    assert _existing(graph, ids) == [], "no entity"


# --- item 5: a failed load writes nothing ------------------------------------------------------


def test_jsonl_whose_last_row_has_a_bad_attribute_name_writes_nothing(
    graph: Graph, tmp_path: Path, capsys: pytest.CaptureFixture[str], cleanup: list[str]
) -> None:
    from pathrag_gds.cli import main

    cid, oid = f"test_t54_{_uid()}", f"test_t54_onto_{_uid()}"
    onto = tmp_path / "onto.yaml"
    onto.write_text(yaml.safe_dump({"ontology": _ontology_mapping(oid)}), encoding="utf-8")
    rows = [{"subject": f"P{i}", "relation": "lives_in", "object": f"L{i}"} for i in range(41)]
    rows.append({"subject": "Z", "relation": "lives_in", "object": "Y", "attributes": {"bad name": 1}})
    f = tmp_path / "kb.jsonl"
    f.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    cleanup.append(cid)
    args = ["load", "triples", str(f), "--format", "jsonl", "--ontology", str(onto), "--community", cid]

    assert main(args) == 2
    captured = capsys.readouterr()
    assert "42 triples" not in captured.out and "41 triples" in captured.out
    assert "82 entities, 1 bad rows" in captured.out, "the report counts the bad row"
    assert f"{f}:42: attribute name 'bad name' is not a valid name" in captured.err
    assert "1 bad row(s)" in captured.err and "nothing loaded" in captured.err
    _nothing_written(graph, cid, oid, [f"{cid}:P0", f"{cid}:L40"])

    assert main([*args, "--skip-bad"]) == 1, "the good rows load with --skip-bad"
    counts = community_counts(graph, cid)
    assert counts is not None and counts["entities"] == 82 and counts["relationships"] == {"lives_in": 41}


def test_graph_yaml_with_a_bad_attribute_writes_no_community_or_ontology(
    graph: Graph, tmp_path: Path, capsys: pytest.CaptureFixture[str], cleanup: list[str]
) -> None:
    from pathrag_gds.cli import main

    cid, oid = f"test_t54_{_uid()}", f"test_t54_onto_{_uid()}"
    data = {
        "ontology": _ontology_mapping(oid),
        "community": {"id": cid},
        "entities": [
            {"id": f"{cid}:ann", "label": "Person", "name": "Ann"},
            {"id": f"{cid}:home", "label": "Place", "name": "Home", "attributes": {"bad-name": "x"}},
        ],
        "relationships": [{"source": f"{cid}:ann", "type": "lives_in", "target": f"{cid}:home"}],
    }
    path = tmp_path / "g.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    cleanup.append(cid)

    assert main(["load", "graph", str(path), "--no-index"]) == 2
    err = capsys.readouterr().err
    assert f"entity '{cid}:home': attribute name 'bad-name' is not a valid name" in err
    _nothing_written(graph, cid, oid, [f"{cid}:ann", f"{cid}:home"])


def test_loader_refuses_a_bad_last_relationship_before_writing_any_batch(
    graph: Graph, cleanup: list[str]
) -> None:
    cid, oid = f"test_t54_{_uid()}", f"test_t54_onto_{_uid()}"
    people = [EntityRow(f"{cid}:p{i}", f"P{i}", ("Person",)) for i in range(10)]
    home = EntityRow(f"{cid}:home", "Home", ("Place",))
    rels = [RelationRow(p.id, "lives_in", home.id) for p in people]
    rels[-1] = RelationRow(people[-1].id, "lives_in", home.id, {"nested": {"a": 1}})
    cleanup.append(cid)
    loader = GraphLoader(graph, batch_size=3, progress=False)  # several batches of entities first

    with pytest.raises(DatasetError, match=r"attribute 'nested': value .* is not a scalar"):
        loader.load(Dataset(Ontology.from_mapping(_ontology_mapping(oid)), cid, [*people, home], rels))
    _nothing_written(graph, cid, oid, [e.id for e in [*people, home]])


# --- item 3: ids only in the community's own namespace ----------------------------------------


def _graph_file(tmp_path: Path, cid: str, oid: str, ids: list[str]) -> Path:
    data = {
        "ontology": _ontology_mapping(oid),
        "community": {"id": cid},
        "entities": [{"id": i, "label": "Person", "name": i.rsplit(":", 1)[-1]} for i in ids],
    }
    path = tmp_path / f"{cid}.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    return path


def test_graph_file_cannot_squat_the_id_another_communitys_triple_load_gives(
    graph: Graph, tmp_path: Path, capsys: pytest.CaptureFixture[str], cleanup: list[str]
) -> None:
    from pathrag_gds.cli import main

    uid = _uid()
    evil, victim, oid = f"test_t54_evil_{uid}", f"test_t54_victim_{uid}", f"test_t54_onto_{uid}"
    plain = f"test_t54_bob_{uid}"
    cleanup.extend([evil, victim])
    squat = _graph_file(tmp_path, evil, oid, [plain, f"{victim}:Target"])

    assert main(["load", "graph", str(squat), "--no-index"]) == 2
    err = capsys.readouterr().err
    assert f"entity id '{victim}:Target' is in the namespace of community '{victim}'" in err
    assert f"Rename the entity, e.g. '{evil}:Target'" in err
    _nothing_written(graph, evil, oid, [plain, f"{victim}:Target"])
    assert main(["load", "graph", str(squat), "--no-index", "--shared"]) == 2, "--shared creates none"
    assert "it does not exist" in capsys.readouterr().err
    _nothing_written(graph, evil, oid, [plain, f"{victim}:Target"])

    onto = tmp_path / "onto.yaml"
    onto.write_text(yaml.safe_dump({"ontology": _ontology_mapping(oid)}), encoding="utf-8")
    kb = tmp_path / "kb.tsv"
    kb.write_text("Target\tlives_in\tHome\n", encoding="utf-8")
    triples = ["load", "triples", str(kb), "--format", "tsv", "--ontology", str(onto), "--community", victim]
    assert main(triples) == 0, "the victim's own load is not refused"
    counts = community_counts(graph, victim)
    assert counts is not None and counts["entities"] == 2 and counts["relationships"] == {"lives_in": 1}

    own = _graph_file(tmp_path, evil, oid, [plain, f"{evil}:Target", f"{evil}:{victim}:Target"])
    assert main(["load", "graph", str(own), "--no-index"]) == 0, "plain ids and its own ids load"
    assert _existing(graph, [plain, f"{evil}:Target", f"{victim}:Target"]) == sorted(
        [plain, f"{evil}:Target", f"{victim}:Target"]
    )
    counts = community_counts(graph, evil)
    assert counts is not None and counts["entities"] == 3


def test_shared_load_may_name_another_communitys_existing_entity_but_not_create_one(
    graph: Graph, cleanup: list[str]
) -> None:
    uid = _uid()
    owner, other, oid = f"test_t54_owner_{uid}", f"test_t54_other_{uid}", f"test_t54_onto_{uid}"
    onto = Ontology.from_mapping(_ontology_mapping(oid))
    home, ghost = f"{owner}:Home", f"{owner}:Ghost"
    cleanup.extend([other, owner])
    loader = GraphLoader(graph, progress=False)
    loader.load(Dataset(onto, owner, [EntityRow(home, "Home", ("Place",))]))
    mine = [EntityRow(f"{other}:Ann", "Ann", ("Person",)), EntityRow(home, "Home", ("Place",))]
    lives = [RelationRow(f"{other}:Ann", "lives_in", home)]

    with pytest.raises(DatasetError, match=f"'{home}' is in the namespace of community '{owner}'"):
        loader.load(Dataset(onto, other, mine, lives))
    assert community_counts(graph, other) is None
    with pytest.raises(DatasetError, match=f"'{ghost}' .*: it does not exist, and a --shared load"):
        loader.load(Dataset(onto, other, [*mine, EntityRow(ghost, "Ghost", ("Place",))], lives), shared=True)
    assert community_counts(graph, other) is None and _existing(graph, [ghost]) == []

    report = loader.load(Dataset(onto, other, mine, lives), shared=True)
    assert (report.refused, report.entities_created, report.relationships_created) == (0, 1, 1)
    counts = community_counts(graph, other)
    assert counts is not None and counts["entities"] == 2, "the owner's Home is shared"


def test_load_entities_statement_never_creates_a_foreign_row(graph: Graph, cleanup: list[str]) -> None:
    """The database's own guard, for a foreign id deleted between the check and the write."""
    uid = _uid()
    cid, oid = f"test_t54_{uid}", f"test_t54_onto_{uid}"
    cleanup.append(cid)
    GraphLoader(graph, progress=False).load(
        Dataset(Ontology.from_mapping(_ontology_mapping(oid)), cid, [EntityRow(f"{cid}:a", "A")])
    )
    ghost = f"test_t54_gone_{uid}:x"
    rows = [
        {"id": ghost, "name": "x", "labels": [], "props": {}, "foreign": True},
        {"id": f"{cid}:b", "name": "b", "labels": [], "props": {}, "foreign": False},
    ]
    result = graph.write(
        "load_entities",
        rows=rows,
        community_id=cid,
        load=f"test_t54_load_{uid}",
        embedding_key=graph.settings.embedding_property,
        shared=True,
    )
    assert result[0]["refused"] == [ghost] and result[0]["created"] == 1
    assert _existing(graph, [ghost, f"{cid}:b"]) == [f"{cid}:b"]
