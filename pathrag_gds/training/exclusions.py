"""Evaluation questions the generator must never produce (read only to leave them out).

Short template questions can coincide with an evaluation question by chance ("Which person wrote
Flesh?" is both a generated 1-hop question and a MetaQA dev question). The generator drops every
question whose normalised text (:func:`~pathrag_gds.training.questions.normalize_question`) is in
this set, so training never sees an evaluation question, not even by accident.

Example:
    >>> "who is jane" in evaluation_questions()
    True
"""

from __future__ import annotations

import functools
from pathlib import Path

from pathrag_gds.config import METAQA_DIR
from pathrag_gds.datasets.bob_suite import load_suite
from pathrag_gds.datasets.metaqa_questions import read_questions
from pathrag_gds.training.questions import normalize_question

#: MetaQA files held out from training: dev and test of every hop count.
METAQA_SPLITS = ("qa_dev.txt", "qa_test.txt")


@functools.cache
def evaluation_questions(metaqa_dir: Path = METAQA_DIR) -> frozenset[str]:
    """Normalised Bob-suite questions (spec and fresh) and MetaQA dev/test questions found on disk."""
    suite = load_suite()
    out = {normalize_question(q.query) for q in (*suite.queries, *suite.fresh)}
    for hops in (1, 2, 3):
        for name in METAQA_SPLITS:
            path = metaqa_dir / f"{hops}-hop" / name
            if path.is_file():
                out.update(normalize_question(q.question) for q in read_questions(path))
    return frozenset(out)
