"""Settings: one home for every knob, from the environment (`NEO4J_*`, `PATHRAG_*`) over a file.

The file: `.env` or TOML (`pathrag_gds.settings_files`); every variable: docs/settings.md.

Grouped by what they set: the connection, the local server, the graph's names, documents, the
search, the models, the retrieval modes and the HTTP API (one base class each); :class:`Settings`
holds them all, flat, so every field is `settings.<name>` and its variable `PATHRAG_<NAME>`.

Defaults follow the "Current Values" table of the PathRAG service specification.

Example:
    >>> s = Settings.from_env({"PATHRAG_TOP_N": "3"})
    >>> s.top_n
    3
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator
from pydantic_core import PydanticCustomError

from pathrag_gds.answer_settings import AnswerModelSettings as AnswerModelSettings  # re-exported
from pathrag_gds.api_settings import ApiSettings as ApiSettings  # re-exported
from pathrag_gds.errors import ConfigError
from pathrag_gds.locations import CYPHER_DIR as CYPHER_DIR  # re-exported
from pathrag_gds.locations import HOME_DIR, IS_CHECKOUT, user_data_dir
from pathrag_gds.locations import PACKAGE_DIR as PACKAGE_DIR  # re-exported
from pathrag_gds.locations import ROOT_DIR as ROOT_DIR  # re-exported
from pathrag_gds.mode_settings import DEFAULT_GRAPH_RULES as DEFAULT_GRAPH_RULES  # re-exported
from pathrag_gds.mode_settings import GraphRule as GraphRule  # re-exported
from pathrag_gds.mode_settings import ModeSettings
from pathrag_gds.scoring_mode import ScoringMode as ScoringMode  # re-exported: Settings.mode
from pathrag_gds.settings_files import CONNECTION_VARS, layered_env, variable_of


def _metaqa_dir() -> Path:
    """MetaQA data: `PATHRAG_METAQA_DIR`, else `shared/data/metaqa` beside the repository."""
    env = os.environ.get("PATHRAG_METAQA_DIR")
    if env:
        return Path(env)
    for base in (ROOT_DIR.parent / "shared", Path("/work/shared")):
        if (base / "data" / "metaqa").is_dir():
            return base / "data" / "metaqa"
    return ROOT_DIR.parent / "shared" / "data" / "metaqa"


#: Where the MetaQA benchmark files live (kb.txt, {1,2,3}-hop/qa_dev*.txt).
METAQA_DIR = _metaqa_dir()


#: The Neo4j driver's Bolt URI schemes (`neo4j`: routing; `+s`: TLS, `+ssc`: TLS, self-signed).
NEO4J_SCHEMES = ("bolt", "bolt+s", "bolt+ssc", "neo4j", "neo4j+s", "neo4j+ssc")


def neo4j_uri_problem(uri: str) -> str | None:
    """What is wrong with a Neo4j URI; None when its scheme is one of :data:`NEO4J_SCHEMES`."""
    scheme = uri.split("://", 1)[0].lower() if "://" in uri else ""
    if scheme in NEO4J_SCHEMES:
        return None
    port = " and Bolt's port (7687 by default), not HTTP's 7474" if scheme in ("http", "https") else ""
    return (
        f"{uri!r} is not a Bolt URI: use bolt://, neo4j:// or their TLS variants bolt+s://, bolt+ssc://, "
        f"neo4j+s://, neo4j+ssc:// (e.g. bolt://127.0.0.1:7687){port}"
    )


class ConnectionSettings(BaseModel):
    """The Neo4j server to talk to (`NEO4J_URI`, `NEO4J_USER`, `NEO4J_PASSWORD`, `NEO4J_DATABASE`)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    neo4j_uri: str = "bolt://127.0.0.1:7687"
    neo4j_user: str = "neo4j"
    neo4j_password: str | None = None
    neo4j_database: str = "neo4j"
    #: True when NEO4J_URI came from the environment (a user's own server): never start a local one.
    external_db: bool = False
    #: Seconds the Neo4j driver retries a transaction on transient errors (its own default: 30).
    neo4j_retry_s: float = Field(30.0, ge=0, le=3600)

    @field_validator("neo4j_uri")
    @classmethod
    def _check_uri(cls, v: str) -> str:
        problem = neo4j_uri_problem(v)
        if problem is not None:  # the driver would fail deep inside (http:// wants aiohttp)
            raise PydanticCustomError("neo4j_uri", "{problem}", {"problem": problem})
        return v


