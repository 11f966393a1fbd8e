"""Two baselines that differ from :class:`~pathrag_gds.service.PathRag` only in how they expand.

Both reuse the service's seeds (vector index or `seed_ids`), serializer, scorer, beam bookkeeping and
result building, so a benchmark measures the expansion strategy alone:

- :class:`PerNodeRag`: the specification's original Step 3 design. Per depth, ONE database call per
  frontier node (`cypher/baseline_node_neighbours.cypher`: all its relationships and neighbours, with
  their embeddings); whitelist, no-revisit, per-relation cap, the similarity pre-sort and the
  per-path limit run in Python. It keeps the server-side version's semantics (same filters, same
  order), so its answers should match PathRag's and only its cost differs.
- :class:`VarLengthRag`: the multi-hop traversal API document's approach. From each seed, one
  `MATCH p=(s)-[*1..k]-(m)` call returning at most 30 paths (`cypher/baseline_varlength.cypher`),
  then every path scored; no beam, no pre-sort.

Example:
    >>> rag = PerNodeRag(settings, graph=g, scorer=sc, embedder=emb)  # doctest: +SKIP
    >>> rag.pathrag("who directed Heat", community_id="metaqa", max_depth=3).round_trips  # doctest: +SKIP
    9
"""

from __future__ import annotations

import threading
import time
from collections import defaultdict
from collections.abc import Sequence
from datetime import datetime
from typing import Any

import numpy as np

from pathrag_gds.beam import Candidates, ScoredPath
from pathrag_gds.config import ScoringMode
from pathrag_gds.errors import InvalidInput
from pathrag_gds.graph import RoundTripCounter
from pathrag_gds.paths import Direction, Edge, Path
from pathrag_gds.provenance import parse_as_of
from pathrag_gds.results import DepthStat, PathRagResult
from pathrag_gds.service import PathRag, _QueryState

#: The multi-hop API document: at most 30 paths per seed entity, 1..3 hops.
VARLENGTH_PATHS_PER_SEED = 30
VARLENGTH_MAX_HOPS = 3


def _cosine(qvec: Sequence[float], vectors: list[Any]) -> list[float]:
    """Cosine similarity of the question with each vector (0.0 for a missing one)."""
    q = np.asarray(qvec, dtype=np.float32)
    qn = float(np.linalg.norm(q)) or 1.0
    out = []
    for v in vectors:
        if v is None:
            out.append(0.0)
            continue
        a = np.asarray(v, dtype=np.float32)
        an = float(np.linalg.norm(a)) or 1.0
        out.append(float(a @ q) / (an * qn))
    return out


class PerNodeRag(PathRag):
    """The beam search with per-node expansion: one round trip per frontier node per depth."""

    name = "per-node"

    def _expand(
        self, state: _QueryState, beam: list[ScoredPath], whitelist: list[str]
    ) -> tuple[list[Path], list[int | None]]:
        s = self.settings
        allowed = set(whitelist)
        neighbours: dict[str, list[dict[str, Any]]] = {}
        for b in beam:  # one call per distinct frontier node
            f = b.path.end
            if f in neighbours:
                continue
            rows = self.graph.read(
                "baseline_node_neighbours",
                counter=state.counter,
                id=f,
                community=s.walk_community(state.community),
                entity_label=s.entity_label,
                embedding_key=s.embedding_property,
            )
            sims = _cosine(state.qvec, [r["embedding"] for r in rows])
            for r, sim in zip(rows, sims, strict=True):
                r["sim"] = sim
            neighbours[f] = rows
        children: list[Path] = []
        parents: list[int | None] = []
        for pid, b in enumerate(beam):
            on_path = set(b.path.node_ids)
            rows = [
                r
                for r in neighbours[b.path.end]
                if r["type"] in allowed and not (s.no_revisit and r["id"] in on_path)
            ]
            by_type: dict[str, list[dict[str, Any]]] = defaultdict(list)
            for r in sorted(rows, key=lambda r: -r["sim"]):
                by_type[r["type"]].append(r)
            capped = [r for group in by_type.values() for r in group[: s.cap_per_relation]]
            capped.sort(key=lambda r: -r["sim"])
            for r in capped[: s.expand_per_path]:
                nid = r["id"]
                if nid not in state.entities:
                    state.entities[nid] = self._record(nid, r["labels"], r["props"])
                direction: Direction = "out" if r["src"] == b.path.end else "in"
                edge = Edge(r["type"], r["src"], r["tgt"], direction, dict(r["rel_props"] or {}))
                children.append(b.path.extend(edge, nid))
                parents.append(pid)
        return children, parents


