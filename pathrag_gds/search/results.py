"""The typed results of a search: ranked paths with nodes, edges, score parts, answers, sources. Pure.

:func:`path_results` takes the scored paths and the source passages fetched for their entities
(:func:`pathrag_gds.provenance.read_sources`: entity id -> chunks) and builds the
:class:`~pathrag_gds.results.PathResult` list, in rank order.

Example:
    >>> from pathrag_gds.beam import ScoredPath
    >>> from pathrag_gds.paths import EntityRecord, Path
    >>> from pathrag_gds.results import SourceChunk
    >>> from pathrag_gds.search.context import QueryContext
    >>> ctx = QueryContext("Who is Bob?", entities={"b": EntityRecord("b", ("Cat",), "Bob")})
    >>> sources = {"b": [SourceChunk(id="c1", text="Bob is a cat.", source=None, entity_id="b")]}
    >>> out = path_results(ctx, [ScoredPath(Path(("b",)), 0.5)], lambda p: "Bob.", sources)
    >>> out[0].rank, out[0].text, [s.text for s in out[0].sources]
    (1, 'Bob.', ['Bob is a cat.'])
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from pathrag_gds.beam import ScoredPath
from pathrag_gds.paths import Path
from pathrag_gds.results import AnswerCandidate, EdgeOut, NodeOut, PathResult, ScoreTerm, SourceChunk
from pathrag_gds.scoring_terms import rank_answers
from pathrag_gds.search.context import QueryContext
from pathrag_gds.search.schema import path_chain, step_token
from pathrag_gds.serialize import path_context
from pathrag_gds.support import ALIASES, PathClaim, attribute_words, entity_names, rank_passages


def score_breakdown(
    score: float, parts: Mapping[str, float], weights: Mapping[str, float]
) -> list[ScoreTerm]:
    """A path's score term by term; the contributions always sum to `score`.

    Each weighted part first (`weights`: part name -> weight: the Step 6 terms, `chain`), then
    `text`, the path-text model's share (its score after the scoring mode): what is left.

    Example:
        >>> parts = {"model": 0.8, "type": 1.0, "chain": 0.2}
        >>> terms = score_breakdown(1.2, parts, {"type": 0.2, "chain": 1.0})
        >>> [(t.name, t.value, t.weight, t.contribution) for t in terms]
        [('type', 1.0, 0.2, 0.2), ('chain', 0.2, 1.0, 0.2), ('text', 0.8, 1.0, 0.8)]
    """
    terms = [
        ScoreTerm(name=name, value=round(parts[name], 6), weight=w, contribution=round(w * parts[name], 6))
        for name, w in weights.items()
        if w != 0.0 and name in parts
    ]
    if "model" in parts:
        rest = round(score - sum(t.contribution for t in terms), 6)
        terms.append(ScoreTerm(name="text", value=round(parts["model"], 6), weight=1.0, contribution=rest))
    return terms


def _path_sources(
    ctx: QueryContext,
    p: Path,
    answer: str | None,
    sources: Mapping[str, list[SourceChunk]],
    aliases: str,
) -> list[SourceChunk]:
    """The passages citing the path's entities, each once, best support first."""
    seen: set[str] = set()
    found: list[SourceChunk] = []
    for nid in p.node_ids:
        for ch in sources.get(nid, []):
            if ch.id not in seen:
                seen.add(ch.id)
                found.append(ch)
    if len(found) < 2:
        return found
    ents = ctx.entities
    claim = PathClaim.of(
        ctx.question,
        {n: entity_names(ents[n].name, ents[n].attributes, aliases) for n in p.node_ids if n in ents},
        [(e.source_id, e.type, e.target_id) for e in p.edges],
        answer,
        [w for n in p.node_ids if n in ents for w in attribute_words(ents[n].attributes)],
        [w for e in p.edges for w in attribute_words(e.attributes)],
    )
    return rank_passages(claim, found, lambda ch: ch.text)


def path_results(
    ctx: QueryContext,
    scored: Sequence[ScoredPath],
    text_of: Callable[[Path], str],
    sources: Mapping[str, list[SourceChunk]] | None = None,
    weights: Mapping[str, float] | None = None,
    *,
    per_entity: int = 2,
    aliases: str = ALIASES,
) -> list[PathResult]:
    """The results of the scored paths, in order, each with the sources of its entities.

    A path's sources are ranked by how well they support it for this question
    (:func:`~pathrag_gds.support.rank_passages`: the passage that states a hop of the path first,
    not the document's reading order), `per_entity` for each of its entities at most.

    Args:
        ctx: the question (its entities, intent and named entities rank each path's answers).
        scored: the paths, best first.
        text_of: a path's text where the scorer did not keep one.
        sources: each entity's source passages (`provenance.read_sources`).
        weights: the weight of each score part (:func:`score_breakdown`); None: no breakdown.
        per_entity: passages a path cites per entity on it.
        aliases: the attribute of an entity's other names (a passage may name it by one).
    """
    ents = ctx.entities
    sources = sources or {}
    out = []
    for rank, sp in enumerate(scored, start=1):
        p = sp.path
        answers = rank_answers(p, ents, ctx.intent, ctx.named)
        path_sources = _path_sources(ctx, p, answers[0][0] if answers else None, sources, aliases)
        path_sources = path_sources[: per_entity * len(p.node_ids)]
        out.append(
            PathResult(
                rank=rank,
                score=round(sp.score, 6),
                score_parts={k: round(v, 6) for k, v in sp.parts.items()},
                score_breakdown=[] if weights is None else score_breakdown(sp.score, sp.parts, weights),
                depth=p.depth,
                key=p.key,
                text=sp.text or text_of(p),
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
