"""The generated "people" graph and its hand-written questions. No database."""

from __future__ import annotations

from collections import Counter, defaultdict
from pathlib import Path

import pytest

from pathrag_gds.datasets.ontology_files import read_ontology
from pathrag_gds.datasets.people import (
    PEOPLE_ONTOLOGY,
    SYMMETRIC,
    PeopleWorld,
    generate,
    pick_questions,
    read_specs,
    topic_label,
)
from pathrag_gds.datasets.triples import read_triples_text
from pathrag_gds.evaluation.metaqa import read_questions

DATA = Path(__file__).resolve().parents[1] / "data" / "people"
ONTOLOGY = read_ontology(PEOPLE_ONTOLOGY)


@pytest.fixture(scope="module")
def small() -> PeopleWorld:
    return generate(seed=7, scale=0.2)


@pytest.fixture(scope="module")
def full() -> PeopleWorld:
    """The graph the committed question files were picked on (seed 0, scale 1.0)."""
    return generate()


def test_same_seed_same_world_other_seed_other_world(small: PeopleWorld) -> None:
    again = generate(seed=7, scale=0.2)
    assert again.tsv() == small.tsv() and again.labels == small.labels
    assert generate(seed=8, scale=0.2).tsv() != small.tsv()


def test_every_ontology_relation_is_used_with_its_declared_types(full: PeopleWorld) -> None:
    counts = full.relation_counts()
    assert set(counts) == set(ONTOLOGY.relation_names) and len(counts) >= 10
    assert min(counts.values()) >= 30
    for t in full.triples:
        rt = ONTOLOGY.relation(t.relation)
        assert full.labels[t.subject] in rt.source_labels, t
        assert full.labels[t.object] in rt.target_labels, t
    assert 2000 <= len(full.labels) <= 5000
    assert set(full.label_counts()) == set(ONTOLOGY.labels)


def test_loader_reads_it_as_one_node_per_name_with_one_label(small: PeopleWorld) -> None:
    tf = read_triples_text(small.tsv(), "tsv", ONTOLOGY, "people")
    assert not tf.bad_rows and tf.duplicates == 0 and tf.triples == len(small.triples)
    assert len(tf.dataset.entities) == len(small.labels)
    assert all(len(e.labels) == 1 for e in tf.dataset.entities)
    years = [r.attributes.get("year") for r in tf.dataset.relationships if r.type == "acquired"]
    assert years and all(y is not None and y.isdigit() for y in years)


def test_symmetric_relations_are_stored_once_or_both_ways_on_request(small: PeopleWorld) -> None:
    assert {r.type for r in ONTOLOGY.relation_types if r.phrase == r.inverse_phrase} == SYMMETRIC
    stored = {(t.subject, t.relation, t.object) for t in small.triples}
    sym = [k for k in stored if k[1] in SYMMETRIC]
    assert sym and all((o, r, s) not in stored and s < o for s, r, o in sym)
    both = generate(seed=7, scale=0.2, symmetric="both")
    stored2 = {(t.subject, t.relation, t.object) for t in both.triples}
    assert all((o, r, s) in stored2 for s, r, o in stored2 if r in SYMMETRIC)
    assert len(stored2) == len(stored) + len(sym)


def test_families_are_consistent(full: PeopleWorld) -> None:
    parents: dict[str, set[str]] = defaultdict(set)
    for t in full.triples:
        if t.relation == "parent_of":
            parents[t.object].add(t.subject)
    assert Counter(len(p) for p in parents.values()) == {2: len(parents)}  # two parents each
    for t in full.triples:
        if t.relation == "sibling_of":
            assert parents[t.subject] == parents[t.object]
        if t.relation == "married_to" and t.subject in parents and t.object in parents:
            assert not (parents[t.subject] & parents[t.object])  # nobody marries a sibling
    for child, pair in parents.items():
        a, b = sorted(pair)
        assert b in full.walk(a, [("married_to", "both")]), child  # a child's parents are married


def test_walk_follows_direction_excludes_the_topic_and_revisits() -> None:
    w = generate(seed=0, scale=0.1)
    t = next(t for t in w.triples if t.relation == "parent_of")
    assert t.object in w.walk(t.subject, [("parent_of", "out")])
    assert t.subject in w.walk(t.object, [("parent_of", "in")])
    assert t.subject not in w.walk(t.object, [("parent_of", "out")])
    sib = next(t for t in w.triples if t.relation == "sibling_of")
    assert sib.subject in w.walk(sib.object, [("sibling_of", "both")])
    assert sib.subject not in w.walk(sib.subject, [("sibling_of", "both"), ("sibling_of", "both")])


def test_question_files_have_150_plus_questions_and_exact_gold(full: PeopleWorld) -> None:
    total = 0
    wordings: set[str] = set()
    for hop in (1, 2, 3):
        qs = read_questions(DATA / f"{hop}-hop.txt")
        assert len(qs) >= 50, hop
        total += len(qs)
        for q in qs:
            assert len(q.chain) == hop == q.hop
            assert full.labels[q.topic] == topic_label(q.chain, ONTOLOGY)
            assert set(q.answers) == full.walk(q.topic, q.chain), q.raw
            assert 1 <= len(q.answers) <= 20 and q.topic not in q.answers
            wordings.add(q.raw.replace(f"[{q.topic}]", "[X]"))
    assert total >= 150
    assert len(wordings) == total  # every question has its own wording


def test_picking_is_deterministic_and_reproduces_the_committed_files(full: PeopleWorld) -> None:
    specs = read_specs(DATA / "questions.tsv")
    picked, dropped = pick_questions(full, specs, ONTOLOGY, seed=0)
    assert not dropped
    again, _ = pick_questions(full, specs, ONTOLOGY, seed=0)
    assert [p.line() for p in picked] == [p.line() for p in again]
    committed = [
        ln for hop in (1, 2, 3) for ln in (DATA / f"{hop}-hop.txt").read_text(encoding="utf-8").splitlines()
    ]
    assert [p.line() for p in picked] == committed
    assert len({p.topic for p in picked}) == len(picked)  # each topic used once


def test_read_specs_rejects_a_hop_that_is_not_the_chain_length(tmp_path: Path) -> None:
    f = tmp_path / "q.tsv"
    f.write_text("2\tborn_in:out\twhere was [X] born\n", encoding="utf-8")
    with pytest.raises(ValueError, match="chain length"):
        read_specs(f)
