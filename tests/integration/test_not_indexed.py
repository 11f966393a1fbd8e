"""A community that is loaded but not indexed says so and names `index --community ID` (issue 53).

It used to answer with an empty table and exit 0, with a hint naming `tune`. The test writes only
its own community (a random id) and deletes it.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml
from pathrag_testutil import run_cli

from pathrag_gds.config import Settings
from pathrag_gds.datasets.loader import community_counts, delete_community
from pathrag_gds.errors import SchemaError
from pathrag_gds.graph import Graph
from pathrag_gds.service import PathRag

pytestmark = pytest.mark.integration

QUESTION = "Where does Tom live?"


@pytest.fixture
def community(graph: Graph) -> Iterator[str]:
    cid = f"test_not_indexed_{uuid.uuid4().hex[:10]}"
    yield cid
    delete_community(graph, cid, drop_ontology=True)
    assert community_counts(graph, cid) is None


def _graph_file(tmp_path: Path, cid: str) -> Path:
    data = {
        "ontology": {
            "id": f"{cid}_onto",
            "entity_types": [{"label": "Animal"}, {"label": "Place"}],
            "relationship_types": [
                {"type": "lives_in", "phrase": "lives in", "source": ["Animal"], "target": ["Place"]}
            ],
        },
        "community": {"id": cid},
        "entities": [
            {"id": f"{cid}:tom", "label": "Animal", "name": "Tom", "description": "A grey cat."},
            {"id": f"{cid}:barn", "label": "Place", "name": "Barn", "description": "A red barn."},
        ],
        "relationships": [{"source": f"{cid}:tom", "type": "lives_in", "target": f"{cid}:barn"}],
    }
    path = tmp_path / f"{cid}.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    return path


def test_load_without_index_then_query_names_index(
    graph: Graph, settings: Settings, community: str, tmp_path: Path
) -> None:
    path = _graph_file(tmp_path, community)
    hint = f"python -m pathrag_gds index --community {community}"

    loaded = run_cli("load", "graph", str(path), "--no-index")
    assert loaded.returncode == 0, loaded.stderr
    assert f"community {community}: its entities are not indexed" in loaded.stdout and hint in loaded.stdout

    asked = run_cli("query", QUESTION, "--community", community)
    assert asked.returncode == 2, asked.stdout
    assert f"community '{community}' is loaded but not indexed" in asked.stderr and hint in asked.stderr
    assert "tune" not in asked.stderr and "┃" not in asked.stdout, "no empty table, no hint to tune"

    service = PathRag(settings, graph=graph)
    with pytest.raises(SchemaError, match=f"index --community {community}"):
        service.pathrag(QUESTION, community_id=community, max_depth=1)
    given = service.pathrag(QUESTION, community_id=community, max_depth=1, seed_ids=[f"{community}:tom"])
    assert given.paths, "seeds given by id need no embedding"

    indexed = run_cli("index", "--community", community)
    assert indexed.returncode == 0, indexed.stderr
    found = service.pathrag(QUESTION, community_id=community, max_depth=1)  # the same service: re-read
    assert found.paths and found.paths[0].answer_candidates[0].name == "Barn"
    again = run_cli("load", "graph", str(path), "--no-index")
    assert again.returncode == 0 and "not indexed" not in again.stdout, "indexed already: no note"
