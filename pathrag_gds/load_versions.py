"""Load versions: what readers see of a community while a load writes into it (pure: no database).

A load of a community is a *version* with an id. While it writes, the id is the community's
`loading`, and everything the load creates carries it in :data:`LOAD_KEY`: the `AGGREGATES` edges
of the entities it adds, the relationships and `MENTIONED_IN` edges it writes, the chunks it
creates. What it would change of what readers already see (an entity's properties or labels, a
relationship's properties, a chunk's text) waits in :data:`STAGED_LABEL` nodes. Readers skip what
carries the id of an open load, so they keep reading the previous complete version. The load's
last transaction applies its staged changes, writes the ontology and clears `loading`: readers see
the new version whole from then on (docs/graph-model.md, *Loads and readers*).

A load killed half-way leaves its id open: readers still see the previous version, or (its first
load) a community that has nothing to read yet. Running the same load again resumes it (same
:func:`dataset_digest`); a load of other data discards what the interrupted one wrote, once no
write of it came for `load_stale_s` seconds.

Example:
    >>> s = LoadState("acme", loading="L1", digest="d1", phase="writing", idle_s=5.0)
    >>> s.status(60.0), s.complete
    ('loading', False)
    >>> plan_begin(s, "d1", 60.0, lambda: "L2").action
    'resume'
    >>> plan_begin(LoadState("acme", version="L0"), "d2", 60.0, lambda: "L2")
    Begin(action='new', load_id='L2', discard=None, note=None)
"""

from __future__ import annotations

import hashlib
import json
import secrets
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from pathrag_gds.errors import LoadConflict, LoadIncomplete

#: The property that names the load which created an item (relationships, AGGREGATES and
#: MENTIONED_IN edges, chunks). Reserved: a load may not give it as an attribute.
LOAD_KEY = "pathrag_load"
#: On an AGGREGATES edge: whether its load created the entity (a discarded load deletes those).
CREATED_KEY = "pathrag_created"
#: Label of the nodes that hold a load's changes to what readers see, until it completes.
STAGED_LABEL = "PathragStaged"

Status = Literal["ready", "loading", "interrupted"]


def new_load_id() -> str:
    """A fresh load id: its start time (UTC, sortable) and 8 random hex digits."""
    return f"{time.strftime('%Y%m%dT%H%M%SZ', time.gmtime())}-{secrets.token_hex(4)}"


@dataclass(frozen=True)
class LoadState:
    """A community's versions, as `cypher/load_state.cypher` (or `graph_info`) reads them."""

    community_id: str
    #: the last complete load (None: none completed, or loaded before loads had versions)
    version: str | None = None
    loaded_at: str | None = None
    #: the load that has not completed (None: none)
    loading: str | None = None
    #: its data's :func:`dataset_digest`
    digest: str | None = None
    #: `writing`, or `discarding` while a load of other data removes what it wrote
    phase: str | None = None
    started: str | None = None
    #: seconds since its last write
    idle_s: float | None = None
    #: entities it has tied to the community so far (readers do not see them)
    pending: int = 0
    #: relationships it has written from them so far (`load_state.cypher` only; readers do not see them)
    pending_relationships: int = 0

    @classmethod
    def from_row(cls, community_id: str, row: Mapping[str, Any]) -> LoadState:
        """From a row with the keys of `load_state.cypher` (missing keys: None / 0)."""
        idle = row.get("idle_s")
        return cls(
            community_id=community_id,
            version=row.get("load_id"),
            loaded_at=row.get("loaded_at"),
            loading=row.get("loading"),
            digest=row.get("load_digest"),
            phase=row.get("load_phase"),
            started=row.get("load_started"),
            idle_s=None if idle is None else float(idle),
            pending=int(row.get("pending") or 0),
            pending_relationships=int(row.get("pending_relationships") or 0),
        )

    @property
    def complete(self) -> bool:
        """Whether readers have a complete version to read (a community loaded before versions has)."""
        return self.version is not None or self.loading is None

    def status(self, stale_s: float) -> Status:
        """`ready` (no load open), `loading` (one open, written to within `stale_s`) or `interrupted`."""
        if self.loading is None:
            return "ready"
        if self.idle_s is not None and self.idle_s < stale_s:
            return "loading"
        return "interrupted"

    def summary(self, stale_s: float) -> dict[str, Any]:
        """JSON-ready: `state`, `complete`, `version`, `loaded_at`, and the open load (`open_load`) if any."""
        out: dict[str, Any] = {
            "state": self.status(stale_s),
            "complete": self.complete,
            "version": self.version,
            "loaded_at": self.loaded_at,
            "open_load": None,
        }
        if self.loading is not None:
            out["open_load"] = {
                "id": self.loading,
                "started": self.started,
                "idle_s": self.idle_s,
                "entities_written": self.pending,
                "relationships_written": self.pending_relationships,
            }
        return out

    def describe(self, stale_s: float) -> str:
        """The open load in words: when it started, its last write, what it wrote so far."""
        idle = "no write yet" if self.idle_s is None else f"last write {self.idle_s:,.0f} s ago"
        what = (
            "still running"
            if self.status(stale_s) == "loading"
            else f"interrupted (no write for {stale_s:g} s or more)"
        )
        return (
            f"a load started {self.started or 'at an unknown time'} ({idle}; {self.pending:,} entities "
            f"and {self.pending_relationships:,} relationships written so far, not visible) has not "
            f"completed: it is {what}"
        )


