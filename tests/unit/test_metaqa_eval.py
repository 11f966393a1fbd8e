"""MetaQA harness: file parsing, stratified sampling, qtype chains and metrics. No database."""

from __future__ import annotations

from pathlib import Path

import pytest

from pathrag_gds.config import METAQA_DIR
from pathrag_gds.errors import InvalidInput
from pathrag_gds.evaluation.metaqa import (
    MetaQAQuestion,
    chain_walked,
    format_chain,
    hop_from_path,
    judge,
    parse_chain,
    parse_question_line,
    percentile,
    qtype_chain,
    ranked_answers,
    read_chains,
    read_questions,
    stratified_sample,
    summarize,
)
from pathrag_gds.results import AnswerCandidate, EdgeOut, NodeOut, PathRagResult, PathResult

ONTOLOGY_FILE = Path(__file__).resolve().parents[2] / "pathrag_gds/datasets/data/metaqa_ontology.yaml"


def write_pair(tmp_path: Path, lines: list[str], qtypes: list[str], hop: int = 2) -> Path:
    d = tmp_path / f"{hop}-hop"
    d.mkdir()
    (d / "qa_dev.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (d / "qa_dev_qtype.txt").write_text("\n".join(qtypes) + "\n", encoding="utf-8")
    return d / "qa_dev.txt"


def test_parse_line_strips_brackets_and_splits_answers() -> None:
    q = parse_question_line(
        "what genres do the movies directed by [Clark Gregg] fall under\tDrama|Comedy", 2, 4
    )
    assert q.question == "what genres do the movies directed by Clark Gregg fall under"
    assert q.topic == "Clark Gregg"
    assert q.answers == ("Drama", "Comedy")
    assert q.key == "2-hop:4"
    assert q.raw.startswith("what genres")


@pytest.mark.parametrize("line", ["no tab here [X]", "no topic\tA", "[X] q\t  "])
def test_parse_line_rejects_malformed(line: str) -> None:
    with pytest.raises(InvalidInput):
        parse_question_line(line, 1, 0)


def test_read_questions_finds_qtypes_next_to_file_and_hop_from_folder(tmp_path: Path) -> None:
    path = write_pair(
        tmp_path,
        ["who directed [Heat]\tMichael Mann", "what did [Tom Cullen] act in\tWeekend"],
        ["movie_to_director", "actor_to_movie"],
        hop=1,
    )
    qs = read_questions(path)
    assert [q.hop for q in qs] == [1, 1]
    assert [q.qtype for q in qs] == ["movie_to_director", "actor_to_movie"]
    assert hop_from_path(path) == 1


def test_read_questions_rejects_mismatched_qtype_count(tmp_path: Path) -> None:
    path = write_pair(tmp_path, ["who directed [Heat]\tMichael Mann"], ["a_to_movie", "b_to_movie"])
    with pytest.raises(InvalidInput):
        read_questions(path)


def test_hop_from_qtype_when_folder_says_nothing(tmp_path: Path) -> None:
    (tmp_path / "q.txt").write_text("who acted in films by [X]\tY\n", encoding="utf-8")
    (tmp_path / "qt.txt").write_text("director_to_movie_to_actor\n", encoding="utf-8")
    assert read_questions(tmp_path / "q.txt", tmp_path / "qt.txt")[0].hop == 2


def test_qtype_chain_maps_tokens_and_agrees_with_the_ontology() -> None:
    from pathrag_gds.datasets.ontology_files import read_ontology

    onto = read_ontology(ONTOLOGY_FILE)
    assert qtype_chain("movie_to_director_to_movie", onto) == ("directed_by", "directed_by")
    assert qtype_chain("actor_to_movie_to_year", onto) == ("starred_actors", "release_year")
    assert qtype_chain("tag_to_movie", onto) == ("has_tags",)
    assert qtype_chain("movie_to_imdbvotes", onto) == ("has_imdb_votes",)
    with pytest.raises(ValueError):
        qtype_chain("actor_to_director")
    with pytest.raises(ValueError):
        qtype_chain("movie_to_budget")


def qs(counts: dict[str, int]) -> list[MetaQAQuestion]:
    out = []
    for t, n in counts.items():
        for _ in range(n):
            i = len(out)
            out.append(MetaQAQuestion(1, i, f"q{i} [x]", f"q{i} x", "x", ("a",), t))
    return out


def test_stratified_sample_is_deterministic_and_proportional() -> None:
    pool = qs({"a_to_movie": 600, "b_to_movie": 300, "c_to_movie": 90, "d_to_movie": 10})
    s1 = stratified_sample(pool, 100, seed=7)
    s2 = stratified_sample(pool, 100, seed=7)
    s3 = stratified_sample(pool, 100, seed=8)
    assert [q.index for q in s1] == [q.index for q in s2]
    assert [q.index for q in s1] != [q.index for q in s3]
    assert len(s1) == 100 and len({q.index for q in s1}) == 100
    by = {t: sum(q.qtype == t for q in s1) for t in ("a_to_movie", "b_to_movie", "c_to_movie", "d_to_movie")}
    assert by == {"a_to_movie": 60, "b_to_movie": 30, "c_to_movie": 9, "d_to_movie": 1}
    assert [q.index for q in s1] == sorted(q.index for q in s1)  # file order


def test_stratified_sample_keeps_rare_qtypes_and_exact_size() -> None:
    pool = qs({"a_to_movie": 997, "b_to_movie": 2, "c_to_movie": 1})
    s = stratified_sample(pool, 10, seed=0)
    assert len(s) == 10
    assert {q.qtype for q in s} == {"a_to_movie", "b_to_movie", "c_to_movie"}
    assert stratified_sample(pool, None) == pool
    assert stratified_sample(pool, 5000) == pool


def path(rank: int, nodes: list[tuple[str, str]], rels: list[str], answers: list[str]) -> PathResult:
    names = dict(nodes)
    return PathResult(
        rank=rank,
        score=1.0 - rank / 10,
        depth=len(rels),
        key=f"k{rank}",
        text="",
        path_context=[f"{nodes[i][1]} -> {r} -> {nodes[i + 1][1]}" for i, r in enumerate(rels)],
        nodes=[NodeOut(id=i, name=n, labels=[]) for i, n in nodes],
        edges=[
            EdgeOut(type=r, source=nodes[i][0], target=nodes[i + 1][0], direction="out")
            for i, r in enumerate(rels)
        ],
        answer_candidates=[AnswerCandidate(id=a, name=names[a], labels=[]) for a in answers],
    )


def result(paths: list[PathResult], round_trips: int = 3) -> PathRagResult:
    return PathRagResult(
        query="q",
        mode="option-d",
        scorer="test",
        paths=paths,
        seeds=[],
        timings_ms={"db": 5.0, "score": 7.0},
        round_trips=round_trips,
    )


HEAT = [("m:Heat", "Heat"), ("m:Michael Mann", "Michael Mann"), ("m:Thief", "Thief")]


def test_ranked_answers_are_distinct_in_rank_order_and_skip_the_topic() -> None:
    r = result(
        [
            path(1, HEAT[:1], [], ["m:Heat"]),  # the topic alone
            path(2, HEAT[:2], ["directed_by"], ["m:Michael Mann"]),
            path(3, HEAT, ["directed_by", "directed_by"], ["m:Thief", "m:Michael Mann"]),
        ]
    )
    assert [a.name for a in ranked_answers(r)] == ["Heat", "Michael Mann", "Thief"]
    skipped = ranked_answers(r, skip_ids=["m:Heat"])
    assert [(a.name, a.path_rank) for a in skipped] == [("Michael Mann", 2), ("Thief", 3)]


def test_judge_hits_and_chain() -> None:
    q = MetaQAQuestion(
        1, 0, "who directed [Heat]", "who directed Heat", "Heat", ("michael  MANN",), "movie_to_director"
    )
    r = result([path(1, HEAT[:1], [], ["m:Heat"]), path(2, HEAT[:2], ["directed_by"], ["m:Michael Mann"])])
    j = judge(r, q, 12.0, skip_ids=["m:Heat"])
    assert j.answer == "Michael Mann" and j.hit_at_1 and j.hit_at_5 and j.chain_hit is True
    j2 = judge(r, q, 12.0)  # topic not skipped: #1 answer is Heat
    assert j2.answer == "Heat" and not j2.hit_at_1 and j2.hit_at_5 and j2.chain_hit is False
    q3 = MetaQAQuestion(2, 0, "?", "?", "Heat", ("Thief",), "movie_to_director_to_movie")
    j3 = judge(r, q3, 1.0, skip_ids=["m:Heat"])
    assert not j3.hit_at_1 and not j3.hit_at_5 and j3.chain_hit is False
    empty = judge(result([]), q, 1.0)
    assert empty.answer is None and not empty.hit_at_1 and empty.chain_hit is False


def test_hits_at_5_looks_at_five_distinct_answers_only() -> None:
    nodes = [(f"m:{i}", f"N{i}") for i in range(8)]
    r = result([path(1, nodes, ["r"] * 7, [f"m:{i}" for i in range(7, 0, -1)])])
    q5 = MetaQAQuestion(1, 0, "?", "?", "N0", ("N3",), "")
    q6 = MetaQAQuestion(1, 0, "?", "?", "N0", ("N2",), "")
    assert judge(r, q5, 1.0).hit_at_5  # N7 N6 N5 N4 N3
    assert not judge(r, q6, 1.0).hit_at_5
    assert judge(r, q5, 1.0).chain_hit is None  # no qtype


def test_percentile_and_summary_shape() -> None:
    assert percentile([], 50) == 0.0
    assert percentile([1, 2, 3, 4], 50) == 2.5
    assert percentile(list(range(101)), 95) == 95
    q1 = MetaQAQuestion(1, 0, "?", "?", "Heat", ("Michael Mann",), "movie_to_director")
    q2 = MetaQAQuestion(2, 0, "?", "?", "Heat", ("Thief",), "movie_to_director_to_movie")
    r = result([path(1, HEAT[:2], ["directed_by"], ["m:Michael Mann"])], round_trips=4)
    rows = [judge(r, q1, 10.0), judge(r, q2, 30.0)]
    rep = summarize(rows, link="topic")
    assert rep["suite"] == "metaqa" and rep["total"] == 2 and rep["link"] == "topic"
    assert rep["hits_at_1"] == 0.5 and rep["hits_at_5"] == 0.5
    assert set(rep["by_hop"]) == {"1", "2"}
    assert rep["by_hop"]["1"]["hits_at_1"] == 1.0 and rep["by_hop"]["2"]["hits_at_1"] == 0.0
    assert rep["latency_ms"] == {"p50": 20.0, "p95": 29.0}
    assert rep["round_trips"] == {"mean": 4.0, "max": 4}
    assert set(rep["by_qtype"]) == {"movie_to_director", "movie_to_director_to_movie"}


def test_parse_real_dev_files_when_present() -> None:
    base = METAQA_DIR
    if not (base / "2-hop/qa_dev.txt").is_file():
        return  # the shared data is not on this machine
    qs2 = read_questions(base / "2-hop/qa_dev.txt")
    assert len(qs2) == 14872 and all(q.hop == 2 and q.qtype for q in qs2)
    assert all(len(qtype_chain(q.qtype)) == 2 for q in qs2)


# --- gold chain files (relation + direction per hop) -----------------------------------------------


def test_parse_chain_round_trips_and_rejects_bad_tokens() -> None:
    chain = parse_chain("parent_of:in, married_to:both,works_for:out")
    assert chain == (("parent_of", "in"), ("married_to", "both"), ("works_for", "out"))
    assert format_chain(chain) == "parent_of:in,married_to:both,works_for:out"
    for bad in ("parent_of", "parent_of:up", ":in", "a:in,,b:out"):
        with pytest.raises(ValueError):
            parse_chain(bad)


def directed(rank: int, steps: list[tuple[str, str]], answers: list[str]) -> PathResult:
    p = path(rank, [(f"p:{i}", f"P{i}") for i in range(len(steps) + 1)], [r for r, _ in steps], answers)
    edges = [e.model_copy(update={"direction": d}) for e, (_, d) in zip(p.edges, steps, strict=True)]
    return p.model_copy(update={"edges": edges})


def test_chain_walked_checks_types_order_and_direction() -> None:
    p = directed(1, [("parent_of", "in"), ("works_for", "out")], ["p:2"])
    assert chain_walked(p, [("parent_of", "in"), ("works_for", "out")])
    assert not chain_walked(p, [("parent_of", "out"), ("works_for", "out")])  # wrong direction
    assert not chain_walked(p, [("works_for", "out"), ("parent_of", "in")])  # wrong order
    assert not chain_walked(p, [("parent_of", "in")])  # too short
    assert chain_walked(p, [("parent_of", "both"), ("works_for", "both")])  # symmetric: any direction


def test_read_questions_takes_the_chain_file_next_to_it(tmp_path: Path) -> None:
    (tmp_path / "2-hop.txt").write_text(
        "Where were [Ada Holm]'s parents born?\tValmora|Osterby\n"
        "who employs [Bo Lind]'s spouse\tKestrel Labs\n",
        encoding="utf-8",
    )
    (tmp_path / "2-hop_chains.txt").write_text(
        "parent_of:in,born_in:out\nmarried_to:both,works_for:out\n", encoding="utf-8"
    )
    qs = read_questions(tmp_path / "2-hop.txt")
    assert [q.chain for q in qs] == [
        (("parent_of", "in"), ("born_in", "out")),
        (("married_to", "both"), ("works_for", "out")),
    ]
    assert qs[0].qtype == "parent_of:in,born_in:out" and qs[0].hop == 2
    with pytest.raises(InvalidInput, match="1 chains for 2 questions"):
        (tmp_path / "short.txt").write_text("parent_of:in,born_in:out\n", encoding="utf-8")
        read_questions(tmp_path / "2-hop.txt", chains=tmp_path / "short.txt")
    with pytest.raises(InvalidInput, match="not found"):
        read_chains(tmp_path / "missing.txt")


def test_judge_uses_the_directed_chain_when_given() -> None:
    chain = (("parent_of", "in"),)
    q = MetaQAQuestion(1, 0, "whose child is [P0]", "whose child is P0", "P0", ("P1",), "parent_of:in", chain)
    right = result([directed(1, [("parent_of", "in")], ["p:1"])])
    wrong_way = result([directed(1, [("parent_of", "out")], ["p:1"])])
    assert judge(right, q, 1.0, skip_ids=["p:0"]).chain_hit is True
    j = judge(wrong_way, q, 1.0, skip_ids=["p:0"])
    assert j.hit_at_1 and j.chain_hit is False  # the right name reached the wrong way round


def test_cli_wants_one_chain_file_per_question_file(tmp_path: Path) -> None:
    import argparse

    from pathrag_gds.evaluation import metaqa_cli

    parser = argparse.ArgumentParser()
    metaqa_cli.register(parser.add_subparsers())
    args = parser.parse_args(
        [
            "metaqa",
            "--questions",
            str(tmp_path / "1-hop.txt"),
            str(tmp_path / "2-hop.txt"),
            "--chains",
            "c.txt",
        ]
    )
    assert args.chains == [Path("c.txt")]
    with pytest.raises(InvalidInput, match="one --chains file per --questions file"):
        metaqa_cli.run(args)
