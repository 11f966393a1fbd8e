"""Chain planning without a tuned model: the base sentence encoder reads each chain in words.

A community that has not run `tune` still has an ontology, and the query path's sentence encoder
(all-MiniLM-L6-v2) already knows English: "Who does X get her parts from?" lies nearer "the company
that supplies X" than "the plant that X owns". So the planner can score chains with that encoder,
untrained (opt-in: docs/chains.md says where it helps and where it does not): the masked question
against each chain's text
(:func:`~pathrag_gds.search.schema.chain_text`, the same text a tuned model reads), plus the
answer-type term at a fixed weight. Chain texts are embedded once and kept in the process cache and
the on-disk sentence store, like the ontology's other texts.

It implements :class:`~pathrag_gds.search.topics.ChainScorers`, so the planner, the walk and
`eval plans` use it as they use a tuned model. `chain_scorer` (setting) chooses: `auto` (a tuned
model where the community has one, else this), `tuned` (tuned models only) or `base` (this always).

Example:
    >>> from pathrag_gds.config import Settings
    >>> scorer = BaseChainScorer(text_encoder(Settings()))  # doctest: +SKIP
    >>> fn = scorer.scorer_for("Which company supplies X?")  # doctest: +SKIP
    >>> fn(["the company that supplies X", "the city that X is located in"])  # doctest: +SKIP
    [0.71, 0.32]
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np

from pathrag_gds.config import Settings
from pathrag_gds.ontology import Ontology
from pathrag_gds.search.nouns import NounWeights
from pathrag_gds.search.planner import ChainScoreFn, answer_type_terms
from pathrag_gds.search.schema import Chain
from pathrag_gds.search.topics import ChainScorers

if TYPE_CHECKING:
    from pathrag_gds.scoring.bi_encoder import BiEncoderScorer


class BaseChainScorer:
    """Cosine of the masked question to chain texts under the untrained sentence encoder.

    Args:
        encoder: the process-wide text encoder (`scoring.text_encoder`: cache and on-disk store).
        max_depth: the longest chain planned.
        temperature: the softmax temperature of its cosines (the tuned models' 0.05 by default:
            a plan the untrained encoder is unsure of then lets the path-text walk go beside it).
        answer_type_weight: weight of the intent's score of a chain's end type.
    """

    name = "base-chains"
    pool: frozenset[str] | None = None

    def __init__(
        self,
        encoder: BiEncoderScorer,
        *,
        max_depth: int = 3,
        temperature: float = 0.05,
        answer_type_weight: float = 0.05,
    ) -> None:
        """Keep the encoder and the fixed weights."""
        self.encoder = encoder
        self.max_depth = self.plan_depth = max_depth
        self.temperature = temperature
        self.answer_type_weight = answer_type_weight

    def check_ontology(self, ontology: Ontology) -> None:
        """Any ontology: the texts are read from it at query time."""

    def scorer_for(self, masked_question: str) -> ChainScoreFn:
        """Chain texts -> their cosine to the question (one question encoding, cached chain texts)."""
        q = np.asarray(self.encoder.embed_texts([masked_question])[0], dtype=np.float32)

        def score(texts: Sequence[str]) -> list[float]:
            if not texts:
                return []
            return [float(x) for x in self.encoder.embed_texts(list(texts)) @ q]

        return score

    def near_scorer_for(self, masked_question: str) -> ChainScoreFn | None:
        """None: the window terms are fitted per model by `tune`."""
        return None

    def far_scorer_for(self, masked_question: str, scale: float = 1.0) -> ChainScoreFn | None:
        """None: the window terms are fitted per model by `tune`."""
        return None

    def answer_types_for(
        self, type_scores: Mapping[str, float], scale: float = 1.0
    ) -> dict[str, float] | None:
        """End label -> the intent's score of that type, times the fixed weight (None: off)."""
        return answer_type_terms(type_scores, self.answer_type_weight * scale)

    def nouns_for(
        self, masked_question: str, ontology: Ontology, scale: float = 1.0
    ) -> dict[Chain, NounWeights] | None:
        """None: the relational-noun weights are fitted per model by `tune`."""
        return None


#: Relationship types an ontology needs before the chain reader plans for it: over one type (an
#: adopted LightRAG workspace's `RELATED_TO`) a plan chooses only direction and length, and the
#: edges' own text, which no chain text holds, says which link a question asks.
READER_MIN_RELATIONS = 2


def planning_scorer(
    settings: Settings, community_id: str | None, ontology: Ontology | None = None
) -> ChainScorers | None:
    """The chain scorer a query plans with (None: no planning), as `chain_scorer` says.

    `auto`: the community's tuned model, else the chain reader, else none (path text alone: the
    base encoder's plans were measured mixed, docs/chains.md); `tuned`: the tuned model or none;
    `reader`: the chain reader always (none where there is no reader); `base`: the base encoder
    always. `chain_planning` false, or no community: none. Under `auto`, the reader plans only for
    an `ontology` of `READER_MIN_RELATIONS` relationship types or more.

    Raises:
        ModelError: the community's chain model folder (or the reader's) exists but is not usable.
    """
    from pathrag_gds.chain_model import get_chain_scorer, get_reader_scorer

    if community_id is None or not settings.chain_planning:
        return None
    if settings.chain_scorer == "base":
        return base_chain_scorer(settings)
    if settings.chain_scorer == "reader":
        return get_reader_scorer(settings)
    tuned = get_chain_scorer(settings, community_id)
    if tuned is not None or settings.chain_scorer == "tuned":
        return tuned
    if ontology is not None and len(ontology.relation_names) < READER_MIN_RELATIONS:
        return None
    return get_reader_scorer(settings)


def base_chain_scorer(settings: Settings) -> BaseChainScorer:
    """A base chain scorer over the process-wide sentence encoder of these settings."""
    from pathrag_gds.scoring import text_encoder

    return BaseChainScorer(
        text_encoder(settings),
        temperature=settings.chain_base_temperature,
        answer_type_weight=settings.chain_base_type_weight,
    )
