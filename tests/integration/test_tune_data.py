"""Training data generated from the live graph (`python -m pathrag_gds tune`).

- generated training data is reproducible from the seed (same data hash on two runs);
- no generated question equals an evaluation question (bob_eval.yaml, MetaQA dev files).

Needs the demo graph loaded and indexed (`python -m pathrag_gds load demo && python -m pathrag_gds
index`); the MetaQA part also needs the `metaqa` community (it is skipped by nothing: it fails when
missing, as the other MetaQA integration tests do).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from pathrag_gds.config import Settings
from pathrag_gds.evaluation.bob import load_suite
from pathrag_gds.evaluation.metaqa import read_questions
from pathrag_gds.training.questions import normalize_question
from pathrag_gds.training.tune import TuneOptions, build_pairs, generate_questions

pytestmark = pytest.mark.integration

BOB = "DefaultCommunity_FictionalStories"
METAQA_DEV = [Path(f"/work/shared/data/metaqa/{h}-hop/qa_dev.txt") for h in (1, 2, 3)]


def test_generated_data_is_reproducible(settings: Settings) -> None:
    opts = TuneOptions(community=BOB, pairs=300, seed=11)
    q1, p1, _ = build_pairs(opts, settings)
    q2, p2, _ = build_pairs(opts, settings)
    from pathrag_gds.training.pairs import data_hash

    assert [q.question for q in q1] == [q.question for q in q2]
    assert data_hash(p1) == data_hash(p2)
    _, p3, _ = build_pairs(TuneOptions(community=BOB, pairs=300, seed=12), settings, with_bi_encoder=False)
    assert data_hash(p3) != data_hash(p1)


def test_no_generated_question_is_an_evaluation_question(settings: Settings) -> None:
    suite = load_suite()
    evaluation = {normalize_question(q.query) for q in (*suite.queries, *suite.fresh)}
    for path in METAQA_DEV:
        evaluation.update(normalize_question(q.question) for q in read_questions(path))
    assert len(evaluation) > 10000
    for community, n in ((BOB, 2000), ("metaqa", 3000)):
        questions, *_ = generate_questions(TuneOptions(community=community, pairs=n), settings)
        assert questions
        clashes = [q.question for q in questions if normalize_question(q.question) in evaluation]
        assert clashes == []
