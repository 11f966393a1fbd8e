"""Loads checked whole before anything is written, ids kept in their namespace (issue 54, items 3, 5).

No database: the loader gets a stand-in graph that fails the test when it is read or written.
"""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any, cast

import pytest

from pathrag_gds.config import Settings
from pathrag_gds.datasets.bulk import write_import_folder
from pathrag_gds.datasets.demo import DEMO_FILE, dataset_from_mapping, read_graph_file
from pathrag_gds.datasets.loader import Dataset, DatasetError, EntityRow, GraphLoader, RelationRow
from pathrag_gds.datasets.prepare import prepare
from pathrag_gds.datasets.rows import entity_id, id_community
from pathrag_gds.datasets.triples import read_triples_text
from pathrag_gds.graph import Graph
from pathrag_gds.ontology import Ontology

ONTO = Ontology.from_mapping(
    {
        "id": "o",
        "entity_types": [{"label": "Person"}, {"label": "Plan"}],
        "relationship_types": [{"type": "owns", "source": ["Person"], "target": ["Plan"]}],
    }
)


class NoWrites:
    """A stand-in graph with settings that fails the test if the loader reads or writes."""

    settings = Settings.from_env({})

    def __getattr__(self, name: str) -> Any:
        raise AssertionError(f"the loader used the database ({name}) before checking the data")


def _loader() -> GraphLoader:
    return GraphLoader(cast(Graph, NoWrites()), progress=False)


def _people(n: int) -> list[EntityRow]:
    return [EntityRow(f"c:p{i}", f"P{i}", ("Person",)) for i in range(n)]


def test_jsonl_attribute_name_that_cannot_be_a_property_is_a_bad_row() -> None:
    good = "".join(f'{{"subject": "A{i}", "relation": "owns", "object": "P{i}"}}\n' for i in range(41))
    text = good + '{"subject": "Z", "relation": "owns", "object": "Q", "attributes": {"bad name": 1}}\n'
    tf = read_triples_text(text, "jsonl", ONTO, "c")
    assert [(b.line, b.reason) for b in tf.bad_rows] == [
        (42, "attribute name 'bad name' is not a valid name: use letters, digits and '_' only")
    ]
    assert tf.bad_summary() == {"attribute": 1}
    assert tf.triples == 41 and len(tf.dataset.entities) == 82, "the bad row adds no entity"


def test_csv_header_column_that_cannot_be_a_property_spoils_the_rows_that_fill_it() -> None:
    text = "subject,relation,object,since,bad col\nA,owns,P,2020,\nB,owns,Q,2021,x\n"
    tf = read_triples_text(text, "csv", ONTO, "c")
    assert [(b.line, b.reason.split(":")[0]) for b in tf.bad_rows] == [
        (3, "attribute name 'bad col' is not a valid name")
    ]
    assert [r.attributes for r in tf.dataset.relationships] == [{"since": "2020"}]


@pytest.mark.parametrize(
    ("attributes", "expected"),
    [
        ({"bad name": 1}, r"entity 'bob': attribute name 'bad name' is not a valid name"),
        ({"nested": {"a": 1}}, r"entity 'bob': attribute 'nested': value \{'a': 1\} is not a scalar"),
        ({"mixed": [1, "a"]}, r"entity 'bob': attribute 'mixed': value \[1, 'a'\] is not a scalar"),
        ({"note": "a\x07"}, r"entity 'bob': attribute 'note' 'a\\x07' holds a control character U\+0007"),
    ],
)
def test_graph_file_lists_attributes_the_loader_would_refuse(
    attributes: dict[str, Any], expected: str
) -> None:
    data = {
        "ontology": {"id": "o", "entity_types": [{"label": "Person"}]},
        "community": {"id": "c"},
        "entities": [{"id": "bob", "label": "Person", "attributes": attributes}],
    }
    with pytest.raises(DatasetError, match=f"f.yaml: 1 problem\\(s\\): {expected}"):
        dataset_from_mapping(data, "f.yaml")


