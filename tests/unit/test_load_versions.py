"""Load versions without a database (issue 54, item 6): states, how a load starts, digests, messages.

Also that every statement that reads or writes a load's id spells it as `versions.LOAD_KEY` does.
"""

from __future__ import annotations

import re

import pytest

from pathrag_gds.config import CYPHER_DIR, Settings
from pathrag_gds.datasets.loader import Dataset, DatasetError, EntityRow, RelationRow
from pathrag_gds.datasets.prepare import prepare
from pathrag_gds.errors import LoadConflict, LoadIncomplete, SchemaError
from pathrag_gds.load_versions import (
    CREATED_KEY,
    LOAD_KEY,
    STAGED_LABEL,
    LoadState,
    check_complete,
    dataset_digest,
    incomplete_message,
    interrupted_message,
    new_load_id,
    plan_begin,
)
from pathrag_gds.ontology import Ontology

STALE = 60.0


def _ids() -> object:
    n = iter(range(100))
    return lambda: f"L{next(n)}"


def test_state_from_row_and_status() -> None:
    row = {
        "load_id": None,
        "loaded_at": None,
        "loading": "L1",
        "load_digest": "d",
        "load_phase": "writing",
        "load_started": "2026-12-05T10:00:00Z",
        "idle_s": 3,
        "pending": 3450,
    }
    s = LoadState.from_row("acme", row)
    assert (s.loading, s.digest, s.idle_s, s.pending, s.complete) == ("L1", "d", 3.0, 3450, False)
    assert s.status(STALE) == "loading"
    assert LoadState("acme", loading="L1", idle_s=61.0).status(STALE) == "interrupted"
    assert LoadState("acme", loading="L1", idle_s=None).status(STALE) == "interrupted"
    assert LoadState("acme", version="L0").status(STALE) == "ready"
    # a community loaded before loads had versions: complete, ready
    legacy = LoadState.from_row("old", {})
    assert legacy.complete and legacy.status(STALE) == "ready"
    # an open load over a complete version: readers have the previous version
    assert LoadState("acme", version="L0", loading="L1").complete


def test_plan_begin_new_resume_replace_refuse() -> None:
    new = plan_begin(None, "d", STALE, lambda: "L9")
    assert (new.action, new.load_id, new.discard, new.note) == ("new", "L9", None, None)
    assert plan_begin(LoadState("c", version="L0"), "d", STALE, lambda: "L9").action == "new"

    open_same = LoadState("c", loading="L1", digest="d", phase="writing", idle_s=1.0)
    resume = plan_begin(open_same, "d", STALE, lambda: "L9")
    assert (resume.action, resume.load_id) == ("resume", "L1")  # even while it may run: same rows
    assert resume.note and "completes it" in resume.note

    stale_other = LoadState("c", loading="L1", digest="x", phase="writing", idle_s=600.0)
    replace = plan_begin(stale_other, "d", STALE, lambda: "L9")
    assert (replace.action, replace.load_id, replace.discard) == ("replace", "L9", "L1")
    assert replace.note and "discarded" in replace.note

    running_other = LoadState("c", loading="L1", digest="x", phase="writing", idle_s=2.0)
    with pytest.raises(LoadConflict, match="another load of other data is running"):
        plan_begin(running_other, "d", STALE, lambda: "L9")

    # a discard that stopped half-way is finished by the next load, whatever its data
    half_discarded = LoadState("c", loading="L1", digest="d", phase="discarding", idle_s=600.0)
    assert plan_begin(half_discarded, "d", STALE, lambda: "L9").action == "replace"


def test_new_load_ids_sort_by_time_and_differ() -> None:
    a, b = new_load_id(), new_load_id()
    assert a != b and re.fullmatch(r"\d{8}T\d{6}Z-[0-9a-f]{8}", a)


def test_dataset_digest_follows_the_rows() -> None:
    rows = [{"id": "c:a", "name": "a", "props": {"x": 1}}]
    d = dataset_digest("c", {"id": "o"}, False, rows, [])
    assert d == dataset_digest("c", {"id": "o"}, False, [{"props": {"x": 1}, "name": "a", "id": "c:a"}], [])
    assert d != dataset_digest("c", {"id": "o"}, False, [{**rows[0], "props": {"x": 2}}], [])
    assert d != dataset_digest("c2", {"id": "o"}, False, rows, [])
    assert d != dataset_digest("c", {"id": "o2"}, False, rows, [])
    # rows moved from one part to the next are another load
    assert d != dataset_digest("c", {"id": "o"}, False, [], rows)


def test_messages_say_what_to_do() -> None:
    s = LoadState("acme", loading="L1", started="2026-12-05T10:00:00Z", idle_s=900.0, pending=3450)
    msg = incomplete_message(s, STALE)
    assert "'acme' has no complete load yet" in msg and "3,450 entities" in msg
    assert "interrupted" in msg and "run the same load again" in msg
    with pytest.raises(LoadIncomplete) as err:
        check_complete(s, STALE)
    assert isinstance(err.value, SchemaError)  # answered like the other schema errors where unmapped
    check_complete(LoadState("acme", version="L0", loading="L1"), STALE)  # previous version readable
    running = LoadState("acme", loading="L1", idle_s=1.0)
    assert "still running" in incomplete_message(running, STALE)
    said = interrupted_message("acme", "L1", "Neo4j went away")
    assert "L1" in said and "run the same load again" in said and "Neo4j went away" in said


def test_reserved_load_key_is_refused_as_a_relationship_attribute() -> None:
    onto = Ontology.from_mapping(
        {"id": "o", "entity_types": [{"label": "P"}], "relationship_types": [{"type": "knows"}]}
    )
    ds = Dataset(
        onto,
        "c",
        [EntityRow("c:a", "a", ("P",)), EntityRow("c:b", "b", ("P",))],
        [RelationRow("c:a", "knows", "c:b", {LOAD_KEY: "x"})],
    )
    with pytest.raises(DatasetError, match="reserved property"):
        prepare(ds, Settings.from_env({}))


def _statements() -> dict[str, str]:
    return {p.stem: p.read_text(encoding="utf-8") for p in CYPHER_DIR.glob("*.cypher")}


def test_cypher_spells_the_reserved_names_as_python_does() -> None:
    used: set[tuple[str, str]] = set()
    for name, text in _statements().items():
        for groups in re.findall(r"\.(pathrag_\w+)|[{,]\s*(pathrag_\w+)\s*:", text):
            used |= {(name, word) for word in groups if word}
        for label in re.findall(r":(Pathrag\w+)", text):
            # the API's session nodes (`PATHRAG_API_SESSIONS=neo4j`) are their statements' own
            assert label == STAGED_LABEL or name.startswith(("api_session_", "schema_api_session_")), (
                name,
                label,
            )
    assert {w for _, w in used} == {LOAD_KEY, CREATED_KEY}, sorted(used)


@pytest.mark.parametrize(
    "name", ["expand", "baseline_node_neighbours", "baseline_varlength", "train_neighbours"]
)
def test_readers_never_return_the_load_key_as_a_relationship_attribute(name: str) -> None:
    text = _statements()[name]
    assert "properties(r)" not in text.replace(f"apoc.map.removeKey(properties(r), '{LOAD_KEY}')", "")
