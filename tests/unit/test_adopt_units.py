"""`adopt` without a database: phrases from type names, the ontology from statistics, property values."""

from __future__ import annotations

from collections import Counter

import pytest

from pathrag_gds.adopt.ontology import RelationStats, TypeStats, derive_phrases, infer_ontology
from pathrag_gds.adopt.values import attributes as _attributes
from pathrag_gds.adopt.values import node_name as _name
from pathrag_gds.adopt.values import property_value as _value


@pytest.mark.parametrize(
    ("rel_type", "phrases"),
    [
        ("LOCATED_IN", ("is located in", "")),
        ("BORN_IN", ("was born in", "")),
        ("DIRECTED_BY", ("was directed by", "directed")),
        ("WRITTEN_BY", ("was written by", "")),
        ("HAS_CAPITAL", ("has capital", "is capital of")),
        ("PART_OF", ("is part of", "has part")),
        ("ACTED_IN", ("acted in", "")),
        ("KNOWS", ("knows", "")),
        ("directed_by", ("was directed by", "directed")),
        ("IS_A", ("is a", "")),
    ],
)
def test_phrases_come_from_the_type_name_and_an_unsure_inverse_is_left_empty(
    rel_type: str, phrases: tuple[str, str]
) -> None:
    assert derive_phrases(rel_type) == phrases


def test_the_ontology_keeps_observed_end_labels_by_count_and_describes_with_samples() -> None:
    rel = RelationStats(
        count=3, sources=Counter({"City": 1, "Organization": 2}), targets=Counter({"City": 3})
    )
    rel.samples.append(("Lumen Labs", "Tarvik"))
    onto = infer_ontology("adopted:x", {"City": TypeStats(2, ["Tarvik", "Sorrel"])}, {"LOCATED_IN": rel})
    (rt,) = onto.relation_types
    assert (rt.source_labels, rt.target_labels) == (("Organization", "City"), ("City",))
    assert rt.description == (
        "LOCATED_IN (Organization/City -> City): 3 relationship(s) in the adopted graph, "
        "e.g. Lumen Labs is located in Tarvik."
    )
    assert onto.entity_types[0].description == "City: 2 node(s) in the adopted graph, e.g. Tarvik, Sorrel."


def test_property_values_keep_scalars_and_drop_vectors_maps_and_builder_internals() -> None:
    assert _value([0.1] * 16) is None and _value([0.1, 0.2]) == [0.1, 0.2]
    assert _value({"a": 1}) is None and _value([1, "a"]) is None and _value(float("nan")) is None
    props = {"name": "A", "__tmp_internal_id": "x", "bad key": 1, "year": 2015, "emb": [0.0] * 384}
    assert _attributes(props, {"name"}) == {"year": 2015}
    assert _name({"title": "Glass Harbour"}, "name", "4:x:1") == "Glass Harbour"
    assert _name({}, "name", "4:x:1") == "4:x:1"


def test_text_the_loaders_would_refuse_is_cleaned_not_refused() -> None:
    assert _name({"name": "Lumen\nLabs\x00"}, "name", "k") == "Lumen Labs"
    assert _value("two\nlines\x07") == "two\nlines"
