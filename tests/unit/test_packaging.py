"""Issue 53: the wheel carries the Cypher files, the query path's models and the Neo4j installer, and
an installed package (no checkout) keeps what a user makes in a per-user data folder.

The wheel's own run (built, installed into a fresh venv, asked the demo question from an empty
folder) is `scripts/check_wheel.sh`, which CI runs after the test suite.
"""

from __future__ import annotations

import runpy
import subprocess
import sys
import zipfile
from importlib.metadata import version
from pathlib import Path
from typing import Any

import pytest

from pathrag_gds import chain_model, config, locations
from pathrag_gds.config import ROOT_DIR, Settings
from pathrag_gds.scoring import tuned_model_dir

SETUP: dict[str, Any] = runpy.run_path(str(ROOT_DIR / "setup.py"), run_name="pathrag_setup")


def _tracked(*paths: str) -> set[str]:
    out = subprocess.run(
        ["git", "-C", str(ROOT_DIR), "ls-files", *paths], capture_output=True, text=True, check=True
    )
    return set(out.stdout.split())


def test_the_checkout_is_recognised_and_reads_its_own_folders() -> None:
    assert locations.IS_CHECKOUT and locations.HOME_DIR == ROOT_DIR
    assert locations.CYPHER_DIR == ROOT_DIR / "cypher"
    assert locations.NEO4J_SCRIPTS_DIR == ROOT_DIR / "scripts" / "neo4j"
    assert not locations.PACKAGED_DIR.exists()  # only a built wheel has it
    s = Settings.from_env({})
    assert (s.home, s.neo4j_home, s.models_dir) == (ROOT_DIR, ROOT_DIR / ".neo4j", ROOT_DIR / "models")
    assert s.vector_store_dir == str(ROOT_DIR / ".cache" / "vectors")


def test_wheel_data_is_every_cypher_file_the_installer_and_the_tracked_files_of_the_shipped_models() -> None:
    files: dict[str, Path] = SETUP["data_files"]()
    cypher = {p.name for p in (ROOT_DIR / "cypher").glob("*.cypher")}
    assert {k.removeprefix("cypher/") for k in files if k.startswith("cypher/")} == cypher
    assert {"neo4j/pom.xml", "neo4j/install.sh", "models/README.md"} <= set(files)
    shipped = SETUP["SHIPPED_MODELS"]
    assert shipped == ("all-MiniLM-L6-v2", "tuned-DefaultCommunity_FictionalStories", "chain-reader")
    models = {k for k in files if k.startswith("models/") and k != "models/README.md"}
    # exactly what git holds of them: never an fp32 export, a staging folder or a checkpoint
    assert models == _tracked(*(f"models/{m}" for m in shipped))
    assert all(p == ROOT_DIR / k or k.startswith(("cypher/", "neo4j/")) for k, p in files.items())
    size = sum(p.stat().st_size for p in files.values())
    assert size < 125_000_000, size  # ~120 MB, ~97 MB compressed: the built wheel's size is checked below


@pytest.mark.slow
def test_the_built_wheel_holds_the_data(tmp_path: Path) -> None:
    major, minor = (int(x) for x in version("setuptools").split(".")[:2])
    assert (major, minor) >= (77, 0), "pyproject's build requirement (built here without isolation)"
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(tmp_path)]
        + [str(ROOT_DIR)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    [wheel] = tmp_path.glob("pathrag_gds-*.whl")
    assert wheel.stat().st_size < 100_000_000, "past PyPI's 100 MB limit per file"
    with zipfile.ZipFile(wheel) as zf:
        names = {n for n in zf.namelist() if n.startswith("pathrag_gds/_data/")}
    assert names == {f"pathrag_gds/_data/{k}" for k in SETUP["data_files"]()}
    assert "pathrag_gds/_data/cypher/graph_info.cypher" in names  # the FileNotFoundError


def test_setup_reads_the_project_without_a_warning() -> None:
    """Set-up printed setuptools' `project.license` deprecation three times (issue 53): quiet now."""
    proc = subprocess.run(
        [sys.executable, "setup.py", "--version"], cwd=ROOT_DIR, capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stderr
    assert "Warning" not in proc.stderr and "deprecated" not in proc.stderr, proc.stderr


def test_user_data_dir_per_platform(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", "/home/u")
    assert locations.user_data_dir({}, "linux") == Path("/home/u/.local/share/pathrag_gds")
    assert locations.user_data_dir({"XDG_DATA_HOME": "/x"}, "linux") == Path("/x/pathrag_gds")
    assert locations.user_data_dir({"XDG_DATA_HOME": "rel"}, "linux") == Path(
        "/home/u/.local/share/pathrag_gds"
    )
    assert locations.user_data_dir({}, "darwin") == Path("/home/u/Library/Application Support/pathrag_gds")
    assert locations.user_data_dir({"LOCALAPPDATA": "C:/L"}, "win32") == Path("C:/L/pathrag_gds")


def test_installed_settings_keep_what_a_user_makes_in_the_data_folder(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(config, "IS_CHECKOUT", False)
    data = Path("/d/pathrag_gds")
    s = Settings.from_env({"XDG_DATA_HOME": "/d"})
    assert (s.home, s.neo4j_home, s.models_dir) == (data, data / ".neo4j", data / "models")
    assert s.vector_store_dir == str(data / ".cache" / "vectors")
    s = Settings.from_env({"XDG_DATA_HOME": "/d", "PATHRAG_HOME": "/h", "PATHRAG_MODELS_DIR": "/m"})
    assert (s.home, s.neo4j_home, s.models_dir) == (Path("/h"), Path("/h/.neo4j"), Path("/m"))
    s = Settings.from_env(
        {"XDG_DATA_HOME": "/d", "PATHRAG_NEO4J_HOME": "/n", "PATHRAG_VECTOR_STORE_DIR": "off"}
    )
    assert (s.neo4j_home, s.models_dir, s.vector_store_dir) == (Path("/n"), data / "models", "off")


def _model(folder: Path) -> Path:
    folder.mkdir(parents=True)
    (folder / "manifest.json").write_text("{}", encoding="utf-8")
    return folder


def test_models_are_read_from_the_users_folder_first_then_from_the_wheel(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    packaged = tmp_path / "site" / "models"
    monkeypatch.setattr(locations, "PACKAGED_MODELS_DIR", packaged)
    own = tmp_path / "mine"
    s = Settings(models_dir=own)
    shipped_chain = _model(packaged / "tuned-demo" / "chain")
    shipped_base = _model(packaged / "all-MiniLM-L6-v2")
    assert locations.find_model(own, "all-MiniLM-L6-v2") == shipped_base
    assert chain_model.chain_model_dir(s, "demo") == shipped_chain
    assert tuned_model_dir(s, "demo") == own / "tuned-demo"  # the wheel ships no cross-encoder of it
    # `tune` writes into the user's folder, never the package
    assert chain_model.chain_model_dir(s, "demo", s.models_dir) == own / "tuned-demo" / "chain"
    mine = _model(own / "tuned-demo" / "chain")
    assert chain_model.chain_model_dir(s, "demo") == mine
    assert locations.find_model(own, "neither") == own / "neither"
