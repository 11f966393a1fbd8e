"""Issue 54, finding 4: a community's tuned-model folder is its own (one id, one folder) and readable,
and the folders the shipped models live in keep their names."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from pathrag_gds.chain_model import chain_model_dir, get_chain_scorer, reset_chain_scorers
from pathrag_gds.config import ROOT_DIR, Settings
from pathrag_gds.scoring import CascadeScorer, get_scorer, tuned_model_dir
from pathrag_gds.scoring.registry import community_folder

MODELS = ROOT_DIR / "models"
SHIPPED = sorted(p.name.removeprefix("tuned-") for p in MODELS.glob("tuned-*") if p.is_dir())


@pytest.mark.parametrize("community", [*SHIPPED, "metaqa", "Harbour_Stories", "people", "a-b_c-9"])
def test_plain_ids_keep_their_folder(community: str) -> None:
    assert tuned_model_dir(Settings(), community, MODELS) == MODELS / f"tuned-{community}"
    assert chain_model_dir(Settings(), community, MODELS) == MODELS / f"tuned-{community}" / "chain"


def test_shipped_models_are_found() -> None:
    assert {"DefaultCommunity_FictionalStories", "Harbour_Stories", "people"} <= set(SHIPPED)
    assert (
        tuned_model_dir(Settings(), "DefaultCommunity_FictionalStories", MODELS) / "manifest.json"
    ).is_file()


def test_ids_that_used_to_collide_get_their_own_readable_folder() -> None:
    names = {c: community_folder(c) for c in ("acme:secret", "acme_secret", "acme secret", "acme/secret")}
    assert names == {
        "acme:secret": "acme%3Asecret",
        "acme_secret": "acme_secret",
        "acme secret": "acme%20secret",
        "acme/secret": "acme%2Fsecret",
    }


TRICKY = [
    "",
    ".",
    "..",
    "a.b",
    "a%3Ab",
    "a:b",
    "a%b",
    "%",
    "%25",
    "a~b",
    "~",
    "café",
    "cafe\u0301",
    "ü",
    "%C3%BC",
    "\ud800",
    "a\x00b",
    "a\\b",
    "x" * 249,
    "x" * 250,
    "x" * 251,
    "x" * 300,
    ":" * 100,
    "é" * 100,
    "DefaultCommunity:FictionalStories",
    "DefaultCommunity FictionalStories",
    "DefaultCommunity_FictionalStories",
]


def test_the_mapping_is_injective_and_gives_folder_names() -> None:
    ids = TRICKY + ["".join(p) for n in range(1, 4) for p in itertools.product("a_:%~. é", repeat=n)]
    folders = [community_folder(c) for c in ids]
    assert len(set(folders)) == len(set(ids))
    for name in folders:
        full = f"tuned-{name}"
        assert "/" not in full and "\\" not in full and "\x00" not in full
        assert full.isascii() and len(full.encode()) <= 255


def test_a_look_alike_community_does_not_use_the_demos_models(tmp_path: Path) -> None:
    """`DefaultCommunity:FictionalStories` was scored with the demo community's models."""
    s = Settings(models_dir=MODELS, cascade_k=30, chain_planning=True)
    demo, twin = "DefaultCommunity_FictionalStories", "DefaultCommunity:FictionalStories"
    assert (chain_model_dir(s, demo) / "manifest.json").is_file()
    assert tuned_model_dir(s, twin) != tuned_model_dir(s, demo)
    assert not tuned_model_dir(s, twin).exists()
    reset_chain_scorers()
    assert get_chain_scorer(s, twin) is None
    assert not isinstance(get_scorer(s, twin), CascadeScorer)  # the demo's cross-encoder is not used
