"""Communities as data boundaries against a live Neo4j (issue 26, items 1, 2, 9, 15).

Ids that cannot collide, loads that leave other communities' entities alone, searches that stay in
their community, bad lines skipped, and the whole search on a graph with non-default names. Each
test writes only uniquely named communities and deletes them; the demo graph is read, never changed.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from pathrag_gds.baselines import PerNodeRag, VarLengthRag
from pathrag_gds.config import Settings
from pathrag_gds.datasets.loader import (
    ChunkRow,
    Dataset,
    DatasetError,
    EntityRow,
    GraphLoader,
    RelationRow,
    community_counts,
    delete_community,
)
from pathrag_gds.datasets.triples import read_triples_text
from pathrag_gds.encoders import get_embedder
from pathrag_gds.graph import Graph
from pathrag_gds.indexing import embed_entities, ensure_vector_index
from pathrag_gds.ontology import Ontology
from pathrag_gds.scoring import get_scorer
from pathrag_gds.service import PathRag

pytestmark = pytest.mark.integration


def _uid() -> str:
    return uuid.uuid4().hex[:10]


@pytest.fixture
def cleanup(graph: Graph) -> Iterator[list[tuple[Graph, str]]]:
    """Communities to delete (with their ontology) after the test: append (graph, community id)."""
    made: list[tuple[Graph, str]] = []
    yield made
    for g, cid in reversed(made):
        delete_community(g, cid, drop_ontology=True)
        assert community_counts(g, cid) is None


def _ontology(oid: str) -> Ontology:
    return Ontology.from_mapping(
        {
            "id": oid,
            "entity_types": [{"label": "Animal"}, {"label": "Place"}, {"label": "Person"}],
            "relationship_types": [
                {
                    "type": "lives_in",
                    "phrase": "lives in",
                    "inverse_phrase": "is home of",
                    "source": ["Animal"],
                    "target": ["Place"],
                },
                {
                    "type": "guards",
                    "phrase": "guards",
                    "inverse_phrase": "is guarded by",
                    "source": ["Animal"],
                    "target": ["Place"],
                },
                {
                    "type": "owns",
                    "phrase": "owns",
                    "inverse_phrase": "is owned by",
                    "source": ["Person"],
                    "target": ["Place"],
                },
                {
                    "type": "works_at",
                    "phrase": "works at",
                    "inverse_phrase": "employs",
                    "source": ["Person"],
                    "target": ["Place"],
                },
                {
                    "type": "located_in",
                    "phrase": "is located in",
                    "inverse_phrase": "is home to",
                    "source": ["Place"],
                    "target": ["Place"],
                },
            ],
        }
    )


def _entity(graph: Graph, eid: str) -> dict[str, Any] | None:
    s = graph.settings
    rows = graph.read(
        "train_entities", ids=[eid], entity_label=s.entity_label, embedding_key=s.embedding_property
    )
    return rows[0] if rows else None


# --- item 1: ids ------------------------------------------------------------------------------


def test_community_and_name_that_concatenate_alike_are_two_nodes(
    graph: Graph, cleanup: list[tuple[Graph, str]]
) -> None:
    """The issue's collision: `acme` + `secret:Vault Plan` against `acme:secret` + `Vault Plan`."""
    base = f"test_iso_{_uid()}"
    onto = _ontology(f"{base}_onto")
    loader = GraphLoader(graph, progress=False)
    first = read_triples_text("Alice|owns|secret:Vault Plan\n", "metaqa", onto, base).dataset
    second = read_triples_text("Bob|owns|Vault Plan\n", "metaqa", onto, f"{base}:secret").dataset
    cleanup.extend([(graph, base), (graph, f"{base}:secret")])
    loader.load(first)
    report = loader.load(second)

    assert (report.entities_created, report.entities_existing, report.refused) == (2, 0, 0)
    one = _entity(graph, f"{base}:secret:Vault Plan")
    two = _entity(graph, f"{base}\\:secret:Vault Plan")
    assert one is not None and two is not None
    assert one["props"]["name"] == "secret:Vault Plan"
    assert two["props"]["name"] == "Vault Plan"
    for cid in (base, f"{base}:secret"):
        counts = community_counts(graph, cid)
        assert counts is not None and counts["entities"] == 2 and counts["relationships"] == {"owns": 1}


