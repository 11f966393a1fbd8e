"""`load` and `index` show each long stage with its rate and ETA, one library, never `%/s` (issue 53).

Real Neo4j: a few MetaQA-format triples into a community of a random id, deleted afterwards.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from pathrag_testutil import run_cli

from pathrag_gds.datasets.loader import community_counts, delete_community
from pathrag_gds.graph import Graph

pytestmark = pytest.mark.integration

TRIPLES = """Kismet|directed_by|William Dieterle
Kismet|starred_actors|Marlene Dietrich
Kismet|release_year|1944
Flags of Our Fathers|directed_by|Clint Eastwood
Flags of Our Fathers|release_year|2006
"""


@pytest.fixture
def community(graph: Graph) -> Iterator[str]:
    cid = f"test_progress_{uuid.uuid4().hex[:10]}"
    yield cid
    delete_community(graph, cid)  # the MetaQA ontology is shared: kept
    assert community_counts(graph, cid) is None


def _bars(stderr: str) -> dict[str, str]:
    """Each bar's last drawing, by its description (tqdm redraws with carriage returns)."""
    out: dict[str, str] = {}
    for part in re.split(r"[\r\n]+", stderr):
        if "|" in part and ":" in part:
            out[part.split(":")[0].strip()] = part
    return out


def test_load_and_index_show_rate_and_eta_for_every_stage(
    graph: Graph, community: str, tmp_path: Path
) -> None:
    kb = tmp_path / "kb.txt"
    kb.write_text(TRIPLES, encoding="utf-8")
    loaded = run_cli("load", "triples", str(kb), "--format", "metaqa", "--community", community)
    assert loaded.returncode == 0, loaded.stderr
    bars = _bars(loaded.stderr)
    assert {"read kb.txt", "write entities", "write relationships"} <= set(bars), loaded.stderr
    indexed = run_cli("index", "--community", community)
    assert indexed.returncode == 0, indexed.stderr
    bars.update(_bars(indexed.stderr))
    assert "embed" in bars and any(k.startswith("vector index") for k in bars), indexed.stderr
    for name, drawn in bars.items():
        assert "%/s" not in drawn, drawn
        assert "<" in drawn, f"{name}: no time left shown: {drawn}"
        if not name.startswith("vector index"):
            assert re.search(r"[0-9?.]+ ?[kMG]?(B|row|entity)/s", drawn), f"{name}: no rate: {drawn}"
