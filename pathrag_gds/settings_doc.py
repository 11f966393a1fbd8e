"""The table of every setting for docs/settings.md, made from the settings classes themselves.

Each row is a field of :class:`~pathrag_gds.config.Settings`: its variable, its TOML key, its
default and the `#:` comment above it in the source (or its `Field` description). Regenerate with
`python scripts/settings_doc.py` (a test checks the committed page is current).

Example:
    >>> "| `PATHRAG_TOP_N` | `top_n` | 5 |" in settings_table()
    True
"""

from __future__ import annotations

import ast
import inspect
import textwrap
from pathlib import Path
from typing import Any

from pydantic import BaseModel
from pydantic_core import PydanticUndefined

from pathrag_gds import config
from pathrag_gds.locations import HOME_DIR
from pathrag_gds.mode_settings import ModeSettings
from pathrag_gds.settings_files import variable_of

#: The groups, in the order the page lists them.
GROUPS: tuple[type[BaseModel], ...] = (
    config.ConnectionSettings,
    config.LocalServerSettings,
    config.GraphModelSettings,
    config.DocumentSettings,
    config.SearchSettings,
    config.ModelSettings,
    ModeSettings,
    config.ApiSettings,
    config.AnswerModelSettings,
)

#: Meanings of the fields whose source has no comment of their own.
MEANINGS: dict[str, str] = {
    "neo4j_uri": "the Neo4j server (a Bolt URI); set: a server of yours, never a local one started",
    "neo4j_user": "the Neo4j user",
    "neo4j_password": "the Neo4j password (unset: the local server's generated one)",
    "neo4j_database": "the database to query",
    "neo4j_home": "the local Neo4j home of `db start`",
    "bolt_port": "the local server's Bolt port (`NEO4J_URI` follows it when unset)",
    "http_port": "the local server's HTTP port (0: HTTP off)",
    "entity_label": "label of the entity nodes",
    "id_property": "entity property holding its id",
    "name_property": "entity property holding its name",
    "description_property": "entity property holding its description",
    "embedding_property": "entity property holding its embedding",
    "community_label": "label of the community nodes",
    "community_rel": "relationship type from a community to its entities",
    "vector_index": "the entities' vector index",
    "document_label": "label of document nodes",
    "section_label": "label of section nodes",
    "chunk_label": "label of chunk nodes",
    "has_child_rel": "relationship type from a document or section to the sections under it",
    "has_part_rel": "relationship type from a section to its chunks",
    "next_chunk_rel": "relationship type from a chunk to the next",
    "mentioned_in_rel": "relationship type from an entity to a chunk that mentions it",
    "chunk_vector_index": "the chunks' vector index",
    "chunk_overlap": "tokens two neighbouring chunks share",
    "top_n": "paths returned",
    "seed_n": "seed entities taken from the vector index",
    "max_depth": "longest path, in hops",
    "min_depth": "shortest path that may be returned, in hops",
    "beam_width": "paths kept per depth",
    "expand_per_path": "neighbours a kept path is expanded to",
    "local_keep_m": "paths kept per parent path",
    "cap_per_relation": "neighbours per relationship type and parent (hub cap)",
    "no_revisit": "a path never visits an entity twice",
    "min_score": "floor on the model score of a kept path",
    "mode": "`option-d` (raw scores) or `a3` (min-max per depth minus the depth penalty)",
    "weight_rerank": "weight of the path-text model's score",
    "weight_relation_prior": "Step 6 term: the relation prior (docs/calibration.md)",
    "weight_coverage": "Step 6 term: the question's entities on the path (docs/calibration.md)",
    "weight_length": "Step 6 term: shorter paths (docs/calibration.md)",
    "chain_base_type_weight": "the untrained chain encoder's answer-type weight (`base_chains.py`)",
    "chain_keep": "chains walked in the end",
    "embedding_model": "the sentence embedding model (a folder under the models folder)",
    "quantization": "ONNX model variant: `int8` or `fp32`",
    "threads": "ONNX runtime threads",
    "batch_size": "texts encoded a batch",
    "cluster_rel": "relationship type from an entity to its cluster",
    "cluster_vector_index": "the clusters' vector index",
    "cluster_max_levels": "levels of the cluster hierarchy",
    "cluster_min_size": "smallest cluster kept",
    "mix_graph_weight": "mix: weight of the graph score",
    "mix_inheritance": "mix: share of the related graph results' mean score a vector result inherits",
    "api_max_seed_n": "largest `seed_n` (HTTP) / `--seed-n` (CLI)",
}

