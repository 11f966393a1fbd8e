"""`adopt --thalabus` on a Thalabus-shaped graph in the real Neo4j, and `tune` on the adopted community.

The graph (`thalabus_graph.py`) is written as Thalabus writes its own: `(:Community)-[:AGGREGATES]->
(:Entity:<type>)` with `*_consolidated` values, an ontology in the graph and chunks the entities are
`MENTIONED_IN`. Every id starts with `adopttest_` (the database is shared). The dumps compare every
node whose id has the test's prefix (labels, properties) and every relationship touching one.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import thalabus_graph
from pathrag_testutil import run_cli

from pathrag_gds.cli import main
from pathrag_gds.config import Settings
from pathrag_gds.graph import Graph
from pathrag_gds.scoring import get_scorer
from pathrag_gds.service import PathRag

pytestmark = pytest.mark.integration

TYPES = ("animal", "person", "place", "event")


def _cli(*args: str) -> tuple[int, str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(list(args))
    return code, out.getvalue()


def _answer(result: Any) -> str | None:
    best = result.best
    return best.answer_candidates[0].name if best and best.answer_candidates else None


def _paths(result: Any) -> list[str]:
    return [" ; ".join(p.path_context) for p in result.paths[:5]]


def _type_counts(graph: Graph, prefix: str) -> dict[str, int]:
    """How many nodes of the test's graph carry each of its type labels, as the user would count them.

    Restricted to the test's ids so that other sessions' nodes do not move the counts; the copies'
    ids start with the prefix too (`<prefix>_paths:<prefix>_bob`), so a copy with the user's label
    would count.
    """
    with graph.session() as s:
        return {
            t: s.run(f"MATCH (n:`{t}`) WHERE n.id STARTS WITH $p RETURN count(n) AS n", p=prefix).single(
                strict=True
            )["n"]
            for t in TYPES
        }


@pytest.fixture()
def thalabus(graph: Graph) -> Iterator[tuple[str, str]]:
    """The Thalabus community's id (every id of its graph starts with it) and the community to adopt it as."""
    prefix = f"adopttest_thal_{uuid.uuid4().hex[:10]}"
    community = f"{prefix}_paths"
    thalabus_graph.build(graph, prefix)
    try:
        yield prefix, community
    finally:
        if graph.read("adopt_state", community_id=community):  # a failed test left its adoption
            _cli("adopt", "--community", community, "--remove")
        thalabus_graph.drop(graph, prefix)


def test_a_thalabus_graph_is_adopted_answers_and_is_removed_whole(
    thalabus: tuple[str, str], graph: Graph, settings: Settings
) -> None:
    prefix, community = thalabus
    before, counts = thalabus_graph.dump(graph, prefix), _type_counts(graph, prefix)
    assert len(before["nodes"]) == 21 and len(before["rels"]) == 30
    assert counts == {"animal": 1, "person": 2, "place": 3, "event": 1}

    adopt = ("adopt", "--community", community, "--thalabus", prefix)
    code, out = _cli(*adopt, "--dry-run")
    assert code == 0 and "dry run: nothing written" in out, out
    assert f"7 node(s) that the Thalabus community {prefix!r} aggregates, 7 relationship(s)" in out, out
    assert "(animal 1, event 1, person 2, place 3), each prefixed Adopted__" in out, out
    assert f"from your graph's ontology {prefix}_onto:" in out, out
    assert "owns: person -> animal, reads 'owns'" in out and "located_in: place -> place" in out, out
    assert "not mirrored (not in your graph's ontology): SIMILAR_TO 1" in out, out
    assert "4 (:Entity)-[:MENTIONED_IN]->(your :Chunk) relationship(s), to 2 chunk(s)" in out, out
    assert thalabus_graph.dump(graph, prefix) == before
    assert not graph.read("adopt_state", community_id=community)

    code, out = _cli(*adopt, "--index")
    assert code == 0, out
    during = thalabus_graph.dump(graph, prefix)
    mine = {n[0] for n in before["nodes"]}
    assert [n for n in during["nodes"] if n[0] in mine] == before["nodes"]  # labels, properties unchanged
    assert all(r in during["rels"] for r in before["rels"])
    touching = [r for r in during["rels"] if r not in before["rels"] and (r[0] in mine or r[2] in mine)]
    assert Counter(r[1] for r in touching) == {"ADOPTS": 7, "MENTIONED_IN": 4}  # from the copies
    assert _type_counts(graph, prefix) == counts  # the copies carry Adopted__<type>, not the user's types

    (onto,) = graph.read("ontology_read", ontology_id=f"adopted:{community}")
    rts = {r["type"]: r for r in onto["relation_types"]}
    assert set(rts) == {"owns", "lives_in", "located_in", "contains", "involve", "takes_place"}
    assert rts["owns"]["description"] == "A person owns an animal."  # the graph's own ontology
    assert (rts["involve"]["source_labels"], rts["involve"]["target_labels"]) == (
        ["event"],
        ["animal", "person"],
    )
    assert rts["lives_in"]["phrase"] == "lives in" and rts["located_in"]["phrase"] == "is located in"
    ets = {e["label"]: e["description"] for e in onto["entity_types"]}
    assert ets["place"] == "A place: a room, a house, a village."

    svc = PathRag(settings, graph=graph, scorer=get_scorer(settings))
    one_hop = svc.pathrag("Who owns Bob?", community_id=community)
    assert _answer(one_hop) == "Jane Holt", _paths(one_hop)
    two_hop = svc.pathrag("In which village is the house that Jane Holt lives in?", community_id=community)
    assert _answer(two_hop) == "Whiskerville", _paths(two_hop)
    best = two_hop.best
    assert best is not None and best.depth == 2, _paths(two_hop)
    house = next(n for n in best.nodes if n.name == "Rosewood House")
    assert house.labels == ["place"] and house.attributes == {"location_type": "house"}  # consolidated
    assert "Rosewood House stands at the edge of Whiskerville, by the river." in {
        c.text for c in best.sources
    }
    assert all(n.id.startswith(community + ":") for p in two_hop.paths for n in p.nodes)  # confined

    code, out = _cli("adopt", "--community", community, "--remove")
    assert code == 0, out
    assert thalabus_graph.dump(graph, prefix) == before
    assert not graph.read("adopt_state", community_id=community)
    assert not graph.read("ontology_read", ontology_id=f"adopted:{community}")


