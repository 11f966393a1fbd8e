r"""A parsed document as the rows the graph stores: its sections and chunks with stable keys.

Keys make versions cheap. A section's key is its document key, heading path and place among
sections with that path, so it stays while those stay. A chunk's key is its section's key, its
text and its place among equal texts there: an unchanged passage of a changed document keeps its
key and its node (with its embedding and mentions); only its location may move.

Example:
    >>> parsed = parse_text("# Bob\n\nBob is a cat.\n", markdown=True)
    >>> plan = plan_document("bob", "c", parsed, lambda t, o, md: [(o, o + len(t), t)], MentionIndex([]))
    >>> [c.headings for c in plan.chunks], plan.chunks[0].range
    ([('Bob',)], (6, 21))
"""

from __future__ import annotations

import hashlib
import itertools
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from pathrag_gds.documents.mentions import MentionIndex
from pathrag_gds.documents.parse import ParsedText, parse_text

#: (text, offset, markdown) -> [(start, end, chunk text)]
SplitFn = Callable[[str, int, bool], list[tuple[int, int, str]]]

__all__ = ["DocChunk", "DocumentPlan", "SectionRow", "content_hash", "parse_text", "plan_document"]


def _digest(*parts: str) -> str:
    return hashlib.sha256("\x1f".join(parts).encode("utf-8")).hexdigest()[:20]


def content_hash(text: str) -> str:
    """The SHA-256 of a document's text."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass(frozen=True, slots=True)
class SectionRow:
    """A section node: key, parent (None: the document), reading order, heading path, depth, range."""

    id: str
    parent: str | None
    order: int
    path: tuple[str, ...]
    depth: int
    range: tuple[int, int]


@dataclass(frozen=True, slots=True)
class DocChunk:
    """A chunk node: key, section, reading order under it, text, location, headings, mentioned ids."""

    id: str
    section: str
    order: int
    text: str
    range: tuple[int, int]
    headings: tuple[str, ...]
    mentions: tuple[str, ...] = ()


@dataclass
class DocumentPlan:
    """Everything one version of one document writes."""

    key: str
    community_id: str
    title: str
    source: str
    content_hash: str
    chunker: str
    sections: list[SectionRow] = field(default_factory=list)
    chunks: list[DocChunk] = field(default_factory=list)
    published_at: str | None = None
    content_date: str | None = None

    def row(self) -> dict[str, Any]:
        """The parameter row of `cypher/documents_write.cypher`."""
        props: dict[str, Any] = {
            "title": self.title,
            "source": self.source,
            "content_hash": self.content_hash,
            "chunker": self.chunker,
            "published_at": self.published_at,
            "content_date": self.content_date,
        }
        common = {"document_key": self.key, "community_id": self.community_id}
        ranges = {s.id: list(s.range) for s in self.sections} | {c.id: list(c.range) for c in self.chunks}
        return {
            "key": self.key,
            "props": props,
            "ranges": ranges,
            "sections": [
                {
                    "id": s.id,
                    "parent": s.parent,
                    "order": s.order,
                    "range": list(s.range),
                    "props": {
                        **common,
                        "section_key": s.id,
                        "heading": s.path[-1],
                        "depth": s.depth,
                        "headings": list(s.path),
                    },
                }
                for s in self.sections
            ],
            "chunks": [
                {
                    "id": c.id,
                    "section": c.section,
                    "order": c.order,
                    "range": list(c.range),
                    "mentions": list(c.mentions),
                    "props": {
                        **common,
                        "text": c.text,
                        "headings": [h for h in c.headings if h],
                        "section_ids": [c.section],
                        "chunker": self.chunker,
                    },
                }
                for c in self.chunks
            ],
            "next": [[a.id, b.id] for a, b in itertools.pairwise(self.chunks)],
        }


def plan_document(
    key: str,
    community_id: str,
    parsed: ParsedText,
    split: SplitFn,
    mentions: MentionIndex,
    *,
    source: str = "",
    chunker: str = "",
    published_at: str | None = None,
    content_date: str | None = None,
) -> DocumentPlan:
    """Sections and chunks of one document version, keyed, ordered and linked to the entities they name.

    A chunk mentions the entities named in its text or in its own section heading.
    """
    plan = DocumentPlan(
        key=key,
        community_id=community_id,
        title=parsed.title or key,
        source=source,
        content_hash=content_hash(parsed.text),
        chunker=chunker,
        published_at=published_at,
        content_date=content_date,
    )
    seen_paths: Counter[tuple[str, ...]] = Counter()
    latest: dict[tuple[str, ...], str] = {}
    children: dict[str | None, list[tuple[int, str]]] = defaultdict(list)
    sections: list[tuple[str, str | None, tuple[str, ...], int, tuple[int, int]]] = []
    pending: list[tuple[int, str, str, tuple[int, int], tuple[str, ...], tuple[str, ...]]] = []
    for span in parsed.sections:
        sid = f"{key}#s-{_digest(key, *span.path, str(seen_paths[span.path]))}"
        seen_paths[span.path] += 1
        parent = latest.get(span.path[:-1]) if len(span.path) > 1 else None
        latest[span.path] = sid
        sections.append((sid, parent, span.path, span.depth, span.range))
        children[parent].append((span.range[0], sid))
        body = parsed.text[span.body[0] : span.body[1]]
        texts: Counter[str] = Counter()
        for start, end, text in split(body, span.body[0], parsed.markdown):
            cid = f"{key}#c-{_digest(sid, text, str(texts[text]))}"
            texts[text] += 1
            found = tuple(mentions.find(text, span.heading))
            pending.append((start, cid, sid, (start, end), span.path, found))
            children[sid].append((start, cid))
    order = {cid: i for kids in children.values() for i, (_, cid) in enumerate(sorted(kids))}
    plan.sections = [SectionRow(s, p, order[s], path, d, r) for s, p, path, d, r in sections]
    plan.chunks = [
        DocChunk(cid, sid, order[cid], parsed.text[r[0] : r[1]], r, path, found)
        for _, cid, sid, r, path, found in sorted(pending)
    ]
    return plan
