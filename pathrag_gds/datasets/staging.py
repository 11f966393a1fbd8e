"""A load's version in the database: start it, write under its fence, discard it, complete it.

The rules (what readers see, when a load resumes or replaces another) are in
:mod:`pathrag_gds.load_versions`; this module runs them through `cypher/load_*.cypher`:

- :func:`begin_load` reads the community's state, discards an interrupted load of other data, and
  opens the new load with a compare-and-set (`load_open`);
- :func:`fenced_write` runs each batch in a transaction whose first statement (`load_fence`) takes
  the community's write lock, checks that the load is still the open one and records the write;
- :func:`embed_staged` embeds the new text of the entities whose changes the load staged;
- :func:`commit_load` is the load's last transaction: the fence, the staged changes, the ontology
  and the flip (`load_commit`), all or nothing.

Example:
    >>> begin = begin_load(graph, "acme", digest, stale_s=60.0)  # doctest: +SKIP
    >>> fenced_write(graph, "acme", begin.load_id, "load_entities", {...})  # doctest: +SKIP
    >>> commit_load(graph, prepared, begin.load_id)  # doctest: +SKIP
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from pathrag_gds.datasets.prepare import PreparedLoad
from pathrag_gds.errors import LoadConflict, SchemaError
from pathrag_gds.graph import Graph
from pathrag_gds.load_versions import Begin, LoadState, plan_begin
from pathrag_gds.progress import bar as progress_bar
from pathrag_gds.serialize import entity_text

#: What a discarded load wrote, deleted in this order (each in batches until none is left).
DISCARD_STEPS = (
    "load_discard_chunks",
    "load_discard_entities",
    "load_discard_relationships",
    "load_discard_staged",
)

Check = Callable[[str, list[dict[str, Any]]], None]


def read_state(graph: Graph, community_id: str) -> LoadState | None:
    """The community's versions (None: no such community)."""
    rows = graph.read("load_state", community_id=community_id)
    return LoadState.from_row(community_id, rows[0]) if rows else None


def _fence(community_id: str, load_id: str, phase: str) -> tuple[tuple[str, Mapping[str, Any]], Check]:
    """The fence statement of a load's transaction and the check that rolls it back when it fails."""

    def check(name: str, rows: list[dict[str, Any]]) -> None:
        if name != "load_fence" or (rows and rows[0]["ok"]):
            return
        now = rows[0]["loading"] if rows else None
        if now is None:
            why = "the community no longer has it open (another run of the same data completed it)"
        else:
            why = f"another load ({now}) took the community over"
        raise LoadConflict(f"load {load_id} of community {community_id!r} stopped: {why}")

    return ("load_fence", {"community_id": community_id, "load": load_id, "phase": phase}), check


def fenced_write(
    graph: Graph,
    community_id: str,
    load_id: str,
    name: str,
    params: Mapping[str, Any],
    *,
    phase: str = "writing",
) -> list[dict[str, Any]]:
    """Run `cypher/<name>.cypher` for load `load_id`, in one transaction behind its fence; its rows.

    Raises:
        LoadConflict: the load is no longer the community's open one (nothing of this is written).
    """
    fence, check = _fence(community_id, load_id, phase)
    body = (name, {**params, "community_id": community_id, "load": load_id})
    return graph.write_steps([fence, body], check)[1]


def touch(graph: Graph, community_id: str, load_id: str) -> None:
    """Record that the load is alive (a long step between writes: embedding, the vector index).

    Raises:
        LoadConflict: the load is no longer the community's open one.
    """
    fence, check = _fence(community_id, load_id, "writing")
    graph.write_steps([fence], check)


def discard_load(
    graph: Graph,
    community_id: str,
    load_id: str,
    *,
    stale_s: float,
    force: bool = False,
    batch_size: int = 5000,
) -> int:
    """Delete what an open load wrote (it stays open, so readers skip it meanwhile); items deleted.

    Only a load without writes for `stale_s` seconds (`force`: any open load).

    Raises:
        LoadConflict: the load wrote within `stale_s` seconds, or is no longer open.
    """
    rows = graph.write(
        "load_discard_start", community_id=community_id, load=load_id, stale_s=stale_s, force=force
    )
    if not (rows and rows[0]["ok"]):
        raise LoadConflict(
            f"community {community_id!r}: load {load_id} wrote again or is no longer open; nothing "
            "discarded. Run the load again"
        )
    deleted = 0
    for step in DISCARD_STEPS:
        while True:
            out = fenced_write(graph, community_id, load_id, step, {"limit": batch_size}, phase="discarding")
            n = int(out[0]["deleted"]) if out else 0
            deleted += n
            if n == 0:
                break
    return deleted


