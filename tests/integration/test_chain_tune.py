"""`tune` for the chain scorer end to end (real Neo4j, real training): a small people world, two
seeds of a few steps each, averaged into one model (a soup) or kept as an ensemble the search loads.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from pathrag_testutil import PeopleFactory

from pathrag_gds.chain_model import ChainScorer, chain_model_dir
from pathrag_gds.config import Settings
from pathrag_gds.datasets.ontology_files import read_ontology
from pathrag_gds.datasets.people import PEOPLE_ONTOLOGY
from pathrag_gds.errors import ModelError
from pathrag_gds.search.near import ANSWER_CLASSES, WINDOW_CLASSES
from pathrag_gds.search.schema import schema_chain_texts
from pathrag_gds.training.chain_pool import rebuild_pool
from pathrag_gds.training.chain_tune import ChainTuneOptions, tune_chains

pytestmark = [pytest.mark.integration, pytest.mark.torch, pytest.mark.slow]


@pytest.fixture(scope="module")
def community(people_community: PeopleFactory) -> str:
    return people_community("test_chain_tune", seed=3, scale=0.05)


def test_tune_trains_an_ensemble_of_seeds_for_a_step_budget(community: str, tmp_path: Path) -> None:
    stages: set[str] = set()
    options = ChainTuneOptions(
        community=community, questions=40, steps=3, seeds=2, soup=False, max_depth=1, threads=1,
        pool_depth=2, out=tmp_path,
    )  # fmt: skip
    result = tune_chains(options, Settings.from_env(), lambda stage, i, n, note: stages.add(stage))
    folder = chain_model_dir(Settings.from_env(), community, tmp_path)
    assert result.model_dir == folder
    assert result.training["steps"] == result.training["planned_steps"] == 3  # the budget, not the clock
    manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["chain"]["members"] == ["member-1"]
    assert manifest["chain"]["ensemble"]["seeds"] == [0, 1]
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", manifest["chain"]["finished"])  # `info` shows it
    member = json.loads((folder / "member-1" / "manifest.json").read_text(encoding="utf-8"))
    assert member["chain"]["options"]["seed"] == 1
    assert not any(p.name.startswith(".") for p in folder.parent.iterdir())  # no staging folder left
    assert {"train 1/2", "train 2/2"} <= stages  # each model its own progress bar
    near = manifest["chain"]["near"]  # the near-topic weights, fitted on the held-out questions
    assert len(near["weights"]) == len(WINDOW_CLASSES) and near["questions"] > 0
    assert any(s.startswith("question-term fit") for s in stages)
    # the answer-type weight, fitted with them on the intent's type scores of the same questions
    assert isinstance(manifest["chain"]["answer_type"]["weight"], float)
    assert {"top1_without", "top1_near", "top1_with"} <= set(near)
    # and the last hop's weights around the question word
    assert len(manifest["chain"]["far"]["weights"]) == len(ANSWER_CLASSES)
    # fitted against the ensemble's mean scores, which the search adds them to (not the first model's)
    assert near["models"] == 2 and any(s == "question-term fit (ensemble)" for s in stages)
    assert "models" not in member["chain"]["near"]  # a member keeps its own fit

    scorer = ChainScorer(folder)
    assert len(scorer.members) == 1
    # the chain pool: the chains the small graph holds, to 2 hops (past the 1 trained), each member's
    assert manifest["chain"]["pool"]["depth"] == member["chain"]["pool"]["depth"] == 2
    assert scorer.plan_depth == 2 and scorer.pool is not None and scorer.members[0].pool == scorer.pool
    schema = set(schema_chain_texts(read_ontology(PEOPLE_ONTOLOGY), 2))
    assert "X itself" in scorer.pool and scorer.pool < schema  # held chains only, not the schema's
    assert scorer.near_scorer_for("where was X's mother born") is not None
    assert scorer.answer_type_weight == manifest["chain"]["answer_type"]["weight"]
    texts = ["Person was born in City", "Person works for Company"]
    both = scorer.scorer_for("where was X born")(texts)
    alone = scorer.chain_vectors(texts) @ scorer.encode_question("where was X born")  # the first model
    second = scorer.members[0].scorer_for("where was X born")(texts)
    assert both == pytest.approx([(a + b) / 2 for a, b in zip(alone, second, strict=True)], abs=1e-5)


def test_a_soup_averages_the_seeds_models_into_one(community: str, tmp_path: Path) -> None:
    """`tune --seeds 2` (a soup, the default): one model whose weights are the mean of the runs'."""
    import onnx
    from onnx import numpy_helper

    stages: set[str] = set()
    options = ChainTuneOptions(
        community=community, questions=40, steps=3, seeds=2, max_depth=1, threads=1, pool_depth=2,
        out=tmp_path,
    )  # fmt: skip
    folder = chain_model_dir(Settings.from_env(), community, tmp_path)
    staging = folder.parent / f".{folder.name}.partial"
    from pathrag_gds.training import chain_soup

    def weights(path: Path) -> dict[str, Any]:
        return {i.name: numpy_helper.to_array(i) for i in onnx.load(str(path)).graph.initializer}

    runs: list[dict[str, Any]] = []
    keep = chain_soup.average_onnx

    def spy(sources: list[Path], out: Path, w: list[float] | None = None) -> int:  # read before removal
        runs.extend(weights(p) for p in sources)
        return keep(sources, out, w)

    chain_soup.average_onnx = spy  # type: ignore[assignment]
    try:
        tune_chains(options, Settings.from_env(), lambda stage, i, n, note: stages.add(stage))
    finally:
        chain_soup.average_onnx = keep
    assert not staging.exists() and not list(folder.glob("member-*"))
    manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    assert "members" not in manifest["chain"] and manifest["chain"]["soup"]["seeds"] == [0, 1]
    assert {"soup", "question-term fit (soup)"} <= stages
    mixed = weights(folder / "model_fp32.onnx")
    changed = [k for k, v in runs[0].items() if v.dtype.kind == "f" and not (v == runs[1][k]).all()]
    assert changed, "two seeds should train apart"
    for k in changed:
        assert mixed[k] == pytest.approx((runs[0][k] + runs[1][k]) / 2, abs=1e-6)
    scorer = ChainScorer(folder)  # the search loads one model: no members, its pool and vectors
    assert not scorer.members and scorer.pool is not None and scorer.plan_depth == 2
    assert manifest["files"]["int8"]["sha256"] != manifest["files"]["fp32"]["sha256"]
    assert len(scorer.scorer_for("where was X born")(["Person was born in City"])) == 1
    # the chain texts were encoded by the soup, as the question will be (not by the first run)
    texts = sorted(scorer.pool)[:8]
    stored = scorer.chain_vectors(texts)  # read back from chain_vectors.npz (fp16)
    assert np.allclose(stored, np.asarray(scorer.embedder.encode(texts)), atol=5e-3)


