"""Training data generated from the live graph (`python -m pathrag_gds tune`).

- generating training questions reads no evaluation file (any suite's questions, MetaQA's question
  files, the people questions), for the chain scorer's tune and the cross-encoder's alike;
- `tune --seeds 2` exports one folder holding two models whose logits the scorer averages;
- a tune is reproducible from its seed (data hash, int8 bytes): the ensemble's seed-5 model is the
  same as the kept-checkpoint tune of seed 5; and a tune can start from a kept checkpoint.

Four tiny tunes in all (the fixtures are shared by the module's tests).

Uses the demo graph (loaded by the `demo_community` fixture) and a 3,000-triple MetaQA slice loaded
into a community of its own and removed afterwards, so it runs without the full MetaQA load.
"""

from __future__ import annotations

import json
import re
import shutil
import sys
import uuid
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from pathrag_gds.config import METAQA_DIR, Settings
from pathrag_gds.datasets.loader import GraphLoader, delete_community
from pathrag_gds.datasets.ontology_files import METAQA_ONTOLOGY, read_ontology
from pathrag_gds.datasets.triples import read_triples_text
from pathrag_gds.errors import InvalidInput, ModelError
from pathrag_gds.graph import Graph
from pathrag_gds.scoring import CrossEncoderScorer, tuned_model_dir
from pathrag_gds.service import PathRag
from pathrag_gds.training import chain_data
from pathrag_gds.training.chain_tune import ChainTuneOptions
from pathrag_gds.training.tune import (
    TuneOptions,
    code_version,
    generate_questions,
    resolve_base,
    tune,
)

pytestmark = pytest.mark.integration

BOB = "DefaultCommunity_FictionalStories"

#: Files of evaluation questions: story suites, MetaQA's question splits, the people questions.
EVALUATION_FILE = re.compile(r"(_eval\.ya?ml|qa_(dev|test|train)\.txt|\d-hop(_chains)?\.txt|questions\.tsv)$")
#: Every file the process opens while `_opened` is recording (an audit hook sees every `open`).
_opened: list[str] | None = None


def _audit(event: str, args: tuple[Any, ...]) -> None:
    if event == "open" and _opened is not None and isinstance(args[0], str | bytes | Path):
        _opened.append(str(args[0]))


sys.addaudithook(_audit)


def _evaluation_files_opened(run: Any) -> list[str]:
    """The evaluation files opened while `run()` runs."""
    global _opened
    _opened = []
    try:
        run()
        return [p for p in _opened if EVALUATION_FILE.search(p)]
    finally:
        _opened = None


@pytest.fixture(scope="module")
def metaqa_slice(graph: Graph, settings: Settings) -> Iterator[str]:
    """The first 3,000 MetaQA triples in a community of their own."""
    cid = f"test_tune_metaqa_{uuid.uuid4().hex[:10]}"
    with (METAQA_DIR / "kb.txt").open(encoding="utf-8") as fh:
        text = "".join(line for _, line in zip(range(3000), fh, strict=False))
    tf = read_triples_text(text, "metaqa", read_ontology(METAQA_ONTOLOGY), cid)
    try:
        GraphLoader(graph, batch_size=1000, progress=False).load(tf.dataset)
        yield cid
    finally:
        delete_community(graph, cid, drop_ontology=True)


def test_generating_questions_reads_no_evaluation_file(
    settings: Settings, demo_community: str, metaqa_slice: str, tmp_path: Path
) -> None:
    # the hook sees a suite file opened the way any code would open it
    suite = tmp_path / "probe_eval.yaml"
    suite.write_text("heldout: []\n", encoding="utf-8")
    assert _evaluation_files_opened(lambda: suite.read_text(encoding="utf-8")) == [str(suite)]
    svc = PathRag(settings)
    for community in (BOB, metaqa_slice):
        made: list[int] = []

        def both(community: str = community, made: list[int] = made) -> None:
            chain_options = ChainTuneOptions(community=community, questions=300)
            made.append(len(chain_data.generate_questions(chain_options, svc, None)[1]))
            # the graph's own phrasings are read from its entities' texts, never a question
            mined = replace(chain_options, mined_share=0.3)
            made.append(len(chain_data.generate_questions(mined, svc, None)[1]))
            made.append(len(generate_questions(TuneOptions(community=community, pairs=600), settings)[0]))

        assert _evaluation_files_opened(both) == []
        assert all(n > 0 for n in made), made


#: The tiny tune every test here runs (seed 5): options that train in seconds, not a useful model.
TINY = TuneOptions(community=BOB, pairs=60, epochs=1, batch_size=16, max_length=64, seed=5, freeze_layers=4)


