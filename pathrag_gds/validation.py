"""What a question must satisfy before a search starts: its parameters, then the graph it runs on.

The parameter checks are pure; the graph checks read what the service knows of the graph
(:class:`~pathrag_gds.catalog.GraphInfo`) and re-read it once when a community or the vector index
is missing (it may have been loaded since).

Example:
    >>> check_parameters("Who owns Bob?", top_n=5, max_depth=2, seed_n=10)
    >>> check_parameters(" ", top_n=5, max_depth=2, seed_n=10)
    Traceback (most recent call last):
    ...
    pathrag_gds.errors.InvalidInput: the question is empty: pass a question in words
"""

from __future__ import annotations

from collections.abc import Callable

from pathrag_gds.catalog import GraphInfo
from pathrag_gds.config import Settings
from pathrag_gds.errors import InvalidInput, SchemaError

MAX_QUESTION_CHARS = 2000
MAX_DEPTH_LIMIT = 10


def check_parameters(query: str, top_n: int, max_depth: int, seed_n: int) -> None:
    """Refuse an empty or over-long question and limits out of range.

    Raises:
        InvalidInput: naming the parameter and its range.
    """
    if not isinstance(query, str) or not query.strip():
        raise InvalidInput("the question is empty: pass a question in words")
    if len(query) > MAX_QUESTION_CHARS:
        raise InvalidInput(f"the question is {len(query)} characters; keep it under {MAX_QUESTION_CHARS}")
    if not 0 <= max_depth <= MAX_DEPTH_LIMIT:
        raise InvalidInput(f"max_depth must be between 0 and {MAX_DEPTH_LIMIT} (got {max_depth})")
    if not 1 <= top_n <= 100:
        raise InvalidInput(f"top_n must be between 1 and 100 (got {top_n})")
    if not 1 <= seed_n <= 500:
        raise InvalidInput(f"seed_n must be between 1 and 500 (got {seed_n})")


def check_graph(
    settings: Settings,
    info: Callable[[], GraphInfo],
    refresh: Callable[[], GraphInfo],
    community_id: str | None,
    *,
    seeded: bool = False,
) -> None:
    """Refuse an unknown community, a graph without entities, or one that is not indexed.

    Not indexed: the vector index is missing, or the community's entities have no embeddings (it was
    loaded, never indexed), so no search could start from the vector index.

    Args:
        settings: the entity label and the vector index name.
        info: what is known of the graph (read once, cached).
        refresh: re-read it (when the community or the index is not in what is known).
        community_id: the query's community, if any.
        seeded: the caller gives the seed entities by id (then their embeddings are not needed).

    Raises:
        InvalidInput: the community does not exist.
        SchemaError: no entity nodes, no vector index, or the community is not indexed.
    """
    known = info()
    if community_id is not None and community_id not in known.communities:
        known = refresh()
        if community_id not in known.communities:
            names = sorted(known.communities)
            raise InvalidInput(f"unknown community {community_id!r}; the graph has {names or 'none'}")
    if settings.entity_label not in known.labels:
        raise SchemaError(
            f"the graph has no {settings.entity_label!r} nodes: load data first "
            "(`python -m pathrag_gds load demo`) or set PATHRAG_ENTITY_LABEL to your entity label"
        )
    if known.index_state is None:
        known = refresh()
        if known.index_state is None:
            only = f" --community {community_id}" if community_id is not None else ""
            raise SchemaError(
                f"the vector index {settings.vector_index!r} does not exist: "
                f"run `python -m pathrag_gds index{only}`"
            )
    if not seeded and not _indexed(known, community_id):
        known = refresh()  # it may have been indexed since
        if not _indexed(known, community_id):
            raise SchemaError(not_indexed_message(community_id))


def _indexed(known: GraphInfo, community_id: str | None) -> bool:
    """Whether the community (None: any community, or a graph without communities) has embeddings."""
    if community_id is not None:
        return bool(known.communities.get(community_id, {}).get("indexed", True))
    flags = [c.get("indexed", True) for c in known.communities.values()]
    return not flags or any(flags)


def not_indexed_message(community_id: str | None) -> str:
    """What to say of a community that is loaded but whose entities have no embeddings."""
    if community_id is None:
        return (
            "no community is indexed (no entity has an embedding, so no search can start): run "
            "`python -m pathrag_gds index`"
        )
    return (
        f"community {community_id!r} is loaded but not indexed (its entities have no embeddings, so "
        f"no search can start): run `python -m pathrag_gds index --community {community_id}`"
    )
