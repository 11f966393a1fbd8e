"""`eval plans`: matching and ranking gold chains, the per-hop summary (pure, no database)."""

from __future__ import annotations

import pytest

from pathrag_gds.datasets.metaqa_questions import MetaQAQuestion
from pathrag_gds.errors import InvalidInput
from pathrag_gds.evaluation.plans import gold_rank, gold_steps, matches, summarize_ranks
from pathrag_gds.search.schema import Chain


def test_a_chain_matches_its_gold_steps_with_directions() -> None:
    assert matches((("r", "out"), ("s", "in")), [("r", "out"), ("s", "in")])
    assert matches((("r", "out"), ("s", "in")), [("r", "both"), ("s", "both")])
    assert not matches((("r", "out"), ("s", "in")), [("r", "out"), ("s", "out")])
    assert not matches((("r", "out"),), [("r", "out"), ("s", "in")])
    assert not matches((("s", "out"), ("r", "in")), [("r", "both"), ("s", "both")]), "order counts"


def test_gold_rank_is_the_best_matching_chain_and_none_without_one() -> None:
    chains: list[Chain] = [
        (("a", "out"),),
        (("b", "out"),),
        (("a", "out"), ("b", "in")),
        (("b", "out"), ("a", "in")),
    ]
    scores = [0.1, 0.7, 0.5, 0.9]
    assert gold_rank(scores, chains, [("b", "out")]) == 2
    assert gold_rank(scores, chains, [("a", "both"), ("b", "both")]) == 3
    assert gold_rank(scores, chains, [("c", "out")]) is None
    assert gold_rank([0.5, 0.5], chains[:2], [("b", "out")]) == 2, "ties keep the chains' order"


def test_chains_of_one_text_are_one_plan_ranked_where_the_best_of_them_is() -> None:
    # a symmetric relation walked either way reads the same: the planner holds both as one chain
    chains: list[Chain] = [(("sibling_of", "out"),), (("owns", "out"),), (("sibling_of", "in"),)]
    texts = ["the sibling of X", "what X owns", "the sibling of X"]
    assert gold_rank([0.9, 0.5, 0.9], chains, [("sibling_of", "in")]) == 2
    assert gold_rank([0.9, 0.5, 0.9], chains, [("sibling_of", "in")], texts) == 1
    assert gold_rank([0.9, 0.5, 0.4], chains, [("sibling_of", "in")], texts) == 1
    assert gold_rank([0.4, 0.5, 0.4], chains, [("sibling_of", "in")], texts) == 2
    assert gold_rank([0.4, 0.5, 0.4], chains, [("owns", "in")], texts) is None


def test_gold_steps_from_a_chain_file_or_a_metaqa_qtype() -> None:
    base = {"index": 0, "raw": "q [X]", "question": "q X", "topic": "X", "answers": ()}
    with_chain = MetaQAQuestion(hop=1, chain=(("parent_of", "in"),), **base)  # type: ignore[arg-type]
    assert gold_steps(with_chain) == (("parent_of", "in"),)
    with_qtype = MetaQAQuestion(hop=2, qtype="movie_to_director_to_movie", **base)  # type: ignore[arg-type]
    assert gold_steps(with_qtype) == (("directed_by", "both"), ("directed_by", "both"))
    assert gold_steps(MetaQAQuestion(hop=1, qtype="not_a_qtype", **base)) is None  # type: ignore[arg-type]
    assert gold_steps(MetaQAQuestion(hop=1, **base)) is None  # type: ignore[arg-type]


def test_summary_per_hop_and_overall() -> None:
    report = summarize_ranks([(1, 1), (1, 6), (2, 2), (2, None)])
    assert list(report) == ["1", "2", "all"]
    assert report["1"] == {
        "total": 2,
        "at_1": 0.5,
        "at_5": 0.5,
        "at_10": 1.0,
        "mrr": round((1 + 1 / 6) / 2, 4),
        "not_found": 0,
    }
    assert report["2"]["not_found"] == 1 and report["2"]["at_5"] == 0.5
    assert report["all"]["total"] == 4 and report["all"]["at_1"] == 0.25


def test_suite_questions_take_the_intended_path_as_the_gold_chain() -> None:
    from pathrag_gds.datasets.bob_suite import DATA
    from pathrag_gds.evaluation.plans import suite_questions

    community, questions = suite_questions(DATA / "harbour_eval.yaml")
    assert community == "Harbour_Stories" and len(questions) == 30
    first = questions[0]  # "morning_star <-captains- jory_penhallow"
    assert (first.raw, first.topic, first.chain, first.hop) == (
        "g01",
        "morning_star",
        (("captains", "in"),),
        1,
    )
    assert sorted({q.hop for q in questions}) == [1, 2, 3, 4]
    assert all(len(q.chain) == q.hop for q in questions)
    with pytest.raises(InvalidInput, match="no question set 'spec'"):
        suite_questions(DATA / "harbour_eval.yaml", "spec")


def test_a_wrong_plan_is_named_by_what_it_got_wrong() -> None:
    from pathrag_gds.evaluation.plans import plan_error

    gold = [("works_at", "out"), ("part_of", "out")]
    assert plan_error((("works_at", "out"), ("part_of", "out"), ("part_of", "out")), gold, 3) == "past"
    assert plan_error((("works_at", "out"),), gold, 3) == "short"
    assert plan_error((("works_at", "out"), ("part_of", "in")), gold, 3) == "direction"
    assert plan_error((("lives_at", "out"), ("part_of", "out")), gold, 3) == "relation"
    assert (
        plan_error((("works_at", "out"), ("part_of", "out")), [("works_at", "out"), ("part_of", "both")], 3)
        == "right"
    )
    assert plan_error((("works_at", "out"),), gold, 1) == "too_deep"