def test_base_share_averages_the_untrained_encoder_into_the_model(community: str, tmp_path: Path) -> None:
    """`tune --base-share 0.4`: the model is 0.6 of the tuned run and 0.4 of the untouched encoder."""
    import onnx
    from onnx import numpy_helper

    from pathrag_gds.training import chain_soup

    options = ChainTuneOptions(
        community=community, questions=40, steps=3, seeds=1, max_depth=1, threads=1, base_share=0.4,
        out=tmp_path,
    )  # fmt: skip
    seen: list[tuple[list[dict[str, Any]], list[float] | None]] = []
    keep = chain_soup.average_onnx

    def spy(sources: list[Path], out: Path, w: list[float] | None = None) -> int:
        read = [
            {i.name: numpy_helper.to_array(i) for i in onnx.load(str(p)).graph.initializer} for p in sources
        ]
        seen.append((read, w))
        return keep(sources, out, w)

    chain_soup.average_onnx = spy  # type: ignore[assignment]
    try:
        tune_chains(options, Settings.from_env())
    finally:
        chain_soup.average_onnx = keep
    folder = chain_model_dir(Settings.from_env(), community, tmp_path)
    (run, base), w = seen[0]
    assert w == pytest.approx([0.6, 0.4])
    mixed = {
        i.name: numpy_helper.to_array(i) for i in onnx.load(str(folder / "model_fp32.onnx")).graph.initializer
    }
    changed = [k for k, v in run.items() if v.dtype.kind == "f" and not (v == base[k]).all()]
    assert changed, "three steps should move the run off the base model"
    for k in changed:
        assert mixed[k] == pytest.approx(0.6 * run[k] + 0.4 * base[k], abs=1e-6)
    manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["chain"]["soup"]["base_share"] == 0.4
    assert ChainScorer(folder).scorer_for("where was X born")(["Person was born in City"])


