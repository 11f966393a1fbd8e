"""Path-text scorers behind one small interface: `score(question, texts) -> list[float]`.

- :class:`PooledBiEncoderScorer` (default, `Settings.bi_encoder_pooling="sentences"`): the
  bi-encoder over the distinct sentences of the path texts (cached across paths and queries), the
  best sentence cosine per text.
- :class:`BiEncoderScorer` (`bi_encoder_pooling="full"`): cosine between the question's embedding
  and each whole text's, with the committed embedding model. Text embeddings do not depend on the
  question, so they are cached across queries (LRU).
- :class:`CrossEncoderScorer`: any exported ONNX cross-encoder (`models export --cross-encoder PATH`),
  scores passed through a sigmoid or returned as raw logits.
- :class:`CascadeScorer`: the bi-encoder ranks every text of a depth batch, the cross-encoder
  re-scores only its best `k` (`Settings.cascade_k`). :func:`get_scorer` uses it for a community
  that has a tuned model (`models/tuned-<community>/`, written by `python -m pathrag_gds tune`).

Within one query, :meth:`Scorer.for_question` gives a :class:`QuestionScorer` that never scores the
same text twice.

Modules: `base` (the interface, the per-query cache), `bi_encoder`, `pooled`, `cross_encoder`,
`cascade`, `registry` (the scorer of each community). The chain model is in
:mod:`pathrag_gds.chain_model`; the Step 6 terms in :mod:`pathrag_gds.scoring_terms`.

Example:
    >>> scorer = get_scorer()  # doctest: +SKIP
    >>> qs = scorer.for_question("Where was Marie Curie born?")  # doctest: +SKIP
    >>> qs.score(["Marie Curie was born in Warsaw.", "Marie Curie won the Nobel Prize."])  # doctest: +SKIP
    [0.71..., 0.52...]
"""

from pathrag_gds.scoring.base import QuestionScorer, Scorer, check_question
from pathrag_gds.scoring.bi_encoder import BiEncoderScorer
from pathrag_gds.scoring.cascade import CascadeScorer
from pathrag_gds.scoring.cross_encoder import Activation, CrossEncoderScorer
from pathrag_gds.scoring.pooled import PooledBiEncoderScorer, Pooling, split_path_text
from pathrag_gds.scoring.registry import TUNE_HINT, get_scorer, reset_scorers, text_encoder, tuned_model_dir

__all__ = [
    "TUNE_HINT",
    "Activation",
    "BiEncoderScorer",
    "CascadeScorer",
    "CrossEncoderScorer",
    "PooledBiEncoderScorer",
    "Pooling",
    "QuestionScorer",
    "Scorer",
    "check_question",
    "get_scorer",
    "reset_scorers",
    "split_path_text",
    "text_encoder",
    "tuned_model_dir",
]
