"""Chain planning end to end (real Neo4j): a small generated people world, the shipped people chain
model, questions whose answer depends on the relation's DIRECTION.

The chain model never sees entities, only the schema's chains, so the one trained on the full
people graph (`models/tuned-people/chain/`) plans for a small world of the same ontology too.
Each question asserts the answer AND the chain (type and direction per hop) of the #1 path.
"""

from __future__ import annotations

import dataclasses
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from pathrag_gds.chain_model import READER_MODEL, chain_model_dir, reset_chain_scorers
from pathrag_gds.config import Settings
from pathrag_gds.datasets.loader import GraphLoader, delete_community, entity_id
from pathrag_gds.datasets.ontology_files import read_ontology
from pathrag_gds.datasets.people import PEOPLE_ONTOLOGY, PeopleWorld, generate
from pathrag_gds.datasets.triples import read_triples_text
from pathrag_gds.encoders import get_embedder
from pathrag_gds.errors import InvalidInput
from pathrag_gds.evaluation.metaqa import parse_chain
from pathrag_gds.graph import Graph
from pathrag_gds.indexing import index_entities
from pathrag_gds.service import PathRag

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def world_community(graph: Graph) -> Iterator[tuple[PeopleWorld, str]]:
    cid = f"test_chains_{uuid.uuid4().hex[:10]}"
    world = generate(seed=5, scale=0.1)
    onto = dataclasses.replace(read_ontology(PEOPLE_ONTOLOGY), id=f"{cid}_onto")
    tf = read_triples_text(world.tsv(), "tsv", onto, cid)
    GraphLoader(graph, batch_size=500, progress=False).load(tf.dataset)
    index_entities(graph, get_embedder(Settings.from_env()), community=cid, progress=False)  # vector seeds
    yield world, cid
    delete_community(graph, cid, drop_ontology=True)


def _models(tmp: Path, community: str) -> Settings:
    """A models folder with the embedder and the people chain model as this community's."""
    shipped = Settings.from_env()
    (tmp / "all-MiniLM-L6-v2").symlink_to(shipped.models_dir / "all-MiniLM-L6-v2")
    folder = chain_model_dir(shipped, community, tmp)
    folder.parent.mkdir(parents=True)
    folder.symlink_to(chain_model_dir(shipped, "people"))
    return Settings.from_env(models_dir=tmp, cascade_k=0)


@pytest.fixture(scope="module")
def service(graph: Graph, world_community: tuple[PeopleWorld, str], tmp_path_factory) -> PathRag:  # type: ignore[no-untyped-def]
    _, cid = world_community
    reset_chain_scorers()
    return PathRag(_models(tmp_path_factory.mktemp("models"), cid), graph=graph)


@pytest.mark.parametrize(
    ("question", "chain"),
    [
        ("Who are the parents of {}?", "parent_of:in"),
        ("Who are {}'s children?", "parent_of:out"),
        ("In which city was {} born?", "born_in:out"),
        ("In which country were {}'s parents born?", "parent_of:in,born_in:out,located_in:out"),
    ],
)
def test_the_planned_chain_decides_direction(
    service: PathRag, world_community: tuple[PeopleWorld, str], question: str, chain: str
) -> None:
    world, cid = world_community
    steps = parse_chain(chain)
    topic = next(p for p in world.entities_of("Person") if 0 < len(world.walk(p, steps)) <= 20)
    result = service.pathrag(
        question.format(topic), community_id=cid, max_depth=3, seed_ids=[entity_id(cid, topic)]
    )
    best = result.paths[0]
    assert best.chain == chain.split(","), [(p.chain, p.score_parts) for p in result.paths[:3]]
    assert best.answer_candidates[0].name in world.walk(topic, steps)
    assert 0.0 < best.score_parts["chain"] <= 1.0 and "instance" in best.score_parts
    terms = {t.name: t for t in best.score_breakdown}
    assert terms["chain"].value == best.score_parts["chain"]
    assert abs(sum(t.contribution for t in best.score_breakdown) - best.score) < 1e-5
    # one round trip for the seeds, one per depth at most, one for the sources
    assert result.round_trips <= 3 + 2


def test_a_plan_starts_only_with_relationships_the_topic_has(
    service: PathRag, world_community: tuple[PeopleWorld, str]
) -> None:
    """A city that is no capital: the chain model's best plan starts with `capital_of` and once
    reached nothing; the seed query reads the topic's own relationship types, and the plan goes
    through its country instead."""
    world, cid = world_community
    capitals = {t.subject for t in world.triples if t.relation == "capital_of"}
    steps = parse_chain("located_in:out,capital_of:in")
    topic = next(c for c in world.entities_of("City") if c not in capitals and world.walk(c, steps))
    question = f"What is the capital of the country {topic} is in?"
    result = service.pathrag(question, community_id=cid, max_depth=3, seed_ids=[entity_id(cid, topic)])
    assert result.paths and result.paths[0].chain == ["located_in:out", "capital_of:in"], [
        (p.chain, p.score_parts) for p in result.paths[:3]
    ]
    assert result.paths[0].answer_candidates[0].name in world.walk(topic, steps)