class LocalServerSettings(BaseModel):
    """The local Neo4j that `python -m pathrag_gds db start` runs, and the home of what a user makes."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    #: The checkout, or (installed from a wheel) the per-user data folder (`pathrag_gds.locations`).
    home: Path = HOME_DIR
    neo4j_home: Path = HOME_DIR / ".neo4j"
    bolt_port: int = 7687
    http_port: int = 7474
    #: JVM heap of the local server (-Xms = -Xmx). GDS projections and the beam's per-depth lists live on
    #: the heap; 4g leaves most of a 24 GiB machine to the OS file cache (Lucene vector index), Python/ONNX
    #: and test servers.
    heap: str = "4g"
    #: Page cache of the local server: the node/relationship/property stores, embeddings included (384
    #: floats = 1.5 KB an entity: 2g holds ~1M entities); the vector index itself lives in the OS file cache.
    pagecache: str = "2g"
    #: Seconds `db start` waits for Bolt to answer `RETURN 1`.
    neo4j_start_timeout: float = Field(180.0, gt=0)
    #: Seconds `db stop` waits after SIGTERM before it sends SIGKILL.
    neo4j_stop_timeout: float = Field(60.0, gt=0)

    @field_validator("heap", "pagecache")
    @classmethod
    def _check_memory(cls, v: str) -> str:
        if not re.fullmatch(r"[1-9][0-9]*[kmgKMG]", v):
            raise ValueError("must be a size like '512m' or '4g'")
        return v.lower()


class GraphModelSettings(BaseModel):
    """Label, property and index names of the graph (so an existing graph can be used as it is)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    entity_label: str = "Entity"
    id_property: str = "id"
    name_property: str = "name"
    description_property: str = "description"
    embedding_property: str = "embedding"
    community_label: str = "Community"
    community_rel: str = "AGGREGATES"
    #: from an adopted entity to the user's node it stands for (`adopt`, docs/graph-model.md)
    adopts_rel: str = "ADOPTS"
    vector_index: str = "pathrag_entity_embedding"
    #: entity property holding other names the entity goes by (a string or a list), matched in chunks
    aliases_property: str = "aliases"
    #: seconds without a write after which a load that has not completed counts as interrupted
    #: (`info`, `/v1/info`, and the next load of other data, which may then discard it)
    load_stale_s: float = Field(60.0, gt=0, le=86400)