def incomplete_message(state: LoadState, stale_s: float) -> str:
    """What a query of a community without a complete version is told."""
    return (
        f"community {state.community_id!r} has no complete load yet: {state.describe(stale_s)}. Queries "
        "see a community once a load of it completes: if no load is running, run the same load "
        "again to complete it (`python -m pathrag_gds info` shows its state)"
    )


def interrupted_message(community_id: str, load_id: str, cause: BaseException | str) -> str:
    """What `load` says when it stops before completing (a database error, Ctrl-C)."""
    return (
        f"load {load_id} of community {community_id!r} did not complete ({cause}): readers still see "
        "the community as it was before this load (a new community: not at all); run the same load "
        "again to complete it"
    )


def check_complete(state: LoadState, stale_s: float) -> None:
    """Refuse a community that has no complete version.

    Raises:
        LoadIncomplete: its first load runs or was interrupted.
    """
    if not state.complete:
        raise LoadIncomplete(incomplete_message(state, stale_s))


def refuse_open_load(state: LoadState, stale_s: float, command: str) -> None:
    """Refuse a command that reads every entity a community holds while a load of it is open.

    Raises:
        LoadConflict: the community has a load that has not completed.
    """
    if state.loading is not None:
        raise LoadConflict(
            f"community {state.community_id!r}: {state.describe(stale_s)}. `{command}` reads all the "
            "community holds, that load's entities too: run it once the load has completed (if the load "
            "is not running, run it again to complete it)"
        )


@dataclass(frozen=True)
class Begin:
    """How a load starts: a new version, resuming an open one, or replacing (discarding) one."""

    action: Literal["new", "resume", "replace"]
    load_id: str
    #: the open load to discard first (`replace`)
    discard: str | None = None
    #: what `load` says about an earlier load that did not complete
    note: str | None = None


def plan_begin(
    state: LoadState | None, digest: str, stale_s: float, new_id: Callable[[], str] = new_load_id
) -> Begin:
    """Decide how a load of data with `digest` starts, given the community's state (None: no community).

    The same data as the open load resumes it (its rows are merged by id, so what it wrote counts);
    other data discards the open load, unless it wrote within `stale_s` seconds (it may be running).

    Raises:
        LoadConflict: a load of other data wrote within `stale_s` seconds.
    """
    if state is None or state.loading is None:
        return Begin("new", new_id())
    cid = state.community_id
    if state.digest == digest and state.phase == "writing":
        return Begin(
            "resume",
            state.loading,
            note=f"community {cid}: {state.describe(stale_s)}; this load of the same data completes it",
        )
    if state.status(stale_s) == "loading":
        raise LoadConflict(
            f"community {cid!r}: another load of other data is running ({state.describe(stale_s)}); "
            f"nothing loaded. Wait for it to complete; if it was stopped, run this load again after "
            f"{stale_s:g} s without writes (PATHRAG_LOAD_STALE_S), and what it wrote is discarded"
        )
    return Begin(
        "replace",
        new_id(),
        discard=state.loading,
        note=f"community {cid}: {state.describe(stale_s)}; it was of other data, so what it wrote is "
        "discarded first (run it again later if you still want it)",
    )


def dataset_digest(
    community_id: str, ontology: Mapping[str, Any], shared: bool, *parts: Iterable[Mapping[str, Any]]
) -> str:
    """A SHA-256 of a load's rows: the same file loaded again gives the same digest.

    Example:
        >>> a = dataset_digest("c", {"id": "o"}, False, [{"id": "c:a", "name": "a"}])
        >>> a == dataset_digest("c", {"id": "o"}, False, [{"name": "a", "id": "c:a"}])
        True
        >>> a == dataset_digest("c", {"id": "o"}, True, [{"id": "c:a", "name": "a"}])
        False
    """
    h = hashlib.sha256()

    def add(value: Any) -> None:
        h.update(json.dumps(value, sort_keys=True, ensure_ascii=False, default=str).encode("utf-8"))
        h.update(b"\n")

    add([community_id, ontology, shared])
    for i, part in enumerate(parts):
        add(f"part {i}")
        for row in part:
            add(row)
    return h.hexdigest()
