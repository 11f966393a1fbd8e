"""Embedding entities and building the vector index (`python -m pathrag_gds index`).

Entities without an embedding (of one community, or all) are read in pages by keyset pagination on
id (`id > $after ORDER BY id LIMIT $limit`, no SKIP), their text (:func:`serialize.entity_text`) is
embedded, and the vectors are written back page by page. An interrupted run leaves every finished
page written, so running again resumes where it stopped. Then the vector index is created if
missing and awaited until it is ONLINE.

Example:
    >>> report = index_entities(graph, get_embedder(settings), community="metaqa")  # doctest: +SKIP
    >>> report.embedded  # doctest: +SKIP
    43234
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from pathrag_gds.errors import InvalidInput, SchemaError
from pathrag_gds.graph import Graph
from pathrag_gds.ontology import type_labels
from pathrag_gds.paths import EntityRecord
from pathrag_gds.progress import bar as progress_bar
from pathrag_gds.progress import set_share
from pathrag_gds.serialize import entity_text

log = logging.getLogger(__name__)


class TextEncoder(Protocol):
    """What indexing needs of an embedder (:class:`pathrag_gds.encoders.Embedder` fits)."""

    dim: int

    def encode(
        self, texts: Sequence[str], *, batch_size: int | None = None, show_progress: bool = False
    ) -> Any:
        """Embed texts into an `(n, dim)` array."""
        ...


@dataclass
class IndexReport:
    """What `index` did."""

    total: int = 0  #: entities in scope
    pending: int = 0  #: entities without an embedding when the run started (all with --force)
    embedded: int = 0  #: entities embedded by this run
    embed_seconds: float = 0.0
    index_seconds: float = 0.0
    index_state: str = ""
    seconds: float = 0.0

    @property
    def rate(self) -> float:
        """Entities embedded per second by this run (0.0 when it embedded none)."""
        return self.embedded / self.embed_seconds if self.embed_seconds > 0 else 0.0

    def lines(self) -> list[str]:
        """The report as human-readable lines (with the time the rest would take, when some is left)."""
        out = [
            f"entities in scope: {self.total:,}; needed an embedding: {self.pending:,}; "
            f"embedded now: {self.embedded:,} in {self.embed_seconds:.1f} s ({self.rate:,.0f}/s)",
            f"vector index: {self.index_state} (waited {self.index_seconds:.1f} s); "
            f"total {self.seconds:.1f} s",
        ]
        left = self.pending - self.embedded
        if left > 0 and self.rate > 0:
            minutes = left / self.rate / 60
            out.append(
                f"still without an embedding: {left:,}; at this rate `index` needs ~{minutes:,.0f} min "
                "more (it resumes where it stopped)"
            )
        return out


def record_from_row(row: dict[str, Any], settings_names: dict[str, str]) -> EntityRecord:
    """An :class:`EntityRecord` from a `{id, labels, props}` row of the pending-page query."""
    props = dict(row.get("props") or {})
    for key in (settings_names["id"], settings_names["embedding"]):
        props.pop(key, None)
    name = props.pop(settings_names["name"], None)
    description = props.pop(settings_names["description"], None)
    return EntityRecord(
        id=str(row["id"]),
        labels=type_labels(row.get("labels") or ()),
        name=str(name) if name is not None else str(row["id"]),
        description=str(description) if description else "",
        attributes=props,
    )


def property_names(graph: Graph) -> dict[str, str]:
    """The entity property names :func:`record_from_row` needs (id, name, description, embedding)."""
    s = graph.settings
    return {
        "id": s.id_property,
        "name": s.name_property,
        "description": s.description_property,
        "embedding": s.embedding_property,
    }


def embed_entities(
    graph: Graph,
    encoder: TextEncoder,
    *,
    community: str | None = None,
    batch_size: int = 512,
    force: bool = False,
    progress: bool = True,
    max_batches: int | None = None,
    report: IndexReport | None = None,
    on_page: Callable[[], None] | None = None,
) -> IndexReport:
    """Embed the entities that lack an embedding (all of them with `force`), page by page.

    Args:
        graph: the connection.
        encoder: the embedder.
        community: only this community's entities (all entities when None).
        batch_size: entities per page (read, embed, write back in one go).
        force: re-embed entities that have an embedding too.
        progress: show a progress bar.
        max_batches: stop after this many pages (to test resuming; None = all).
        report: add to this report.
        on_page: called after each page is written (a load records that it is alive).

    Raises:
        InvalidInput: `batch_size` < 1.
        SchemaError: the community does not exist.
    """
    if batch_size < 1:
        raise InvalidInput(f"batch size must be at least 1 (got {batch_size}); pass --batch-size 512")
    report = report or IndexReport()
    s = graph.settings
    if community is not None and not graph.read("load_community_exists", community_id=community):
        raise SchemaError(f"no community {community!r} in the database; load it first or fix --community")
    counts = graph.read("index_pending_count", community=community, force=force)
    report.total = int(counts[0]["total"]) if counts else 0
    report.pending = int(counts[0]["pending"]) if counts else 0
    query = "index_pending_all" if community is None else "index_pending_community"
    names = property_names(graph)
    after = ""
    batches = 0
    t0 = time.perf_counter()
    with progress_bar(report.pending, "embed", "entity", enabled=progress) as bar:
        while max_batches is None or batches < max_batches:
            rows = graph.read(
                query,
                community=community,
                after=after,
                limit=batch_size,
                force=force,
                entity_label=s.entity_label,
                embedding_key=s.embedding_property,
            )
            if not rows:
                break
            texts = [entity_text(record_from_row(r, names)) for r in rows]
            vectors = np.asarray(encoder.encode(texts), dtype=np.float32)
            if vectors.shape != (len(rows), encoder.dim):
                raise SchemaError(
                    f"the embedder returned shape {vectors.shape} for {len(rows)} texts; check the model"
                )
            graph.write(
                "index_write_embeddings",
                rows=[{"id": r["id"], "vector": v.tolist()} for r, v in zip(rows, vectors, strict=True)],
            )
            report.embedded += len(rows)
            bar.update(len(rows))
            after = str(rows[-1]["id"])
            batches += 1
            if on_page is not None:
                on_page()
    report.embed_seconds += time.perf_counter() - t0
    return report


def vector_index_state(graph: Graph, name: str | None = None) -> dict[str, Any] | None:
    """A vector index's row of SHOW INDEXES (name, type, state, populationPercent, ...), or None.

    `name`: the index (default: the entity index of the settings).
    """
    rows = graph.read("index_vector_state", index_name=name or graph.settings.vector_index)
    return rows[0] if rows else None


#: The vector indexes: kind -> (settings field of its name, settings field of its label, creating
#: statement, the variable that renames it).
VECTOR_INDEXES = {
    "entity": ("vector_index", "entity_label", "index_create_vector", "PATHRAG_VECTOR_INDEX"),
    "chunk": ("chunk_vector_index", "chunk_label", "index_create_chunk_vector", "PATHRAG_CHUNK_VECTOR_INDEX"),
    "cluster": (
        "cluster_vector_index",
        "cluster_label",
        "index_create_cluster_vector",
        "PATHRAG_CLUSTER_VECTOR_INDEX",
    ),
}


def _not_created(graph: Graph, name: str, label: str, setting: str, dim: int) -> str:
    """Why index `name` is missing after its creation: another index holds its label and property.

    Neo4j keeps one vector index per label and property and answers a second `CREATE ... IF NOT
    EXISTS` with a notice only (a Thalabus graph, or another tool, may have made one on
    `Entity.embedding`).
    """
    prop = graph.settings.embedding_property
    rows = graph.read("index_vector_on", label=label, property=prop)
    if not rows:
        return f"vector index {name!r} was not created; check the server log"
    other = rows[0]
    usable = other.get("dimensions") in (None, dim) and str(other.get("similarity") or "").lower() == "cosine"
    fix = (
        f"to search with it, set {setting}={other['name']}"
        if usable
        else f"it is not usable here ({dim} dimensions, cosine needed): set PATHRAG_EMBEDDING_PROPERTY "
        f"to another property, or drop it (DROP INDEX {other['name']})"
    )
    return (
        f"vector index {name!r} was not created: the database already has the vector index "
        f"{other['name']!r} on :{label}({prop}) ({other.get('dimensions')} dimensions, "
        f"{other.get('similarity')}), and Neo4j keeps one per label and property; {fix}"
    )


def ensure_vector_index(
    graph: Graph,
    dim: int,
    *,
    timeout: float = 900.0,
    progress: bool = True,
    chunks: bool = False,
    kind: str = "entity",
    on_wait: Callable[[], None] | None = None,
) -> dict[str, Any]:
    """Create the vector index if missing and wait until it is ONLINE.

    `kind`: `entity` (the seeds'), `chunk` (`chunks=True` too) or `cluster` (the cluster summaries').
    `on_wait`: called every few seconds while it waits (a load records that it is alive).

    Raises:
        SchemaError: an index of that name exists with another definition, or it FAILED or did not
            come online within `timeout` seconds.
    """
    s = graph.settings
    name_field, label_field, create, setting = VECTOR_INDEXES["chunk" if chunks else kind]
    name = str(getattr(s, name_field))
    state = vector_index_state(graph, name)
    if state is None:
        graph.schema_command(create, dim=dim)
        state = vector_index_state(graph, name)
    if state is None:
        raise SchemaError(_not_created(graph, name, str(getattr(s, label_field)), setting, dim))
    expected = ([str(getattr(s, label_field))], [s.embedding_property])
    if (
        state.get("type") != "VECTOR"
        or (state.get("labelsOrTypes"), state.get("properties")) != expected
        or (state.get("dimensions") is not None and int(state["dimensions"]) != dim)
    ):
        raise SchemaError(
            f"index {name!r} exists as {state.get('type')} on {state.get('labelsOrTypes')}"
            f"{state.get('properties')} with {state.get('dimensions')} dimensions, not VECTOR on "
            f"{expected[0]}{expected[1]} with {dim}: drop it (DROP INDEX {name}) or set {setting}"
        )
    deadline = time.monotonic() + timeout
    waited = time.monotonic()
    with progress_bar(100.0, f"vector index {name}", "%", enabled=progress, percent=True) as bar:
        while True:
            set_share(bar, float(state.get("populationPercent") or 0.0))
            if state.get("state") == "ONLINE":
                return state
            if state.get("state") == "FAILED":
                raise SchemaError(
                    f"vector index {name!r} FAILED; drop it (DROP INDEX {name}) and run `index` again"
                )
            if time.monotonic() > deadline:
                raise SchemaError(
                    f"vector index {name!r} is still {state.get('state')} after {timeout:.0f} s; "
                    "run `index` again later to keep waiting"
                )
            time.sleep(0.5)
            if on_wait is not None and time.monotonic() - waited > 5.0:
                on_wait()
                waited = time.monotonic()
            state = vector_index_state(graph, name) or {}


def index_entities(
    graph: Graph,
    encoder: TextEncoder,
    *,
    community: str | None = None,
    batch_size: int = 512,
    force: bool = False,
    progress: bool = True,
    limit: int | None = None,
) -> IndexReport:
    """Embed the missing embeddings, then create the vector index and wait for it (the `index` command).

    Never the entities of a community pathrag_gds did not load (a Thalabus one, whose `embedding` is
    its own model's): `community` naming one is refused, and without `community` they are passed over.

    `limit`: embed at most about this many entities (whole pages; a sample, to measure the rate on a
    large graph); the rest keeps waiting for the next run.
    """
    if limit is not None and limit < 0:
        raise InvalidInput(f"the limit must be 0 or more entities (got {limit})")
    if community is not None:
        from pathrag_gds.adopt.owner import check_own

        check_own(graph, community, "index")  # a Thalabus community's `embedding` is its own model's
    t0 = time.perf_counter()
    pages = None if limit is None else -(-limit // max(batch_size, 1))
    report = embed_entities(
        graph,
        encoder,
        community=community,
        batch_size=batch_size,
        force=force,
        progress=progress,
        max_batches=pages,
    )
    t1 = time.perf_counter()
    state = ensure_vector_index(graph, encoder.dim, progress=progress)
    report.index_seconds = time.perf_counter() - t1
    report.index_state = str(state.get("state"))
    report.seconds = time.perf_counter() - t0
    return report