def begin_load(graph: Graph, community_id: str, digest: str, stale_s: float) -> Begin:
    """Start a load of data with `digest`: a new version, the open one resumed, or one replacing it.

    Raises:
        LoadConflict: another load of other data is running, or one started meanwhile.
        InvalidInput: the community is tied to a Thalabus ontology (the user's graph).
    """
    from pathrag_gds.adopt.owner import check_own

    check_own(graph, community_id, "load into", tied_only=True)  # a Thalabus community is the user's
    state = read_state(graph, community_id)
    begin = plan_begin(state, digest, stale_s)
    expected = state.loading if state is not None else None
    if begin.action == "replace" and begin.discard is not None:
        discard_load(graph, community_id, begin.discard, stale_s=stale_s)
    rows = graph.write(
        "load_open",
        community_id=community_id,
        expected=expected,
        load=begin.load_id,
        digest=digest,
        resume=begin.action == "resume",
    )
    if not (rows and rows[0]["ok"]):
        raise LoadConflict(
            f"community {community_id!r}: another load ({rows[0]['loading'] if rows else '?'}) started "
            "meanwhile; nothing loaded. Wait for it to complete, then run this load again"
        )
    return begin


def embed_staged(
    graph: Graph,
    encoder: Any,
    community_id: str,
    load_id: str,
    *,
    batch_size: int = 512,
    progress: bool = True,
) -> int:
    """Embed the new text of the entities whose changes load `load_id` staged; how many.

    `encoder` is an :class:`~pathrag_gds.indexing.TextEncoder`. The vectors wait with the staged
    changes; the load's last transaction sets them on the entities.
    """
    from pathrag_gds.indexing import property_names, record_from_row

    s = graph.settings
    names = property_names(graph)
    after, done = "", 0
    with progress_bar(None, "embed changed", "entity", enabled=progress) as bar:
        while True:
            rows = graph.read(
                "load_staged_entities",
                load=load_id,
                after=after,
                limit=batch_size,
                entity_label=s.entity_label,
                embedding_key=s.embedding_property,
            )
            if not rows:
                return done
            texts = [entity_text(record_from_row(r, names)) for r in rows]
            vectors = np.asarray(encoder.encode(texts), dtype=np.float32)
            if vectors.shape != (len(rows), encoder.dim):
                raise SchemaError(
                    f"the embedder returned shape {vectors.shape} for {len(rows)} texts; check the model"
                )
            out = [{"id": r["id"], "vector": v.tolist()} for r, v in zip(rows, vectors, strict=True)]
            fenced_write(graph, community_id, load_id, "load_staged_embeddings", {"rows": out})
            done += len(rows)
            bar.update(len(rows))
            after = str(rows[-1]["id"])


def commit_load(graph: Graph, load: PreparedLoad, load_id: str) -> dict[str, int]:
    """The load's last transaction: staged changes, ontology, then readers see the new version.

    Returns how many staged entity, relationship and chunk changes were applied.

    Raises:
        LoadConflict: the load is no longer the community's open one (nothing is applied).
    """
    cid, oid = load.community_id, load.ontology.id
    fence, check = _fence(cid, load_id, "writing")
    results = graph.write_steps(
        [
            fence,
            ("load_apply_entities", {"load": load_id}),
            ("load_apply_relationships", {"load": load_id}),
            ("load_apply_chunks", {"load": load_id}),
            ("load_ontology", {"ontology_id": oid}),
            ("load_entity_types", {"ontology_id": oid, "rows": load.entity_types}),
            ("load_relation_types", {"ontology_id": oid, "rows": load.relation_types}),
            ("load_commit", {"community_id": cid, "load": load_id, "ontology_id": oid}),
        ],
        check,
    )

    def applied(i: int) -> int:
        return int(results[i][0]["applied"]) if results[i] else 0

    return {"entities": applied(1), "relationships": applied(2), "chunks": applied(3)}
