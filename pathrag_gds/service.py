"""The public API: `get_pathrag_service().pathrag(question)`. Wiring only.

`PathRag` validates the question and parameters (`validation`) against what it knows of the graph
(`catalog`), encodes the question once, finds the seeds (`seeding`: vector index, or given ids), the
question's intent and the chain plans of the topics it names, and runs the beam search
(`search.loop`: per depth, the whole beam expanded in one Cypher round trip by the
`expanders.Neo4jExpander`, scored and kept by `search.ranking`), then fetches the best paths'
sources and builds the typed result (`search.results`).

Example:
    >>> from pathrag_gds import get_pathrag_service  # doctest: +SKIP
    >>> result = get_pathrag_service().pathrag("Who owns Bob the Cat?")  # doctest: +SKIP
    >>> result.paths[0].answer_candidates[0].name  # doctest: +SKIP
    'Jane'
"""

from __future__ import annotations

import functools
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from pathrag_gds.answer_llm import TokenCallback, generate_answer, wants_generation
from pathrag_gds.beam import ScoredPath
from pathrag_gds.catalog import (
    GraphInfo,
    governing_ontology,
    read_graph_info,
    relation_whitelist,
)
from pathrag_gds.config import ScoringMode, Settings, get_settings
from pathrag_gds.errors import InvalidInput
from pathrag_gds.expanders import Neo4jExpander
from pathrag_gds.graph import Graph
from pathrag_gds.intent import infer_intent, relations_allowed
from pathrag_gds.modes import ModeRequest, ModeWeights, RetrievalMode, parse_mode
from pathrag_gds.ontology import Ontology
from pathrag_gds.paths import EntityRecord, Path
from pathrag_gds.provenance import parse_as_of, read_sources
from pathrag_gds.results import PathRagResult, PathResult, Seed, SourceChunk
from pathrag_gds.search.context import QueryContext
from pathrag_gds.search.loop import beam_search
from pathrag_gds.search.protocols import Expander, PathScorers
from pathrag_gds.search.ranking import Ranker
from pathrag_gds.search.results import path_results
from pathrag_gds.search.topics import topic_plans
from pathrag_gds.seeding import SeedHit, seed_rows, seeds_by_id, vector_seeds
from pathrag_gds.serialize import entity_sentences, serialize_path
from pathrag_gds.validation import check_graph, check_parameters

if TYPE_CHECKING:  # pragma: no cover
    from pathrag_gds.encoders import Embedder
    from pathrag_gds.intent import Intent
    from pathrag_gds.intent.model import Encoder

DepthCallback = Callable[[int, list[PathResult]], None]


@runtime_checkable
class PathRagInterface(Protocol):
    """What services call: one question in, ranked paths out."""

    def pathrag(
        self,
        query: str,
        community_id: str | None = None,
        ontology_id: str | None = None,
        top_n: int | None = None,
        max_depth: int | None = None,
        seed_n: int | None = None,
    ) -> PathRagResult:
        """Return the top-N paths that answer `query`."""
        ...


