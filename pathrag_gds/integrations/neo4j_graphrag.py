"""Multi-hop path retrieval as a neo4j-graphrag `Retriever` (extra `graphrag`).

`PathRagRetriever` runs the path search of :class:`~pathrag_gds.service.PathRag` on your driver and
returns one `RetrieverResultItem` per ranked path: the path in words as content; the answer, score,
score parts, the path's nodes and relationships (in the shape of neo4j-graphrag's `Neo4jGraph`) and
source passages in metadata. It is bound to ONE community (an access boundary): a caller, or an LLM
using it as a tool (`convert_to_tool`), cannot widen it; per call it may choose `top_k`, `hop_depth`
and `mode`.

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
    from neo4j_graphrag.tool import IntegerParameter, ObjectParameter, StringParameter
    from neo4j_graphrag.types import RawSearchResult, RetrieverResultItem
except ImportError as exc:  # pragma: no cover - depends on the installed extras
    raise ImportError(
        "pathrag_gds.integrations.neo4j_graphrag needs neo4j-graphrag: pip install 'pathrag_gds[graphrag]'"
    ) from exc

from pathrag_gds.config import Settings
from pathrag_gds.errors import InvalidInput
from pathrag_gds.graph import Graph
from pathrag_gds.integrations.paths import path_fields, path_words
from pathrag_gds.modes import MODES, parse_mode
from pathrag_gds.results import EdgeOut, NodeOut, PathRagResult, PathResult
from pathrag_gds.service import PathRag
from pathrag_gds.validation import MAX_DEPTH_LIMIT

#: What the tool schema says of each argument of `search` (`convert_to_tool` may replace them).
PARAMETER_DESCRIPTIONS = {
    "query_text": "the question, in words",
    "top_k": "how many ranked paths to return",
    "hop_depth": "the longest path, in relationships (hops); ignored by the global and naive modes",
    "mode": "local: paths through the graph (default); global: cluster summaries; hybrid: paths with "
    "their clusters; mix: vector and graph results; naive: the nearest entities only",
}


def graph_node(node: NodeOut, default_label: str = "Entity") -> dict[str, Any]:
    """An entity as neo4j-graphrag's `Neo4jNode`: `id`, `label` and `properties`.

    The label is the entity's type (`default_label` for an entity without one); the properties are
    its attributes, its name and (when it has one) its description.
    """
    properties: dict[str, Any] = {**node.attributes, "name": node.name}
    if node.description:
        properties["description"] = node.description
    return {
        "id": node.id,
        "label": node.labels[0] if node.labels else default_label,
        "properties": properties,
    }


def graph_relationship(edge: EdgeOut) -> dict[str, Any]:
    """A relationship as neo4j-graphrag's `Neo4jRelationship`, in its stored direction."""
    return {
        "start_node_id": edge.source,
        "end_node_id": edge.target,
        "type": edge.type,
        "properties": dict(edge.attributes),
    }


def path_record(path: PathResult, entity_label: str = "Entity") -> neo4j.Record:
    """One ranked path as the record `get_search_results` returns (plain values only).

    Keys: `rank`, `words`, `score`, `score_parts`, `depth` (hops), `answer` (the path's best answer
    candidate or None), `answer_candidates`, `path_context`, `chain`, `nodes` and `relationships`
    (in path order, shaped as neo4j-graphrag's `Neo4jGraph`: see :func:`graph_node` and
    :func:`graph_relationship`), `sources`.
    """
    return neo4j.Record(  # type: ignore[no-untyped-call]  # the driver leaves __new__ untyped
        {
            **path_fields(path),
            "words": path_words(path),
            "nodes": [graph_node(n, entity_label) for n in path.nodes],
            "relationships": [graph_relationship(e) for e in path.edges],
        }
    )


def result_metadata(result: PathRagResult) -> dict[str, Any]:
    """What the whole search says beside its paths: the answer, the mode, the scorer, round trips, timings."""
    best = result.best
    return {
        "answer": best.answer_candidates[0].name if best and best.answer_candidates else None,
        "community_id": result.community_id,
        "mode": result.mode,
        "scorer": result.scorer,
        "round_trips": result.round_trips,
        "timings_ms": dict(result.timings_ms),
        "explored": result.explored,
    }


def default_formatter(record: neo4j.Record) -> RetrieverResultItem:
    """Content: the path in words; metadata: everything else of the record (see :func:`path_record`)."""
    metadata = record.data()
    return RetrieverResultItem(content=metadata.pop("words"), metadata=metadata)


def _check_limit(name: str, value: object, *, low: int = 1, high: int | None = None) -> None:
    """Refuse a limit that is not a whole number in [low, high] (None passes: the default applies)."""
    if value is None:
        return
    if isinstance(value, bool) or not isinstance(value, int) or value < low or (high and value > high):
        span = f"between {low} and {high}" if high else f"of at least {low}"
        raise InvalidInput(f"{name} must be a whole number {span} (got {value!r})")