@pytest.mark.parametrize(
    ("dataset", "expected"),
    [
        (
            Dataset(
                ONTO,
                "c",
                _people(5),
                [RelationRow("c:p0", "owns", "c:p1"), RelationRow("c:p1", "owns", "c:p2", {"bad name": 1})],
            ),
            r"attribute of relationship 'c:p1' owns 'c:p2' 'bad name' is not a valid name",
        ),
        (
            Dataset(ONTO, "c", [*_people(3), EntityRow("c:x", "X", ("Person",), attributes={"name": "y"})]),
            r"entity 'c:x' has an attribute 'name', a reserved property; rename it",
        ),
        (
            Dataset(ONTO, "c", [*_people(3), EntityRow("c:x", "X", ("No Label",))]),
            r"entity type label 'No Label' is not a valid name",
        ),
        (
            Dataset(ONTO, "c", _people(3), [RelationRow("c:p0", "owns", "c:p1", {"m": {"a": 1}})]),
            r"relationship 'c:p0' owns 'c:p1' attribute 'm': value \{'a': 1\} is not a scalar",
        ),
        (
            Dataset(ONTO, "c", [*_people(3), EntityRow("c:p0", "again")]),
            r"entity ids must be distinct; repeated: \['c:p0'\]",
        ),
    ],
    ids=["relationship attribute name", "reserved attribute", "label", "nested value", "repeated id"],
)
def test_loader_refuses_bad_names_and_values_before_touching_the_database(
    dataset: Dataset, expected: str
) -> None:
    with pytest.raises(DatasetError, match=expected):
        _loader().load(dataset)


# --- item 3: a community's loads create ids only in its own namespace ------------------------


def test_every_triple_id_is_in_its_own_communitys_namespace_only() -> None:
    parts = ["a", "a:b", "a\\", "\\:", ":", "a\\:b", "b", ":b", "a:b:c", ""]
    for community, name in itertools.product([p for p in parts if p], parts):
        assert id_community(entity_id(community, name)) == community, (community, name)
    assert [id_community(i) for i in ("bob", "victim2\\:Target", "trail\\", "x\\\\:y")] == [
        None,
        None,
        None,
        "x\\",
    ]
    assert id_community(":Target") == "", "an empty community part names no community a load can have"


def test_graph_file_cannot_claim_another_communitys_id() -> None:
    data = {
        "ontology": {"id": "o", "entity_types": [{"label": "Person"}]},
        "community": {"id": "evil"},
        "entities": [{"id": "bob", "label": "Person"}, {"id": "victim2:Target", "label": "Person"}],
    }
    dataset = dataset_from_mapping(data, "evil.yaml")
    with pytest.raises(DatasetError) as caught:
        _loader().load(dataset)
    message = str(caught.value)
    assert message.startswith("entity id 'victim2:Target' is in the namespace of community 'victim2': ")
    assert "'evil:NAME'" in message and "nothing loaded" in message and "'evil:Target'" in message


@pytest.mark.parametrize(
    ("community", "ids", "refused"),
    [
        ("evil", ["bob", "evil:x", "evil:victim2:Target", "victim2\\:Target"], None),
        ("evil", ["evil:x", ":x"], "':x' is in the namespace of community ''"),
        ("evil", ["evil2:x"], "'evil2:x' is in the namespace of community 'evil2'"),
        ("acme:secret", ["acme\\:secret:Plan", "acme:secret:Plan"], "of community 'acme'"),
        ("acme", ["acme:secret:Plan"], None),
        ("a\\b", ["a\\\\b:x"], None),
        ("a\\b", ["a\\b:x"], "of community 'ab'"),
    ],
)
def test_namespace_rule(community: str, ids: list[str], refused: str | None) -> None:
    dataset = Dataset(ONTO, community, [EntityRow(i, i) for i in ids])
    settings = Settings.from_env({})
    if refused is None:
        assert prepare(dataset, settings).foreign == []
        return
    with pytest.raises(DatasetError, match=refused):
        prepare(dataset, settings)
    shared = prepare(dataset, settings, shared=True)
    assert shared.foreign and all(r["foreign"] == (r["id"] in shared.foreign) for r in shared.entities)


def test_a_second_namespace_error_lists_the_others() -> None:
    ids = ["v1:a", "evil:ok", "v2:b", "v3:c", "v4:d", "v5:e", "v6:f", "v7:g"]
    with pytest.raises(
        DatasetError, match=r"'v1:a' .* 'v1' \(and 6 more of other namespaces: 'v2:b', .*'v6:f', \.\.\.\)"
    ):
        prepare(Dataset(ONTO, "evil", [EntityRow(i, i) for i in ids]), Settings.from_env({}))


def test_bundled_graph_files_keep_their_plain_ids() -> None:
    checked = []
    for path in sorted(DEMO_FILE.parent.glob("*.yaml")):
        if "\nentities:" in path.read_text(encoding="utf-8"):
            assert prepare(read_graph_file(path), Settings.from_env({})).foreign == [], path.name
            checked.append(path.stem)
    assert {"bob", "harbour", "orchard", "biomed", "media", "supply"} <= set(checked)


def test_bulk_import_refuses_another_communitys_id(tmp_path: Path) -> None:
    with pytest.raises(DatasetError, match="'victim2:Target' is in the namespace of community 'victim2'"):
        write_import_folder(
            tmp_path, Settings.from_env({}), ONTO, "evil", [EntityRow("victim2:Target", "T")], []
        )
