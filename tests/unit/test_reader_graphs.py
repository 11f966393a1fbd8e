"""The chain reader's training graphs (`datasets/data/reader/`) are whole, and none is a measured set.

The reader learns from the questions its source graphs generate (`training/chain_reader.py`); the
blind sets measure it, so no blind set's graph may be a source, and the training graphs carry no
questions. No database: the YAML files only.
"""

from __future__ import annotations

import importlib.util
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import yaml

from pathrag_gds.datasets.bob_suite import DATA

READER = DATA / "reader"
GRAPHS = sorted(READER.glob("*.yaml"))


def _sources() -> list[str]:
    path = Path(__file__).resolve().parents[2] / "scripts" / "build_chain_reader.py"
    spec = importlib.util.spec_from_file_location("build_chain_reader", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return list(module.SOURCES)


def test_the_reader_learns_from_no_measured_graph() -> None:
    sources = set(_sources())
    measured = {
        yaml.safe_load(p.read_text(encoding="utf-8"))["community_id"] for p in DATA.glob("*_eval.yaml")
    }
    assert len(GRAPHS) == 6 and not list(READER.glob("*_eval.yaml"))
    own = {yaml.safe_load(p.read_text(encoding="utf-8"))["community"]["id"] for p in GRAPHS}
    assert own <= sources
    # the demo graph's spec questions were written with it; every blind set and harbour stay out
    assert sources & measured == {"DefaultCommunity_FictionalStories"}


@pytest.mark.parametrize("path", GRAPHS, ids=[p.stem for p in GRAPHS])
def test_a_training_graph_is_whole(path: Path) -> None:
    graph: dict[str, Any] = yaml.safe_load(path.read_text(encoding="utf-8"))
    labels = {e["id"]: e["label"] for e in graph["entities"]}
    types = {t["type"]: t for t in graph["ontology"]["relationship_types"]}
    assert len(labels) >= 150 and len(types) >= 18
    uses = Counter()
    for r in graph["relationships"]:
        rel = types[r["type"]]
        assert labels[r["source"]] in rel["source"] and labels[r["target"]] in rel["target"], r
        uses[r["type"]] += 1
    assert min(uses[t] for t in types) >= 8  # every relation is walked often enough to be learned
    assert all(t["description"] and t["phrase"] and t["inverse_phrase"] for t in types.values())
