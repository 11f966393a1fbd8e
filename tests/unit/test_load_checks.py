"""Loads checked whole before anything is written (issue 54, item 5), without a database."""

from __future__ import annotations

from typing import Any, cast

import pytest

from pathrag_gds.config import Settings
from pathrag_gds.datasets.demo import dataset_from_mapping
from pathrag_gds.datasets.loader import Dataset, DatasetError, EntityRow, GraphLoader, RelationRow
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
