"""What a load did: counts of created, existing, changed and refused items, as lines to print."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from pathrag_gds.indexing import IndexReport

#: Refused ids listed in a load report (the count covers all of them).
MAX_LISTED_REFUSED = 5


@dataclass
class LoadReport:
    """What a load did. `created` counts new nodes / relationships, `existing` ones already there.

    `*_refused` count what another community owns and the load left alone (see `GraphLoader.load`);
    `refused_ids` lists the first entity and chunk ids refused.
    """

    community_id: str
    entities_created: int = 0
    entities_existing: int = 0
    entities_changed: int = 0
    entities_refused: int = 0
    relationships_created: int = 0
    relationships_existing: int = 0
    relationships_missing_endpoint: int = 0
    relationships_refused: int = 0
    chunks: int = 0
    chunks_refused: int = 0
    mentions: int = 0
    mentions_refused: int = 0
    refused_ids: list[str] = field(default_factory=list)
    seconds: float = 0.0
    #: the version this load wrote (readers see it since the load completed)
    load_id: str = ""
    #: what the load found of an earlier load that had not completed (resumed or discarded; logged as
    #: a warning when the load starts)
    note: str | None = None
    #: staged changes to what readers saw, applied when the load completed: entities,
    #: relationships, chunks
    staged: dict[str, int] = field(default_factory=dict)
    #: the embedding and vector index step done before the load completed (`encoder` given)
    index: IndexReport | None = None

    @property
    def refused(self) -> int:
        """Entities, relationships, chunks and mentions refused because another community owns them."""
        return (
            self.entities_refused + self.relationships_refused + self.chunks_refused + self.mentions_refused
        )

    def note_refused(self, ids: Sequence[str]) -> None:
        """Remember the first refused ids."""
        room = MAX_LISTED_REFUSED - len(self.refused_ids)
        if room > 0:
            self.refused_ids.extend(ids[:room])

    def lines(self) -> list[str]:
        """The report as human-readable lines."""
        version = f" as version {self.load_id}" if self.load_id else ""
        out = [
            f"community {self.community_id}: loaded{version} in {self.seconds:.1f} s (readers see it "
            "whole from now on, nothing of it before)",
            f"  entities:      {self.entities_created + self.entities_existing:>9,} "
            f"({self.entities_created:,} created, {self.entities_existing:,} existing, "
            f"{self.entities_changed:,} of them changed)",
            f"  relationships: {self.relationships_created + self.relationships_existing:>9,} "
            f"({self.relationships_created:,} created, {self.relationships_existing:,} existing)",
            f"  chunks:        {self.chunks:>9,} ({self.mentions:,} mentions)",
        ]
        if self.relationships_missing_endpoint:
            out.append(
                f"  {self.relationships_missing_endpoint:,} relationship(s) not written: an endpoint "
                "is missing"
            )
        if self.refused:
            listed = ", ".join(repr(i) for i in self.refused_ids)
            out.append(
                f"  REFUSED (owned by another community, left unchanged): {self.entities_refused:,} "
                f"entities, {self.relationships_refused:,} relationships, {self.chunks_refused:,} "
                f"chunks, {self.mentions_refused:,} mentions; first ids: {listed or '-'}. Use other "
                "ids, or pass --shared (GraphLoader.load(shared=True)) to change and share them"
            )
        return out