class PathRag:
    """Beam-style multi-hop path retrieval over one Neo4j database.

    Args:
        settings: all knobs; defaults from the environment.
        graph: an open connection; opened from settings when omitted.
        scorer: the path scorer; the configured default (bi-encoder) when omitted.
    """

    def __init__(
        self,
        settings: Settings | None = None,
        graph: Graph | None = None,
        scorer: PathScorers | None = None,
        embedder: Embedder | None = None,
    ) -> None:
        self.settings = settings or get_settings()
        self._graph = graph
        self._scorer = scorer
        self._embedder = embedder
        self._embedder_given = embedder is not None
        self._info: GraphInfo | None = None
        self._count_tokens: Callable[[str], int] | None = None
        self._lock = threading.Lock()

    # --- parts, created lazily ------------------------------------------------------------------

    @property
    def graph(self) -> Graph:
        """The database connection."""
        if self._graph is None:
            with self._lock:
                if self._graph is None:
                    self._graph = Graph.connect(self.settings)
        return self._graph

    @property
    def embedder(self) -> Embedder:
        """The question/entity embedder (ONNX)."""
        if self._embedder is None:
            from pathrag_gds.encoders import get_embedder

            self._embedder = get_embedder(self.settings)
        return self._embedder

    def intent(self, query: str, ontology: Ontology, entities: Iterable[EntityRecord]) -> Intent:
        """What the question asks (:func:`pathrag_gds.intent.infer_intent`) with this service's models.

        The ontology's type and relation texts are embedded through the bi-encoder's on-disk store
        (unless an embedder was passed in), so a new process reads them back instead of embedding
        them (about 130 texts on the demo graph, 0.15 s); the question's own texts, unbounded in
        number, are embedded and not stored.
        """
        texts: Encoder | None = None
        if not self._embedder_given:
            from pathrag_gds.scoring import text_encoder

            texts = text_encoder(self.settings)
        # the question's own texts through the embedder's table of asked texts (bounded)
        return infer_intent(query, ontology, self.embedder.asked, entities, texts=texts)

    @property
    def scorer(self) -> PathScorers:
        """The path scorer: the one passed in, else the default (bi-encoder) of no community.

        Reading it never pins a scorer: queries still get their community's (`scorer_for`).
        """
        if self._scorer is not None:
            return self._scorer
        from pathrag_gds.scoring import get_scorer

        return get_scorer(self.settings)

    def scorer_for(self, community_id: str | None) -> PathScorers:
        """The scorer of a query: the one passed in, else per community (tuned cascade or bi-encoder)."""
        if self._scorer is not None:
            return self._scorer
        from pathrag_gds.scoring import get_scorer

        return get_scorer(self.settings, community_id)

    def refresh(self) -> GraphInfo:
        """Re-read communities, schema, index state and ontologies from the database."""
        info = read_graph_info(self.graph, self.settings)
        self._info = info
        return info

    @property
    def info(self) -> GraphInfo:
        """Start-up facts about the graph (read once, cached)."""
        return self._info if self._info is not None else self.refresh()

    def ontology_for(self, community_id: str | None, ontology_id: str | None) -> Ontology:
        """The ontology that governs a query: named, the community's, or all stored ones merged.

        A graph without a stored ontology gets one inferred from its labels and relationship
        types (minus structural ones), with a warning.
        """
        return governing_ontology(self.info, self.settings, community_id, ontology_id)

    # --- validation -----------------------------------------------------------------------------

    def _validate(
        self,
        query: str,
        top_n: int,
        max_depth: int,
        seed_n: int,
        community_id: str | None,
        *,
        seeded: bool = False,
    ) -> None:
        check_parameters(query, top_n, max_depth, seed_n)
        check_graph(self.settings, lambda: self.info, self.refresh, community_id, seeded=seeded)

    # --- the search -----------------------------------------------------------------------------

    def expander(self) -> Expander:
        """How the beam grows: one `cypher/expand.cypher` round trip per depth (baselines differ)."""
        return Neo4jExpander(self.graph, self.settings)

    def pathrag(
        self,
        query: str,
        community_id: str | None = None,
        ontology_id: str | None = None,
        top_n: int | None = None,
        max_depth: int | None = None,
        seed_n: int | None = None,
        *,
        mode: RetrievalMode | ScoringMode | str | None = None,
        relations: Sequence[str] | None = None,
        seed_ids: list[str] | None = None,
        on_depth: DepthCallback | None = None,
        cancel: threading.Event | None = None,
        timeout: float | None = None,
        as_of: str | datetime | None = None,
        weights: ModeWeights | Mapping[str, float | None] | None = None,
        generate: bool | None = None,
        on_answer_token: TokenCallback | None = None,
    ) -> PathRagResult:
        """Return the top-N paths that answer `query`.

        Args:
            query: the question, in words.
            community_id: confine seeds and walks to one community.
            ontology_id: the ontology whose relationship types may be walked.
            top_n: paths to return.
            max_depth: longest path, in hops (0 = seeds only).
            seed_n: seed entities taken from the vector index.
            mode: `local` (the path search), `global`, `hybrid`, `mix` or `naive` (`pathrag_gds.modes`);
                or a scoring mode of local: `option-d` (raw scores) or `a3` (per-depth min-max
                minus a depth penalty).
            relations: walk only these relationship types (must exist in the database).
            seed_ids: start from these entity ids (already linked by the caller, e.g. a KGQA topic
                entity) instead of the vector index; fetched in one round trip, `seed_n` ignored.
            on_depth: called after each depth with that depth's best paths (for streaming).
            cancel: set it to stop the search between depths.
            timeout: seconds; past it the search stops with `QueryTimeout`.
            as_of: cite (and seed from) the document versions valid at this moment (ISO 8601 or a
                datetime; None: the current versions).
            weights: mix and hybrid weights (`vector`, `graph`, `inheritance`, `global`, each in
                [0, 1]; None: the settings').
            generate: have the answer model write `answer` from the top paths (`answer_llm`): None
                where one is configured (`PATHRAG_ANSWER_LLM_URL`), False never (the extractive
                answer), True always (without a model: the extractive answer, saying why).
            on_answer_token: called with each piece of the generated answer as it arrives.

        Raises:
            InvalidInput: a bad question or parameter.
            SchemaError: the graph lacks data, the index, or a named relationship type.
            DatabaseUnavailable: Neo4j cannot be reached.
        """
        s = self.settings
        top_n = s.top_n if top_n is None else top_n
        max_depth = s.max_depth if max_depth is None else max_depth
        seed_n = s.seed_n if seed_n is None else seed_n
        retrieval, scoring = parse_mode(mode)
        mode = scoring or s.mode
        max_depth = 0 if retrieval is RetrievalMode.NAIVE else max_depth
        mode_weights = ModeWeights.resolve(s, weights)
        self._validate(query, top_n, max_depth, seed_n, community_id, seeded=seed_ids is not None)
        if seed_ids is not None and (not seed_ids or not all(isinstance(x, str) and x for x in seed_ids)):
            raise InvalidInput("seed_ids must be a non-empty list of entity ids (None: vector seeds)")
        if retrieval in (RetrievalMode.GLOBAL, RetrievalMode.HYBRID, RetrievalMode.MIX):
            from pathrag_gds.modes.run import run_mode

            request = ModeRequest(
                query=query,
                community_id=community_id,
                ontology_id=ontology_id,
                top_n=top_n,
                max_depth=max_depth,
                seed_n=seed_n,
                scoring=mode,
                weights=mode_weights,
                relations=relations,
                seed_ids=seed_ids,
                on_depth=on_depth,
                cancel=cancel,
                timeout=timeout,
                as_of=as_of,
            )
            result = run_mode(self, retrieval, request)
            return self.answer(result, generate=generate, on_token=on_answer_token, cancel=cancel)
        ontology = self.ontology_for(community_id, ontology_id)
        whitelist = relation_whitelist(self.info, ontology, relations)

        t_start = time.perf_counter()
        ctx = QueryContext(
            query,
            community=community_id,
            max_depth=max_depth,
            deadline=(time.monotonic() + timeout) if timeout else None,
            cancel=cancel,
            as_of=parse_as_of(as_of),
        )
        scorer = self.scorer_for(community_id)
        ranker = Ranker(s, scorer.for_question(query), self._text_of(ctx, ontology), mode)
        expander = self.expander()

        with ctx.timed("embed"):
            ctx.vector = [float(x) for x in self.embedder.encode_question(query)]
        with ctx.timed("seed"):
            if seed_ids is not None:
                seeds = self._seeds_by_id(ctx, seed_ids, community_id)
            else:
                seeds = self._seeds(ctx, seed_n, community_id)
        with ctx.timed("intent"):
            ctx.intent = self.intent(query, ontology, ctx.entities.values())
            ctx.topics = set(ctx.intent.named)
            ctx.named = ctx.topics | set(ctx.intent.described)  # named in other words: not the answer
        with ctx.timed("plan"):
            if expander.follows_plans:
                from pathrag_gds.base_chains import planning_scorer

                chains = planning_scorer(s, community_id, ontology)
                ids = [sd.id for sd in seeds]
                ctx.plans = topic_plans(chains, ctx, ontology, ids, s, given=seed_ids is not None)

        def relations_at(depth: int) -> list[str]:
            if relations is not None or not s.intent_whitelist:
                return whitelist
            return relations_allowed(ontology, ctx.intent, whitelist, depth, max_depth)

        def streamed(depth: int, beam: list[ScoredPath]) -> None:
            if on_depth is not None:
                on_depth(depth, self._results(ctx, beam, ontology, with_sources=False))

        outcome = beam_search(
            ctx,
            [Path((sd.id,)) for sd in seeds],
            expander,
            ranker,
            top_n=top_n,
            relations_at=relations_at,
            on_depth=streamed if on_depth is not None else None,
        )
        with ctx.timed("sources"):
            paths = self._results(ctx, outcome.best, ontology, with_sources=True)
        ctx.timings["total"] = (time.perf_counter() - t_start) * 1000.0
        ctx.timings["db"] = ctx.counter.seconds * 1000.0
        result = PathRagResult(
            query=query,
            mode=retrieval.value,
            scoring=mode.value,
            scorer=getattr(scorer, "name", type(scorer).__name__),
            community_id=community_id,
            paths=paths,
            seeds=[
                Seed(
                    id=sd.id,
                    name=ctx.entities[sd.id].name,
                    labels=list(ctx.entities[sd.id].labels),
                    similarity=sd.similarity,
                )
                for sd in seeds
            ],
            timings_ms={k: round(v, 2) for k, v in ctx.timings.items()},
            round_trips=ctx.counter.count,
            intent=None if ctx.intent is None else ctx.intent.as_dict(),
            depths=outcome.depths,
            explored=outcome.explored,
        )
        return self.answer(result, generate=generate, on_token=on_answer_token, cancel=cancel)

    def answer(
        self,
        result: PathRagResult,
        *,
        generate: bool | None = None,
        on_token: TokenCallback | None = None,
        cancel: threading.Event | None = None,
    ) -> PathRagResult:
        """The result with the answer model's answer (see `pathrag`'s `generate`); else as it is.

        Never fails for the model's sake: any failure gives the extractive answer with
        `generated: false` and the reason (`answer_llm.generate_answer`).
        """
        if not wants_generation(self.settings, generate):
            return result
        written = generate_answer(self.settings, result, on_token=on_token, cancel=cancel)
        if written is None:
            return result
        return result.model_copy(update={"generated_answer": written})

    # --- steps ----------------------------------------------------------------------------------

    def seed_entities(self, query: str, community_id: str | None = None) -> list[EntityRecord]:
        """The seed entities of a question (vector index), e.g. to find the entities it names."""
        ctx = QueryContext(query)
        ctx.vector = [float(x) for x in self.embedder.encode_question(query)]
        self._seeds(ctx, self.settings.seed_n, community_id)
        return list(ctx.entities.values())

    def _seeds(self, ctx: QueryContext, seed_n: int, community_id: str | None) -> list[SeedHit]:
        return vector_seeds(self.graph, self.settings, lambda: self.info, ctx, seed_n, community_id)

    def _seed_rows(self, ctx: QueryContext, rows: list[dict[str, Any]]) -> list[SeedHit]:
        """Cache the seed entities of a seed query's rows and return the seeds in order."""
        return seed_rows(self.settings, ctx, rows)

    def _seeds_by_id(self, ctx: QueryContext, seed_ids: list[str], community_id: str | None) -> list[SeedHit]:
        return seeds_by_id(self.graph, self.settings, ctx, seed_ids, community_id)

    def _text_of(self, ctx: QueryContext, ontology: Ontology) -> Callable[[Path], str]:
        """A path's text for the scorer: serialized with the query's entities, within the token budget."""
        if self._count_tokens is None:
            self._count_tokens = functools.lru_cache(maxsize=200_000)(self.embedder.token_count)
        count, max_tokens = self._count_tokens, self.settings.path_text_tokens
        sentences: dict[str, list[str]] = {}  # an entity's sentences, once per query

        def sentences_of(entity: EntityRecord) -> list[str]:
            if entity.id not in sentences:
                sentences[entity.id] = entity_sentences(entity)
            return sentences[entity.id]

        def text_of(path: Path) -> str:
            return serialize_path(
                path, ctx.entities, ontology,
                max_tokens=max_tokens, count_tokens=count, sentences_of=sentences_of,
            )  # fmt: skip

        return text_of

    def _results(
        self, ctx: QueryContext, scored: list[ScoredPath], ontology: Ontology, *, with_sources: bool
    ) -> list[PathResult]:
        sources: dict[str, list[SourceChunk]] = {}
        if with_sources and scored and self.settings.chunk_label in self.info.labels:
            ids = sorted({n for sp in scored for n in sp.path.node_ids})
            sources = read_sources(
                self.graph,
                ids,
                community=ctx.community,
                as_of=ctx.as_of,
                per_entity=2 * self.settings.sources_per_entity,
                counter=ctx.counter,
                hidden=ctx.hidden,
            )
        s = self.settings
        weights = {
            "type": s.weight_type,
            "relation_prior": s.weight_relation_prior,
            "coverage": s.weight_coverage,
            "length": s.weight_length,
            "described": s.weight_described,
            "lexical": s.weight_lexical,
            "chain": s.weight_chain,
        }
        return path_results(
            ctx,
            scored,
            self._text_of(ctx, ontology),
            sources,
            weights,
            per_entity=s.sources_per_entity,
            aliases=s.aliases_property,
        )


_service: PathRag | None = None
_service_lock = threading.Lock()


def get_pathrag_service(settings: Settings | None = None) -> PathRag:
    """The process-wide service (created on first use, thread-safe)."""
    global _service
    if settings is not None:
        return PathRag(settings)
    if _service is None:
        with _service_lock:
            if _service is None:
                _service = PathRag()
    return _service