@pytest.fixture(scope="module")
def ensemble(settings: Settings, demo_community: str, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """`tune --seeds 2` (seeds 5 and 6) into a folder of its own; returns the model folder."""
    out = tmp_path_factory.mktemp("ensemble")
    tune(replace(TINY, seeds=2, out=out), settings)
    return tuned_model_dir(settings, BOB, out)


@pytest.fixture(scope="module")
def kept(settings: Settings, demo_community: str, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """`tune --keep-checkpoint` (seed 5 alone); returns the model folder."""
    out = tmp_path_factory.mktemp("kept")
    tune(replace(TINY, out=out, keep_checkpoint=True), settings)
    return tuned_model_dir(settings, BOB, out)


def _manifest(folder: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    return data


def test_tune_two_seeds_exports_one_averaged_ensemble(ensemble: Path, tmp_path: Path) -> None:
    """`tune --seeds 2` end to end on the demo graph (tiny): one folder, two models, mean logits."""
    assert not (ensemble.parent / f".{ensemble.name}.partial").exists()
    manifest = _manifest(ensemble)
    assert manifest["members"] == ["seed-6"] and manifest["ensemble"]["seeds"] == [5, 6]
    # the ensemble records the command, each member its own share of it
    assert TuneOptions(**manifest["ensemble"]["options"]) == replace(TINY, seeds=2)
    assert manifest["training"]["options"]["seeds"] == 1
    member = _manifest(ensemble / "seed-6")
    assert manifest["training"]["seed"] == 5 and member["training"]["seed"] == 6
    assert len(set(manifest["ensemble"]["data_hashes"])) == 2  # each seed generates its own data
    # the ensemble's logits are the mean of its two models
    folder = tmp_path / ensemble.name
    shutil.copytree(ensemble, folder)
    alone = tmp_path / "alone"
    shutil.copytree(folder, alone, ignore=shutil.ignore_patterns("seed-*"))
    solo = _manifest(alone)
    del solo["members"]
    (alone / "manifest.json").write_text(json.dumps(solo), encoding="utf-8")
    ens = CrossEncoderScorer.load(folder, activation="raw", threads=1)
    a = CrossEncoderScorer.load(alone, activation="raw", threads=1)
    b = CrossEncoderScorer.load(folder / "seed-6", activation="raw", threads=1)
    assert len(ens.sessions) == 2 and ens.name.endswith("x2")
    q, texts = "Who owns Bob?", ["Jane owns Bob.", "Bob hides in Attic.", "Rex chases Bob."]
    mean = [(x + y) / 2 for x, y in zip(a.score(q, texts), b.score(q, texts), strict=True)]
    assert ens.score(q, texts) == pytest.approx(mean, abs=1e-5)
    assert a.score(q, texts) != pytest.approx(b.score(q, texts), abs=1e-4)  # two different models
    # a member that went missing is named in the error
    shutil.rmtree(folder / "seed-6")
    with pytest.raises(ModelError, match="seed-6"):
        CrossEncoderScorer.load(folder)


def test_same_seed_gives_the_same_model(ensemble: Path, kept: Path) -> None:
    """Data, weights and manifest are reproducible from the seed: two separate tunes of seed 5 (the
    ensemble's first model and the kept-checkpoint tune) generate the same data and one int8 file."""
    a, b = _manifest(ensemble), _manifest(kept)
    assert a["files"]["int8"]["sha256"] == b["files"]["int8"]["sha256"]
    assert a["training"]["data_hash"] == b["training"]["data_hash"]
    # the manifest records the options, and they ask for the same tune again
    assert TuneOptions(**b["training"]["options"]) == replace(TINY, keep_checkpoint=True)
    # ... and the code that generated the data (the commit, when run from a git checkout)
    assert a["training"]["code"] == b["training"]["code"] == code_version()
    if (Path(__file__).resolve().parents[2] / ".git").exists():
        assert len(a["training"]["code"]["commit"]) == 40


def test_tune_from_a_kept_checkpoint(settings: Settings, kept: Path, tmp_path: Path) -> None:
    """`tune --keep-checkpoint` keeps the weights; `tune --base` starts the next tune from them."""
    checkpoint = resolve_base(kept)  # the model folder resolves to its checkpoint/
    assert checkpoint == kept / "checkpoint" and (checkpoint / "config.json").is_file()
    assert _manifest(kept)["checkpoint"] == "checkpoint"
    with pytest.raises(InvalidInput, match="--keep-checkpoint"):
        resolve_base(tmp_path)  # no weights there: the error says how to get them
    second = tmp_path / "second"
    tune(replace(TINY, out=second, seed=7, base=checkpoint), settings)
    warm = tuned_model_dir(settings, BOB, second)
    manifest = _manifest(warm)
    assert manifest["source"]["base"] == str(checkpoint)
    assert manifest["source"]["base_manifest"]["seed"] == 5 and "checkpoint" not in manifest
    assert not (warm / "checkpoint").exists()
    q, texts = "Who owns Bob?", ["Jane owns Bob.", "Bob hides in Attic.", "Rex chases Bob."]
    a = CrossEncoderScorer.load(kept, activation="raw", threads=1).score(q, texts)
    b = CrossEncoderScorer.load(warm, activation="raw", threads=1).score(q, texts)
    assert a != pytest.approx(b, abs=1e-4)  # the second tune trained on from the first
