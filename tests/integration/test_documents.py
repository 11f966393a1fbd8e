"""Documents against a live Neo4j: load, unchanged reload, new version, as_of, removal, bad input.

Each test writes only its own communities (random ids) and deletes them, documents included; the
demo graph (with its story document) is loaded but never changed.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from pathrag_gds.config import Settings
from pathrag_gds.datasets.loader import (
    Dataset,
    DatasetError,
    EntityRow,
    GraphLoader,
    RelationRow,
    community_counts,
    delete_community,
)
from pathrag_gds.documents.chunking import Chunker
from pathrag_gds.documents.store import DocumentLoader, document_counts
from pathrag_gds.encoders import get_embedder
from pathrag_gds.graph import Graph
from pathrag_gds.indexing import embed_entities, ensure_vector_index
from pathrag_gds.ontology import Ontology
from pathrag_gds.provenance import read_sources
from pathrag_gds.service import PathRag

pytestmark = pytest.mark.integration

V1 = """# Farm diary

## Spring

Tom sleeps in the Red Barn every night.

## Summer

The grey cat hunts mice behind the barn at dusk.
"""
V2 = V1.replace(
    "Tom sleeps in the Red Barn every night.", "Tom moved out of the Red Barn; he sleeps in the hay loft."
)


class WriteLog(Graph):
    """The real gateway, noting the name of every write it runs."""

    writes: list[str]

    def write(self, name: str, counter: Any = None, extra: Any = None, **params: Any) -> list[dict[str, Any]]:
        self.writes.append(name)
        return super().write(name, counter, extra, **params)

    def schema_command(self, name: str, extra: Any = None, **params: Any) -> None:
        self.writes.append(name)
        super().schema_command(name, extra, **params)


def _community(graph: Graph, cid: str) -> tuple[str, str]:
    onto = Ontology.from_mapping(
        {
            "id": f"{cid}_onto",
            "entity_types": [{"label": "Animal"}, {"label": "Place"}],
            "relationship_types": [
                {
                    "type": "lives_in",
                    "phrase": "lives in",
                    "inverse_phrase": "is home of",
                    "source": ["Animal"],
                    "target": ["Place"],
                }
            ],
        }
    )
    tom, barn = f"{cid}:tom", f"{cid}:barn"
    GraphLoader(graph, progress=False).load(
        Dataset(
            onto,
            cid,
            [
                EntityRow(tom, "Tom", ("Animal",), "A farm animal.", {"aliases": ["the grey cat"]}),
                EntityRow(barn, "Red Barn", ("Place",), "A building on a farm."),
            ],
            [RelationRow(tom, "lives_in", barn)],
        )
    )
    return tom, barn


@pytest.fixture
def farm(graph: Graph, settings: Settings, tmp_path: Path) -> Iterator[tuple[WriteLog, str, str, str]]:
    """A community (Tom, Red Barn) and a logging gateway; deleted with its documents afterwards."""
    cid = f"test_docs_{uuid.uuid4().hex[:10]}"
    g = WriteLog(graph.driver, settings)
    g.writes = []
    tom, barn = _community(g, cid)
    yield g, cid, tom, barn
    delete_community(graph, cid, drop_ontology=True)
    assert community_counts(graph, cid) is None and document_counts(graph, cid)["documents"] == 0


def _loader(graph: Graph, settings: Settings, embed: bool = False) -> DocumentLoader:
    return DocumentLoader(
        graph,
        Chunker.from_settings(settings),
        embedder=get_embedder(settings) if embed else None,
        progress=False,
    )


def _texts(graph: Graph, eid: str, cid: str, as_of: datetime | None = None) -> list[str]:
    return [c.text for c in read_sources(graph, [eid], community=cid, as_of=as_of).get(eid, [])]


def test_versions_load_reuse_close_and_read_as_of(
    farm: tuple[WriteLog, str, str, str], settings: Settings, tmp_path: Path
) -> None:
    g, cid, tom, barn = farm
    path = tmp_path / "farm.md"
    path.write_text(V1, encoding="utf-8")
    loader = _loader(g, settings)

    first = loader.load([path], cid)
    assert (first.new, first.changed, first.unchanged) == (1, 0, 0)
    counts1 = document_counts(g, cid)
    # sections: Farm diary, Spring, Summer; one chunk each of Spring and Summer
    assert counts1 == {
        "documents": 1,
        "removed": 0,
        "sections": 3,
        "chunks": 2,
        "open": 5,
        "closed": 0,
        "mentions": 3,
    }
    assert _texts(g, tom, cid) == [
        "Tom sleeps in the Red Barn every night.",
        "The grey cat hunts mice behind the barn at dusk.",
    ], "alias 'the grey cat'"
    source = read_sources(g, [barn], community=cid, as_of=None)[barn][0]
    assert (source.document_key, source.document_title, source.headings) == (
        "farm",
        "Farm diary",
        ["Farm diary", "Spring"],
    )
    assert source.char_range is not None and V1[source.char_range[0] : source.char_range[1]] == source.text
    assert source.source == "farm", "the document key, not the server's path of the file read"

    g.writes.clear()
    again = loader.load([path], cid)
    assert (again.new, again.changed, again.unchanged) == (0, 0, 1)
    assert g.writes == [], "an unchanged document writes nothing"
    assert document_counts(g, cid) == counts1

    between = datetime.now(UTC)
    path.write_text(V2, encoding="utf-8")
    second = loader.load([path], cid)
    assert (second.new, second.changed) == (0, 1)
    assert (second.chunks, second.chunks_created) == (2, 1), "the Summer chunk is reused"
    # closed: the changed Spring chunk, and the ranges that moved (Farm diary, Spring, Summer, its chunk)
    assert second.parts_closed == 5 and second.parts_opened == 5
    assert document_counts(g, cid) == {
        "documents": 1,
        "removed": 0,
        "sections": 3,
        "chunks": 3,
        "open": 5,
        "closed": 5,
        "mentions": 5,
    }
    assert _texts(g, barn, cid) == ["Tom moved out of the Red Barn; he sleeps in the hay loft."]
    assert _texts(g, barn, cid, as_of=between) == ["Tom sleeps in the Red Barn every night."]

    before_removal = datetime.now(UTC)
    removed = loader.remove(["farm"], cid)
    assert (removed.removed, removed.parts_closed) == (1, 5)
    assert _texts(g, tom, cid) == [], "a removed document leaves retrieval"
    assert _texts(g, barn, cid, as_of=before_removal) == [
        "Tom moved out of the Red Barn; he sleeps in the hay loft."
    ]
    assert document_counts(g, cid) | {"open": 0} == document_counts(g, cid)
    assert document_counts(g, cid)["removed"] == 1 and document_counts(g, cid)["chunks"] == 3

    back = loader.load([path], cid)
    assert (back.new, back.parts_opened, back.chunks_created) == (1, 5, 0), "loading it again reopens it"


def test_bad_input_is_refused_and_writes_nothing(
    farm: tuple[WriteLog, str, str, str], graph: Graph, settings: Settings, tmp_path: Path
) -> None:
    g, cid, _, _ = farm
    good = tmp_path / "good.md"
    good.write_text(V1, encoding="utf-8")
    binary = tmp_path / "scan.md"
    binary.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00")
    empty = tmp_path / "empty.txt"
    empty.write_text("\n\n", encoding="utf-8")
    other = f"{cid}_other"
    _community(g, other)
    try:
        taken = tmp_path / "taken.md"
        taken.write_text("# Theirs\n\nA note.\n", encoding="utf-8")
        _loader(g, settings).load([taken], other)
        loader = _loader(g, settings)
        g.writes.clear()
        cases = [
            ([good, binary], "binary file"),
            ([good, empty], "empty"),
            ([good, taken], "another community"),
        ]
        for files, needle in cases:
            with pytest.raises(DatasetError, match=needle):
                loader.load(files, cid)
        with pytest.raises(DatasetError, match="no community"):
            loader.load([good], f"{cid}_nobody")
        with pytest.raises(DatasetError, match="has no document"):
            loader.remove(["good"], cid)
        with pytest.raises(DatasetError, match="another community"):
            loader.remove(["taken"], cid)
        assert g.writes == [] and document_counts(g, cid)["documents"] == 0
        assert document_counts(g, other)["open"] == 2, "the other community's document is untouched"
    finally:
        delete_community(graph, other, drop_ontology=True)


def test_search_cites_the_version_asked_for_and_chunks_can_seed(
    farm: tuple[WriteLog, str, str, str], settings: Settings, tmp_path: Path
) -> None:
    g, cid, tom, barn = farm
    encoder = get_embedder(settings)
    embed_entities(g, encoder, community=cid, progress=False)
    ensure_vector_index(g, encoder.dim, progress=False)
    path = tmp_path / "farm.md"
    path.write_text(V1, encoding="utf-8")
    loader = _loader(g, settings, embed=True)
    assert loader.load([path], cid).embedded == 2
    between = datetime.now(UTC)
    path.write_text(V2, encoding="utf-8")
    assert loader.load([path], cid).embedded == 1, "only the new chunk is embedded"

    rag = PathRag(settings, graph=g)
    question = "Where does Tom live?"
    now = rag.pathrag(question, community_id=cid, max_depth=1)
    then = rag.pathrag(question, community_id=cid, max_depth=1, as_of=between.isoformat())
    assert [p.node_ids for p in now.paths] == [p.node_ids for p in then.paths], "as_of changes only sources"
    path_now = next(p for p in now.paths if {tom, barn} <= set(p.node_ids))
    path_then = next(p for p in then.paths if {tom, barn} <= set(p.node_ids))
    assert "hay loft" in path_now.sources[0].text and "every night" in path_then.sources[0].text

    question = "Who hunts mice at dusk?"
    plain = rag.pathrag(question, community_id=cid, max_depth=0, seed_n=1)
    seeded = PathRag(settings.model_copy(update={"chunk_seed_n": 1}), graph=g).pathrag(
        question, community_id=cid, max_depth=0, seed_n=1
    )
    assert len(plain.seeds) == 1
    assert tom in {s.id for s in seeded.seeds}, "the dusk chunk mentions the grey cat: Tom seeds"
    loader.remove(["farm"], cid)
    gone = PathRag(settings.model_copy(update={"chunk_seed_n": 1}), graph=g).pathrag(
        question, community_id=cid, max_depth=0, seed_n=1
    )
    assert [s.id for s in gone.seeds] == [s.id for s in plain.seeds], "removed chunks seed nothing"


DIARY = """# Farm diary