class PathRagRetriever(Retriever):
    """Ranked multi-hop graph paths for a question, as neo4j-graphrag retriever items.

    Args:
        driver: the Neo4j driver (the graph loaded and indexed by pathrag_gds); yours may keep its
            own notification settings: the searches' sessions ask the server for none.
        community_id: the one community every search is confined to.
        neo4j_database: the database (default: `NEO4J_DATABASE` of the settings, else `neo4j`).
        settings: search knobs (default: from the environment, as everywhere in pathrag_gds).
        top_k: paths returned per search (default: `settings.top_n`).
        hop_depth: longest path in hops (default: `settings.max_depth`).
        seed_n: seed entities taken from the vector index (default: `settings.seed_n`).
        mode: `local` (default), `global`, `hybrid`, `mix` or `naive` (see :mod:`pathrag_gds.modes`).
        result_formatter: turns a record of :func:`path_record` into a `RetrieverResultItem`
            (default: :func:`default_formatter`).

    Raises:
        InvalidInput: no community, a limit below 1, or an unknown mode.
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
        mode: str | None = None,
        result_formatter: Callable[[neo4j.Record], RetrieverResultItem] | None = None,
    ) -> None:
        if not isinstance(community_id, str) or not community_id.strip():
            raise InvalidInput(
                "community_id is required: a PathRagRetriever searches one community (the ids are listed "
                "by `python -m pathrag_gds info`)"
            )
        _check_limit("top_k", top_k)
        _check_limit("hop_depth", hop_depth, high=MAX_DEPTH_LIMIT)
        _check_limit("seed_n", seed_n)
        parse_mode(mode)
        base = settings or Settings.from_env()
        if neo4j_database:
            base = base.model_copy(update={"neo4j_database": neo4j_database})
        super().__init__(driver, base.neo4j_database)
        self.service = PathRag(base, graph=Graph(driver, base))
        self.community_id = community_id
        self.top_k = top_k
        self.hop_depth = hop_depth
        self.seed_n = seed_n
        self.mode = mode
        self.result_formatter = result_formatter

    def get_search_results(
        self,
        query_text: str,
        top_k: int | None = None,
        hop_depth: int | None = None,
        mode: str | None = None,
    ) -> RawSearchResult:
        """Search the community for paths that answer `query_text`.

        Args:
            query_text: the question, in words.
            top_k: paths to return (default: the retriever's).
            hop_depth: longest path in hops, for this search (default: the retriever's).
            mode: the retrieval mode of this search (default: the retriever's).

        Returns:
            One record per ranked path (see :func:`path_record`), best first; the metadata holds the
            answer, the mode, the scorer, round trips and timings (see :func:`result_metadata`).

        Raises:
            InvalidInput: a bad question, limit or mode.
            DatabaseUnavailable: Neo4j cannot be reached.
            SchemaError: the community is not loaded or not indexed.
        """
        _check_limit("top_k", top_k)
        _check_limit("hop_depth", hop_depth, high=MAX_DEPTH_LIMIT)
        result = self.service.pathrag(
            query_text,
            community_id=self.community_id,
            top_n=top_k if top_k is not None else self.top_k,
            max_depth=hop_depth if hop_depth is not None else self.hop_depth,
            seed_n=self.seed_n,
            mode=mode if mode is not None else self.mode,
            generate=False,  # the caller's LLM answers from these records
        )
        label = self.service.settings.entity_label
        return RawSearchResult(
            records=[path_record(p, label) for p in result.paths], metadata=result_metadata(result)
        )

    def get_parameters(self, parameter_descriptions: dict[str, str] | None = None) -> ObjectParameter:
        """The tool schema of `search`: `query_text` (required), `top_k`, `hop_depth` and `mode`.

        Written out rather than inferred from the signature: neo4j-graphrag's inference reads an
        `int | None` annotation as a string, and a tool-calling LLM would then send `"3"`.

        Args:
            parameter_descriptions: descriptions replacing those of :data:`PARAMETER_DESCRIPTIONS`.
        """
        say = {**PARAMETER_DESCRIPTIONS, **(parameter_descriptions or {})}
        return ObjectParameter(
            description=f"Parameters for {type(self).__name__}",
            properties={
                "query_text": StringParameter(description=say["query_text"], required=True),
                "top_k": IntegerParameter(description=say["top_k"], minimum=1),
                "hop_depth": IntegerParameter(
                    description=say["hop_depth"], minimum=1, maximum=MAX_DEPTH_LIMIT
                ),
                "mode": StringParameter(description=say["mode"], enum=list(MODES)),
            },
            required_properties=["query_text"],
            additional_properties=False,
        )

    def default_record_formatter(self, record: neo4j.Record) -> RetrieverResultItem:
        """The path in words as content, the rest of the record as metadata."""
        return default_formatter(record)