# --- item 2: loads leave other communities' entities alone --------------------------------------


def test_graph_file_for_another_community_leaves_the_demos_jane_unchanged(
    graph: Graph,
    demo_community: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    cleanup: list[tuple[Graph, str]],
) -> None:
    from pathrag_gds.cli import main

    evil = f"evil_{_uid()}"
    minion = f"{evil}_minion"
    before = _entity(graph, "jane")
    chunks_before = graph.read(
        "provenance", ids=["jane"], per_entity=50, community=None, as_of=None, pinned=[]
    )
    assert before is not None and chunks_before
    demo_chunk = chunks_before[0]["chunks"][0]["id"]  # a chunk of the demo's story document
    data = {
        "ontology": {
            "id": f"{evil}_onto",
            "entity_types": [{"label": "Person"}],
            "relationship_types": [{"type": "knows", "source": ["Person"], "target": ["Person"]}],
        },
        "community": {"id": evil},
        "entities": [
            {"id": "jane", "label": "Person", "name": "EVIL JANE", "description": "Evil."},
            {"id": minion, "label": "Person", "name": "Minion"},
        ],
        "relationships": [{"source": minion, "type": "knows", "target": "jane"}],
        "chunks": [
            {"id": demo_chunk, "text": "EVIL", "mentions": [minion]},
            {"id": f"{evil}_c", "text": "Jane is evil.", "mentions": ["jane", minion]},
        ],
    }
    path = tmp_path / "evil.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    cleanup.append((graph, evil))

    assert main(["load", "graph", str(path), "--no-index"]) == 1, "refusals exit with status 1"
    captured = capsys.readouterr()
    assert "REFUSED" in captured.err and "'jane'" in captured.err and repr(demo_chunk) in captured.err
    assert "1 entities, 1 relationships, 1 chunks, 1 mentions" in captured.err
    assert "--shared" in captured.err

    assert _entity(graph, "jane") == before, "Jane's name, labels and properties are unchanged"
    assert (
        graph.read("provenance", ids=["jane"], per_entity=50, community=None, as_of=None, pinned=[])
        == chunks_before
    )
    neighbours = graph.read(
        "baseline_node_neighbours",
        id="jane",
        community=None,
        pinned=[],
        probe=[],
        entity_label=graph.settings.entity_label,
        embedding_key=graph.settings.embedding_property,
    )
    assert minion not in {r["id"] for r in neighbours}, "no relationship was tied to Jane"
    counts = community_counts(graph, evil)
    assert counts is not None and counts["entities"] == 1, "the evil community does not hold Jane"
    demo = community_counts(graph, demo_community)
    assert demo is not None and "knows" not in demo["relationships"]


def test_shared_load_changes_and_shares_only_when_asked(
    graph: Graph, cleanup: list[tuple[Graph, str]]
) -> None:
    base = f"test_iso_{_uid()}"
    owner, other = f"{base}_owner", f"{base}_other"
    onto = _ontology(f"{base}_onto")
    x, cat = f"{base}_x", f"{other}:cat"  # a plain id (as in graph files), and one of `other`'s
    cleanup.extend([(graph, owner), (graph, other)])
    loader = GraphLoader(graph, progress=False)
    loader.load(Dataset(onto, owner, [EntityRow(x, "X", ("Place",), "The owner's.")]))
    mine = Dataset(
        onto,
        other,
        [EntityRow(x, "X!", ("Place",), "Changed."), EntityRow(cat, "Cat", ("Animal",))],
        [RelationRow(cat, "lives_in", x)],
        [ChunkRow(f"{base}:c", "The cat lives in X.", mentions=(x, cat))],
    )

    refused = loader.load(mine)
    assert (refused.entities_refused, refused.relationships_refused, refused.mentions_refused) == (1, 1, 1)
    assert refused.refused_ids == [x]
    entity = _entity(graph, x)
    assert entity is not None and entity["props"]["name"] == "X"
    counts = community_counts(graph, other)
    assert counts is not None and counts["entities"] == 1 and counts["mentions"] == 1

    shared = loader.load(mine, shared=True)
    assert shared.refused == 0 and shared.entities_changed == 1
    entity = _entity(graph, x)
    assert entity is not None and entity["props"]["name"] == "X!"
    counts = community_counts(graph, other)
    assert counts is not None and counts["entities"] == 2 and counts["relationships"] == {"lives_in": 1}


