"""The untrained encoder as a chain scorer (`base_chains`), and which scorer a query plans with."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from pathrag_gds.base_chains import BaseChainScorer, planning_scorer
from pathrag_gds.chain_model import READER_MODEL, ChainScorer
from pathrag_gds.config import Settings
from pathrag_gds.ontology import Ontology
from pathrag_gds.search.planner import plan_chains

ONTO = Ontology.from_mapping(
    {
        "relationship_types": [
            {"type": "supplies", "phrase": "supplies", "inverse_phrase": "is supplied by",
             "source": ["Company"], "target": ["Company"]},
            {"type": "located_in", "phrase": "is located in", "inverse_phrase": "is the home of",
             "source": ["Company"], "target": ["City"]},
        ]
    }
)  # fmt: skip


class Words:
    """A stand-in encoder: a text's vector counts four words (unit length)."""

    vocabulary = ("supplies", "located", "city", "company")

    def embed_texts(self, texts: Sequence[str]) -> np.ndarray:
        rows = np.asarray([[t.lower().count(w) + 0.01 for w in self.vocabulary] for t in texts], float)
        return rows / np.linalg.norm(rows, axis=1, keepdims=True)


def test_base_scorer_reads_chain_texts_against_the_question() -> None:
    scorer = BaseChainScorer(Words(), temperature=0.05)  # type: ignore[arg-type]
    fn = scorer.scorer_for("which company supplies X")
    near, far = fn(["the company that supplies X", "the city that X is located in"])
    assert near > far
    plan = plan_chains(fn, ONTO, "Company", max_depth=1, temperature=scorer.temperature)
    assert plan.best in ((("supplies", "in"),), (("supplies", "out"),))
    assert scorer.answer_types_for({"City": 0.5}) == {"City": 0.025}
    assert scorer.answer_types_for({"City": 0.5}, scale=0.0) is None
    assert scorer.near_scorer_for("x") is None and scorer.far_scorer_for("x") is None
    assert scorer.nouns_for("x", ONTO) is None


def test_planning_scorer_follows_the_setting(tmp_path: Path) -> None:
    demo, bare = "DefaultCommunity_FictionalStories", "no_chain_model_here"
    tuned = Settings(chain_scorer="tuned")
    assert isinstance(planning_scorer(tuned, demo), ChainScorer)  # the demo's model ships
    assert planning_scorer(tuned, bare) is None
    own = planning_scorer(Settings(chain_scorer="auto"), demo)
    assert isinstance(own, ChainScorer) and own.model_dir.name == "chain"
    # no model of its own: the chain reader (it ships), else the untrained encoder
    reader = planning_scorer(Settings(chain_scorer="auto"), bare)
    assert isinstance(reader, ChainScorer) and reader.model_dir.name == READER_MODEL
    one_relation = Ontology.from_mapping(
        {"relationship_types": [{"type": "RELATED_TO", "source": ["Entity"], "target": ["Entity"]}]}
    )
    assert planning_scorer(Settings(chain_scorer="auto"), bare, one_relation) is None  # the edge text decides
    assert planning_scorer(Settings(chain_scorer="auto"), bare, ONTO) is reader
    forced = planning_scorer(Settings(chain_scorer="reader"), demo)
    assert isinstance(forced, ChainScorer) and forced.model_dir.name == READER_MODEL
    (tmp_path / "all-MiniLM-L6-v2").symlink_to(Settings().models_dir / "all-MiniLM-L6-v2")
    nothing = Settings(chain_scorer="auto", models_dir=tmp_path)  # a checkout ships no wheel models
    assert planning_scorer(nothing, bare) is None  # no reader either: path text alone
    assert planning_scorer(nothing.model_copy(update={"chain_scorer": "reader"}), bare) is None
    assert isinstance(
        planning_scorer(nothing.model_copy(update={"chain_scorer": "base"}), bare), BaseChainScorer
    )
    assert isinstance(planning_scorer(Settings(chain_scorer="base"), demo), BaseChainScorer)
    assert planning_scorer(Settings(chain_planning=False, chain_scorer="base"), demo) is None
    assert planning_scorer(tuned, None) is None
