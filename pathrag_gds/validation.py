"""What a question must satisfy before a search starts: its parameters, then the graph it runs on.

The parameter checks are pure; the graph checks read what the service knows of the graph
(:class:`~pathrag_gds.catalog.GraphInfo`) and re-read it once when a community or the vector index
is missing (it may have been loaded since).

Example:
    >>> check_parameters("Who owns Bob?", top_n=5, max_depth=2, seed_n=10)
    >>> check_query("Who owns Bob?", QueryLimits(question_chars=5), hop_depth=2, top_n=5, seed_n=10)
    Traceback (most recent call last):
    ...
    pathrag_gds.errors.InvalidInput: the question is 13 characters: pass one of 5 or fewer

The CLI (`query`, `intent`) and the HTTP API check a question with :func:`check_query`: one set of
rules and one message each, with the bounds of :class:`QueryLimits` (from the settings).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pathrag_gds.catalog import GraphInfo, community_state
from pathrag_gds.config import Settings
from pathrag_gds.errors import InvalidInput, SchemaError
from pathrag_gds.load_versions import check_complete

#: The library's ceilings (a caller of :class:`~pathrag_gds.service.PathRag` may go up to them; the
#: CLI and the HTTP API stop at the lower bounds of :class:`QueryLimits`).
MAX_QUESTION_CHARS = 2000
MAX_DEPTH_LIMIT = 10

#: How a message names an option: the HTTP field, then the CLI flag.
OPTION_NAMES = {
    "hop_depth": "hop_depth (--max-depth; max_depth in Python)",
    "top_n": "top_n (--top-n)",
    "seed_n": "seed_n (--seed-n)",
}

EMPTY_QUESTION = (
    "empty question: it has no letters or digits (only spaces, punctuation, symbols or control "
    "characters); pass a question in words"
)


@dataclass(frozen=True)
class QueryLimits:
    """The bounds of a question and its options, the same for the CLI and the HTTP API.

    Read from the settings (`PATHRAG_API_MAX_QUESTION_CHARS`, `PATHRAG_API_MAX_HOP_DEPTH`,
    `PATHRAG_API_MAX_TOP_N`, `PATHRAG_API_MAX_SEED_N`); every lower bound is 1.
    """

    question_chars: int = 1000
    hop_depth: int = 6
    top_n: int = 50
    seed_n: int = 100

    @classmethod
    def of(cls, settings: Settings) -> QueryLimits:
        """The limits a server or a CLI run with these settings applies."""
        return cls(
            question_chars=settings.api_max_question_chars,
            hop_depth=settings.api_max_hop_depth,
            top_n=settings.api_max_top_n,
            seed_n=settings.api_max_seed_n,
        )


def default_options(settings: Settings, limits: QueryLimits | None = None) -> tuple[int, int, int]:
    """`(hop_depth, top_n, seed_n)` of a question that names none: the settings', within the limits."""
    lim = limits or QueryLimits.of(settings)
    return (
        min(settings.max_depth, lim.hop_depth) or 1,
        min(settings.top_n, lim.top_n),
        min(settings.seed_n, lim.seed_n),
    )


def has_words(text: str) -> bool:
    """True when `text` holds a letter or a digit (not only spaces, punctuation, symbols, controls)."""
    return any(unicodedata.category(c)[0] in "LN" for c in text)


def check_question(question: str, max_chars: int) -> None:
    """Refuse a question without letters or digits, or longer than `max_chars` characters.

    Raises:
        InvalidInput: what is wrong and what to pass.
    """
    if not isinstance(question, str) or not has_words(question):
        raise InvalidInput(EMPTY_QUESTION)
    if len(question) > max_chars:
        raise InvalidInput(f"the question is {len(question)} characters: pass one of {max_chars} or fewer")


def check_range(name: str, value: int, low: int, high: int) -> None:
    """Refuse an option out of `[low, high]`, naming it as the HTTP field and the CLI flag.

    Raises:
        InvalidInput: the option, its range and the value given.
    """
    if not low <= value <= high:
        shown = OPTION_NAMES.get(name, name)
        raise InvalidInput(f"{shown} must be between {low} and {high} (got {value}): pass a value in range")


def check_query(question: str, limits: QueryLimits, *, hop_depth: int, top_n: int, seed_n: int) -> None:
    """The rules of a question and its options for the CLI and the HTTP API alike.

    Raises:
        InvalidInput: the first rule broken; the message names what to do.
    """
    check_question(question, limits.question_chars)
    check_options(limits, hop_depth=hop_depth, top_n=top_n, seed_n=seed_n)


def check_options(limits: QueryLimits, *, hop_depth: int, top_n: int, seed_n: int) -> None:
    """The ranges of the options (a session's defaults are checked without a question).

    Raises:
        InvalidInput: the first option out of range.
    """
    check_range("hop_depth", hop_depth, 1, limits.hop_depth)
    check_range("top_n", top_n, 1, limits.top_n)
    check_range("seed_n", seed_n, 1, limits.seed_n)


def check_parameters(query: str, top_n: int, max_depth: int, seed_n: int) -> None:
    """The library's check: the same question rules, up to its own ceilings (depth 0: seeds only).

    Raises:
        InvalidInput: naming the parameter and its range.
    """
    check_question(query, MAX_QUESTION_CHARS)
    check_range("hop_depth", max_depth, 0, MAX_DEPTH_LIMIT)
    check_range("top_n", top_n, 1, 100)
    check_range("seed_n", seed_n, 1, 500)


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
        LoadIncomplete: the community's first load has not completed (it runs or was interrupted).
        SchemaError: no entity nodes, no vector index, or the community is not indexed.
    """
    known = info()
    if community_id is not None and community_id not in known.communities:
        known = refresh()
        if community_id not in known.communities:
            names = sorted(known.communities)
            raise InvalidInput(f"unknown community {community_id!r}; the graph has {names or 'none'}")
    if community_id is not None and not community_state(known, community_id).complete:
        known = refresh()  # it may have completed since
        check_complete(community_state(known, community_id), settings.load_stale_s)
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
    """Whether the community (None: any community, or a graph without communities) has embeddings.

    A community without entities has nothing to index: it counts as indexed, so the check that
    fits it (no entities to cluster, no seeds) says what to do instead.
    """

    def ok(c: dict[str, Any]) -> bool:
        return bool(c.get("indexed", True)) or not c.get("size", 1)

    if community_id is not None:
        return ok(known.communities.get(community_id, {}))
    flags = [ok(c) for c in known.communities.values()]
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
