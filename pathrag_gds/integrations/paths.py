"""What every adapter says of a ranked path: its words and its plain fields (no outside library).

Example:
    >>> from pathrag_gds.results import PathResult
    >>> p = PathResult(rank=1, score=0.5, depth=1, key="k", text="Bob is owned by Jane. ||| Bob is a cat.",
    ...                path_context=["Bob <- owns <- Jane"], nodes=[], edges=[], answer_candidates=[])
    >>> path_words(p), path_fields(p)["answer"]
    ('Bob is owned by Jane.', None)
"""

from __future__ import annotations

from typing import Any

from pathrag_gds.results import PathResult

#: Separator of the path's own sentences and its entities' descriptions in `PathResult.text`.
TEXT_PARTS = " ||| "


def path_words(path: PathResult) -> str:
    """The path as a sentence (`Bob is owned by Jane (since is kitten).`), without the descriptions.

    A 0-hop path (a seed entity alone) is its entity's description.
    """
    return path.text.split(TEXT_PARTS, 1)[0].strip()


def path_fields(path: PathResult) -> dict[str, Any]:
    """The fields every adapter carries: rank, score and its parts, depth, answer, chain, sources.

    Plain values only (`model_dump` of the typed parts); each adapter adds its own nodes and edges.
    """
    return {
        "rank": path.rank,
        "score": path.score,
        "score_parts": dict(path.score_parts),
        "depth": path.depth,
        "answer": path.answer_candidates[0].name if path.answer_candidates else None,
        "answer_candidates": [a.model_dump() for a in path.answer_candidates],
        "path_context": list(path.path_context),
        "chain": list(path.chain),
        "sources": [s.model_dump() for s in path.sources],
    }