def test_load_cannot_change_an_ontology_other_communities_use(
    graph: Graph, demo_community: str, cleanup: list[tuple[Graph, str]]
) -> None:
    from pathrag_gds.datasets.demo import DEMO_FILE
    from pathrag_gds.datasets.ontology_files import read_yaml

    def stored(oid: str) -> list[Any]:
        rows = graph.read("ontology_read", ontology_id=oid)
        return sorted(repr(sorted(t.items())) for r in rows for t in r["entity_types"] + r["relation_types"])

    mapping = read_yaml(DEMO_FILE)["ontology"]
    demo_onto = Ontology.from_mapping(mapping)
    before = stored(demo_onto.id)
    cid = f"test_iso_{_uid()}"
    cleanup.append((graph, cid))
    altered = dict(mapping, relationship_types=[dict(mapping["relationship_types"][0], phrase="EVIL")])
    loader = GraphLoader(graph, progress=False)
    with pytest.raises(DatasetError, match=f"used by community '{demo_community}'.*--shared"):
        loader.load(Dataset(Ontology.from_mapping(altered), cid, [EntityRow(f"{cid}:x", "X")]))
    assert stored(demo_onto.id) == before
    assert community_counts(graph, cid) is None, "nothing loaded"

    # reusing it unchanged is fine (and deleting the community keeps the demo's ontology)
    report = loader.load(Dataset(demo_onto, cid, [EntityRow(f"{cid}:x", "X")]))
    assert report.entities_created == 1 and stored(demo_onto.id) == before


# --- item 9: bad lines ------------------------------------------------------------------------


def test_skip_bad_loads_the_lines_around_bad_bytes_and_characters(
    graph: Graph, tmp_path: Path, capsys: pytest.CaptureFixture[str], cleanup: list[tuple[Graph, str]]
) -> None:
    from pathrag_gds.cli import main

    cid = f"test_iso_{_uid()}"
    f = tmp_path / "kb.txt"
    f.write_bytes(
        b"Heat|directed_by|Michael Mann\n"
        b"Heat|directed_by|Mich\xffel\n"
        b"Heat\x00|release_year|1995\n"
        b"Ronin|directed_by|John Frankenheimer\n"
    )
    cleanup.append((graph, cid))
    assert main(["load", "triples", str(f), "--community", cid, "--skip-bad"]) == 1
    err = capsys.readouterr().err
    assert f"{f}:2: invalid UTF-8: byte 0xFF" in err
    assert f"{f}:3: bad character in subject: control character U+0000" in err
    counts = community_counts(graph, cid)
    assert counts is not None
    assert counts["entities"] == 4 and counts["relationships"] == {"directed_by": 2}
    assert _entity(graph, f"{cid}:Heat") is not None
    assert _entity(graph, f"{cid}:Heat\x00") is None


# --- item 1 (search): confinement -------------------------------------------------------------


def _index(graph: Graph, settings: Settings, *communities: str) -> None:
    encoder = get_embedder(settings)
    for cid in communities:
        embed_entities(graph, encoder, community=cid, progress=False)
    ensure_vector_index(graph, encoder.dim, progress=False)


@pytest.fixture
def linked_communities(
    graph: Graph, settings: Settings, cleanup: list[tuple[Graph, str]]
) -> tuple[str, str, str]:
    """Community A (Tom lives in the Red Barn) and B (Rex, linked to A's barn on purpose)."""
    base = f"test_iso_{_uid()}"
    a, b = f"{base}_a", f"{base}_b"
    onto = _ontology(f"{base}_onto")
    cleanup.extend([(graph, b), (graph, a)])
    loader = GraphLoader(graph, progress=False)
    loader.load(
        Dataset(
            onto,
            a,
            [
                EntityRow(f"{a}:tom", "Tom", ("Animal",), "A grey cat."),
                EntityRow(f"{a}:barn", "Red Barn", ("Place",), "An old red barn on the farm."),
            ],
            [RelationRow(f"{a}:tom", "lives_in", f"{a}:barn")],
        )
    )
    rex = f"{b}:rex"
    report = loader.load(
        Dataset(
            onto,
            b,
            [EntityRow(rex, "Rex", ("Animal",), "A big guard dog.")],
            [RelationRow(rex, "guards", f"{a}:barn")],
        ),
        shared=True,
    )
    assert report.relationships_created == 1, "the cross-community link exists"
    _index(graph, settings, a, b)
    return a, b, rex


