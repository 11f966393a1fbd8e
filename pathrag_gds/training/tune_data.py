"""The data of a `tune`: questions generated from the live graph, then (question, path text) pairs.

Deterministic for `TuneOptions.seed`; no evaluation question is read, not even to leave it out.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

from pathrag_gds.config import Settings, get_settings
from pathrag_gds.ontology import Ontology
from pathrag_gds.serialize import approx_tokens
from pathrag_gds.training.pairs import PairBuilder, TrainingPair
from pathrag_gds.training.phraser import someone_labels
from pathrag_gds.training.questions import GeneratedQuestion, QuestionGenerator
from pathrag_gds.training.source import Neo4jSource, community_source
from pathrag_gds.training.tune_options import Progress, TuneOptions

#: Pairs per question, roughly (positive, structural negatives, near misses): sizes the question count.
PAIRS_PER_QUESTION = 9


def generate_questions(
    options: TuneOptions, settings: Settings | None = None
) -> tuple[list[GeneratedQuestion], Neo4jSource, Ontology, Any]:
    """The questions of a `tune` run (deterministic for `options.seed`), with their graph source.

    No evaluation file is read: the questions come from the graph and its ontology alone.

    Returns:
        (questions, source, ontology, service).

    Raises:
        InvalidInput: the community does not exist.
    """
    from pathrag_gds.service import PathRag

    s = settings or get_settings()
    svc = PathRag(s)
    ontology, source = community_source(svc, options.community, cap=options.hub_cap, seed=options.seed)
    gen = QuestionGenerator(
        source,
        ontology,
        seed=options.seed,
        max_depth=options.max_depth,
        someone=someone_labels(ontology, svc.embedder),
    )
    questions = gen.generate(max(1, options.pairs // PAIRS_PER_QUESTION))
    return questions, source, ontology, svc


def build_pairs(
    options: TuneOptions,
    settings: Settings | None = None,
    progress: Progress | None = None,
    *,
    with_bi_encoder: bool = True,
) -> tuple[list[GeneratedQuestion], list[TrainingPair], dict[str, Any]]:
    """Generate questions and pairs from the live graph (deterministic for `options.seed`).

    Returns:
        (questions, pairs, info) where info holds the ontology id and round trips.

    Raises:
        InvalidInput: the community does not exist.
    """
    s = settings or get_settings()
    questions, source, ontology, svc = generate_questions(options, s)
    bi = None
    max_tokens = s.path_text_tokens
    # the search's text budget: the embedder's own token counter (PathRag._text_of)
    count = getattr(svc.embedder, "token_count", None)
    if with_bi_encoder:
        from pathrag_gds.scoring import BiEncoderScorer

        bi = BiEncoderScorer(svc.embedder)
    builder = PairBuilder(
        source,
        ontology,
        bi_score=bi.score if bi is not None else None,
        seed=options.seed,
        max_tokens=max_tokens,
        count_tokens=_cached(count) if count is not None else approx_tokens,
        near=options.near,
        cut_short_label=options.cut_short_label,
    )
    done = [0]

    def tick(n: int) -> None:
        done[0] += n
        if progress is not None:
            progress("pairs", done[0], len(questions), "")

    pairs = builder.build_all(questions, source.start_ids(), progress=tick)
    info = {"ontology": ontology.id, "round_trips": source.round_trips}
    return questions, pairs, info


def questions_by_template(questions: Sequence[GeneratedQuestion]) -> dict[str, int]:
    """How many questions each template gave (`idiomatic`, `shared`, `anchored`, `which-subj`, ...).

    Example:
        >>> from pathrag_gds.paths import Path
        >>> q = GeneratedQuestion(0, "Who starred with Al?", "2-hop:shared", Path(("al",)), ())
        >>> questions_by_template([q, q])
        {'shared': 2}
    """
    names = (q.template.partition(":")[2] or q.template for q in questions)
    counts = Counter("anchored" if t.startswith("anchored-") else t for t in names)
    return dict(sorted(counts.items()))


def _cached(fn: Callable[[str], int]) -> Callable[[str], int]:
    import functools

    return functools.lru_cache(maxsize=200_000)(fn)
