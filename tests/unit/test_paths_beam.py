"""Canonical keys, local keep, global trim, A3 normalisation: pure logic, no database."""

from __future__ import annotations

from dataclasses import replace

import pytest

from pathrag_gds.beam import (
    DETOUR_MODEL_TOLERANCE,
    Candidates,
    ScoredPath,
    global_keep,
    local_keep,
    local_keep_all,
    mode_scores,
    normalize_a3,
)
from pathrag_gds.config import ScoringMode
from pathrag_gds.paths import Edge, Path, canonical_key


def chain(*hops: tuple[str, str, str, str]) -> Path:
    """hops: (from, type, to, direction-as-walked) with stored direction derived from it."""
    p = Path((hops[0][0],))
    for a, t, b, d in hops:
        src, tgt = (a, b) if d == "out" else (b, a)
        p = p.extend(Edge(t, src, tgt, d), b)  # type: ignore[arg-type]
    return p


def test_reverse_walk_has_same_key() -> None:
    fwd = chain(("A", "r", "B", "out"), ("B", "s", "C", "out"))
    back = chain(("C", "s", "B", "in"), ("B", "r", "A", "in"))
    assert fwd.key == back.key
    assert fwd.node_ids == tuple(reversed(back.node_ids))


def test_different_relationships_have_different_keys() -> None:
    a = chain(("A", "r", "B", "out"))
    b = chain(("A", "q", "B", "out"))
    c = chain(("B", "r", "A", "out"))  # stored the other way round: another relationship
    assert len({a.key, b.key, c.key}) == 3


def test_zero_hop_key_and_matching_cypher_form() -> None:
    assert Path(("x",)).key == "node:x"
    p = chain(("jane", "owns", "bob", "out"), ("bob", "participant", "ev", "in"))
    # the same string cypher/expand.cypher builds: sorted 'src:type:tgt' joined with '|'
    assert p.key == "ev:participant:bob|jane:owns:bob"
    assert canonical_key(("a",), ["z:t:y", "a:t:b"]) == "a:t:b|z:t:y"


def test_path_shape_is_checked() -> None:
    with pytest.raises(ValueError):
        Path(("a", "b"))


def sp(node: str, score: float, parent: int | None = None, depth: int = 0) -> ScoredPath:
    p = Path((node,))
    for i in range(depth):
        p = p.extend(Edge("r", f"{node}{i}", f"{node}{i + 1}", "out"), f"{node}{i + 1}")
    return ScoredPath(p, score, raw=score, parent=parent)


def test_local_keep_takes_m_and_twice_m_below_min_depth() -> None:
    kids = [sp(f"n{i}", s) for i, s in enumerate([0.1, 0.9, 0.5, 0.7, 0.3])]
    assert [k.score for k in local_keep(kids, m=2, depth=1, min_depth=1)] == [0.9, 0.7]
    assert [k.score for k in local_keep(kids, m=2, depth=1, min_depth=2)] == [0.9, 0.7, 0.5, 0.3]


def test_local_keep_all_groups_by_parent() -> None:
    kids = [sp("a", 0.9, 0), sp("b", 0.8, 0), sp("c", 0.1, 1), sp("d", 0.05, 1), sp("e", 0.7, 0)]
    kept = local_keep_all(kids, m=1, depth=1, min_depth=1)
    assert sorted(k.path.start for k in kept) == ["a", "c"]  # parent 1's best survives though low


def test_global_keep_dedups_by_key_and_trims() -> None:
    fwd = ScoredPath(chain(("A", "r", "B", "out")), 0.4)
    back = ScoredPath(chain(("B", "r", "A", "in")), 0.6)
    other = ScoredPath(chain(("A", "q", "C", "out")), 0.5)
    again = ScoredPath(chain(("A", "r", "B", "out")), 0.3)  # the same walk, found twice
    kept = global_keep([fwd, back, other, again], beam_width=5, by_frontier=False)
    assert [k.score for k in kept] == [0.6, 0.5]
    assert global_keep([fwd, back, other], beam_width=1)[0].score == 0.6


def test_global_keep_keeps_both_walk_directions_of_a_path() -> None:
    """A -> B grows from B and B <- A from A: two search states of one canonical path."""
    fwd = ScoredPath(chain(("A", "r", "B", "out")), 0.4)
    back = ScoredPath(chain(("B", "r", "A", "in")), 0.6)
    again = ScoredPath(chain(("A", "r", "B", "out")), 0.3)
    assert fwd.key == back.key
    kept = global_keep([fwd, back, again], beam_width=5)
    assert [(k.score, k.path.end) for k in kept] == [(0.6, "A"), (0.4, "B")]


def test_equal_scores_rank_shorter_first_then_by_the_tie_break() -> None:
    shed = ScoredPath(chain(("bob", "hides_in", "shed", "out")), 0.5, tie=0.6)
    attic = ScoredPath(chain(("bob", "hides_in", "attic", "out")), 0.5, tie=0.2)
    walk = chain(("bob", "hides_in", "attic", "out"), ("attic", "part_of", "house", "out"))
    longer = ScoredPath(walk, 0.5, tie=0.9)
    seed = ScoredPath(Path(("bob",)), 0.5)
    ranked = [s.path.end for s in global_keep([longer, attic, shed, seed], beam_width=5)]
    assert ranked == ["bob", "shed", "attic", "house"]  # attic first by key without the tie-break


