"""Multi-hop path retrieval as a LangChain retriever (extra `langchain`).

`PathRagRetriever` is a `langchain-core` `BaseRetriever`: `invoke` / `ainvoke` return one `Document`
per ranked path, best first, with the path in words as `page_content` and, in `metadata`, its rank,
score and score parts, answer (and all answer candidates), nodes, edges, source passages and the
community (see :func:`path_metadata`). It is bound to ONE community (an access boundary); per call
it may choose `top_k`, `hop_depth` and `mode`, as keyword arguments of `invoke` / `ainvoke` (or as
the retriever's `search_kwargs`, the way LangChain's vector-store retrievers take them).

It searches with your own Neo4j driver (`driver=`) or, without one, with the package's settings
(the environment, as everywhere in pathrag_gds).

Example:
    >>> from pathrag_gds.integrations.langchain import PathRagRetriever  # doctest: +SKIP
    >>> retriever = PathRagRetriever(community_id="DefaultCommunity_FictionalStories")  # doctest: +SKIP
    >>> docs = retriever.invoke("Who owns Bob the Cat?", top_k=3)  # doctest: +SKIP
    >>> docs[0].metadata["answer"]  # doctest: +SKIP
    'Jane'
"""

from __future__ import annotations

import asyncio
from typing import Any

import neo4j

try:
    from langchain_core.callbacks import (
        AsyncCallbackManagerForRetrieverRun,
        CallbackManagerForRetrieverRun,
    )
    from langchain_core.documents import Document
    from langchain_core.retrievers import BaseRetriever
except ImportError as exc:  # pragma: no cover - depends on the installed extras
    raise ImportError(
        "pathrag_gds.integrations.langchain needs langchain-core: pip install 'pathrag_gds[langchain]'"
    ) from exc

from pydantic import ConfigDict, Field, PrivateAttr

from pathrag_gds.config import Settings
from pathrag_gds.errors import InvalidInput
from pathrag_gds.graph import Graph
from pathrag_gds.integrations.paths import path_fields, path_words
from pathrag_gds.modes import parse_mode
from pathrag_gds.results import PathRagResult, PathResult
from pathrag_gds.service import PathRag, get_pathrag_service
from pathrag_gds.validation import MAX_DEPTH_LIMIT

#: The per-call options `invoke` / `ainvoke` (and `search_kwargs`) accept.
SEARCH_OPTIONS = ("top_k", "hop_depth", "mode")


def path_metadata(path: PathResult, result: PathRagResult) -> dict[str, Any]:
    """A path's `Document.metadata` (plain values only, so a document serialises as JSON).

    Keys: `rank`, `score`, `score_parts`, `depth` (hops), `answer` (the path's best answer candidate
    or None), `answer_candidates`, `path_context` (the path hop by hop), `chain`, `nodes` (id, name,
    labels, description, attributes) and `edges` (the relationships: type, source, target as stored,
    direction as walked, attributes) in path order, `sources` (the passages cited), `community_id`
    and `mode` of the search.
    """
    return {
        **path_fields(path),
        "nodes": [n.model_dump() for n in path.nodes],
        "edges": [e.model_dump() for e in path.edges],
        "community_id": result.community_id,
        "mode": result.mode,
    }


def to_documents(result: PathRagResult) -> list[Document]:
    """One `Document` per ranked path, best first: the path in words, its metadata (:func:`path_metadata`)."""
    return [
        Document(page_content=path_words(p), metadata=path_metadata(p, result), id=p.key)
        for p in result.paths
    ]


def _check_limit(name: str, value: object, *, high: int | None = None) -> None:
    """Refuse a limit that is not a whole number in [1, high] (None passes: the default applies)."""
    if value is None:
        return
    if isinstance(value, bool) or not isinstance(value, int) or value < 1 or (high and value > high):
        span = f"between 1 and {high}" if high else "of at least 1"
        raise InvalidInput(f"{name} must be a whole number {span} (got {value!r})")