class VarLengthRag(PathRag):
    """Variable-length Cypher from each seed (at most 30 paths a seed), every path scored; no beam."""

    name = "var-length"

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
        on_depth: Any = None,
        cancel: threading.Event | None = None,
        timeout: float | None = None,
        as_of: str | datetime | None = None,
    ) -> PathRagResult:
        """Seeds as the service finds them, then `(s)-[*1..k]-(m)` per seed, all paths scored.

        Args mean what they mean for :meth:`PathRag.pathrag`; `max_depth` is clamped to 1..3 (the
        document's range); `on_depth`, `cancel` and `timeout` are accepted and ignored.

        Raises:
            InvalidInput: a bad question or parameter.
        """
        s = self.settings
        top_n = s.top_n if top_n is None else top_n
        k = min(max(s.max_depth if max_depth is None else max_depth, 1), VARLENGTH_MAX_HOPS)
        seed_n = s.seed_n if seed_n is None else seed_n
        mode = ScoringMode(mode) if mode is not None else s.mode
        self._validate(query, top_n, k, seed_n, community_id)
        if seed_ids is not None and not seed_ids:
            raise InvalidInput("seed_ids must be a non-empty list of entity ids (None: vector seeds)")
        ontology = self.ontology_for(community_id, ontology_id)
        whitelist = self._whitelist(ontology, relations)
        t_start = time.perf_counter()
        state = _QueryState(
            query, [], {}, set(), RoundTripCounter(), {}, None, None, community=community_id,
            as_of=parse_as_of(as_of),
        )
        qscorer = self.scorer.for_question(query)
        t0 = time.perf_counter()
        state.qvec = [float(x) for x in self.embedder.encode([query])[0]]
        state.tick("embed", t0)
        t0 = time.perf_counter()
        seeds = (
            self._seeds_by_id(state, seed_ids, community_id)
            if seed_ids is not None
            else self._seeds(state, seed_n, community_id)
        )
        state.tick("seed", t0)
        state.named = self._named_in(query, state.entities.values())
        if hasattr(state, "intent"):  # the same intent (scoring terms, answer ranking) as the service
            from pathrag_gds.intent import infer_intent

            t0 = time.perf_counter()
            state.intent = infer_intent(query, ontology, self.embedder, state.entities.values())
            state.named |= set(state.intent.described)
            state.tick("intent", t0)

        t0 = time.perf_counter()
        paths: list[Path] = []
        for sd in seeds:  # one round trip per seed, as the document's per-entity query
            rows = self.graph.read(
                "baseline_varlength",
                counter=state.counter,
                seed=sd.id,
                community=s.walk_community(community_id),
                k=k,
                rels=whitelist,
                limit=VARLENGTH_PATHS_PER_SEED,
                entity_label=s.entity_label,
                embedding_key=s.embedding_property,
            )
            for r in rows:
                ids = [n["id"] for n in r["nodes"]]
                for n in r["nodes"]:
                    if n["id"] not in state.entities:
                        state.entities[n["id"]] = self._record(n["id"], n["labels"], n["props"])
                p = Path((ids[0],))
                for i, rel in enumerate(r["rels"]):
                    direction: Direction = "out" if rel["src"] == ids[i] else "in"
                    edge = Edge(rel["type"], rel["src"], rel["tgt"], direction, dict(rel["props"] or {}))
                    p = p.extend(edge, ids[i + 1])
                paths.append(p)
        state.tick("expand", t0)
        candidates = Candidates()
        by_depth: dict[int, list[Path]] = defaultdict(list)
        for p in paths:
            by_depth[p.depth].append(p)
        stats = []
        for depth in sorted(by_depth):
            t_depth = time.perf_counter()
            scored = self._score(
                state, qscorer, ontology, by_depth[depth], [None] * len(by_depth[depth]), depth, mode
            )
            kept = [x for x in scored if x.model_score >= s.min_score]
            candidates.extend(kept)
            stats.append(
                DepthStat(
                    depth=depth,
                    beam_in=len(seeds),
                    candidates=len(by_depth[depth]),
                    scored=len(scored),
                    kept=len(kept),
                    seconds=time.perf_counter() - t_depth,
                )
            )
        t0 = time.perf_counter()
        best = candidates.top(top_n)
        state.tick("prune", t0)
        return self._finish(
            state,
            best,
            ontology,
            mode=mode,
            scorer=self.scorer,
            community_id=community_id,
            seeds=seeds,
            depth_stats=stats,
            explored=len(candidates),
            t_start=t_start,
        )
