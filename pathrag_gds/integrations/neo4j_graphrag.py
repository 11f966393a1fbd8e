"""Multi-hop path retrieval as a neo4j-graphrag `Retriever` (extra `graphrag`).

`PathRagRetriever` runs the path search of :class:`~pathrag_gds.service.PathRag` on your driver and
returns one `RetrieverResultItem` per ranked path: the path in words as content; the answer, score,
score parts, path, nodes and source passages in metadata. It is bound to ONE community (an access
boundary): a caller, or an LLM using it as a tool, cannot widen it.

Example:
    >>> from neo4j import GraphDatabase  # doctest: +SKIP
    >>> from neo4j_graphrag.generation import GraphRAG  # doctest: +SKIP
    >>> from neo4j_graphrag.llm import OpenAILLM  # doctest: +SKIP
    >>> driver = GraphDatabase.driver("bolt://127.0.0.1:7687", auth=("neo4j", "..."))  # doctest: +SKIP
    >>> retriever = PathRagRetriever(driver, "DefaultCommunity_FictionalStories")  # doctest: +SKIP
    >>> rag = GraphRAG(retriever=retriever, llm=OpenAILLM(model_name="gpt-4o-mini"))  # doctest: +SKIP
    >>> rag.search("Who owns Bob the Cat?", retriever_config={"top_k": 3}).answer  # doctest: +SKIP
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import neo4j

try:
    from neo4j_graphrag.retrievers.base import Retriever
    from neo4j_graphrag.types import RawSearchResult, RetrieverResultItem
except ImportError as exc:  # pragma: no cover - depends on the installed extras
    raise ImportError(
        "pathrag_gds.integrations.neo4j_graphrag needs neo4j-graphrag: pip install 'pathrag_gds[graphrag]'"
    ) from exc

from pathrag_gds.config import Settings
from pathrag_gds.errors import InvalidInput
from pathrag_gds.graph import Graph
from pathrag_gds.results import PathRagResult, PathResult
from pathrag_gds.service import PathRag

#: Separator of the path's own sentences and its entities' descriptions in `PathResult.text`.
_TEXT_PARTS = " ||| "


def path_words(path: PathResult) -> str:
    """The path as a sentence (`Bob is owned by Jane (since is kitten).`), without the descriptions.

    A 0-hop path (a seed entity alone) is its entity's description.
    """
    return path.text.split(_TEXT_PARTS, 1)[0].strip()


def path_record(path: PathResult) -> neo4j.Record:
    """One ranked path as the record `get_search_results` returns (plain values only).

    Keys: `rank`, `words`, `score`, `score_parts`, `answer` (the path's best answer candidate or
    None), `answer_candidates`, `path_context`, `chain`, `nodes`, `edges`, `sources`.
    """
    return neo4j.Record(  # type: ignore[no-untyped-call]  # the driver leaves __new__ untyped
        {
            "rank": path.rank,
            "words": path_words(path),
            "score": path.score,
            "score_parts": dict(path.score_parts),
            "answer": path.answer_candidates[0].name if path.answer_candidates else None,
            "answer_candidates": [a.model_dump() for a in path.answer_candidates],
            "path_context": list(path.path_context),
            "chain": list(path.chain),
            "nodes": [n.model_dump() for n in path.nodes],
            "edges": [e.model_dump() for e in path.edges],
            "sources": [s.model_dump() for s in path.sources],
        }
    )


def result_metadata(result: PathRagResult) -> dict[str, Any]:
    """What the whole search says beside its paths: the answer, the scorer, round trips, timings."""
    best = result.best
    return {
        "answer": best.answer_candidates[0].name if best and best.answer_candidates else None,
        "community_id": result.community_id,
        "scorer": result.scorer,
        "round_trips": result.round_trips,
        "timings_ms": dict(result.timings_ms),
        "explored": result.explored,
    }


def default_formatter(record: neo4j.Record) -> RetrieverResultItem:
    """Content: the path in words; metadata: everything else of the record (see :func:`path_record`)."""
    metadata = record.data()
    return RetrieverResultItem(content=metadata.pop("words"), metadata=metadata)


class PathRagRetriever(Retriever):
    """Ranked multi-hop graph paths for a question, as neo4j-graphrag retriever items.

    Args:
        driver: the Neo4j driver (the graph loaded and indexed by pathrag_gds).
        community_id: the one community every search is confined to.
        neo4j_database: the database (default: `NEO4J_DATABASE` of the settings, else `neo4j`).
        settings: search knobs (default: from the environment, as everywhere in pathrag_gds).
        top_k: paths returned per search (default: `settings.top_n`).
        hop_depth: longest path in hops (default: `settings.max_depth`).
        seed_n: seed entities taken from the vector index (default: `settings.seed_n`).
        result_formatter: turns a record of :func:`path_record` into a `RetrieverResultItem`
            (default: :func:`default_formatter`).

    Raises:
        InvalidInput: no community, or a limit below 1.
        Neo4jVersionError: the server is older than neo4j-graphrag supports (raised by its base class).
    """

    def __init__(
        self,
        driver: neo4j.Driver,
        community_id: str,
        neo4j_database: str | None = None,
        *,
        settings: Settings | None = None,
        top_k: int | None = None,
        hop_depth: int | None = None,
        seed_n: int | None = None,
        result_formatter: Callable[[neo4j.Record], RetrieverResultItem] | None = None,
    ) -> None:
        if not isinstance(community_id, str) or not community_id.strip():
            raise InvalidInput(
                "community_id is required: a PathRagRetriever searches one community (the ids are listed "
                "by `python -m pathrag_gds info`)"
            )
        for name, value in (("top_k", top_k), ("hop_depth", hop_depth), ("seed_n", seed_n)):
            if value is not None and (not isinstance(value, int) or value < 1):
                raise InvalidInput(f"{name} must be a whole number of at least 1 (got {value!r})")
        base = settings or Settings.from_env()
        if neo4j_database:
            base = base.model_copy(update={"neo4j_database": neo4j_database})
        super().__init__(driver, base.neo4j_database)
        self.service = PathRag(base, graph=Graph(driver, base))
        self.community_id = community_id
        self.top_k = top_k
        self.hop_depth = hop_depth
        self.seed_n = seed_n
        self.result_formatter = result_formatter

    def get_search_results(self, query_text: str, top_k: int | None = None) -> RawSearchResult:
        """Search the community for paths that answer `query_text`.

        Args:
            query_text: the question, in words.
            top_k: paths to return (default: the retriever's).

        Returns:
            One record per ranked path (see :func:`path_record`), best first; the metadata holds the
            answer, the scorer, round trips and timings (see :func:`result_metadata`).

        Raises:
            InvalidInput: a bad question or `top_k`.
            DatabaseUnavailable: Neo4j cannot be reached.
            SchemaError: the community is not loaded or not indexed.
        """
        result = self.service.pathrag(
            query_text,
            community_id=self.community_id,
            top_n=top_k if top_k is not None else self.top_k,
            max_depth=self.hop_depth,
            seed_n=self.seed_n,
        )
        return RawSearchResult(
            records=[path_record(p) for p in result.paths], metadata=result_metadata(result)
        )

    def default_record_formatter(self, record: neo4j.Record) -> RetrieverResultItem:
        """The path in words as content, the rest of the record as metadata."""
        return default_formatter(record)