class DocumentSettings(BaseModel):
    """Document provenance (docs/provenance.md): label and relationship type names, chunking."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    document_label: str = "Document"
    section_label: str = "Section"
    chunk_label: str = "Chunk"
    has_child_rel: str = "HAS_CHILD"
    has_part_rel: str = "HAS_PART"
    next_chunk_rel: str = "NEXT_CHUNK"
    mentioned_in_rel: str = "MENTIONED_IN"
    chunk_vector_index: str = "pathrag_chunk_embedding"
    #: token budget of a chunk (the embedding model's tokens) and the tokens two neighbours may share
    chunk_tokens: int = Field(200, ge=16, le=4096)
    chunk_overlap: int = Field(24, ge=0, le=1024)
    #: Seed the search from the chunk vector index too: entities mentioned by the question's nearest
    #: chunks join the entity seeds (at most this many more; 0: entity seeds only, the default).
    chunk_seed_n: int = Field(0, ge=0, le=500)
    #: Source passages a path cites per entity on it, ranked by how well they support the path for
    #: the question (`support.rank_passages`); twice as many per entity are read to rank from.
    sources_per_entity: int = Field(2, ge=1, le=20)


class SearchSettings(BaseModel):
    """The search: seeds, beam, depth, scoring mode and terms, chain planning (spec defaults)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    top_n: int = Field(5, ge=1, le=100)
    seed_n: int = Field(30, ge=1, le=500)
    max_depth: int = Field(6, ge=0, le=10)
    min_depth: int = Field(1, ge=0, le=10)
    beam_width: int = Field(30, ge=1, le=1000)
    expand_per_path: int = Field(20, ge=1, le=1000)
    local_keep_m: int = Field(2, ge=1, le=100)
    cap_per_relation: int = Field(50, ge=1, le=100000)
    no_revisit: bool = True
    #: The beam keeps both walk directions of one path (`A -> B` grows from B, `B <- A` from A);
    #: False: one per canonical key, as the specification's pseudocode (docs/benchmarks.md).
    beam_by_frontier: bool = True
    #: In the top-N, a detour past an answer (out and back along one relationship type to a sibling,
    #: showing the scores nothing new) ranks just below that answer (`beam.detour_caps`).
    demote_detours: bool = True
    #: The top-N holds distinct evidence: a path and its own extension or prefix (a 0-hop seed on
    #: it) count once unless it adds an answer no higher path has, or an entity the question names
    #: (`beam.distinct_top`); false: the best N paths by score, as before.
    distinct_evidence: bool = True
    min_score: float = 0.10
    mode: ScoringMode = ScoringMode.OPTION_D
    weight_rerank: float = 1.0
    weight_depth_penalty: float = 0.2  #: used by A3 only
    #: Step 6 terms added to the mode score (each term in [0, 1]; 0 turns it off). Calibrated with
    #: scripts/calibrate_weights.py on the Bob suite and MetaQA dev (docs/calibration.md): type and
    #: relation prior earn their place; coverage and length changed no Hits@1 there, so they are off.
    weight_type: float = Field(0.2, ge=0.0, le=10.0)
    weight_relation_prior: float = Field(0.1, ge=0.0, le=10.0)
    weight_coverage: float = Field(0.0, ge=0.0, le=10.0)
    weight_length: float = Field(0.0, ge=0.0, le=10.0)
    #: share of the entities the question describes in other words (`Kitchen clean-up` for "when
    #: the kitchen was cleaned up") on the path; measured on the Bob suite (docs/benchmarks.md).
    weight_described: float = Field(0.1, ge=0.0, le=10.0)
    #: share of the question's own words (outside the entities it names) the path's relations or
    #: its best un-named entity hold (`scoring_terms.s_lexical`); measured on the story graphs,
    #: people and MetaQA (docs/benchmarks.md).
    weight_lexical: float = Field(0.3, ge=0.0, le=10.0)
    #: Plan the walk over relation chains where the community has a chain model
    #: (`models/tuned-<community>/chain/`, made by `tune`): paths from the question's topic entities
    #: walk only the planned chains' next steps, and a path's chain probability is added to its score.
    chain_planning: bool = True
    #: Which chain scorer plans: `auto` (the community's tuned model, else the chain reader trained
    #: on other graphs' questions, `models/chain-reader/`, else none: path text alone), `tuned`
    #: (tuned models only; a community without one is walked by path text alone), `reader` (the
    #: chain reader always) or `base` (the untrained sentence encoder always: `base_chains.py`).
    chain_scorer: Literal["auto", "tuned", "reader", "base"] = "auto"
    #: The untrained encoder's softmax temperature and answer-type weight (`base_chains.py`).
    chain_base_temperature: float = Field(0.05, gt=0.0, le=1.0)
    chain_base_type_weight: float = Field(0.05, ge=0.0, le=10.0)
    #: Weight of a path's chain probability (in [0, 1]) in its score, beside the path-text score.
    weight_chain: float = Field(1.0, ge=0.0, le=10.0)
    #: Chains kept per depth by the planner's beam over the schema, and chains walked in the end.
    chain_beam: int = Field(16, ge=1, le=10000)
    chain_keep: int = Field(5, ge=1, le=100)
    #: Chain texts a plan holds in all, the kept ones first: a kept chain the walk finds no step
    #: for from the topic is replaced, depth by depth, by the most probable held chain the graph
    #: has (`ChainPlan.held`; `chain_keep` or less: the kept chains alone).
    chain_reserve: int = Field(50, ge=1, le=1000)
    #: A topic's plan is followed only when its best chain holds at least this probability; below
    #: it the chain scorer cannot tell what the question asks from that topic, and the path-text
    #: scorer walks from it as from any seed (0: every plan is followed).
    chain_min_best: float = Field(0.2, ge=0.0, le=1.0)
    #: A followed plan whose best chain holds less than this is unsure: the seeds the question
    #: does not name are walked beside it, so the path-text search can still overrule the guess
    #: (0: never; `walk_unplanned_seeds` walks them beside every plan). Such plans are right about
    #: 3 times in 5 on MetaQA and the people graph (docs/chains.md).
    chain_sure_best: float = Field(0.3, ge=0.0, le=1.0)
    #: A planned path that walked a whole kept chain to an entity that says it is another kind
    #: than the question's noun asks (`place_type: cottage` for "which village") takes one more
    #: step along any relation, at its chain's probability (`Ranker.steps_past`).
    chain_kind_step: bool = True
    #: Weight of a chain's first hop read against the words around the topic, beside the whole
    #: question against the chain (`planner.score_chains`, `search/near.py`): 1 as `tune` fitted
    #: it, 0 off. Models trained before the fit have no near term (docs/chains.md).
    chain_near_weight: float = Field(1.0, ge=0.0, le=10.0)
    #: Scale of the answer-type term: the intent's score of the type a chain ends at ("in what
    #: country ...": a chain ending at a Country), weighted as `tune` fitted it (1), 0 off.
    chain_type_weight: float = Field(1.0, ge=0.0, le=10.0)
    #: Scale of the relational-noun term: a chain starting with the chain a word of the question
    #: names ("X's grandchildren": two `parent_of` hops), weighted as `tune` fitted it (1), 0 off.
    chain_noun_weight: float = Field(1.0, ge=0.0, le=10.0)
    #: Scale of the answer-end term: a chain's last hop read against the words around the
    #: question word ("who ACTED IN the films ..."), weighted as `tune` fitted it (1), 0 off.
    chain_far_weight: float = Field(1.0, ge=0.0, le=10.0)
    #: Weight of the link-type term: a chain that passes the types the nouns of a possessive, `of`
    #: or relative-clause chain from the topic name, in their order ("X's cat's vet": an animal,
    #: then a person), 0 off.
    chain_link_weight: float = Field(0.05, ge=0.0, le=1.0)
    #: With a chain plan for a seed the question names, also walk from the other (vector) seeds.
    #: Off: they stay 0-hop candidates. Walking them cost 5-10x the time and no Hits@1 on MetaQA,
    #: and 2 of 57 people 1-hop questions (`--link vector`; docs/chains.md).
    walk_unplanned_seeds: bool = False
    #: Planned paths (best by chain score) that the path-text model scores once the walk is over;
    #: the other planned paths leave the results. 0: the chain score and Step 6 terms alone rank them.
    chain_rerank: int = Field(10, ge=0, le=1000)
    #: Narrow the relation whitelist per intent and depth (relations that can still reach an expected type).
    #: Off: it changed no Hits@1 on the Bob suite or MetaQA dev (docs/benchmarks.md).
    intent_whitelist: bool = False
    #: A search confined to a community (`community_id`) walks only to entities that community
    #: aggregates. True: it may walk on to entities of other communities (graphs whose communities
    #: link to each other on purpose); seeds still come from the community.
    cross_community: bool = False

    #: token budget of a serialized path (the chain summary always stays whole). all-MiniLM-L6-v2 was
    #: trained on 128 tokens; encoding time grows linearly with it (see docs/benchmarks.md).
    path_text_tokens: int = Field(128, ge=16, le=512)


