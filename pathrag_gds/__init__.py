"""pathrag_gds: path retrieval for Neo4j knowledge graphs.

Seeds come from a vector index, the beam is expanded inside Neo4j one round trip per depth, and
paths are scored by a small ONNX model over a natural-language serialization of the path.

Example:
    >>> from pathrag_gds import get_pathrag_service  # doctest: +SKIP
    >>> question = "In which village was Bob when the milk was spilled?"
    >>> result = get_pathrag_service().pathrag(question)  # doctest: +SKIP
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

if TYPE_CHECKING:  # pragma: no cover
    from pathrag_gds.service import PathRag, PathRagInterface, get_pathrag_service

__all__ = ["PathRag", "PathRagInterface", "__version__", "get_pathrag_service"]


def __getattr__(name: str) -> Any:
    """Import the service lazily so that `python -m pathrag_gds db ...` stays light."""
    if name in {"PathRag", "PathRagInterface", "get_pathrag_service"}:
        from pathrag_gds import service

        return getattr(service, name)
    raise AttributeError(name)