def test_adopt_thalabus_refuses_its_own_id_an_unknown_community_and_label_options(
    thalabus: tuple[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    prefix, community = thalabus
    assert main(["adopt", "--community", prefix, "--thalabus", prefix]) == 2
    assert "is the Thalabus community itself: adopt it under an id of its own" in capsys.readouterr().err
    assert main(["adopt", "--community", community, "--thalabus", prefix + "_nope"]) == 2
    assert "entities of yours in the graph: check --thalabus" in capsys.readouterr().err
    assert main(["adopt", "--community", community, "--thalabus", prefix, "--label", "Entity"]) == 2
    assert "--thalabus reads its entities, names and descriptions itself: drop --label" in (
        capsys.readouterr().err
    )


@pytest.mark.torch
@pytest.mark.slow
def test_tune_trains_a_chain_model_on_an_adopted_graph_that_then_answers(
    thalabus: tuple[str, str], graph: Graph, settings: Settings, tmp_path: Path
) -> None:
    """`tune --steps 5 --seeds 1` end to end on the adopted community: the phrases come from the
    ontology read from the graph, and a query with the tuned chain model answers."""
    pytest.importorskip("torch", reason="needs the train extra: pip install -e '.[train]'")
    from pathrag_gds.training.chain_data import generate_questions
    from pathrag_gds.training.chain_tune import ChainTuneOptions

    prefix, community = thalabus
    code, out = _cli("adopt", "--community", community, "--thalabus", prefix, "--index")
    assert code == 0, out

    svc = PathRag(settings, graph=graph, scorer=get_scorer(settings))
    _, questions, _ = generate_questions(ChainTuneOptions(community=community, questions=200), svc, None)
    texts = [q.question for q in questions]
    assert any("lives in" in t for t in texts) and any("located in" in t for t in texts), texts[:20]
    assert not any("adopted" in t.lower() for t in texts), [t for t in texts if "adopted" in t.lower()][:5]
    assert any(t.startswith("Who ") for t in texts), texts[:20]  # `person` is a person: who

    t0 = time.monotonic()
    proc = run_cli(
        "tune", "--community", community, "--steps", "5", "--seeds", "1", "--questions", "400",
        "--out", str(tmp_path),
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    seconds = time.monotonic() - t0
    manifest = json.loads((tmp_path / f"tuned-{community}" / "chain" / "manifest.json").read_text())
    assert manifest["chain"]["community"] == community and manifest["chain"]["training"]["steps"] == 5

    (tmp_path / "all-MiniLM-L6-v2").symlink_to(settings.models_dir / "all-MiniLM-L6-v2")
    env = {**os.environ, "PATHRAG_MODELS_DIR": str(tmp_path)}
    proc = run_cli("query", "Who owns Bob?", "--community", community, "--json", env=env)
    assert proc.returncode == 0 and "has no chain model" not in proc.stderr, proc.stderr[-2000:]
    assert json.loads(proc.stdout)["answer_detail"]["entity"] == "Jane Holt", proc.stdout[:2000]
    print(f"tune on the adopted graph: {seconds:.0f} s")
