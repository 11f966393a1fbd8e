"""Embedding document chunks for the chunk vector index (chunk seeds).

Only chunks without an embedding are read (keyset pages of one community), so a chunk reused by a
new version of its document keeps its vector and a second run resumes an interrupted one. A chunk is
embedded with its heading path in front: `Chapter 3 > The spilled milk incident: After breakfast...`.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

import numpy as np

from pathrag_gds.graph import Graph
from pathrag_gds.indexing import TextEncoder, ensure_vector_index
from pathrag_gds.progress import bar as progress_bar


def chunk_text(text: str, headings: Sequence[str] | None) -> str:
    """The text a chunk is embedded as: its heading path, then its text.

    Example:
        >>> chunk_text("Bob hid.", ["Bob", "Chapter 3"])
        'Bob > Chapter 3: Bob hid.'
    """
    path = " > ".join(h for h in headings or () if h)
    return f"{path}: {text}" if path else text


def embed_chunks(
    graph: Graph,
    encoder: TextEncoder,
    community_id: str,
    *,
    batch_size: int = 256,
    total: int | None = None,
    progress: bool = True,
) -> tuple[int, float]:
    """Embed the community's chunks that lack an embedding, then make sure the chunk index exists.

    Returns:
        (chunks embedded, seconds).
    """
    t0 = time.perf_counter()
    done = 0
    after = ""
    with progress_bar(total, "embed chunks", "chunk", enabled=progress) as bar:
        while True:
            rows = graph.read("chunk_pending", community_id=community_id, after=after, limit=batch_size)
            if not rows:
                break
            vectors = np.asarray(
                encoder.encode([chunk_text(r["text"], r.get("headings")) for r in rows]), dtype=np.float32
            )
            graph.write(
                "chunk_write_embeddings",
                rows=[{"id": r["id"], "vector": v.tolist()} for r, v in zip(rows, vectors, strict=True)],
            )
            done += len(rows)
            bar.update(len(rows))
            after = str(rows[-1]["id"])
    if done:
        ensure_vector_index(graph, encoder.dim, progress=progress, chunks=True)
    return done, time.perf_counter() - t0
