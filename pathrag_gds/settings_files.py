"""Settings files: a `.env` file or a TOML file, read under the environment (pydantic-settings).

Which files: the one `PATHRAG_SETTINGS_FILE` names (`.env` syntax, or TOML when it ends in
`.toml`), else `.env` and `pathrag.toml` in the current folder, where they exist. The environment
wins over a file, and `.env` over `pathrag.toml`.

A `.env` file holds variables as the environment does (`PATHRAG_TOP_N=10`, `NEO4J_URI=...`); other
variables in it are left alone (it may serve other tools). A TOML file holds settings by field
name, or by variable name (`top_n = 10`, `neo4j_uri = "bolt://..."`; docs/settings.md lists both).

Example:
    >>> variable_of("top_n"), variable_of("neo4j_uri")
    ('PATHRAG_TOP_N', 'NEO4J_URI')
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from pydantic_settings import BaseSettings, DotEnvSettingsSource, SettingsConfigDict, TomlConfigSettingsSource

from pathrag_gds.errors import ConfigError

#: The variable naming one settings file (`.env` syntax, or TOML by its `.toml` suffix).
SETTINGS_FILE_VAR = "PATHRAG_SETTINGS_FILE"
#: Files read from the current folder when no file is named, the first winning over the second.
DEFAULT_FILES = (".env", "pathrag.toml")
#: Connection variables and the field each sets (every other field is `PATHRAG_<FIELD>`).
CONNECTION_VARS = {
    "NEO4J_URI": "neo4j_uri",
    "NEO4J_USER": "neo4j_user",
    "NEO4J_USERNAME": "neo4j_user",
    "NEO4J_PASSWORD": "neo4j_password",
    "NEO4J_DATABASE": "neo4j_database",
}


class _Raw(BaseSettings):
    """Any key a file holds, as written (the sources' carrier; checked by `Settings` itself)."""

    model_config = SettingsConfigDict(extra="allow", case_sensitive=True)


def variable_of(field: str) -> str:
    """The environment variable of a settings field."""
    for var, name in CONNECTION_VARS.items():
        if name == field:
            return var
    return f"PATHRAG_{field.upper()}"


def settings_files(env: Mapping[str, str], cwd: Path | None) -> list[Path]:
    """The files to read, most important first: the named one, else the defaults found in `cwd`.

    Raises:
        ConfigError: `PATHRAG_SETTINGS_FILE` names no file.
    """
    named = env.get(SETTINGS_FILE_VAR, "")
    if named:
        path = Path(named).expanduser()
        if not path.is_file():
            raise ConfigError(f"{SETTINGS_FILE_VAR}={named!r} is not a file: fix the path or unset it")
        return [path]
    if cwd is None:
        return []
    return [cwd / name for name in DEFAULT_FILES if (cwd / name).is_file()]


def read_file(path: Path, fields: Iterable[str]) -> dict[str, Any]:
    """The variables a settings file sets, named as in the environment.

    Raises:
        ConfigError: a TOML key that is no setting, or a table (settings are flat).
    """
    known = set(fields)
    if path.suffix.lower() == ".toml":
        try:
            data = TomlConfigSettingsSource(_Raw, toml_file=path)()
        except ValueError as exc:  # tomllib.TOMLDecodeError
            raise ConfigError(f"{path} is not valid TOML ({exc}): fix the file") from exc
        out: dict[str, Any] = {}
        for key, value in data.items():
            field = CONNECTION_VARS.get(key) or (key[len("PATHRAG_") :].lower() if key.isupper() else key)
            if field not in known or isinstance(value, dict):
                raise ConfigError(
                    f"{path}: {key!r} is not a setting; use a field name such as top_n or a variable such "
                    "as PATHRAG_TOP_N, at the top level (docs/settings.md lists them)"
                )
            out[variable_of(field)] = value
        return out
    data = DotEnvSettingsSource(_Raw, env_file=path, case_sensitive=True)()
    return {
        k: v for k, v in data.items() if v is not None and (k in CONNECTION_VARS or k.startswith("PATHRAG_"))
    }


def file_variables(env: Mapping[str, str], fields: Iterable[str], cwd: Path | None) -> dict[str, Any]:
    """What the settings files set, as variables; a more important file wins over a less important one."""
    names = list(fields)
    merged: dict[str, Any] = {}
    for path in reversed(settings_files(env, cwd)):
        merged.update(read_file(path, names))
    return merged


def layered_env(env: Mapping[str, str] | None, fields: Iterable[str]) -> Mapping[str, Any]:
    """The environment over the settings files.

    `env` None: this process's environment over the named file or the current folder's files;
    an `env` given: it over the file it names, if any (never the current folder's: tests pass one).
    """
    if env is None:
        return {**file_variables(os.environ, fields, Path.cwd()), **os.environ}
    return {**file_variables(env, fields, None), **env}