## Morning

Tom eats his breakfast early.

## Noon

Tom naps in the sun by the pond.

## Weather

Rain fell on the roof of the Red Barn all week.

## Paint

The Red Barn was painted in May.

## Home

Tom lives in the Red Barn, in the stall by the door.
"""
CLOSED = "in the stall by the door"
NEW = "Tom lives in the Red Barn, up in the hay loft now."


def test_a_changed_sentence_is_cited_with_its_new_text_never_the_closed_one(
    farm: tuple[WriteLog, str, str, str], settings: Settings, tmp_path: Path
) -> None:
    """Issue 53: the passage that states the fact comes first, and the answer quotes its new text.

    Tom and the Red Barn are each named by two passages before the one that says where Tom lives:
    cited in reading order, two per entity, that passage was not among the path's sources.
    """
    g, cid, tom, barn = farm
    encoder = get_embedder(settings)
    embed_entities(g, encoder, community=cid, progress=False)
    ensure_vector_index(g, encoder.dim, progress=False)
    path = tmp_path / "diary.md"
    path.write_text(DIARY, encoding="utf-8")
    loader = _loader(g, settings)
    loader.load([path], cid)
    path.write_text(
        DIARY.replace("Tom lives in the Red Barn, in the stall by the door.", NEW), encoding="utf-8"
    )
    assert loader.load([path], cid).changed == 1

    result = PathRag(settings, graph=g).pathrag("Where does Tom live?", community_id=cid, max_depth=1)
    best = result.paths[0]
    assert {tom, barn} <= set(best.node_ids), [p.path_context for p in result.paths]
    assert NEW in " ".join(best.sources[0].text.split()), [s.text for s in best.sources]
    assert result.answer is not None and result.answer.sentence == NEW, result.answer
    assert result.answer.source_id == best.sources[0].id
    cited = [s.text for p in result.paths for s in p.sources] + [result.answer.text]
    assert not any(CLOSED in " ".join(t.split()) for t in cited), "the closed text is never cited"


def test_demo_story_is_a_document_whose_scenes_cite_the_demo(graph: Graph, demo_community: str) -> None:
    sources = read_sources(graph, ["attic", "spilled_milk_incident"], community=demo_community, as_of=None)
    attic = sources["attic"][0]
    assert attic.document_key == "bob_story" and attic.document_title == "The Adventures of Bob the Cat"
    assert attic.source == "bob_story", "the document key, not the path of bob_story.md"
    assert attic.headings[1:] == ["Chapter 3: Milk on the tiles", "The kitchen clean-up"]
    assert "attic" in attic.text
    assert [s.headings[-1] for s in sources["spilled_milk_incident"]] == ["The spilled milk incident"]
    assert read_sources(graph, ["attic"], community="some_other_community", as_of=None) == {}
