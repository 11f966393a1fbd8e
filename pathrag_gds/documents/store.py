"""Loading documents into a community, versioned (`python -m pathrag_gds load documents`).

Every file is read, checked and split before anything is written, so a bad file (binary, empty,
a key another community owns) leaves the graph as it was. Then each document is one of:

- unchanged (same content hash and chunker as stored): nothing is written;
- new or changed: `cypher/documents_write.cypher` writes its version in one transaction with the
  others of its batch: open HAS_PART edges of parts that are gone (or moved) close at `now`, parts
  are MERGEd by key (an unchanged chunk is reused), parts without an open edge get one.

`remove` closes a document's open edges: it leaves retrieval at once and stays in history.

Example:
    >>> loader = DocumentLoader(graph, Chunker.from_settings(settings))  # doctest: +SKIP
    >>> loader.load([Path("notes.md")], "mine").lines()  # doctest: +SKIP
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pathrag_gds.datasets.loader import DatasetError, batched, check_text
from pathrag_gds.documents.chunking import Chunker
from pathrag_gds.documents.embed import embed_chunks
from pathrag_gds.documents.mentions import MentionIndex
from pathrag_gds.documents.model import DocumentPlan, content_hash, plan_document
from pathrag_gds.documents.parse import ParsedText, parse_file
from pathrag_gds.graph import Graph
from pathrag_gds.indexing import TextEncoder
from pathrag_gds.progress import bar as progress_bar

#: Constraints and indexes of the document model (all `IF NOT EXISTS`).
DOCUMENT_SCHEMA = ("schema_document_key", "schema_section_id", "schema_chunk_id", "schema_chunk_community")


@dataclass
class DocumentReport:
    """What one `load documents` (or `remove`) did."""

    community_id: str
    documents: int = 0
    unchanged: int = 0
    new: int = 0
    changed: int = 0
    removed: int = 0
    sections_created: int = 0
    chunks: int = 0
    chunks_created: int = 0
    parts_opened: int = 0
    parts_closed: int = 0
    mentions: int = 0
    embedded: int = 0
    read_seconds: float = 0.0
    write_seconds: float = 0.0
    embed_seconds: float = 0.0
    seconds: float = 0.0

    @property
    def pages_per_second(self) -> float:
        """Documents read, split and written per second (embedding excluded)."""
        busy = self.read_seconds + self.write_seconds
        return self.documents / busy if busy > 0 else 0.0

    def lines(self) -> list[str]:
        """The report as human-readable lines."""
        out = [
            f"community {self.community_id}: {self.documents:,} document(s) in {self.seconds:.1f} s "
            f"({self.new:,} new, {self.changed:,} changed, {self.unchanged:,} unchanged"
            + (f", {self.removed:,} removed" if self.removed else "")
            + ")"
        ]
        if self.new or self.changed:
            out.append(
                f"  chunks: {self.chunks:,} in the new versions ({self.chunks_created:,} created, "
                f"{self.chunks - self.chunks_created:,} reused), {self.sections_created:,} sections "
                f"created, {self.mentions:,} mentions"
            )
            out.append(
                f"  HAS_PART edges: {self.parts_opened:,} opened, {self.parts_closed:,} closed; "
                f"{self.pages_per_second:,.1f} documents/s (read {self.read_seconds:.1f} s, "
                f"write {self.write_seconds:.1f} s)"
            )
        if self.removed:
            out.append(f"  HAS_PART edges: {self.parts_closed:,} closed (history stays; `as_of` reads it)")
        if self.embedded:
            out.append(f"  embedded {self.embedded:,} chunk(s) in {self.embed_seconds:.1f} s")
        return out


def _aliases(value: Any) -> tuple[str, ...]:
    if isinstance(value, str):
        return (value,)
    if isinstance(value, list | tuple):
        return tuple(str(v) for v in value if v)
    return ()


def _check_key(key: str, path: Path) -> str:
    if not key.strip():
        raise DatasetError(f"{path}: the document key is empty; pass --key KEY")
    return check_text(key, f"{path}: document key")


class DocumentLoader:
    """Writes documents of one community, versioned.

    Args:
        graph: the connection.
        chunker: splits section text into chunks.
        embedder: embeds new chunks for the chunk index (None: no embedding).
        batch_size: documents per write transaction.
        progress: show progress bars (on stderr).
    """

    def __init__(
        self,
        graph: Graph,
        chunker: Chunker,
        *,
        embedder: TextEncoder | None = None,
        batch_size: int = 50,
        progress: bool = True,
    ) -> None:
        if batch_size < 1:
            raise DatasetError(f"batch size must be at least 1 (got {batch_size}); pass --batch-size 50")
        self.graph = graph
        self.chunker = chunker
        self.embedder = embedder
        self.batch_size = batch_size
        self.progress = progress

    def _split(self, text: str, offset: int, markdown: bool) -> list[tuple[int, int, str]]:
        return self.chunker.split(text, offset=offset, markdown=markdown)

    def _check_community(self, community_id: str) -> None:
        if not self.graph.read("load_community_exists", community_id=community_id):
            raise DatasetError(
                f"no community {community_id!r}: load its entities first (`load graph` or `load triples`), "
                "or fix --community"
            )

    def _owned(self, keys: Sequence[str], community_id: str) -> dict[str, dict[str, Any]]:
        """The stored state of `keys`; refuses keys that another community owns."""
        state = {r["key"]: r for r in self.graph.read("documents_state", keys=list(keys))}
        foreign = sorted(k for k, r in state.items() if r["community_id"] != community_id)
        if foreign:
            raise DatasetError(
                f"document key(s) {foreign[:5]} belong to another community; nothing loaded. "
                "Give these documents other keys (--key)"
            )
        return state

    def load(
        self,
        paths: Sequence[Path],
        community_id: str,
        *,
        key: str | None = None,
        published_at: str | None = None,
        content_date: str | None = None,
    ) -> DocumentReport:
        """Load Markdown / text files as documents of `community_id` (key: `key`, else the file stem).

        Raises:
            DatasetError: a bad file, a repeated or foreign key, no such community; nothing written.
        """
        t0 = time.perf_counter()
        if not paths:
            raise DatasetError("no files given; pass one or more Markdown or text files")
        if key is not None and len(paths) != 1:
            raise DatasetError(
                f"--key names one document, but {len(paths)} files were given; load them one by one"
            )
        report = DocumentReport(community_id)
        self._check_community(community_id)
        parsed: list[tuple[str, Path, ParsedText]] = []
        with progress_bar(len(paths), "read documents", "doc", enabled=self.progress) as bar:
            for path in paths:
                parsed.append((_check_key(key or path.stem, path), path, parse_file(path)))
                bar.update(1)
        repeated = sorted(k for k, n in Counter(k for k, _, _ in parsed).items() if n > 1)
        if repeated:
            raise DatasetError(
                f"document key(s) {repeated[:5]} given twice (the key is the file name without its "
                "ending): rename the files or load them one by one with --key"
            )
        state = self._owned([k for k, _, _ in parsed], community_id)
        index = MentionIndex(
            (str(r["id"]), str(r["name"] or ""), _aliases(r["aliases"]))
            for r in self.graph.read(
                "documents_entities",
                community_id=community_id,
                aliases_key=self.graph.settings.aliases_property,
            )
        )
        plans: list[DocumentPlan] = []
        for k, path, doc in parsed:
            report.documents += 1
            old = state.get(k)
            if old and old["content_hash"] == content_hash(doc.text) and old["chunker"] == self.chunker.name:
                report.unchanged += 1
                continue
            if old and old["content_hash"] is not None:
                report.changed += 1
            else:
                report.new += 1
            plans.append(
                plan_document(
                    k,
                    community_id,
                    doc,
                    self._split,
                    index,
                    source=str(path),
                    chunker=self.chunker.name,
                    published_at=published_at,
                    content_date=content_date,
                )
            )
        report.read_seconds = time.perf_counter() - t0
        if plans:
            self._write(plans, community_id, report)
        if self.embedder is not None:
            report.embedded, report.embed_seconds = embed_chunks(
                self.graph,
                self.embedder,
                community_id,
                total=report.chunks_created or None,
                progress=self.progress,
            )
        report.seconds = time.perf_counter() - t0
        return report

    def _write(self, plans: Sequence[DocumentPlan], community_id: str, report: DocumentReport) -> None:
        t0 = time.perf_counter()
        for name in DOCUMENT_SCHEMA:
            self.graph.schema_command(name)
        now = datetime.now(UTC)
        with progress_bar(len(plans), "write documents", "doc", enabled=self.progress) as bar:
            for batch in batched(plans, self.batch_size):
                rows = self.graph.write(
                    "documents_write", docs=[p.row() for p in batch], community_id=community_id, now=now
                )
                for r in rows:
                    report.parts_closed += int(r["closed"])
                    report.sections_created += int(r["sections_created"])
                    report.parts_opened += int(r["sections_opened"]) + int(r["chunks_opened"])
                    report.chunks_created += int(r["chunks_created"])
                    report.chunks += int(r["chunks"])
                    report.mentions += int(r["mentions"])
                bar.update(len(batch))
        report.write_seconds = time.perf_counter() - t0

    def remove(self, keys: Sequence[str], community_id: str) -> DocumentReport:
        """Close the open HAS_PART edges of documents: they leave retrieval and stay in history.

        Raises:
            DatasetError: a key the community does not have; nothing changed.
        """
        t0 = time.perf_counter()
        report = DocumentReport(community_id)
        self._check_community(community_id)
        state = self._owned(keys, community_id)
        missing = sorted(set(keys) - set(state))
        if missing:
            raise DatasetError(
                f"community {community_id!r} has no document(s) {missing[:5]}; nothing removed"
            )
        rows = self.graph.write(
            "documents_remove",
            keys=list(dict.fromkeys(keys)),
            community_id=community_id,
            now=datetime.now(UTC),
        )
        report.removed = len(rows)
        report.parts_closed = sum(int(r["closed"]) for r in rows)
        report.seconds = time.perf_counter() - t0
        return report


def document_counts(graph: Graph, community_id: str) -> dict[str, int]:
    """Documents (removed ones too), sections, chunks, open and closed HAS_PART edges, mentions."""
    rows = graph.read("documents_counts", community_id=community_id)
    return {k: int(v) for k, v in rows[0].items()} if rows else {}