#: Variables read outside `Settings` (one row each after the fields).
OTHER_VARIABLES: tuple[tuple[str, str, str], ...] = (
    ("NEO4J_USERNAME", "unset", "another name of `NEO4J_USER`"),
    (
        "PATHRAG_SETTINGS_FILE",
        "unset",
        "the settings file to read (`.env` syntax, or TOML by its `.toml` suffix)",
    ),
    ("PATHRAG_METAQA_DIR", "`../shared/data/metaqa`", "the MetaQA files of `load metaqa` and `eval metaqa`"),
    (
        "PATHRAG_TEST_BACKEND",
        "`local`",
        "tests only: `docker` runs them against a throw-away Neo4j container",
    ),
    ("PATHRAG_WHEEL_RUN", "`demo`", "scripts/check_wheel.sh only: `query` only asks (a server others share)"),
)


def field_comments(cls: type[BaseModel]) -> dict[str, str]:
    """The `#:` comment lines above each field of a class (or on its line), joined."""
    source = textwrap.dedent(inspect.getsource(cls))
    lines = source.splitlines()
    out: dict[str, str] = {}
    for node in ast.parse(source).body[0].body:  # type: ignore[attr-defined]
        if not (isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name)):
            continue
        text: list[str] = []
        row = node.lineno - 2
        while row >= 0 and lines[row].strip().startswith("#:"):
            text.insert(0, lines[row].strip()[2:].strip())
            row -= 1
        inline = lines[node.lineno - 1].partition("#:")[2].strip()
        out[node.target.id] = " ".join([*text, inline]).strip()
    return out


def _default(value: Any) -> str:
    if isinstance(value, Path):
        try:
            return (
                f"`<home>/{value.relative_to(HOME_DIR)}`"
                if value != HOME_DIR
                else "the checkout, else the per-user data folder"
            )
        except ValueError:
            return f"`{value}`"
    if isinstance(value, str) and value.startswith(str(HOME_DIR)):
        return f"`<home>{value[len(str(HOME_DIR)) :]}`"
    if value is None:
        return "unset"
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, tuple):
        return "the table in docs/modes.md"
    return str(getattr(value, "value", value))


def settings_table() -> str:
    """The Markdown table: one row per variable."""
    rows = ["| Variable | TOML key | Default | Meaning |", "|---|---|---|---|"]
    for group in GROUPS:
        comments = field_comments(group)
        title = (group.__doc__ or group.__name__).strip().splitlines()[0]
        rows.append(f"| **{group.__name__}** | | | {title} |")
        for name, info in group.model_fields.items():
            if info.default is not PydanticUndefined:
                default = _default(info.default)
            else:
                default = "number of CPU cores, at most 4" if name == "threads" else "computed"
            meaning = comments.get(name) or MEANINGS.get(name) or info.description or ""
            rows.append(f"| `{variable_of(name)}` | `{name}` | {default} | {meaning.replace('|', '/')} |")
    rows.append("| **Other variables** | | | read outside the settings |")
    for var, default, meaning in OTHER_VARIABLES:
        rows.append(f"| `{var}` | | {default} | {meaning} |")
    return "\n".join(rows) + "\n"


INTRO = """# Settings

Every setting is an environment variable, and may also be written in a settings file:

- **`.env`** in the current folder: `PATHRAG_TOP_N=10`, `NEO4J_URI=bolt://db:7687`, one a line, as
  in the environment (`#` comments, quotes and `export` allowed). Variables other than `NEO4J_*`
  and `PATHRAG_*` are left alone.
- **`pathrag.toml`** in the current folder: the same settings by their TOML key (the field name:
  `top_n = 10`, `neo4j_uri = "bolt://db:7687"`, `chain_planning = false`) or by variable name, at the
  top level. A key that is no setting is refused, naming the file.
- **`PATHRAG_SETTINGS_FILE=/path/to/file`** names one file instead (TOML when it ends in `.toml`,
  else `.env` syntax); the current folder's files are then not read.

The environment wins over a file, and `.env` over `pathrag.toml`; a value of the wrong kind stops
the command with the variable's name. `PATHRAG_HTTP_PORT=0` turns the local server's HTTP off;
`PATHRAG_BOLT_PORT` moves its Bolt port (and the default `NEO4J_URI` with it).

This page is written by `python scripts/settings_doc.py` from the settings classes
(`pathrag_gds/config.py`, `mode_settings.py`, `api_settings.py`, `answer_settings.py`); a test
checks it lists every variable.

"""


def settings_page() -> str:
    """docs/settings.md: how settings are read, then the table."""
    return INTRO + settings_table()