def test_a3_normalises_within_depth_and_penalises_depth() -> None:
    assert normalize_a3([2.0, 4.0, 3.0], depth=0, depth_penalty=0.2) == [0.0, 1.0, 0.5]
    out = normalize_a3([2.0, 4.0, 3.0], depth=2, depth_penalty=0.2)
    assert out == pytest.approx([-0.4, 0.6, 0.1])
    assert normalize_a3([0.3, 0.3], depth=1, depth_penalty=0.2) == pytest.approx([0.8, 0.8])
    assert normalize_a3([], depth=1, depth_penalty=0.2) == []


def test_option_d_keeps_raw_scores() -> None:
    raw = [0.93, 0.24]
    assert mode_scores(raw, 4, ScoringMode.OPTION_D) == raw
    assert max(mode_scores(raw, 4, ScoringMode.A3)) == pytest.approx(0.2)


def test_candidates_keep_best_score_per_key_across_depths() -> None:
    c = Candidates()
    c.add(ScoredPath(chain(("A", "r", "B", "out")), 0.3))
    c.add(ScoredPath(chain(("B", "r", "A", "in")), 0.7))
    c.add(sp("z", 0.05))
    assert len(c) == 2
    assert [x.score for x in c.top(5)] == [0.7, 0.05]
    assert [x.score for x in c.top(5, min_score=0.1)] == [0.7]


def _scored(p: Path, model: float, typ: float, relation: float) -> ScoredPath:
    final = model + 0.2 * typ + 0.1 * relation
    parts = {"model": model, "type": typ, "relation_prior": relation, "final": final}
    return ScoredPath(p, final, raw=model, parts=parts)


def test_a_detour_past_an_answer_ranks_just_below_it() -> None:
    """Actor -> movie, then out to the year and back to another movie: nothing new, so below."""
    answer = chain(("actor", "starred", "m1", "in"))
    detour = chain(
        ("actor", "starred", "m1", "in"), ("m1", "year", "1985", "out"), ("1985", "year", "m2", "in")
    )
    c = Candidates()
    c.add(_scored(answer, 0.8, 1.0, 0.2))
    c.add(_scored(detour, 0.8, 1.0, 0.6))  # the relation prior alone lifts it
    assert [s.path for s in c.top(2)] == [detour, answer]
    top = c.top(2, demote_detours=True)
    assert [s.path for s in top] == [answer, detour]
    assert top[1].score == pytest.approx(top[0].score - 1e-6)
    assert top[1].parts["detour"] == 1.0 and top[1].parts["final"] == top[1].score
    assert "detour" not in top[0].parts


def test_a_detour_that_shows_something_new_keeps_its_score() -> None:
    answer = chain(("actor", "starred", "m1", "in"))
    detour = chain(
        ("actor", "starred", "m1", "in"), ("m1", "year", "1985", "out"), ("1985", "year", "m2", "in")
    )
    for model, typ in ((0.9, 1.0), (0.8, 1.0)):  # a clearly better sentence; or the prefix fits worse
        c = Candidates()
        c.add(_scored(answer, 0.8, 1.0 if model > 0.8 else 0.5, 0.2))
        c.add(_scored(detour, model, typ, 0.6))
        assert [s.path for s in c.top(2, demote_detours=True)] == [detour, answer]
    # a sentence better by less than the tolerance is nothing new
    c = Candidates()
    c.add(_scored(answer, 0.8, 1.0, 0.2))
    c.add(_scored(detour, 0.8 + DETOUR_MODEL_TOLERANCE / 2, 1.0, 0.6))
    assert [s.path for s in c.top(2, demote_detours=True)] == [answer, detour]
    # a chain along one type is not a detour: the friend of a friend is a new answer
    friend = chain(("bob", "friend", "joy", "out"))
    fof = chain(("bob", "friend", "joy", "out"), ("joy", "friend", "pip", "out"))
    c = Candidates()
    c.add(_scored(friend, 0.8, 1.0, 0.2))
    c.add(_scored(fof, 0.8, 1.0, 0.6))
    assert [s.path for s in c.top(2, demote_detours=True)] == [fof, friend]


def test_a_detour_the_chain_plan_asks_for_is_no_detour() -> None:
    """Movie -> actor -> movie for "which movies share an actor with X": the planned chain is the
    out-and-back walk (probability 0.8) and the walk it passes (X itself) is not (0.1), so it keeps
    its score; a detour whose chain is no likelier than its prefix's still ranks below the prefix."""
    answer = Path(("x",))
    detour = chain(("x", "starred", "al", "out"), ("al", "starred", "m2", "in"))
    for chain_prob, first in ((0.8, detour), (0.1, answer)):
        c = Candidates()
        prefix = _scored(answer, 0.8, 0.0, 0.2)
        prefix.parts["chain"] = 0.1
        c.add(replace(prefix, score=prefix.score + 0.1))
        walked = _scored(detour, 0.8, 0.0, 0.6)
        walked.parts["chain"] = chain_prob
        c.add(replace(walked, score=walked.score + chain_prob))
        assert c.top(2, demote_detours=True)[0].path == first