QUESTION = "Which dog guards the barn where Tom lives?"


@pytest.mark.parametrize("engine", [PathRag, PerNodeRag, VarLengthRag])
def test_search_stays_in_its_community_unless_cross_community(
    graph: Graph, settings: Settings, linked_communities: tuple[str, str, str], engine: type[PathRag]
) -> None:
    a, _, rex = linked_communities
    scorer = get_scorer(settings)
    confined = engine(settings, graph=graph, scorer=scorer).pathrag(
        QUESTION, community_id=a, top_n=20, max_depth=3
    )
    assert confined.paths, "community A answers something"
    seen = {nid for p in confined.paths for nid in p.node_ids}
    assert all(nid.startswith(f"{a}:") for nid in seen), f"entities of another community: {seen}"

    crossing = settings.model_copy(update={"cross_community": True})
    free = engine(crossing, graph=graph, scorer=scorer).pathrag(
        QUESTION, community_id=a, top_n=20, max_depth=3
    )
    assert rex in {nid for p in free.paths for nid in p.node_ids}, "the setting lets the walk cross"


# --- item 15: a graph with other label and property names --------------------------------------


def test_whole_search_on_a_graph_with_other_names(
    graph: Graph, settings: Settings, cleanup: list[tuple[Graph, str]]
) -> None:
    renamed = settings.model_copy(
        update={
            "entity_label": "PathragTestThing",
            "id_property": "uid",
            "name_property": "title",
            "description_property": "summary",
            "embedding_property": "vec",
            "community_label": "PathragTestGroup",
            "community_rel": "PATHRAG_TEST_HOLDS",
            "vector_index": "pathrag_test_thing_vec",
        }
    )
    g = Graph(graph.driver, renamed)
    cid = f"test_iso_{_uid()}"
    cleanup.append((g, cid))
    anna, bakery, village = f"{cid}:anna", f"{cid}:bakery", f"{cid}:village"
    onto = _ontology(f"{cid}_onto")
    GraphLoader(g, progress=False).load(
        Dataset(
            onto,
            cid,
            [
                EntityRow(anna, "Anna", ("Person",), "A baker who gets up before dawn."),
                EntityRow(bakery, "Sunrise Bakery", ("Place",), "A bakery that sells bread and buns."),
                EntityRow(village, "Elmsworth", ("Place",), "A small village by the river."),
            ],
            [RelationRow(anna, "works_at", bakery), RelationRow(bakery, "located_in", village)],
            [ChunkRow(f"{cid}:c1", "Anna bakes bread at the Sunrise Bakery in Elmsworth.", mentions=(anna,))],
        )
    )
    try:
        _index(g, renamed, cid)
        stored = _entity(g, village)
        assert stored is not None and stored["props"]["title"] == "Elmsworth" and "id" not in stored["props"]

        rag = PathRag(renamed, graph=g, scorer=get_scorer(renamed))
        r = rag.pathrag("In which village is the bakery where Anna works?", community_id=cid, top_n=10)
        chains = [p.node_ids for p in r.paths]
        assert [anna, bakery, village] in chains or [village, bakery, anna] in chains, chains
        two_hop = next(p for p in r.paths if p.depth == 2 and village in p.node_ids)
        assert {n.name for n in two_hop.nodes} == {"Anna", "Sunrise Bakery", "Elmsworth"}
        assert any(s.entity_id == anna for p in r.paths for s in p.sources), "provenance uses the id setting"
    finally:
        g.driver.execute_query("DROP INDEX pathrag_test_thing_vec IF EXISTS", database_=g.database)
