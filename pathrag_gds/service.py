"""The public API: `get_pathrag_service().pathrag(question)`.

The search is the specification's beam: seeds from the vector index (depth 0, scored like any
path), then one hop per depth for the WHOLE beam in one Cypher round trip (whitelist, per-relation
cap, no-revisit, pre-sort and canonical keys computed in Neo4j), batched scoring, local keep per
parent, global dedup and trim, best score per canonical key, top-N at the end.

Example:
    >>> from pathrag_gds import get_pathrag_service  # doctest: +SKIP
    >>> result = get_pathrag_service().pathrag("Who owns Bob the Cat?")  # doctest: +SKIP
    >>> result.paths[0].answer_candidates[0].name  # doctest: +SKIP
    'Jane'
"""

from __future__ import annotations

import functools
import logging
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any, Protocol, runtime_checkable

from pathrag_gds.beam import Candidates, ScoredPath, global_keep, local_keep_all, mode_scores
from pathrag_gds.config import ScoringMode, Settings, get_settings
from pathrag_gds.errors import InvalidInput, QueryCancelled, QueryTimeout, SchemaError
from pathrag_gds.graph import Graph, RoundTripCounter
from pathrag_gds.intent import Intent, infer_intent, mask_mentions, named_entities, relations_allowed
from pathrag_gds.ontology import EntityType, Ontology, RelationType
from pathrag_gds.paths import Edge, EntityRecord, Path
from pathrag_gds.provenance import chunk_seed_rows, parse_as_of, read_sources
from pathrag_gds.results import (
    AnswerCandidate,
    DepthStat,
    EdgeOut,
    NodeOut,
    PathRagResult,
    PathResult,
    Seed,
    SourceChunk,
)
from pathrag_gds.scoring_terms import TermWeights, rank_answers, term_parts, weighted_sum
from pathrag_gds.search.planner import ChainPlan, path_chain, plan_chains, step_token
from pathrag_gds.serialize import approx_tokens, path_context, serialize_path

log = logging.getLogger(__name__)

#: Relationship types that hold structure, not facts: never walked even without an ontology.
STRUCTURAL_TYPES = frozenset({"AGGREGATES", "MENTIONED_IN", "HAS_ENTITY_TYPE", "HAS_RELATION_TYPE"})
MAX_QUESTION_CHARS = 2000
MAX_DEPTH_LIMIT = 10

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


@dataclass
class GraphInfo:
    """What the service reads once at start-up (and on `refresh()`)."""

    communities: dict[str, dict[str, Any]]
    labels: set[str]
    types: set[str]
    index_state: str | None
    ontologies: dict[str, Ontology] = field(default_factory=dict)


