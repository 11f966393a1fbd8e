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


def test_a_thalabus_node_is_read_from_its_consolidated_values_and_its_copy_gets_prefixed_labels() -> None:
    from pathrag_gds.adopt.reader import NodeReader

    reader = NodeReader(
        "paths", not_types={"Entity"}, key="id", name_property="name", description_property="description",
        skip={"id", "embedding"}, suffix="_consolidated", relation_types=frozenset({"owns"}),
    )  # fmt: skip
    reader.node({"element_id": "4:x:1", "labels": ["Entity", "person"], "props": {
        "id": "jane", "name": "jane_raw", "name_consolidated": "Jane Holt",
        "description_consolidated": "A teacher.", "role_consolidated": "owner", "updated_at": 1,
    }})  # fmt: skip
    reader.node(
        {"element_id": "4:x:2", "labels": ["Entity", "animal"], "props": {"id": "bob", "name": "Bob"}}
    )
    jane, bob = reader.entities
    assert (jane.id, jane.name, jane.description) == ("paths:jane", "Jane Holt", "A teacher.")
    assert jane.attributes == {"role": "owner"}  # no updated_at, no raw name
    assert jane.labels == ("Adopted__person",) and reader.labels["4:x:1"] == ("person",)
    assert (bob.name, bob.attributes) == ("Bob", {})  # no name_consolidated: the plain name
    for rel_type, props in (("owns", {"since_consolidated": "2019", "score": 1}), ("SIMILAR_TO", {})):
        reader.relationship({"source": "4:x:1", "type": rel_type, "target": "4:x:2", "props": props}, set())
    assert [(r.type, r.attributes) for r in reader.rels] == [("owns", {"since": "2019"})]
    assert reader.undeclared == {"SIMILAR_TO": 1}


def test_the_graphs_declared_ontology_gives_descriptions_ends_and_phrases_where_it_has_them() -> None:
    from pathrag_gds.adopt.thalabus import Declared, with_declared
    from pathrag_gds.ontology import EntityType, Ontology, RelationType

    inferred = Ontology(
        "adopted:x",
        (EntityType("place", "place: 2 node(s)"),),
        (
            RelationType("lives_in", "lives in", "", "inferred", ("person",), ("place",)),
            RelationType("involve", "involve", "", "inferred", ("event",), ("animal",)),
        ),
    )
    declared = Declared(
        ("o",),
        {"person": "A person."},
        {"involve": {"description": "Who an event involves.", "source": ["event"],
                     "target": ["animal", "person"], "phrase": "involves",
                     "inverse_phrase": "is involved in"}},
    )  # fmt: skip
    onto = with_declared(inferred, declared)
    assert [(e.label, e.description) for e in onto.entity_types] == [
        ("person", "A person."),
        ("place", "place: 2 node(s)"),
    ]
    lives, involve = onto.relation_types
    assert (lives.phrase, lives.description, lives.target_labels) == ("lives in", "inferred", ("place",))
    assert (involve.phrase, involve.inverse_phrase, involve.description) == (
        "involves",
        "is involved in",
        "Who an event involves.",
    )
    assert involve.target_labels == ("animal", "person")


def test_a_relation_types_ends_are_told_apart_by_option_name_direction_or_the_observed_ends() -> None:
    from pathrag_gds.adopt.thalabus_ontology import Declared, OntologyLinks, resolve_ends
    from pathrag_gds.errors import InvalidInput
    from pathrag_gds.ontology import Ontology, RelationType

    def declared(*ends: tuple[str, bool, str]) -> Declared:
        links = [{"type": t, "out": out, "label": label} for t, out, label in ends]
        d = {"description": "", "source": [], "target": [], "phrase": None, "inverse_phrase": None}
        return Declared(("o",), {}, {"owns": {**d, "ends": links}})

    observed = Ontology("adopted:x", (), (RelationType("owns", "owns", "", "", ("person",), ("animal",)),))
    none = OntologyLinks()

    def ends(d: Declared, links: OntologyLinks = none) -> tuple[list[str], list[str], str]:
        got = resolve_ends(d, observed, links)
        rt = got.relation_types["owns"]
        return rt["source"], rt["target"], got.read_through[-1]

    by_name = declared(("TO_TYPE", True, "animal"), ("FROM_TYPE", True, "person"))
    assert ends(by_name)[:2] == (["person"], ["animal"]) and "told by their names" in ends(by_name)[2]
    one_type = declared(("LINK", False, "person"), ("LINK", True, "animal"))  # (person)->(owns)->(animal)
    assert ends(one_type)[:2] == (["person"], ["animal"]) and "their direction" in ends(one_type)[2]
    unnamed = declared(("B", True, "animal"), ("A", True, "person"))
    assert ends(unnamed)[:2] == (["person"], ["animal"]) and "observed" in ends(unnamed)[2]
    assert ends(unnamed, OntologyLinks(source_rel="B", target_rel="A"))[:2] == (["animal"], ["person"])
    same = declared(("A", True, "person"), ("A", True, "animal"))
    assert ends(same)[:2] == ([], []) and "do not say which end is the source" in ends(same)[2]
    found = r"no C relationship .* joined by -\[:A\]-> \(1\), -\[:B\]-> \(1\)"
    with pytest.raises(InvalidInput, match=found):
        resolve_ends(unnamed, observed, OntologyLinks(source_rel="C", target_rel="A"))
    with pytest.raises(InvalidInput, match="go together"):
        OntologyLinks(source_rel="A").check()