def test_seeds_the_question_does_not_name_stay_unwalked_beside_a_plan(
    service: PathRag, world_community: tuple[PeopleWorld, str]
) -> None:
    """`walk_unplanned_seeds` off (default): with vector seeds, only the named topic walks."""
    world, cid = world_community
    steps = parse_chain("parent_of:in")
    topic = next(p for p in world.entities_of("Person") if world.walk(p, steps))
    question = f"Who are the parents of {topic}?"
    result = service.pathrag(question, community_id=cid, max_depth=2)
    walked = [p for p in result.paths if p.depth > 0]
    assert walked and len(result.seeds) > 1
    assert {p.nodes[0].name for p in walked} == {topic}
    assert result.paths[0].chain == ["parent_of:in"]
    both = PathRag(service.settings.model_copy(update={"walk_unplanned_seeds": True}), graph=service.graph)
    starts = {p.nodes[0].name for p in both.pathrag(question, community_id=cid, max_depth=2, top_n=30).paths}
    assert starts - {topic}, "walking every seed reaches paths from other seeds"


def test_without_a_chain_model_the_search_falls_back(
    graph: Graph, world_community: tuple[PeopleWorld, str], tmp_path: Path
) -> None:
    world, cid = world_community
    (tmp_path / "all-MiniLM-L6-v2").symlink_to(Settings.from_env().models_dir / "all-MiniLM-L6-v2")
    reset_chain_scorers()
    topic = next(iter(world.entities_of("Person")))
    svc = PathRag(Settings.from_env(models_dir=tmp_path, cascade_k=0, chain_scorer="tuned"), graph=graph)
    question = f"Who are the parents of {topic}?"
    result = svc.pathrag(question, community_id=cid, seed_ids=[entity_id(cid, topic)])
    reset_chain_scorers()
    assert result.paths
    assert all("chain" not in p.score_parts for p in result.paths)


def test_without_a_model_of_its_own_the_chain_reader_plans(
    graph: Graph, world_community: tuple[PeopleWorld, str], tmp_path: Path
) -> None:
    """`auto`: a community no `tune` has run for plans with the reader trained on other graphs."""
    world, cid = world_community
    shipped = Settings.from_env()
    for name in ("all-MiniLM-L6-v2", READER_MODEL):
        (tmp_path / name).symlink_to(shipped.models_dir / name)
    reset_chain_scorers()
    steps = parse_chain("parent_of:in")
    topic = next(p for p in world.entities_of("Person") if world.walk(p, steps))
    settings = Settings.from_env(models_dir=tmp_path, cascade_k=0, chain_scorer="auto")
    result = PathRag(settings, graph=graph).pathrag(
        f"Who are the parents of {topic}?", community_id=cid, seed_ids=[entity_id(cid, topic)]
    )
    reset_chain_scorers()
    assert result.paths[0].chain == ["parent_of:in"]
    assert result.paths[0].nodes[-1].name in world.walk(topic, steps)


def test_eval_plans_ranks_each_gold_chain_among_the_schema(
    service: PathRag, world_community: tuple[PeopleWorld, str]
) -> None:
    """`eval plans`: the planner alone (no walk); the gold chain ranks first for plain questions."""
    from pathrag_gds.datasets.metaqa_questions import MetaQAQuestion
    from pathrag_gds.evaluation.plans import plan_ranks, summarize_ranks

    world, cid = world_community
    people = list(world.entities_of("Person"))[:3]
    asked = [("Who are the parents of {}?", "parent_of:in"), ("In which city was {} born?", "born_in:out")]
    questions = [
        MetaQAQuestion(
            hop=1,
            index=i,
            raw=q.format(f"[{p}]"),
            question=q.format(p),
            topic=p,
            answers=(),
            chain=parse_chain(c),
        )
        for i, (p, (q, c)) in enumerate((p, qc) for p in people for qc in asked)
    ]
    unknown = MetaQAQuestion(
        hop=1, index=99, raw="Who is [Nobody]?", question="Who is Nobody?", topic="Nobody", answers=()
    )
    errors: dict[str, int] = {}
    ranks = plan_ranks(service, [*questions, unknown], cid, max_depth=2, topic_id=entity_id, errors=errors)
    assert len(ranks) == len(questions), "a topic not in the graph, or no gold chain: left out"
    # every plan whose gold chain is not first is counted once, by what it got wrong
    assert sum(errors.values()) == sum(r != 1 for _, r in ranks) and "right" not in errors, errors
    # each gold chain is among the chains the search walks (the best `chain_keep`, 5)
    assert all(rank is not None and 1 <= rank <= 5 for _, rank in ranks), ranks
    report = summarize_ranks(ranks)["1"]
    assert report["total"] == 6 and report["at_5"] == 1.0 and report["not_found"] == 0
    assert report["at_1"] == sum(r == 1 for _, r in ranks) / 6
    own_only = service.settings.model_copy(update={"chain_scorer": "tuned"})
    with pytest.raises(InvalidInput, match="has no chain model: run `python -m pathrag_gds tune"):
        plan_ranks(service, questions, "no_model_here", max_depth=2, topic_id=entity_id, settings=own_only)
