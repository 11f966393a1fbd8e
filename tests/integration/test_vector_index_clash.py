"""Another tool's vector index on pathrag_gds's label and property: a clear error that says what to do.

Neo4j keeps one vector index per label and property, and answers `CREATE VECTOR INDEX ... IF NOT
EXISTS` of a second one with a notice only; a Thalabus graph (or any other tool) may already have
one on `Entity.embedding`. Here the label is one of the test's own, so that no user index is touched.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest

from pathrag_gds.config import Settings
from pathrag_gds.errors import SchemaError
from pathrag_gds.graph import Graph
from pathrag_gds.indexing import ensure_vector_index, vector_index_state

pytestmark = pytest.mark.integration


@pytest.fixture()
def scratch(settings: Settings, graph: Graph) -> Iterator[tuple[Graph, str]]:
    """A Graph whose entity label is the test's own, and the name of the other tool's index on it."""
    tag = uuid.uuid4().hex[:8]
    label, theirs = f"IdxClash{tag}", f"their_index_{tag}"
    mine = settings.model_copy(update={"entity_label": label, "vector_index": f"pathrag_clash_{tag}"})
    g = Graph.connect(mine)
    try:
        yield g, theirs
    finally:
        for name in (theirs, mine.vector_index):
            graph.driver.execute_query(f"DROP INDEX {name} IF EXISTS")
        g.close()


def _their_index(g: Graph, name: str, dims: int, similarity: str) -> None:
    label = g.settings.entity_label
    g.driver.execute_query(
        f"CREATE VECTOR INDEX {name} FOR (n:{label}) ON (n.embedding) OPTIONS {{indexConfig: "
        f"{{`vector.dimensions`: {dims}, `vector.similarity_function`: '{similarity}'}}}}"
    )


def test_a_usable_index_of_another_name_is_named_with_the_setting_that_uses_it(
    scratch: tuple[Graph, str],
) -> None:
    g, theirs = scratch
    _their_index(g, theirs, 384, "cosine")
    with pytest.raises(SchemaError) as err:
        ensure_vector_index(g, 384, progress=False)
    assert f"set PATHRAG_VECTOR_INDEX={theirs}" in str(err.value), err.value
    assert vector_index_state(g) is None  # nothing of ours was made
    # with that setting, ours is theirs: the check passes as for an index of our own
    used = g.settings.model_copy(update={"vector_index": theirs})
    g2 = Graph.connect(used)
    try:
        assert ensure_vector_index(g2, 384, progress=False)["name"] == theirs
    finally:
        g2.close()


def test_an_unusable_index_says_to_move_the_property_or_drop_it(scratch: tuple[Graph, str]) -> None:
    g, theirs = scratch
    _their_index(g, theirs, 768, "euclidean")
    with pytest.raises(SchemaError, match=rf"not usable here .*DROP INDEX {theirs}"):
        ensure_vector_index(g, 384, progress=False)
