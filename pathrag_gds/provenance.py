"""Reading provenance for a search: the chunks that cite a path's entities, and chunk seeds.

Both read a document's chunks only through a HAS_PART edge that is open (the current versions) or,
with `as_of`, valid at that moment, and only documents of the query's community.

Example:
    >>> parse_as_of("2026-01-31T12:00:00Z").isoformat()
    '2026-01-31T12:00:00+00:00'
    >>> parse_as_of("2026-01-31").isoformat()
    '2026-01-31T00:00:00+00:00'
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from pathrag_gds.errors import InvalidInput, SchemaError
from pathrag_gds.graph import Graph, RoundTripCounter
from pathrag_gds.results import SourceChunk

#: A community with at most this many embedded chunks is scanned exactly (no chunk index needed).
EXACT_CHUNK_SCAN = 20000


def parse_as_of(value: str | datetime | None) -> datetime | None:
    """A moment to read document versions at: ISO 8601 text or a datetime; no zone means UTC.

    Raises:
        InvalidInput: text that is not an ISO 8601 date or timestamp.
    """
    if value is None or isinstance(value, datetime):
        moment = value
    else:
        try:
            moment = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
        except ValueError as exc:
            raise InvalidInput(
                f"as_of {value!r} is not an ISO 8601 timestamp: write e.g. 2026-01-31T12:00:00Z"
            ) from exc
    if moment is not None and moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment


def read_sources(
    graph: Graph,
    entity_ids: list[str],
    *,
    community: str | None,
    as_of: datetime | None,
    per_entity: int = 2,
    counter: RoundTripCounter | None = None,
    hidden: Sequence[str] = (),
) -> dict[str, list[SourceChunk]]:
    """Entity id -> the chunks that mention it (at most `per_entity`, in reading order), one round trip.

    `hidden`: loads whose mentions are skipped besides those that have not completed (the query's).
    """
    out: dict[str, list[SourceChunk]] = {}
    rows = graph.read(
        "provenance",
        counter=counter,
        ids=entity_ids,
        per_entity=per_entity,
        community=community,
        as_of=as_of,
        pinned=list(hidden),
    )
    for row in rows:
        out[row["id"]] = [
            SourceChunk(
                id=c["id"],
                text=c["text"],
                source=c.get("source"),
                entity_id=row["id"],
                document_key=c.get("document_key"),
                document_title=c.get("title"),
                headings=[h for h in c.get("headings") or [] if h],
                char_range=tuple(c["range"]) if c.get("range") else None,
            )
            for c in row["chunks"]
        ]
    return out


def chunk_seed_rows(
    graph: Graph,
    qvec: list[float],
    *,
    community: str | None,
    as_of: datetime | None,
    seed_n: int,
    counter: RoundTripCounter | None = None,
    hidden: Sequence[str] = (),
) -> list[dict[str, Any]]:
    """Seed rows (as `seeds.cypher`) of the entities the question's nearest chunks mention.

    The `seed_n` chunks nearest to the question (exact scan in a small community, else the chunk
    vector index) give their mentioned entities of the community, each scored by its best chunk.
    `hidden`: loads to skip besides those that have not completed (the query's own reading).

    Raises:
        SchemaError: a large community, or no community, and no chunk vector index.
    """
    s = graph.settings
    exact = False
    if community is not None:
        rows = graph.read("chunk_count", counter=counter, community_id=community)
        exact = bool(rows) and int(rows[0]["chunks"]) <= EXACT_CHUNK_SCAN
    if not exact and not graph.read("index_vector_state", index_name=s.chunk_vector_index):
        raise SchemaError(
            f"chunk seeds need the chunk vector index {s.chunk_vector_index!r}: load documents with "
            "embeddings (`load documents ...` without --no-embed), or set PATHRAG_CHUNK_SEED_N=0"
        )
    return graph.read(
        "chunk_seeds",
        counter=counter,
        index_name=s.chunk_vector_index,
        k=seed_n * 20,
        qvec=qvec,
        chunks=seed_n,
        seed_n=seed_n,
        community=community,
        exact=exact,
        as_of=as_of,
        pinned=list(hidden),
        entity_label=s.entity_label,
        embedding_key=s.embedding_property,
    )
