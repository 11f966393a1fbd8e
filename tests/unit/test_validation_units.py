"""`check_graph` on what the service knows of the graph (no database)."""

from __future__ import annotations

from typing import Any

import pytest

from pathrag_gds.catalog import GraphInfo
from pathrag_gds.config import Settings
from pathrag_gds.errors import SchemaError
from pathrag_gds.validation import check_graph


def _info(**communities: dict[str, Any]) -> GraphInfo:
    return GraphInfo(
        communities={cid: {"id": cid, **c} for cid, c in communities.items()},
        labels={Settings().entity_label},
        types=set(),
        index_state="ONLINE",
    )


def test_a_community_without_embeddings_names_index_after_one_re_read() -> None:
    info = _info(loaded={"indexed": False}, ready={"indexed": True})
    reads: list[str] = []

    def refresh() -> GraphInfo:
        reads.append("refresh")
        return info

    with pytest.raises(SchemaError, match=r"'loaded' is loaded but not indexed.*index --community loaded`"):
        check_graph(Settings(), lambda: info, refresh, "loaded")
    assert reads == ["refresh"], "it may have been indexed since the service read the graph"
    check_graph(Settings(), lambda: info, refresh, "loaded", seeded=True)  # seeds by id need no embedding
    check_graph(Settings(), lambda: info, refresh, "ready")
    check_graph(Settings(), lambda: info, refresh, None)  # some community is indexed
    assert reads == ["refresh"]


def test_no_community_indexed_and_graphs_without_the_flag() -> None:
    bare = _info(a={"indexed": False}, b={"indexed": False})
    with pytest.raises(SchemaError, match=r"no community is indexed.*`python -m pathrag_gds index`"):
        check_graph(Settings(), lambda: bare, lambda: bare, None)
    unknown = _info(a={})  # read before communities carried the flag: not refused
    check_graph(Settings(), lambda: unknown, lambda: unknown, "a")
    check_graph(Settings(), lambda: _info(), lambda: _info(), None)  # no communities at all
