"""`python -m pathrag_gds info` against a live Neo4j: a community of this test's own (a small
generated people world, never indexed) with its counts, type labels and models, the hint that it
needs `index`, and the error for a community that does not exist."""

from __future__ import annotations

import json
import shutil
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from pathrag_testutil import PeopleFactory

from pathrag_gds import cli
from pathrag_gds.chain_model import chain_model_dir
from pathrag_gds.config import Settings, reset_settings
from pathrag_gds.datasets.loader import community_counts
from pathrag_gds.graph import Graph

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def community(people_community: PeopleFactory) -> str:
    return people_community("test_info", seed=5, scale=0.02)


@pytest.fixture
def models_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """An empty models folder of this test's own (`PATHRAG_MODELS_DIR`), with the embedder."""
    folder = tmp_path / "models"
    folder.mkdir()
    (folder / "all-MiniLM-L6-v2").symlink_to(Settings.from_env().models_dir / "all-MiniLM-L6-v2")
    monkeypatch.setenv("PATHRAG_MODELS_DIR", str(folder))
    reset_settings()
    yield folder
    reset_settings()


def _info(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    rc = cli.main(["info", *args])
    out = capsys.readouterr()
    return rc, out.out, out.err


def test_info_lists_a_community_with_its_counts_and_says_it_needs_index(
    graph: Graph, community: str, models_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    counts = community_counts(graph, community)
    assert counts is not None and counts["entities"] > 20
    rc, out, _ = _info(capsys, "--community", community, "--json")
    assert rc == 0
    [row] = json.loads(out)
    assert row["id"] == community and row["ontology_id"] == f"{community}_onto"
    assert (row["entities"], row["embedded"], row["indexed"]) == (counts["entities"], 0, False)
    assert row["relationships"] == sum(counts["relationships"].values()) > 0
    assert row["labels"] == counts["labels"] and "Person" in row["labels"]
    assert row["chain_model"] is None and row["path_model"] is None

    rc, text, _ = _info(capsys, "--community", community)
    assert rc == 0
    assert f"{community} (ontology {community}_onto)" in text
    assert f"{counts['entities']} entities (0 embedded: run `python -m pathrag_gds index --community" in text
    assert f"Person {counts['labels']['Person']}" in text
    assert "chain model: none (paths scored by their text alone; `python -m pathrag_gds tune" in text


def test_info_shows_a_chain_model_and_when_it_was_built(
    community: str, models_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shipped = chain_model_dir(Settings(), "people")  # the repository's (Settings() reads no env)
    folder = chain_model_dir(Settings(), community, models_dir)
    folder.parent.mkdir(parents=True)
    shutil.copytree(shipped, folder, symlinks=True)
    manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    manifest["chain"]["finished"] = "2026-12-01T10:00:00Z"
    (folder / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")

    rc, out, _ = _info(capsys, "--community", community, "--json")
    assert rc == 0
    chain = json.loads(out)[0]["chain_model"]
    assert chain == {"folder": str(folder), "built": "2026-12-01T10:00:00Z", "shipped": False}
    rc, text, _ = _info(capsys, "--community", community)
    assert f"chain model: built 2026-12-01T10:00:00Z ({folder})" in text


def test_info_lists_every_community(
    community: str, models_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rc, out, _ = _info(capsys, "--json")
    assert rc == 0
    ids = [row["id"] for row in json.loads(out)]
    assert community in ids and ids == sorted(ids)
    rc, text, _ = _info(capsys)
    assert text.startswith("pathrag_gds ") and f"\n{community} (ontology" in text


def test_info_of_an_unknown_community_says_where_to_look(capsys: pytest.CaptureFixture[str]) -> None:
    rc, _, err = _info(capsys, "--community", f"no_such_{uuid.uuid4().hex[:8]}")
    assert rc == 2
    assert err.startswith("error: no community") and "`python -m pathrag_gds info` lists them" in err
