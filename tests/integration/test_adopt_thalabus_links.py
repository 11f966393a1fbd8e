"""`adopt --thalabus` reads how a Thalabus graph links its ontology, rather than assuming it.

Each test writes the Thalabus-shaped graph of `thalabus_graph.py` with the ontology linked in
another way: other relationship types between the community, its ontology and its type nodes, no
relationship at all (`--ontology ID`), and relation ends stored as relationships from each
RelationshipOntology to EntityOntology nodes instead of properties. Every id starts with
`adopttest_` (the database is shared).
"""

from __future__ import annotations

import contextlib
import io
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
import thalabus_graph

from pathrag_gds.cli import main
from pathrag_gds.graph import Graph

pytestmark = pytest.mark.integration


def _cli(*args: str) -> tuple[int, str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(list(args))
    return code, out.getvalue()


@pytest.fixture()
def thalabus(graph: Graph) -> Iterator[Any]:
    """`build(**options) -> (prefix, community)`: a Thalabus graph of this test's own, removed after."""
    made: list[tuple[str, str]] = []

    def build(**options: Any) -> tuple[str, str]:
        prefix = f"adopttest_links_{uuid.uuid4().hex[:10]}"
        made.append((prefix, f"{prefix}_paths"))
        thalabus_graph.build(graph, prefix, **options)
        return made[-1]

    try:
        yield build
    finally:
        for prefix, community in made:
            if graph.read("adopt_state", community_id=community):
                _cli("adopt", "--community", community, "--remove")
            thalabus_graph.drop(graph, prefix)


def test_other_link_types_and_ends_as_relationships_are_read_from_the_graph(
    thalabus: Any, graph: Graph
) -> None:
    prefix, community = thalabus(
        ontology_rel="USES_ONTOLOGY", type_rel="HAS_TYPE", end_rels=("HAS_SOURCE", "HAS_TARGET")
    )
    before = thalabus_graph.dump(graph, prefix)
    adopt = ("adopt", "--community", community, "--thalabus", prefix)
    code, out = _cli(*adopt, "--dry-run")
    assert code == 0, out
    assert (
        "read through (:Community)-[:USES_ONTOLOGY]->(:Ontology), then "
        "(:Ontology)-[:HAS_TYPE]-(:EntityOntology|RelationshipOntology): 4 entity type(s), "
        "6 relation type(s)" in out
    ), out
    assert (
        "relation ends from (:RelationshipOntology)-[:HAS_SOURCE]->(source) and -[:HAS_TARGET]->(target), "
        "told by their names" in out
    ), out
    assert "involve: event -> animal/person" in out and "owns: person -> animal" in out, out
    assert "not mirrored (not in your graph's ontology): SIMILAR_TO 1" in out, out  # the whitelist holds

    code, out = _cli(*adopt)
    assert code == 0, out
    (onto,) = graph.read("ontology_read", ontology_id=f"adopted:{community}")
    rts = {r["type"]: r for r in onto["relation_types"]}
    assert (rts["involve"]["source_labels"], rts["involve"]["target_labels"]) == (
        ["event"],
        ["animal", "person"],
    )  # `person` is declared, not observed: read from the HAS_TARGET relationships
    assert rts["owns"]["description"] == "A person owns an animal."
    code, out = _cli("adopt", "--community", community, "--remove")
    assert code == 0, out
    assert thalabus_graph.dump(graph, prefix) == before

    for args, says in (
        (("--ontology-rel", "BASED_ON"), "it is joined by -[:USES_ONTOLOGY]-> (1); check --ontology-rel"),
        (("--type-rel", "CONTAINS"), "they are joined by HAS_TYPE (10); check --type-rel"),
        (
            ("--source-rel", "SOURCE", "--target-rel", "HAS_TARGET"),
            "joined by -[:HAS_SOURCE]-> (6), -[:HAS_TARGET]-> (7); check --source-rel",
        ),
        (("--source-rel", "HAS_SOURCE"), "--source-rel and --target-rel go together"),
    ):
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            assert main([*adopt, *args, "--dry-run"]) == 2
        assert says in err.getvalue(), err.getvalue()
    assert thalabus_graph.dump(graph, prefix) == before


def test_an_ontology_named_by_option_and_ends_told_by_the_observed_relationships(
    thalabus: Any, graph: Graph, capsys: pytest.CaptureFixture[str]
) -> None:
    prefix, community = thalabus(ontology_rel=None, end_rels=("LEFT", "RIGHT"))
    adopt = ("adopt", "--community", community, "--thalabus", prefix)
    code, out = _cli(*adopt, "--dry-run")
    assert code == 0 and "no ontology of yours found for it: inferred from the graph" in out, out
    assert "SIMILAR_TO" in out  # no whitelist without the graph's ontology

    code, out = _cli(*adopt, "--ontology", f"{prefix}_onto", "--dry-run")
    assert code == 0, out
    assert "read through --ontology, then (:Ontology)-[:CONTAINS]-" in out, out
    assert (
        "relation ends from (:RelationshipOntology)-[:LEFT]->(source) and -[:RIGHT]->(target), told by "
        "the ends observed on the relationships" in out
    ), out
    assert "involve: event -> animal/person" in out and "not mirrored (not in your graph's ontology)" in out

    code, out = _cli(*adopt, "--ontology", f"{prefix}_onto", "--source-rel", "RIGHT", "--target-rel", "LEFT")
    assert code == 0 and "as --source-rel / --target-rel name them" in out, out  # the user's word counts
    assert "involve: animal/person -> event" in out, out

    assert main([*adopt, "--ontology", f"{prefix}_nope", "--dry-run"]) == 2
    assert f"no (:Ontology {{id: '{prefix}_nope'}}) in the graph: check --ontology" in capsys.readouterr().err
    assert main(["adopt", "--community", community, "--label", "Entity", "--type-rel", "X"]) == 2
    assert "--type-rel go(es) with --thalabus COMMUNITY" in capsys.readouterr().err


def test_ends_that_the_graph_does_not_tell_apart_fall_back_to_the_observed_ones(
    thalabus: Any, graph: Graph
) -> None:
    prefix, community = thalabus(end_rels=("LINK", "LINK"))
    code, out = _cli("adopt", "--community", community, "--thalabus", prefix, "--dry-run")
    assert code == 0, out
    assert (
        "relation ends: the links -[:LINK]-> (13) between RelationshipOntology and EntityOntology do not "
        "say which end is the source: the ends observed on the relationships are used" in out
    ), out
    assert "involve: event -> animal," in out, out  # observed: the event involves Bob only