def _check_options(options: dict[str, Any]) -> None:
    """Refuse unknown per-call options and bad values of known ones."""
    unknown = sorted(set(options) - set(SEARCH_OPTIONS))
    if unknown:
        raise InvalidInput(f"unknown search option(s) {unknown}: the options are {list(SEARCH_OPTIONS)}")
    _check_limit("top_k", options.get("top_k"))
    _check_limit("hop_depth", options.get("hop_depth"), high=MAX_DEPTH_LIMIT)
    parse_mode(options.get("mode"))


class PathRagRetriever(BaseRetriever):
    """Ranked multi-hop graph paths for a question, as LangChain `Document`s.

    Args:
        community_id: the one community every search is confined to.
        driver: your Neo4j driver (the graph loaded and indexed by pathrag_gds); without one the
            package's own connection from `settings` is used.
        settings: search knobs and connection (default: from the environment).
        neo4j_database: the database (default: `NEO4J_DATABASE` of the settings, else `neo4j`).
        top_k: paths returned per search (default: `settings.top_n`).
        hop_depth: longest path in hops (default: `settings.max_depth`).
        seed_n: seed entities taken from the vector index (default: `settings.seed_n`).
        mode: `local` (default), `global`, `hybrid`, `mix` or `naive` (see :mod:`pathrag_gds.modes`).
        search_kwargs: defaults of the per-call options (`top_k`, `hop_depth`, `mode`); keyword
            arguments of `invoke` / `ainvoke` override them.

    Raises:
        InvalidInput: no community, a limit below 1, an unknown mode or option.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    community_id: str
    driver: neo4j.Driver | None = None
    settings: Settings | None = None
    neo4j_database: str | None = None
    top_k: int | None = None
    hop_depth: int | None = None
    seed_n: int | None = None
    mode: str | None = None
    search_kwargs: dict[str, Any] = Field(default_factory=dict)

    _service: PathRag = PrivateAttr()

    def model_post_init(self, context: Any, /) -> None:
        """Check the options, then open the search service: on the user's driver, else the package's."""
        super().model_post_init(context)
        if not self.community_id.strip():
            raise InvalidInput(
                "community_id is required: a PathRagRetriever searches one community (the ids are listed "
                "by `python -m pathrag_gds info`)"
            )
        _check_limit("top_k", self.top_k)
        _check_limit("hop_depth", self.hop_depth, high=MAX_DEPTH_LIMIT)
        _check_limit("seed_n", self.seed_n)
        parse_mode(self.mode)
        _check_options(self.search_kwargs)
        base = self.settings
        if self.neo4j_database:
            base = (base or Settings.from_env()).model_copy(update={"neo4j_database": self.neo4j_database})
        if self.driver is not None:
            base = base or Settings.from_env()
            self._service = PathRag(base, graph=Graph(self.driver, base))
        else:
            self._service = get_pathrag_service(base)

    @property
    def service(self) -> PathRag:
        """The :class:`~pathrag_gds.service.PathRag` the retriever searches with."""
        return self._service

    def search(self, query: str, **options: Any) -> PathRagResult:
        """The service's result for `query` with the per-call `options` (see :data:`SEARCH_OPTIONS`).

        Raises:
            InvalidInput: a bad question, option or value.
            DatabaseUnavailable: Neo4j cannot be reached.
            SchemaError: the community is not loaded or not indexed.
        """
        merged = {**self.search_kwargs, **{k: v for k, v in options.items() if v is not None}}
        _check_options(merged)
        top_k = merged.get("top_k", self.top_k)
        hop_depth = merged.get("hop_depth", self.hop_depth)
        return self._service.pathrag(
            query,
            community_id=self.community_id,
            top_n=top_k,
            max_depth=hop_depth,
            seed_n=self.seed_n,
            mode=merged.get("mode", self.mode),
            generate=False,  # the chain's LLM answers from these documents
        )

    def _get_relevant_documents(
        self, query: str, *, run_manager: CallbackManagerForRetrieverRun, **kwargs: Any
    ) -> list[Document]:
        return to_documents(self.search(query, **kwargs))

    async def _aget_relevant_documents(
        self, query: str, *, run_manager: AsyncCallbackManagerForRetrieverRun, **kwargs: Any
    ) -> list[Document]:
        # the search is blocking (the sync driver): run it in a worker thread, not on the event loop
        result = await asyncio.to_thread(self.search, query, **kwargs)
        return to_documents(result)
