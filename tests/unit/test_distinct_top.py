"""Distinct evidence in the top-N (issue 53): a path and its own extension count once unless the
extension adds an answer; the old top-N stays behind `distinct_evidence=False`. Pure, no database."""

from __future__ import annotations

from pathrag_gds.beam import Candidates, ScoredPath, distinct_top, overlaps
from pathrag_gds.config import Settings
from pathrag_gds.intent import Intent
from pathrag_gds.paths import Edge, EntityRecord, Path
from pathrag_gds.search.context import QueryContext
from pathrag_gds.search.ranking import Ranker, path_answer

OWNS = Edge("owns", "jane", "bob", "in")  # Bob <- owns <- Jane
CUP = Edge("keeps", "jane", "cup", "out")  # Jane -> keeps -> Cup
MOTHER = Edge("is_child_of", "jane", "martha", "out")  # Jane -> is_child_of -> Martha

OWNED = Path(("bob", "jane"), (OWNS,))
WITH_CUP = Path(("bob", "jane", "cup"), (OWNS, CUP))
WITH_MOTHER = Path(("bob", "jane", "martha"), (OWNS, MOTHER))
SEED_BOB, SEED_PATEL = Path(("bob",)), Path(("patel",))


def _ctx() -> QueryContext:
    people = {"Person": 1.0}
    ctx = QueryContext("Who owns Bob?", intent=Intent("Who owns Bob?", "entity", people), named={"bob"})
    ctx.entities.update(
        {
            "bob": EntityRecord("bob", ("Animal",), "Bob"),
            "jane": EntityRecord("jane", ("Person",), "Jane"),
            "cup": EntityRecord("cup", ("Object",), "Cup of milk"),
            "martha": EntityRecord("martha", ("Person",), "Martha"),
            "patel": EntityRecord("patel", ("Person",), "Mrs Patel"),
        }
    )
    return ctx


def _candidates() -> Candidates:
    c = Candidates()
    scores = [(OWNED, 2.2), (WITH_CUP, 1.5), (WITH_MOTHER, 1.4), (SEED_BOB, 1.2), (SEED_PATEL, 1.0)]
    c.extend(ScoredPath(p, s, raw=1.0) for p, s in scores)
    return c


def test_overlap_is_containment_of_facts_either_way() -> None:
    assert overlaps(OWNED, WITH_CUP) and overlaps(WITH_CUP, OWNED)
    assert overlaps(SEED_BOB, WITH_MOTHER) and not overlaps(SEED_PATEL, WITH_MOTHER)
    assert not overlaps(WITH_CUP, WITH_MOTHER), "two extensions of one path state different facts"
    reversed_walk = Path(("jane", "bob"), (Edge("owns", "jane", "bob", "out"),))
    assert overlaps(reversed_walk, OWNED)


def test_a_path_answers_with_its_first_candidate_never_with_the_named_entity() -> None:
    ctx = _ctx()
    assert [path_answer(ctx, p) for p in (OWNED, WITH_CUP, WITH_MOTHER, SEED_BOB, SEED_PATEL)] == [
        "jane",
        "jane",  # the cup is no person: the extension adds no answer
        "martha",
        None,  # Bob is the entity the question names
        "patel",
    ]


def test_the_top_n_holds_distinct_evidence_and_the_old_one_stays_available() -> None:
    ctx = _ctx()

    def top(distinct: bool) -> list[Path]:
        ranker = Ranker(Settings(distinct_evidence=distinct, min_score=0.0), None, str)  # type: ignore[arg-type]
        return [x.path for x in ranker.top(ctx, _candidates(), 4)]

    # the cup adds no answer to Jane's path, the seed Bob is on it: both are left out
    assert top(True) == [OWNED, WITH_MOTHER, SEED_PATEL]
    assert top(False) == [OWNED, WITH_CUP, WITH_MOTHER, SEED_BOB]


def test_an_extension_to_an_entity_the_question_names_is_more_evidence() -> None:
    """'Who owns Bob, the cat Martha's child has?': Jane's path on to Martha ties in the question."""
    ctx = _ctx()
    ctx.named.add("martha")
    answer_jane = {"martha": None}
    ranked = _candidates().top(10)

    def answer(p: Path) -> str | None:
        return answer_jane.get(p.end, "jane")

    kept = [x.path for x in distinct_top(ranked, 5, answer, named=ctx.named)]
    assert WITH_MOTHER in kept and WITH_CUP not in kept
    assert WITH_MOTHER not in [x.path for x in distinct_top(ranked, 5, answer)]


def test_the_best_path_is_always_first_and_n_is_kept() -> None:
    ranked = _candidates().top(10)
    assert distinct_top(ranked, 1, lambda p: None) == ranked[:1]
    assert len(distinct_top(ranked, 2, lambda p: p.end)) == 2
