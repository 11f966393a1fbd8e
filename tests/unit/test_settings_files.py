"""Settings from a `.env` or TOML file under the environment, and docs/settings.md listing every variable."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from pathrag_gds.config import ROOT_DIR, Settings
from pathrag_gds.errors import ConfigError
from pathrag_gds.settings_doc import OTHER_VARIABLES, settings_page
from pathrag_gds.settings_files import variable_of

DOC = ROOT_DIR / "docs" / "settings.md"


def _file(env: dict[str, str], path: Path) -> dict[str, str]:
    return {**env, "PATHRAG_SETTINGS_FILE": str(path)}


def test_a_dotenv_file_sets_what_the_environment_does_not(tmp_path: Path) -> None:
    dotenv = tmp_path / "my.env"
    dotenv.write_text(
        "# comment\nPATHRAG_TOP_N=7\nexport PATHRAG_BOLT_PORT=7699\nPATHRAG_CHAIN_PLANNING=false\n"
        'NEO4J_DATABASE="films"\nOTHER_TOOL=1\n',
        encoding="utf-8",
    )
    s = Settings.from_env(_file({}, dotenv))
    assert (s.top_n, s.bolt_port, s.chain_planning, s.neo4j_database) == (7, 7699, False, "films")
    assert s.neo4j_uri == "bolt://127.0.0.1:7699" and not s.external_db
    won = Settings.from_env(_file({"PATHRAG_TOP_N": "3", "NEO4J_DATABASE": "neo4j"}, dotenv))
    assert (won.top_n, won.neo4j_database, won.bolt_port) == (3, "neo4j", 7699), "the environment wins"


def test_a_toml_file_by_field_or_variable_name(tmp_path: Path) -> None:
    toml = tmp_path / "pathrag.toml"
    toml.write_text(
        'top_n = 9\nchain_planning = false\nPATHRAG_SEED_N = 12\nneo4j_uri = "bolt://db:7687"\n',
        encoding="utf-8",
    )
    s = Settings.from_env(_file({}, toml))
    assert (s.top_n, s.chain_planning, s.seed_n, s.neo4j_uri, s.external_db) == (
        9,
        False,
        12,
        "bolt://db:7687",
        True,
    )
    assert Settings.from_env(_file({"PATHRAG_TOP_N": "4"}, toml)).top_n == 4


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("topn = 3\n", ["'topn' is not a setting", "docs/settings.md"]),
        ("[pathrag]\ntop_n = 3\n", ["'pathrag' is not a setting", "top level"]),
        ("top_n = \n", ["not valid TOML"]),
        ("top_n = 0\n", ["invalid setting PATHRAG_TOP_N", "settings file"]),
    ],
)
def test_a_bad_toml_file_is_named(tmp_path: Path, text: str, words: list[str]) -> None:
    toml = tmp_path / "bad.toml"
    toml.write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError) as exc:
        Settings.from_env(_file({}, toml))
    assert all(w in str(exc.value) for w in words), exc.value


def test_a_named_file_that_is_missing_says_so(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"PATHRAG_SETTINGS_FILE=.*is not a file"):
        Settings.from_env(_file({}, tmp_path / "nope.env"))


def test_the_cli_reads_the_current_folders_files_and_the_environment_wins(tmp_path: Path) -> None:
    """A real `python -m pathrag_gds` run in a folder holding `.env` and `pathrag.toml`."""
    (tmp_path / ".env").write_text("PATHRAG_API_MAX_QUESTION_CHARS=5\n", encoding="utf-8")
    (tmp_path / "pathrag.toml").write_text("api_max_question_chars = 8\ntop_n = 0\n", encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith("PATHRAG_")}
    env["PYTHONPATH"] = str(ROOT_DIR)

    def query(extra: dict[str, str]) -> subprocess.CompletedProcess[str]:
        args = [sys.executable, "-m", "pathrag_gds", "query", "Who owns Bob?"]
        return subprocess.run(
            args, cwd=tmp_path, env={**env, **extra}, capture_output=True, text=True, timeout=120
        )

    bad = query({})
    assert bad.returncode == 2 and "invalid setting PATHRAG_TOP_N" in bad.stderr, bad.stderr
    fixed = query({"PATHRAG_TOP_N": "5"})  # the environment wins over pathrag.toml
    assert fixed.returncode == 2 and "pass one of 5 or fewer" in fixed.stderr, fixed.stderr  # .env over toml


def test_docs_list_every_variable_and_are_current() -> None:
    text = DOC.read_text(encoding="utf-8")
    listed = set(re.findall(r"^\| `([A-Z0-9_]+)` \|", text, flags=re.MULTILINE))
    wanted = {variable_of(f) for f in Settings.model_fields} | {v for v, _, _ in OTHER_VARIABLES}
    assert wanted - listed == set(), "run `python scripts/settings_doc.py`"
    assert {"PATHRAG_BOLT_PORT", "PATHRAG_HTTP_PORT", "PATHRAG_SETTINGS_FILE"} <= listed
    assert text == settings_page(), "docs/settings.md is stale: run `python scripts/settings_doc.py`"
    assert "docs/settings.md" in (ROOT_DIR / "README.md").read_text(encoding="utf-8")