class ModelSettings(BaseModel):
    """The models: embedder, bi-encoder pooling, the tuned cross-encoder cascade, ONNX runtime."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    #: The folder of the ONNX models and of those `tune` trains (`models/` of the checkout, else of the
    #: per-user data folder; `PATHRAG_HOME/models` when set). Models are read from it first, then from
    #: those an installed wheel ships (`locations.find_model`).
    models_dir: Path = HOME_DIR / "models"
    embedding_model: str = "all-MiniLM-L6-v2"
    #: How the bi-encoder reads a path text: `sentences` embeds each distinct sentence once (cached
    #: across paths and queries) and scores a text by its best sentence cosine; `full` embeds the
    #: whole text (7x slower cold, 18x over a run). See docs/benchmarks.md (sentence-pooled scorer).
    bi_encoder_pooling: Literal["sentences", "full"] = "sentences"
    #: sentence pooling: score = (1 - w) x best sentence cosine + w x mean sentence cosine
    pooled_mean_weight: float = Field(0.0, ge=0.0, le=1.0)
    #: Cascade scoring where a community has a tuned cross-encoder (`tune --model paths`): per depth
    #: batch, the cross-encoder re-scores the bi-encoder's best `cascade_k` paths. Opt-in (0: the
    #: bi-encoder alone): on the demo graph, the only one shipping such a model, K=30 gives the same
    #: Bob hits as the bi-encoder at ~10x the time a question (docs/benchmarks.md, Bob suite).
    cascade_k: int = Field(0, ge=0, le=10000)
    #: Weight of the cross-encoder in the cascade's top-K scores (the rest: the bi-encoder cosine).
    #: Low, so the bi-encoder's order stands where its type, relation and detour terms decide, while
    #: the cross-encoder still lifts MetaQA above the bi-encoder alone (docs/tuning.md).
    cascade_alpha: float = Field(0.1, ge=0.0, le=1.0)
    #: Cross-encoder scores under this count as equal (the bi-encoder orders them): training labels
    #: every wrong path 0, so the model's order among the paths it rejects carries no signal.
    cascade_floor: float = Field(0.05, ge=0.0, lt=1.0)
    #: Where sentence embeddings are kept across processes (one SQLite file per model,
    #: `backend/vector_store.py`): a new process (each CLI `query`) reads the sentences earlier ones
    #: embedded instead of embedding them again. `off`: no store.
    vector_store_dir: str = str(HOME_DIR / ".cache" / "vectors")
    quantization: str = "int8"
    threads: int = Field(default_factory=lambda: min(os.cpu_count() or 1, 4), ge=1, le=256)
    batch_size: int = Field(64, ge=1, le=4096)

    @field_validator("quantization")
    @classmethod
    def _check_quant(cls, v: str) -> str:
        if v not in {"int8", "fp32"}:
            raise ValueError("must be 'int8' or 'fp32'")
        return v


class Settings(
    ConnectionSettings,
    LocalServerSettings,
    GraphModelSettings,
    DocumentSettings,
    SearchSettings,
    ModelSettings,
    ModeSettings,
    ApiSettings,
    AnswerModelSettings,
):
    """All settings of pathrag_gds, one group a base class. Build with :meth:`from_env`."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None, **overrides: Any) -> Settings:
        """Read settings from environment variables over the settings files, then apply overrides.

        `NEO4J_URI`, `NEO4J_USER`, `NEO4J_PASSWORD`, `NEO4J_DATABASE` set the connection; every other
        field is `PATHRAG_<FIELD NAME IN UPPER CASE>` (e.g. `PATHRAG_TOP_N=10`). Files: a `.env` or
        TOML file (`pathrag_gds.settings_files`; docs/settings.md); the environment wins over them.

        Raises:
            ConfigError: a variable holds a value of the wrong kind; the message names it.
        """
        env = layered_env(env, cls.model_fields)
        values: dict[str, Any] = {}
        for var, field in CONNECTION_VARS.items():
            if env.get(var):
                values[field] = env[var]
        if env.get("NEO4J_URI"):
            values["external_db"] = True
        for field in cls.model_fields:
            var = f"PATHRAG_{field.upper()}"
            if var in env and env[var] != "":
                values[field] = env[var]
        if "home" not in values and not IS_CHECKOUT:
            values["home"] = user_data_dir(env)  # installed: what a user makes goes to the data folder
        if "home" in values:
            home = Path(values["home"])
            values.setdefault("neo4j_home", home / ".neo4j")
            values.setdefault("models_dir", home / "models")
            values.setdefault("vector_store_dir", str(home / ".cache" / "vectors"))
        values.update(overrides)
        try:
            settings = cls(**values)
        except ValidationError as exc:
            first = exc.errors()[0]
            field = str(first["loc"][0]) if first["loc"] else "?"
            var = variable_of(field)
            msg = (
                f"invalid setting {var}: {first['msg']}. Fix the variable (or the settings file) or unset it."
            )
            raise ConfigError(msg) from exc
        if "neo4j_uri" not in values and "bolt_port" in values:
            settings = settings.model_copy(update={"neo4j_uri": f"bolt://127.0.0.1:{settings.bolt_port}"})
        return settings

    def walk_community(self, community_id: str | None) -> str | None:
        """The community the search's expansion stays in: `community_id`, or None when `cross_community`."""
        return None if self.cross_community else community_id

    def resolved_password(self) -> str | None:
        """The password to connect with: `NEO4J_PASSWORD`, else the local server's generated one."""
        if self.neo4j_password:
            return self.neo4j_password
        if not self.external_db:
            pw_file = self.neo4j_home / "password"
            if pw_file.is_file():
                return pw_file.read_text(encoding="utf-8").strip()
        return None


_settings: Settings | None = None


def get_settings() -> Settings:
    """The process-wide settings, read from the environment once."""
    global _settings
    if _settings is None:
        _settings = Settings.from_env()
    return _settings


def reset_settings() -> None:
    """Forget cached settings (tests change the environment)."""
    global _settings
    _settings = None