@dataclass
class _QueryState:
    query: str
    qvec: list[float]
    entities: dict[str, EntityRecord]
    named: set[str]
    counter: RoundTripCounter
    timings: dict[str, float]
    deadline: float | None
    cancel: threading.Event | None
    intent: Intent | None = None
    community: str | None = None
    #: entities the question names word for word (the topics of chain planning)
    topics: set[str] = field(default_factory=set)
    #: chain plans of the topic seeds (seed id -> plan); empty: no chain planning for this query
    plans: dict[str, ChainPlan] = field(default_factory=dict)
    #: cosine of each fetched entity's stored embedding to the question (computed in Neo4j)
    sims: dict[str, float] = field(default_factory=dict)
    #: read document versions valid then (None: the current ones)
    as_of: datetime | None = None

    def plan_of(self, path: Path) -> ChainPlan | None:
        """The chain plan that governs a path (its start's), if any."""
        return self.plans.get(path.start)

    def check(self) -> None:
        if self.cancel is not None and self.cancel.is_set():
            raise QueryCancelled("the query was cancelled")
        if self.deadline is not None and time.monotonic() > self.deadline:
            raise QueryTimeout(
                "the query ran past its time limit: lower max_depth / seed_n, or raise the limit"
            )

    def tick(self, stage: str, t0: float) -> None:
        self.timings[stage] = self.timings.get(stage, 0.0) + (time.perf_counter() - t0) * 1000.0


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
        scorer: Any | None = None,
        embedder: Any | None = None,
    ) -> None:
        self.settings = settings or get_settings()
        self._graph = graph
        self._scorer = scorer
        self._embedder = embedder
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
    def embedder(self) -> Any:
        """The question/entity embedder (ONNX)."""
        if self._embedder is None:
            from pathrag_gds.encoders import get_embedder

            self._embedder = get_embedder(self.settings)
        return self._embedder

    @property
    def scorer(self) -> Any:
        """The path scorer: the one passed in, else the default (bi-encoder) of no community.

        Reading it never pins a scorer: queries still get their community's (`scorer_for`).
        """
        if self._scorer is not None:
            return self._scorer
        from pathrag_gds.scoring import get_scorer

        return get_scorer(self.settings)

    def scorer_for(self, community_id: str | None) -> Any:
        """The scorer of a query: the one passed in, else per community (tuned cascade or bi-encoder)."""
        if self._scorer is not None:
            return self._scorer
        from pathrag_gds.scoring import get_scorer

        return get_scorer(self.settings, community_id)

    def refresh(self) -> GraphInfo:
        """Re-read communities, schema, index state and ontologies from the database."""
        g = self.graph
        rows = g.read("graph_info", index_name=self.settings.vector_index)
        row = rows[0] if rows else {"communities": [], "labels": [], "types": []}
        idx = g.read("index_state", index_name=self.settings.vector_index)
        ontologies: dict[str, Ontology] = {}
        for o in g.read("ontology_read", ontology_id=None):
            ontologies[o["id"]] = Ontology.from_mapping(
                {
                    "id": o["id"],
                    "entity_types": o["entity_types"],
                    "relationship_types": [
                        {
                            "type": r["type"],
                            "phrase": r.get("phrase"),
                            "inverse_phrase": r.get("inverse_phrase"),
                            "description": r.get("description") or "",
                            "source": r.get("source_labels") or [],
                            "target": r.get("target_labels") or [],
                        }
                        for r in o["relation_types"]
                    ],
                }
            )
        info = GraphInfo(
            communities={c["id"]: c for c in row["communities"]},
            labels=set(row["labels"]),
            types=set(row["types"]),
            index_state=idx[0]["state"] if idx else None,
            ontologies=ontologies,
        )
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
        info = self.info
        if ontology_id is not None:
            if ontology_id not in info.ontologies:
                raise InvalidInput(
                    f"unknown ontology {ontology_id!r}; the graph has {sorted(info.ontologies) or 'none'}"
                )
            return info.ontologies[ontology_id]
        if community_id is not None:
            oid = info.communities.get(community_id, {}).get("ontology_id")
            if oid in info.ontologies:
                return info.ontologies[oid]
        if info.ontologies:
            if len(info.ontologies) == 1:
                return next(iter(info.ontologies.values()))
            merged: dict[str, RelationType] = {}
            ets: list[EntityType] = []
            for o in info.ontologies.values():
                ets.extend(o.entity_types)
                for r in o.relation_types:
                    merged.setdefault(r.type, r)
            return Ontology("merged", tuple(ets), tuple(merged.values()))
        log.warning(
            "the graph stores no ontology: walking every relationship type except structural ones; "
            "load an ontology for readable phrasing and intent"
        )
        return Ontology.inferred_from(
            info.labels - {self.settings.entity_label, self.settings.community_label},
            info.types - STRUCTURAL_TYPES,
        )

    # --- validation -----------------------------------------------------------------------------

    def _validate(
        self, query: str, top_n: int, max_depth: int, seed_n: int, community_id: str | None
    ) -> None:
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
        info = self.info
        if community_id is not None and community_id not in info.communities:
            info = self.refresh()
            if community_id not in info.communities:
                known = sorted(info.communities)
                raise InvalidInput(f"unknown community {community_id!r}; the graph has {known or 'none'}")
        if self.settings.entity_label not in info.labels:
            raise SchemaError(
                f"the graph has no {self.settings.entity_label!r} nodes: load data first "
                "(`python -m pathrag_gds load demo`) or set PATHRAG_ENTITY_LABEL to your entity label"
            )
        if info.index_state is None:
            info = self.refresh()
            if info.index_state is None:
                raise SchemaError(
                    f"the vector index {self.settings.vector_index!r} does not exist: "
                    "run `python -m pathrag_gds index`"
                )

    # --- the search -----------------------------------------------------------------------------

    def pathrag(
        self,
        query: str,
        community_id: str | None = None,
        ontology_id: str | None = None,
        top_n: int | None = None,
        max_depth: int | None = None,
        seed_n: int | None = None,
        *,
        mode: ScoringMode | str | None = None,
        relations: Sequence[str] | None = None,
        seed_ids: list[str] | None = None,
        on_depth: DepthCallback | None = None,
        cancel: threading.Event | None = None,
        timeout: float | None = None,
        as_of: str | datetime | None = None,
    ) -> PathRagResult:
        """Return the top-N paths that answer `query`.

        Args:
            query: the question, in words.
            community_id: confine seeds and walks to one community.
            ontology_id: the ontology whose relationship types may be walked.
            top_n: paths to return.
            max_depth: longest path, in hops (0 = seeds only).
            seed_n: seed entities taken from the vector index.
            mode: `option-d` (raw scores) or `a3` (per-depth min-max minus a depth penalty).
            relations: walk only these relationship types (must exist in the database).
            seed_ids: start from these entity ids (already linked by the caller, e.g. a KGQA topic
                entity) instead of the vector index; fetched in one round trip, `seed_n` ignored.
            on_depth: called after each depth with that depth's best paths (for streaming).
            cancel: set it to stop the search between depths.
            timeout: seconds; past it the search stops with `QueryTimeout`.
            as_of: cite (and seed from) the document versions valid at this moment (ISO 8601 or a
                datetime; None: the current versions).

        Raises:
            InvalidInput: a bad question or parameter.
            SchemaError: the graph lacks data, the index, or a named relationship type.
            DatabaseUnavailable: Neo4j cannot be reached.
        """
        s = self.settings
        top_n = s.top_n if top_n is None else top_n
        max_depth = s.max_depth if max_depth is None else max_depth
        seed_n = s.seed_n if seed_n is None else seed_n
        mode = ScoringMode(mode) if mode is not None else s.mode
        self._validate(query, top_n, max_depth, seed_n, community_id)
        if seed_ids is not None and (not seed_ids or not all(isinstance(x, str) and x for x in seed_ids)):
            raise InvalidInput("seed_ids must be a non-empty list of entity ids (None: vector seeds)")
        ontology = self.ontology_for(community_id, ontology_id)
        whitelist = self._whitelist(ontology, relations)

        t_start = time.perf_counter()
        state = _QueryState(
            query=query,
            qvec=[],
            entities={},
            named=set(),
            counter=RoundTripCounter(),
            timings={},
            deadline=(time.monotonic() + timeout) if timeout else None,
            cancel=cancel,
            community=community_id,
            as_of=parse_as_of(as_of),
        )
        scorer = self.scorer_for(community_id)
        qscorer = scorer.for_question(query)

        # 1) seeds
        t0 = time.perf_counter()
        state.qvec = [float(x) for x in self.embedder.encode([query])[0]]
        state.tick("embed", t0)
        t0 = time.perf_counter()
        if seed_ids is not None:
            seeds = self._seeds_by_id(state, seed_ids, community_id)
        else:
            seeds = self._seeds(state, seed_n, community_id)
        state.tick("seed", t0)
        state.named = self._named_in(query, state.entities.values())
        state.topics = set(state.named)
        t0 = time.perf_counter()
        state.intent = infer_intent(query, ontology, self.embedder, state.entities.values())
        state.named |= set(state.intent.described)  # named in other words: not the answer either
        state.tick("intent", t0)
        t0 = time.perf_counter()
        state.plans = self._plan(state, ontology, seeds, community_id, max_depth, given=seed_ids is not None)
        state.tick("plan", t0)

        candidates = Candidates()
        depth_stats: list[DepthStat] = []
        beam: list[ScoredPath] = []
        if seeds:
            t_depth = time.perf_counter()
            paths0 = [Path((sd.id,)) for sd in seeds]
            scored0 = self._score(state, qscorer, ontology, paths0, [None] * len(paths0), 0, mode)
            candidates.extend(scored0)
            t0 = time.perf_counter()
            beam = self._keep(scored0, 0)
            state.tick("prune", t0)
            depth_stats.append(
                DepthStat(
                    depth=0,
                    beam_in=0,
                    candidates=len(paths0),
                    scored=len(paths0),
                    kept=len(beam),
                    seconds=time.perf_counter() - t_depth,
                )
            )
            if on_depth is not None:
                on_depth(0, self._results(state, beam[:top_n], ontology, with_sources=False))

        # 2) expansion, one round trip per depth
        for depth in range(1, max_depth + 1):
            if not beam:
                break
            state.check()
            t_depth = time.perf_counter()
            t0 = time.perf_counter()
            allowed = whitelist
            if relations is None:
                allowed = self._whitelist_at(state, ontology, whitelist, depth, max_depth)
            children, parents = self._expand(state, beam, allowed)
            state.tick("expand", t0)
            if not children:
                depth_stats.append(
                    DepthStat(
                        depth=depth,
                        beam_in=len(beam),
                        candidates=0,
                        scored=0,
                        kept=0,
                        seconds=time.perf_counter() - t_depth,
                    )
                )
                break
            scored = self._score(state, qscorer, ontology, children, parents, depth, mode)
            t0 = time.perf_counter()
            if depth >= s.min_depth:
                scored = [
                    x for x in scored if max(x.model_score, x.parts.get("chain_prefix", 0.0)) >= s.min_score
                ]
            candidates.extend(scored)
            beam = self._keep(scored, depth)
            state.tick("prune", t0)
            depth_stats.append(
                DepthStat(
                    depth=depth,
                    beam_in=len(parents and set(parents)),
                    candidates=len(children),
                    scored=len(scored),
                    kept=len(beam),
                    seconds=time.perf_counter() - t_depth,
                )
            )
            if on_depth is not None:
                on_depth(depth, self._results(state, beam[:top_n], ontology, with_sources=False))

        # 3) top-N of everything explored (planned paths scored by the path-text model first)
        if state.plans and s.chain_rerank > 0:
            candidates = self._rerank(state, qscorer, ontology, candidates, mode)
        t0 = time.perf_counter()
        best = candidates.top(top_n, min_score=s.min_score, demote_detours=s.demote_detours)
        state.tick("prune", t0)
        return self._finish(
            state,
            best,
            ontology,
            mode=mode,
            scorer=scorer,
            community_id=community_id,
            seeds=seeds,
            depth_stats=depth_stats,
            explored=len(candidates),
            t_start=t_start,
        )

    def _finish(
        self,
        state: _QueryState,
        best: list[ScoredPath],
        ontology: Ontology,
        *,
        mode: ScoringMode,
        scorer: Any,
        community_id: str | None,
        seeds: list[PathRag._Seed],
        depth_stats: list[DepthStat],
        explored: int,
        t_start: float,
    ) -> PathRagResult:
        """Sources of the best paths, final timings, and the typed result."""
        t0 = time.perf_counter()
        paths = self._results(state, best, ontology, with_sources=True)
        state.tick("sources", t0)
        state.timings["total"] = (time.perf_counter() - t_start) * 1000.0
        state.timings["db"] = state.counter.seconds * 1000.0
        return PathRagResult(
            query=state.query,
            mode=mode.value,
            scorer=getattr(scorer, "name", type(scorer).__name__),
            community_id=community_id,
            paths=paths,
            seeds=[
                Seed(
                    id=sd.id,
                    name=state.entities[sd.id].name,
                    labels=list(state.entities[sd.id].labels),
                    similarity=sd.similarity,
                )
                for sd in seeds
            ],
            timings_ms={k: round(v, 2) for k, v in state.timings.items()},
            round_trips=state.counter.count,
            depths=depth_stats,
            explored=explored,
        )

    # --- steps ----------------------------------------------------------------------------------

    def _whitelist(self, ontology: Ontology, relations: Sequence[str] | None) -> list[str]:
        present = self.info.types
        if relations is not None:
            unknown = sorted(set(relations) - present)
            if unknown:
                raise SchemaError(
                    f"relationship type(s) {unknown} are not in the database (it has {sorted(present)}); "
                    "fix the relation whitelist"
                )
            return [r for r in relations if r not in STRUCTURAL_TYPES]
        return [r for r in ontology.relation_names if r in present and r not in STRUCTURAL_TYPES]

    def seed_entities(self, query: str, community_id: str | None = None) -> list[EntityRecord]:
        """The seed entities of a question (vector index), e.g. to find the entities it names."""
        state = _QueryState(query, [], {}, set(), RoundTripCounter(), {}, None, None)
        state.qvec = [float(x) for x in self.embedder.encode([query])[0]]
        self._seeds(state, self.settings.seed_n, community_id)
        return list(state.entities.values())

    def _whitelist_at(
        self, state: _QueryState, ontology: Ontology, base: list[str], depth: int, max_depth: int
    ) -> list[str]:
        """The whitelist narrowed for the question's intent at one depth (`intent_whitelist` setting)."""
        if not self.settings.intent_whitelist:
            return base
        return relations_allowed(ontology, state.intent, base, depth, max_depth)

    def _plan(
        self,
        state: _QueryState,
        ontology: Ontology,
        seeds: list[PathRag._Seed],
        community_id: str | None,
        max_depth: int,
        *,
        given: bool,
    ) -> dict[str, ChainPlan]:
        """Chain plans of the question's topic entities: the seeds it names (all given seeds).

        Empty without a chain model for the community (the path-text scorer alone decides), or
        without a topic among the seeds. The topics' names are masked as `X` for the chain scorer,
        as its training questions were; one plan per distinct set of type labels.
        """
        from pathrag_gds.chain_model import get_chain_scorer

        scorer = get_chain_scorer(self.settings, community_id)
        if scorer is None or not seeds:
            return {}
        ids = [sd.id for sd in seeds]
        topics = ids if given else [i for i in ids if i in state.topics]
        if not topics:
            return {}
        scorer.check_ontology(ontology)
        names = [state.entities[t].name for t in topics]
        score = scorer.scorer_for(mask_mentions(state.query, names))
        s = self.settings
        by_labels: dict[tuple[str, ...], ChainPlan] = {}
        plans = {}
        for t in topics:
            labels = state.entities[t].labels
            if labels not in by_labels:
                by_labels[labels] = plan_chains(
                    score,
                    ontology,
                    labels,
                    max_depth=min(max_depth, scorer.max_depth),
                    beam=s.chain_beam,
                    keep=s.chain_keep,
                    temperature=scorer.temperature,
                )
            plans[t] = by_labels[labels]
        return plans

    def _record(self, eid: str, labels: Iterable[str], props: dict[str, Any]) -> EntityRecord:
        s = self.settings
        props = dict(props)
        props.pop(s.id_property, None)
        name = str(props.pop(s.name_property, eid))
        description = str(props.pop(s.description_property, "") or "")
        return EntityRecord(
            id=eid, labels=tuple(labels), name=name, description=description, attributes=props
        )

    @dataclass
    class _Seed:
        id: str
        similarity: float

    def _seeds(self, state: _QueryState, seed_n: int, community_id: str | None) -> list[PathRag._Seed]:
        s = self.settings
        exact = False
        if community_id is not None:
            size = int(self.info.communities[community_id].get("size") or 0)
            exact = size <= 20000
        rows = self.graph.read(
            "seeds",
            counter=state.counter,
            index_name=s.vector_index,
            k=max(seed_n * (20 if community_id else 1), seed_n),
            qvec=state.qvec,
            seed_n=seed_n,
            community=community_id,
            exact=exact,
            entity_label=s.entity_label,
            embedding_key=s.embedding_property,
        )
        if s.chunk_seed_n and s.chunk_label in self.info.labels:
            have = {r["id"] for r in rows}
            more = chunk_seed_rows(
                self.graph,
                state.qvec,
                community=community_id,
                as_of=state.as_of,
                seed_n=s.chunk_seed_n,
                counter=state.counter,
            )
            rows += [r for r in more if r["id"] not in have]
        return self._seed_rows(state, rows)

    def _seed_rows(self, state: _QueryState, rows: list[dict[str, Any]]) -> list[PathRag._Seed]:
        """Cache the seed entities of a seed query's rows and return the seeds in order."""
        out = []
        for r in rows:
            state.entities[r["id"]] = self._record(r["id"], r["labels"], r["props"])
            state.sims[r["id"]] = float(r["score"])
            out.append(PathRag._Seed(r["id"], float(r["score"])))
        return out

    def _seeds_by_id(
        self, state: _QueryState, seed_ids: list[str], community_id: str | None
    ) -> list[PathRag._Seed]:
        s = self.settings
        rows = self.graph.read(
            "seeds_by_id",
            counter=state.counter,
            ids=list(dict.fromkeys(seed_ids)),
            community=community_id,
            qvec=state.qvec,
            entity_label=s.entity_label,
            embedding_key=s.embedding_property,
        )
        return self._seed_rows(state, rows)

    def _expand(
        self, state: _QueryState, beam: list[ScoredPath], whitelist: list[str]
    ) -> tuple[list[Path], list[int | None]]:
        s = self.settings
        items = []
        for i, b in enumerate(beam):
            plan = state.plan_of(b.path)
            steps = None if plan is None else sorted(step_token(x) for x in plan.allowed(path_chain(b.path)))
            if steps == []:
                continue  # the path has walked a whole planned chain: it stops here
            items.append(
                {
                    "pid": i,
                    "frontier": b.path.end,
                    "nodes": list(b.path.node_ids),
                    "keys": list(b.path.edge_keys),
                    "steps": steps,
                }
            )
        if not items:
            return [], []
        rows = self.graph.read(
            "expand",
            counter=state.counter,
            beam=items,
            rels=whitelist,
            cap=s.cap_per_relation,
            limit=s.expand_per_path,
            no_revisit=s.no_revisit,
            qvec=state.qvec,
            known=list(state.entities),
            community=s.walk_community(state.community),
            entity_label=s.entity_label,
            embedding_key=s.embedding_property,
        )
        children: list[Path] = []
        parents: list[int | None] = []
        for r in rows:
            nid = r["id"]
            if r["entity"] is not None and nid not in state.entities:
                state.entities[nid] = self._record(nid, r["entity"]["labels"], r["entity"]["props"])
            state.sims[nid] = float(r["sim"])
            parent = beam[r["pid"]].path
            edge = Edge(r["type"], r["src"], r["tgt"], r["direction"], dict(r["rel_props"] or {}))
            child = parent.extend(edge, nid)
            children.append(child)
            parents.append(r["pid"])
        return children, parents

    def _score(
        self,
        state: _QueryState,
        qscorer: Any,
        ontology: Ontology,
        paths: list[Path],
        parents: list[int | None],
        depth: int,
        mode: ScoringMode,
    ) -> list[ScoredPath]:
        """Score one depth's paths.

        A path from a planned topic is ranked by its chain first: chain probability plus the Step 6
        terms, ties broken by its end entity's stored-embedding similarity (free: Neo4j computed it
        during the expansion). The path-text model scores only the best of those once the walk is
        over (:meth:`_rerank`): the chain, not the text, decides which of them the beam keeps. Every
        other path is scored by the path-text model now.
        """
        t0 = time.perf_counter()
        s = self.settings
        free = [i for i, p in enumerate(paths) if state.plan_of(p) is None]
        scores = self._model_scores(state, qscorer, ontology, [paths[i] for i in free], depth, mode)
        model = dict(zip(free, scores, strict=True))
        weights = self._term_weights()
        out = []
        for i, (p, par) in enumerate(zip(paths, parents, strict=True)):
            parts: dict[str, float] = {}
            f = 0.0
            text, raw, tie = "", None, state.sims.get(p.end, 0.0)
            if i in model:
                text, raw_score, f, tie = model[i]
                parts["model"] = raw = raw_score
            if state.intent is not None and weights.any:
                terms = term_parts(p, state.entities, state.intent, weights, state.named)
                f += weighted_sum(terms, weights)
                parts.update(terms)
            plan = state.plan_of(p)
            if plan is not None:
                parts["instance"] = f
                parts["chain"] = plan.prob(path_chain(p))
                parts["chain_prefix"] = plan.mass(path_chain(p))
                f += s.weight_chain * parts["chain"]
            parts["final"] = f
            out.append(ScoredPath(p, f, raw=raw, parent=par, parts=parts, text=text, tie=tie))
        state.tick("score", t0)
        return out

    def _term_weights(self) -> TermWeights:
        s = self.settings
        return TermWeights(
            s.weight_type, s.weight_relation_prior, s.weight_coverage, s.weight_length, s.weight_described
        )

    def _model_scores(
        self,
        state: _QueryState,
        qscorer: Any,
        ontology: Ontology,
        paths: list[Path],
        depth: int,
        mode: ScoringMode,
    ) -> list[tuple[str, float, float, float]]:
        """(text, raw model score, mode score, tie-break) of each path, in one scorer batch."""
        if not paths:
            return []
        max_tokens, count = self._text_budget()
        texts = [
            serialize_path(p, state.entities, ontology, max_tokens=max_tokens, count_tokens=count)
            for p in paths
        ]
        raw = [float(x) for x in qscorer.score(texts)]
        tie_fn = getattr(qscorer, "ties", None)  # a QuestionScorer has it; a bare scorer may not
        ties = tie_fn(texts) if tie_fn is not None else [0.0] * len(texts)
        final = mode_scores(
            raw,
            depth,
            mode,
            weight_rerank=self.settings.weight_rerank,
            depth_penalty=self.settings.weight_depth_penalty,
        )
        return list(zip(texts, raw, final, ties, strict=True))

    def _rerank(
        self, state: _QueryState, qscorer: Any, ontology: Ontology, candidates: Candidates, mode: ScoringMode
    ) -> Candidates:
        """The explored paths with the best planned ones scored by the path-text model.

        Scored: the best `chain_rerank` planned paths, and the best two of every other chain walked,
        so the text can still overturn a close chain decision. The model's score is added to their
        chain score (what the question constrains beyond the chain: a second entity, a described
        event); the other planned paths leave the candidates.
        """
        t0 = time.perf_counter()
        ranked = candidates.top(len(candidates))
        planned = [x for x in ranked if "chain" in x.parts]
        head = planned[: self.settings.chain_rerank]
        per_chain = Counter(path_chain(x.path) for x in head)
        for x in planned[len(head) :]:
            chain = path_chain(x.path)
            if per_chain[chain] < 2:
                per_chain[chain] += 1
                head.append(x)
        out = Candidates()
        out.extend(x for x in ranked if "chain" not in x.parts)
        by_depth: dict[int, list[ScoredPath]] = {}
        for x in head:
            by_depth.setdefault(x.path.depth, []).append(x)
        for depth, group in by_depth.items():
            scores = self._model_scores(state, qscorer, ontology, [x.path for x in group], depth, mode)
            for x, (text, raw, f, tie) in zip(group, scores, strict=True):
                parts = {**x.parts, "model": raw}
                parts["instance"] += f
                parts["final"] += f
                out.add(replace(x, score=parts["final"], raw=raw, parts=parts, text=text, tie=tie))
        state.tick("score", t0)
        return out

    def _keep(self, scored: list[ScoredPath], depth: int) -> list[ScoredPath]:
        """The next beam: paths on planned chains, and the others, each up to `beam_width`.

        A path on the way along planned chains ranks with the probability of every kept chain it
        leads into (`chain_prefix`), not of its own chain alone, so the first hops of a likely
        3-hop chain are not pruned for a 1-hop look-alike. The chain, not the entity, is what the
        question decides: those paths skip the per-parent local keep (the walk runs over the set
        of entities the chain reaches; a sibling can be a dead end for the next step), and have a
        beam of their own so that paths of other seeds do not crowd them out. (A path from a topic
        is never off every kept chain: the expansion only takes planned steps.)
        """
        s = self.settings
        planned: list[ScoredPath] = []
        free: list[ScoredPath] = []
        for x in scored:
            if x.parts.get("chain_prefix", 0.0) > 0.0:
                bonus = s.weight_chain * (x.parts["chain_prefix"] - x.parts["chain"])
                planned.append(replace(x, score=x.score + bonus))
            elif "chain_prefix" not in x.parts:
                free.append(x)
        if depth == 0 and planned and not s.walk_unplanned_seeds:
            free = []  # the named topic's chain plan decides the walk; other seeds stay 0-hop answers
        if depth > 0:
            free = local_keep_all(free, s.local_keep_m, depth, s.min_depth)
        return global_keep(planned, s.beam_width, by_frontier=s.beam_by_frontier) + global_keep(
            free, s.beam_width, by_frontier=s.beam_by_frontier
        )

    def _text_budget(self) -> tuple[int, Callable[[str], int]]:
        """Token budget of path texts and the scorer's own token counter (approximate if none)."""
        if self._count_tokens is None:
            counter = getattr(self.embedder, "token_count", None) or approx_tokens
            self._count_tokens = functools.lru_cache(maxsize=200_000)(counter)
        return self.settings.path_text_tokens, self._count_tokens

    @staticmethod
    def _named_in(query: str, entities: Iterable[EntityRecord]) -> set[str]:
        return set(named_entities(query, entities))

    def _results(
        self, state: _QueryState, scored: list[ScoredPath], ontology: Ontology, *, with_sources: bool
    ) -> list[PathResult]:
        ents = state.entities
        sources: dict[str, list[SourceChunk]] = {}
        if with_sources and scored and self.settings.chunk_label in self.info.labels:
            ids = sorted({n for sp in scored for n in sp.path.node_ids})
            sources = read_sources(
                self.graph, ids, community=state.community, as_of=state.as_of, counter=state.counter
            )
        max_tokens, count = self._text_budget()
        out = []
        for rank, sp in enumerate(scored, start=1):
            p = sp.path
            answers = rank_answers(p, ents, state.intent, state.named)
            seen: set[str] = set()
            path_sources: list[SourceChunk] = []
            for nid in p.node_ids:
                for ch in sources.get(nid, []):
                    if ch.id not in seen:
                        seen.add(ch.id)
                        path_sources.append(ch)
            out.append(
                PathResult(
                    rank=rank,
                    score=round(sp.score, 6),
                    score_parts={k: round(v, 6) for k, v in sp.parts.items()},
                    depth=p.depth,
                    key=p.key,
                    text=sp.text
                    or serialize_path(p, ents, ontology, max_tokens=max_tokens, count_tokens=count),
                    path_context=path_context(p, ents),
                    nodes=[
                        NodeOut(
                            id=n,
                            name=ents[n].name,
                            labels=list(ents[n].labels),
                            description=ents[n].description,
                            attributes=ents[n].attributes,
                        )
                        for n in p.node_ids
                    ],
                    edges=[
                        EdgeOut(
                            type=e.type,
                            source=e.source_id,
                            target=e.target_id,
                            direction=e.direction,
                            attributes=e.attributes,
                        )
                        for e in p.edges
                    ],
                    answer_candidates=[
                        AnswerCandidate(id=a, name=ents[a].name, labels=list(ents[a].labels), reason=why)
                        for a, why in answers
                    ],
                    sources=path_sources,
                    chain=[step_token(x) for x in path_chain(p)],
                )
            )
        return out


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
