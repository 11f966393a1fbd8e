"""How the search ranks paths: score assembly per path, the beam's keep, the rerank, the top-N. Pure.

A path from a planned topic is ranked by its chain first (chain probability plus the Step 6 terms,
ties broken by its end entity's similarity to the question); the path-text model scores only the
best of those once the walk is over (:meth:`Ranker.rerank`). Every other path is scored by the
path-text model as soon as it is found (:meth:`Ranker.score`). The scorer and the serializer come
in as plain callables, so this module needs no model and no database.

Example:
    >>> from pathrag_gds.config import Settings
    >>> from pathrag_gds.paths import Path
    >>> from pathrag_gds.search.context import QueryContext
    >>> class Lengths:
    ...     def score(self, texts): return [len(t) / 10 for t in texts]
    >>> ranker = Ranker(Settings(), Lengths(), lambda p: "-".join(p.node_ids))
    >>> scored = ranker.score(QueryContext("q"), [Path(("ab",)), Path(("a",))], [None, None])
    >>> [(x.path.start, x.score) for x in scored]
    [('ab', 0.2), ('a', 0.1)]
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace

from pathrag_gds.beam import Candidates, ScoredPath, global_keep, local_keep_all, mode_scores
from pathrag_gds.config import ScoringMode, Settings
from pathrag_gds.intent import singular
from pathrag_gds.paths import Path
from pathrag_gds.scoring_terms import (
    TermWeights,
    another_kind,
    is_a,
    rank_answers,
    term_parts,
    weighted_sum,
)
from pathrag_gds.search.context import QueryContext
from pathrag_gds.search.protocols import PathScorer, TieBreaker
from pathrag_gds.search.schema import Chain, path_chain

#: (text, raw model score, mode score, tie-break) of one path
ModelScore = tuple[str, float, float, float]


def by_depth(items: Iterable[int], depth_of: Callable[[int], int]) -> dict[int, list[int]]:
    """Item indexes grouped by depth, in first-seen order (one scorer batch per depth).

    Example:
        >>> by_depth(range(4), lambda i: i % 2)
        {0: [0, 2], 1: [1, 3]}
    """
    groups: dict[int, list[int]] = {}
    for i in items:
        groups.setdefault(depth_of(i), []).append(i)
    return groups


class Ranker:
    """Scores, keeps and ranks the paths of one question.

    Args:
        settings: the weights, the beam's widths and floors, the rerank size.
        scorer: the path-text scorer bound to the question (a :class:`TieBreaker` breaks its ties).
        text_of: a path's text for the scorer (the serializer, with the entities fetched so far).
        mode: `option-d` (raw scores) or `a3` (per-depth min-max minus a depth penalty); default:
            the settings'.
    """

    def __init__(
        self,
        settings: Settings,
        scorer: PathScorer,
        text_of: Callable[[Path], str],
        mode: ScoringMode | None = None,
    ) -> None:
        self.settings = settings
        self.scorer = scorer
        self.text_of = text_of
        self.mode = settings.mode if mode is None else mode
        s = settings
        self.weights = TermWeights(
            s.weight_type,
            s.weight_relation_prior,
            s.weight_coverage,
            s.weight_length,
            s.weight_described,
            s.weight_lexical,
        )

    def model_scores(self, paths: Sequence[Path], depth: int) -> list[ModelScore]:
        """(text, raw model score, mode score, tie-break) of each path, in one scorer batch."""
        if not paths:
            return []
        texts = [self.text_of(p) for p in paths]
        raw = [float(x) for x in self.scorer.score(texts)]
        scorer = self.scorer
        ties = list(scorer.ties(texts)) if isinstance(scorer, TieBreaker) else [0.0] * len(texts)
        final = mode_scores(
            raw,
            depth,
            self.mode,
            weight_rerank=self.settings.weight_rerank,
            depth_penalty=self.settings.weight_depth_penalty,
        )
        return list(zip(texts, raw, final, ties, strict=True))

    def score(
        self, ctx: QueryContext, paths: Sequence[Path], parents: Sequence[int | None]
    ) -> list[ScoredPath]:
        """Score one depth's paths (paths of several depths: one scorer batch per depth).

        A planned path gets `chain` (its chain's probability, weighted into the score),
        `chain_prefix` (the probability of the kept chains it leads into) and `instance` (the rest);
        every other path the model's score (`model`) now. Both get the Step 6 terms.
        """
        with ctx.timed("score"):
            s = self.settings
            free = [i for i, p in enumerate(paths) if ctx.plan_of(p) is None]
            model: dict[int, ModelScore] = {}
            for depth, idx in by_depth(free, lambda i: paths[i].depth).items():
                model.update(zip(idx, self.model_scores([paths[i] for i in idx], depth), strict=True))
            out = []
            for i, (p, par) in enumerate(zip(paths, parents, strict=True)):
                parts: dict[str, float] = {}
                f = 0.0
                text, raw, tie = "", None, ctx.sims.get(p.end, 0.0)
                if i in model:
                    text, raw_score, f, tie = model[i]
                    parts["model"] = raw = raw_score
                if ctx.intent is not None and self.weights.any:
                    terms = term_parts(p, ctx.entities, ctx.intent, self.weights, ctx.named)
                    f += weighted_sum(terms, self.weights)
                    parts.update(terms)
                plan = ctx.plan_of(p)
                if plan is not None:
                    chain = path_chain(p)
                    parts["instance"] = f
                    parts["chain"] = plan.prob(chain)
                    parts["chain_prefix"] = plan.mass(chain)
                    if not parts["chain_prefix"] and plan.prob(chain[:-1]):  # a step past its chain
                        parts["chain"] = parts["chain_prefix"] = plan.prob(chain[:-1])
                        parts["kind_step"] = 1.0
                    f += s.weight_chain * parts["chain"]
                parts["final"] = f
                out.append(ScoredPath(p, f, raw=raw, parent=par, parts=parts, text=text, tie=tie))
            return out

    def steps_past(self, ctx: QueryContext, beam: Sequence[ScoredPath]) -> set[int]:
        """Beam paths that walked a whole planned chain and take one more step, along any relation.

        With `chain_kind_step`, the paths of a topic's kept chain step past it when every end the
        beam holds of that chain says it is another kind of thing than the question's noun asks
        for (:func:`~pathrag_gds.scoring_terms.another_kind`: "In which village does X's
        grandfather live?" ends only at `place_type: cottage`): the chain found where the answer
        is, one hop short. Only a noun that is a kind, one some entity the question met has
        (`village`, not `part` or a verb read as a noun), and a chain that reaches no entity of
        that kind: the children keep their chain's probability; it is one step, never two.

        Example:
            >>> from pathrag_gds.intent import Intent
            >>> from pathrag_gds.paths import Edge, EntityRecord
            >>> from pathrag_gds.search.planner import ChainPlan
            >>> lives = (("lives_in", "out"),)
            >>> it = Intent("In which village does Jo live?", "entity", {"Place": 1.0}, noun="village")
            >>> ctx = QueryContext("q", intent=it, plans={"jo": ChainPlan({lives: 0.9})})
            >>> ctx.entities["c"] = EntityRecord("c", ("Place",), "Rose", "", {"place_type": "cottage"})
            >>> ctx.entities["v"] = EntityRecord("v", ("Place",), "Mead", "", {"place_type": "village"})
            >>> def walk(e): return ScoredPath(Path(("jo", e), (Edge("lives_in", "jo", e, "out"),)), 1.0)
            >>> ranker = Ranker(Settings(), None, str)  # type: ignore[arg-type]
            >>> ranker.steps_past(ctx, [walk("c")]), ranker.steps_past(ctx, [walk("c"), walk("v")])
            ({0}, set())
        """
        intent = ctx.intent
        if not self.settings.chain_kind_step or intent is None or not intent.noun or not ctx.plans:
            return set()
        groups: dict[tuple[str, Chain], list[int]] = {}
        for i, b in enumerate(beam):
            plan = ctx.plan_of(b.path)
            chain = path_chain(b.path)
            if plan is not None and chain and plan.prob(chain) > 0.0 and not plan.allowed(chain):
                groups.setdefault((b.path.start, chain), []).append(i)
        out: set[int] = set()
        for idx in groups.values():
            ends = [ctx.entities.get(beam[i].path.end) for i in idx]
            if all(e is not None and another_kind(e, intent) for e in ends):
                out.update(idx)
        # the noun must be a kind the graph has: read over the fetched entities only when a chain
        # qualifies (a graph without kind attributes, MetaQA's, never gets here)
        noun = singular(intent.noun)
        if out and not any(is_a(e, noun) for e in ctx.entities.values() if e.kinds):
            return set()
        return out

    def floor(self, scored: Sequence[ScoredPath]) -> list[ScoredPath]:
        """Drop paths (from `min_depth` on) under `min_score`: by the model, or by chain prefix mass."""
        s = self.settings
        return [
            x
            for x in scored
            if x.path.depth < s.min_depth
            or max(x.model_score, x.parts.get("chain_prefix", 0.0)) >= s.min_score
        ]

    def walks_beside_plans(self, ctx: QueryContext) -> bool:
        """Are the seeds the question does not name walked beside its chain plans?

        Yes with `walk_unplanned_seeds`, or when no followed plan is sure: its best chain holds
        under `chain_sure_best`. An unsure plan is a guess the path-text search should be able
        to overrule, so the seeds it would walk from stay in the search.

        Example:
            >>> from pathrag_gds.search.planner import ChainPlan
            >>> ranker = Ranker(Settings(chain_sure_best=0.3), None, str)  # type: ignore[arg-type]
            >>> ctx = QueryContext("q", plans={"a": ChainPlan({(("r", "out"),): 0.25}, {})})
            >>> ranker.walks_beside_plans(ctx), ranker.walks_beside_plans(QueryContext("q"))
            (True, False)
        """
        s = self.settings
        if s.walk_unplanned_seeds:
            return True
        if not ctx.plans:
            return False
        best = max(max(p.probs.values(), default=0.0) for p in ctx.plans.values())
        return best < s.chain_sure_best

    def keep(
        self, scored: Sequence[ScoredPath], depth: int, *, walk_others: bool = False
    ) -> list[ScoredPath]:
        """The next beam: paths on planned chains, and the others, each up to `beam_width`.

        A path on the way along planned chains ranks with the probability of every kept chain it
        leads into (`chain_prefix`), not of its own chain alone, so the first hops of a likely
        3-hop chain are not pruned for a 1-hop look-alike. The chain, not the entity, is what the
        question decides: those paths skip the per-parent local keep (the walk runs over the set
        of entities the chain reaches; a sibling can be a dead end for the next step), and have a
        beam of their own so that paths of other seeds do not crowd them out. A path from a topic
        off every kept chain is dropped (the server-side expansion only takes planned steps).
        Beside a planned topic, the seeds the question does not name are not walked (they stay
        0-hop candidates) unless `walk_others` (:meth:`walks_beside_plans`).
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
        if depth == 0 and planned and not walk_others:
            free = []  # the named topic's chain plan decides the walk; other seeds stay 0-hop answers
        if depth > 0:
            free = local_keep_all(free, s.local_keep_m, depth, s.min_depth)
        return global_keep(planned, s.beam_width, by_frontier=s.beam_by_frontier) + global_keep(
            free, s.beam_width, by_frontier=s.beam_by_frontier
        )

    def rerank(self, ctx: QueryContext, candidates: Candidates) -> Candidates:
        """The explored paths with the best planned ones scored by the path-text model.

        Scored: the best `chain_rerank` planned paths, and the best two of every other chain walked,
        so the text can still overturn a close chain decision. The model's score is added to their
        chain score (what the question constrains beyond the chain: a second entity, a described
        event); the other planned paths leave the candidates.
        """
        with ctx.timed("score"):
            ranked = candidates.every()
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
            for depth, idx in by_depth(range(len(head)), lambda i: head[i].path.depth).items():
                group = [head[i] for i in idx]
                scores = self.model_scores([x.path for x in group], depth)
                for x, (text, raw, f, tie) in zip(group, scores, strict=True):
                    parts = {**x.parts, "model": raw}
                    parts["instance"] += f
                    parts["final"] += f
                    out.add(replace(x, score=parts["final"], raw=raw, parts=parts, text=text, tie=tie))
            return out

    def settle(self, ctx: QueryContext, candidates: Candidates) -> Candidates:
        """The candidates after the walk: reranked when the question has chain plans."""
        if ctx.plans and self.settings.chain_rerank > 0:
            return self.rerank(ctx, candidates)
        return candidates

    def top(self, ctx: QueryContext, candidates: Candidates, n: int) -> list[ScoredPath]:
        """The best `n` candidates over `min_score`, detours past an answer ranked just below it.

        With `distinct_evidence`, a path and its own extension or prefix count once unless it adds
        an answer or an entity the question names (:func:`~pathrag_gds.beam.distinct_top`, each
        path's answer :func:`path_answer`).
        """
        s = self.settings
        answer_of = (lambda p: path_answer(ctx, p)) if s.distinct_evidence else None
        named = ctx.named | (set(ctx.intent.named) if ctx.intent is not None else set())
        with ctx.timed("prune"):
            return candidates.top(
                n,
                min_score=s.min_score,
                demote_detours=s.demote_detours,
                answer_of=answer_of,
                named=named,
            )


def path_answer(ctx: QueryContext, path: Path) -> str | None:
    """The path's answer: its first answer candidate, None when that is an entity the question names.

    Example:
        >>> from pathrag_gds.paths import Edge, EntityRecord
        >>> ctx = QueryContext("Who owns Bob?", named={"b"})
        >>> ctx.entities["b"] = EntityRecord("b", ("Cat",), "Bob")
        >>> ctx.entities["j"] = EntityRecord("j", ("Person",), "Jane")
        >>> owned = Path(("b", "j"), (Edge("owns", "j", "b", "in"),))
        >>> path_answer(ctx, owned), path_answer(ctx, Path(("b",)))
        ('j', None)
    """
    if any(n not in ctx.entities for n in path.node_ids):
        return path.end
    answers = rank_answers(path, ctx.entities, ctx.intent, ctx.named)
    if not answers:
        return None
    answer, why = answers[0]
    named = ctx.named | (set(ctx.intent.named) if ctx.intent is not None else set())
    return None if answer in named and why != "the named entity asked about" else answer
