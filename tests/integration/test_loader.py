"""Loading and indexing against a live Neo4j: idempotency, counts, resumable embedding.

Each test writes only its own community (random id, entity ids prefixed with it) and deletes it at
the end; the demo graph is loaded (harmless: idempotent) but never deleted.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from pathrag_gds.config import METAQA_DIR, Settings
from pathrag_gds.datasets.demo import DEMO_FILE, read_graph_file
from pathrag_gds.datasets.loader import GraphLoader, community_counts, delete_community
from pathrag_gds.datasets.ontology_files import METAQA_ONTOLOGY, read_ontology
from pathrag_gds.datasets.triples import read_triples
from pathrag_gds.encoders import get_embedder
from pathrag_gds.graph import Graph
from pathrag_gds.indexing import embed_entities, ensure_vector_index

pytestmark = pytest.mark.integration

KB = METAQA_DIR / "kb.txt"


def _stable(counts: dict[str, Any] | None) -> dict[str, Any]:
    """Counts without `embedded` (another engineer may index the shared demo graph meanwhile)."""
    assert counts is not None
    return {k: v for k, v in counts.items() if k != "embedded"}


@pytest.fixture
def community(graph: Graph) -> Iterator[str]:
    cid = f"test_loader_{uuid.uuid4().hex[:10]}"
    yield cid
    delete_community(graph, cid, drop_ontology=True)
    assert community_counts(graph, cid) is None


def test_metaqa_slice_loads_twice_with_identical_counts(graph: Graph) -> None:
    cid = f"test_metaqa_slice_{uuid.uuid4().hex[:10]}"
    try:
        tf = read_triples(KB, "metaqa", read_ontology(METAQA_ONTOLOGY), cid, limit=500)
        assert tf.triples == 500 and not tf.bad_rows
        loader = GraphLoader(graph, batch_size=128, progress=False)
        first = loader.load(tf.dataset)
        counts1 = community_counts(graph, cid)
        assert first.entities_created == len(tf.dataset.entities)
        assert first.relationships_created == 500
        assert first.relationships_missing_endpoint == 0

        second = loader.load(tf.dataset)
        counts2 = community_counts(graph, cid)
        assert counts1 == counts2
        assert (second.entities_created, second.entities_changed, second.relationships_created) == (0, 0, 0)
        assert second.entities_existing == len(tf.dataset.entities)
        assert second.relationships_existing == 500

        assert counts1 is not None
        assert counts1["entities"] == len(tf.dataset.entities)
        assert sum(counts1["relationships"].values()) == 500
        assert set(counts1["relationships"]) <= {r.type for r in tf.dataset.ontology.relation_types}
        assert set(counts1["labels"]) <= set(tf.dataset.ontology.labels)
        assert counts1["ontology_id"] == "MetaQA"
        onto = graph.read("ontology_read", ontology_id="MetaQA")
        assert len(onto) == 1 and len(onto[0]["relation_types"]) == 9 and len(onto[0]["entity_types"]) == 8
        # one order for every read (the planner meets chains in it; the explorer writes examples in it)
        types = [r["type"] for r in onto[0]["relation_types"]]
        labels = [e["label"] for e in onto[0]["entity_types"]]
        assert types == sorted(types) and labels == sorted(labels)
    finally:
        delete_community(graph, cid)
    assert community_counts(graph, cid) is None


def test_demo_loads_twice_with_identical_counts(graph: Graph) -> None:
    dataset = read_graph_file(DEMO_FILE)
    loader = GraphLoader(graph, progress=False)
    loader.load(dataset)
    counts1 = community_counts(graph, dataset.community_id)
    again = loader.load(dataset)
    counts2 = community_counts(graph, dataset.community_id)
    assert _stable(counts1) == _stable(counts2)
    assert (again.entities_created, again.entities_changed, again.relationships_created) == (0, 0, 0)
    assert counts1 is not None
    assert counts1["entities"] == len(dataset.entities)
    assert sum(counts1["relationships"].values()) == len(dataset.relationships)
    assert not dataset.chunks, "the demo's passages are a document (bob_story.md), not graph-file chunks"


def _tiny(cid: str, description: str = "A grey cat.") -> dict[str, Any]:
    return {
        "ontology": {
            "id": f"{cid}_onto",
            "entity_types": [{"label": "Animal"}, {"label": "Place"}],
            "relationship_types": [
                {"type": "lives_in", "phrase": "lives in", "source": ["Animal"], "target": ["Place"]}
            ],
        },
        "community": {"id": cid},
        "entities": [
            {
                "id": f"{cid}:tom",
                "label": "Animal",
                "name": "Tom",
                "description": description,
                "attributes": {"species": "cat", "moods": ["calm", "sleepy"]},
            },
            {"id": f"{cid}:rex", "label": "Animal", "name": "Rex", "attributes": {"species": "dog"}},
            {"id": f"{cid}:barn", "label": "Place", "name": "Barn"},
            {"id": f"{cid}:yard", "label": "Place", "name": "Yard"},
            {"id": f"{cid}:coop", "label": "Place", "name": "Coop"},
        ],
        "relationships": [
            {
                "source": f"{cid}:tom",
                "type": "lives_in",
                "target": f"{cid}:barn",
                "attributes": {"since": 2020},
            },
            {"source": f"{cid}:rex", "type": "lives_in", "target": f"{cid}:yard"},
        ],
        "chunks": [{"id": f"{cid}:c1", "text": "Tom lives in the barn.", "mentions": [f"{cid}:tom"]}],
    }


def _load_tiny(graph: Graph, tmp_path: Path, cid: str, description: str = "A grey cat.") -> None:
    from pathrag_gds.datasets.demo import read_graph_file

    path = tmp_path / f"{cid}.yaml"
    path.write_text(yaml.safe_dump(_tiny(cid, description)), encoding="utf-8")
    GraphLoader(graph, progress=False).load(read_graph_file(path))


def _embedded(graph: Graph, cid: str) -> int:
    counts = community_counts(graph, cid)
    assert counts is not None
    return int(counts["embedded"])


def test_index_embeds_only_missing_and_resumes(
    graph: Graph, settings: Settings, community: str, tmp_path: Path
) -> None:
    _load_tiny(graph, tmp_path, community)
    encoder = get_embedder(settings)
    assert _embedded(graph, community) == 0

    # An interrupted run: one page of 2 entities, then stop.
    part = embed_entities(graph, encoder, community=community, batch_size=2, max_batches=1, progress=False)
    assert (part.total, part.pending, part.embedded) == (5, 5, 2)
    assert _embedded(graph, community) == 2

    # Resume: only the 3 missing ones.
    rest = embed_entities(graph, encoder, community=community, batch_size=2, progress=False)
    assert (rest.pending, rest.embedded) == (3, 3)
    assert _embedded(graph, community) == 5

    # Nothing left to do.
    none = embed_entities(graph, encoder, community=community, batch_size=2, progress=False)
    assert (none.pending, none.embedded) == (0, 0)

    # Reloading the same data keeps the embeddings; a changed description drops only that one.
    _load_tiny(graph, tmp_path, community)
    assert _embedded(graph, community) == 5
    _load_tiny(graph, tmp_path, community, description="A ginger cat.")
    assert _embedded(graph, community) == 4
    again = embed_entities(graph, encoder, community=community, progress=False)
    assert again.embedded == 1

    # --force re-embeds all.
    forced = embed_entities(graph, encoder, community=community, force=True, batch_size=3, progress=False)
    assert (forced.pending, forced.embedded) == (5, 5)

    # The stored vector is the embedder's vector of entity_text.
    rows = graph.read(
        "index_pending_community",
        community=community,
        after="",
        limit=10,
        force=True,
        entity_label=settings.entity_label,
        embedding_key="__none__",
    )
    tom = next(r for r in rows if r["id"] == f"{community}:tom")
    assert len(tom["props"][settings.embedding_property]) == encoder.dim

    state = ensure_vector_index(graph, encoder.dim, progress=False)
    assert state["state"] == "ONLINE"


def test_loaded_text_and_properties(graph: Graph, community: str, tmp_path: Path) -> None:
    _load_tiny(graph, tmp_path, community)
    counts = community_counts(graph, community)
    assert counts is not None
    assert counts["entities"] == 5
    assert counts["labels"] == {"Animal": 2, "Place": 3}
    assert counts["relationships"] == {"lives_in": 2}
    assert (counts["chunks"], counts["mentions"]) == (1, 1)