def test_refit_terms_fits_the_question_terms_again_and_leaves_the_encoder(
    community: str, tmp_path: Path
) -> None:
    """`tune --refit-terms`: the held-out questions come back the same, the model files do not move."""
    from pathrag_gds.training.terms_refit import refit_terms

    settings = Settings.from_env(models_dir=tmp_path)
    (tmp_path / "all-MiniLM-L6-v2").symlink_to(Settings.from_env().models_dir / "all-MiniLM-L6-v2")
    options = ChainTuneOptions(
        community=community, questions=60, steps=2, seeds=1, max_depth=2, threads=1, pool_depth=0,
        out=tmp_path,
    )  # fmt: skip
    tune_chains(options, settings)
    folder = chain_model_dir(settings, community)
    before = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    onnx = (folder / "model_int8.onnx").read_bytes()
    fitted = refit_terms(community, settings)
    after = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    # the same held-out questions and model: the same fit as tune's
    assert after["chain"]["near"] == before["chain"]["near"] == fitted["near"]
    assert after["chain"]["answer_type"] == before["chain"]["answer_type"]
    assert after["chain"]["noun"] == before["chain"]["noun"] and "weight" in after["chain"]["noun"]
    assert after["chain"]["far"] == before["chain"]["far"] == fitted["far"]
    assert after["chain"]["terms_refit"]["questions"] == before["chain"]["near"]["questions"]
    assert (folder / "model_int8.onnx").read_bytes() == onnx
    assert after["files"] == before["files"]
    # weights of a shape the code no longer reads (a term changed) are what a refit replaces
    stale = after | {"chain": after["chain"] | {"far": {"weights": [1.0]}, "near": {"weights": [2.0]}}}
    (folder / "manifest.json").write_text(json.dumps(stale), encoding="utf-8")
    with pytest.raises(ModelError, match=r"chain\.near\.weights must be 6 numbers"):
        ChainScorer(folder)
    assert refit_terms(community, settings)["far"] == fitted["far"]
    ChainScorer(folder)  # usable again
    # a community without a chain model says what to run
    with pytest.raises(ModelError, match="tune --community nowhere"):
        refit_terms("nowhere", settings)
    # `tune --chain-pool`: the pool built for a model tuned without one, the encoder untouched
    assert ChainScorer(folder).pool is None
    entry = rebuild_pool(community, 1, settings)
    pooled = ChainScorer(folder)
    assert entry["depth"] == pooled.plan_depth == 1 and pooled.pool is not None
    assert len(pooled.pool) == entry["chains"]
    assert pooled.pool <= set(schema_chain_texts(read_ontology(PEOPLE_ONTOLOGY), 1))
    assert (folder / "model_int8.onnx").read_bytes() == onnx
    with pytest.raises(ModelError, match="tune --community nowhere"):
        rebuild_pool("nowhere", 1, settings)
