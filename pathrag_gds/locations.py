"""Where pathrag_gds finds its own files and keeps a user's.

Two layouts:

- **A checkout** (`pyproject.toml` and `cypher/` beside the package folder; also an editable install):
  the repository holds everything, as always: `cypher/`, `models/`, `scripts/neo4j/`, and what a
  user makes goes into it too (`.neo4j/`, models `tune` trains under `models/`, `.cache/vectors/`).
- **An installed wheel**: the Cypher files, the shipped models and the Neo4j installer come from the
  package's own `_data/` folder (copied there at build time by `setup.py`; read-only), and what a
  user makes goes to a per-user data folder (:func:`user_data_dir`): `<data>/.neo4j/`,
  `<data>/models/`, `<data>/.cache/vectors/`.

`PATHRAG_HOME` overrides the home in both layouts; `PATHRAG_NEO4J_HOME`, `PATHRAG_MODELS_DIR` and
`PATHRAG_VECTOR_STORE_DIR` override one folder each (:class:`pathrag_gds.config.Settings`). A model
is looked up in the models folder first and then among the models the wheel ships (:func:`find_model`).

Example:
    >>> user_data_dir({"XDG_DATA_HOME": "/data"}, platform="linux").as_posix()
    '/data/pathrag_gds'
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from pathlib import Path

#: The package folder, and its parent: the repository in a checkout, site-packages when installed.
PACKAGE_DIR = Path(__file__).resolve().parent
ROOT_DIR = PACKAGE_DIR.parent
#: True when the package runs from a checkout of the repository (editable installs included).
IS_CHECKOUT = (ROOT_DIR / "pyproject.toml").is_file() and (ROOT_DIR / "cypher").is_dir()
#: What a wheel carries beside the code (absent in a checkout): `cypher/`, `models/`, `neo4j/`.
PACKAGED_DIR = PACKAGE_DIR / "_data"
#: Models the installed wheel ships (read-only; absent in a checkout, whose `models/` holds them).
PACKAGED_MODELS_DIR = PACKAGED_DIR / "models"

#: The folder name under the platform's per-user data folder.
APP_NAME = "pathrag_gds"


def user_data_dir(env: Mapping[str, str] | None = None, platform: str = sys.platform) -> Path:
    """The per-user data folder of an installed pathrag_gds (used when there is no checkout).

    Linux and other Unix: `$XDG_DATA_HOME/pathrag_gds`, else `~/.local/share/pathrag_gds`; macOS:
    `~/Library/Application Support/pathrag_gds`; Windows: `%LOCALAPPDATA%/pathrag_gds`.
    """
    env = os.environ if env is None else env
    if platform.startswith("win"):
        base = env.get("LOCALAPPDATA") or str(Path.home() / "AppData" / "Local")
        return Path(base) / APP_NAME
    if platform == "darwin":
        return Path.home() / "Library" / "Application Support" / APP_NAME
    xdg = env.get("XDG_DATA_HOME", "")
    base_dir = Path(xdg) if xdg and Path(xdg).is_absolute() else Path.home() / ".local" / "share"
    return base_dir / APP_NAME


def default_home(env: Mapping[str, str] | None = None) -> Path:
    """The home of what a user makes: the checkout, else the per-user data folder."""
    return ROOT_DIR if IS_CHECKOUT else user_data_dir(env)


#: The default home at import (`Settings.home`; `PATHRAG_HOME` overrides it).
HOME_DIR = default_home()
#: The Cypher files the queries are read from.
CYPHER_DIR = ROOT_DIR / "cypher" if IS_CHECKOUT else PACKAGED_DIR / "cypher"
#: `pom.xml` and `install.sh`, which fetch the local Neo4j server's jars.
NEO4J_SCRIPTS_DIR = ROOT_DIR / "scripts" / "neo4j" if IS_CHECKOUT else PACKAGED_DIR / "neo4j"


def find_model(models_dir: Path, name: str) -> Path:
    """The folder of model `name` (a path under a models folder, e.g. `tuned-x/chain`) to read.

    `models_dir/name` when it holds a `manifest.json`, else the wheel's shipped model of that name
    when there is one, else `models_dir/name` (whose absence the reader reports). A user's own
    model (trained by `tune` or exported) thus wins over a shipped one of the same name.

    Example:
        >>> find_model(Path("/nowhere"), "not-shipped").as_posix()
        '/nowhere/not-shipped'
    """
    own = models_dir / name
    if (own / "manifest.json").is_file():
        return own
    shipped = PACKAGED_MODELS_DIR / name
    if (shipped / "manifest.json").is_file():
        return shipped
    return own
