"""What the database and the models hold, community by community (`python -m pathrag_gds info`).

For each community: its ontology, entities (and how many are embedded, which the search needs),
relationships between its entities, type labels with their counts, chunks (all of them as readers
see them: not what a load that has not completed wrote), its versions (the last complete load, and
one that has not completed), and the models it has:
the chain model (`tuned-<community>/chain/`) and the path cross-encoder (`tuned-<community>/`),
each with when it was built (its manifest's `finished`) and whether it is the user's own or one the
installed wheel ships.

Example:
    >>> built_at({"kind": "cross-encoder", "training": {"finished": "2026-11-30T15:07:42Z"}})
    '2026-11-30T15:07:42Z'
    >>> built_at({"kind": "chain-scorer", "chain": {}}) is None
    True
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from pathrag_gds.config import Settings
from pathrag_gds.graph import Graph
from pathrag_gds.locations import PACKAGED_MODELS_DIR


@dataclass(frozen=True)
class ModelInfo:
    """A community's model on disk: its folder, when it was built, whether the wheel ships it."""

    folder: str
    built: str | None
    shipped: bool


@dataclass
class CommunityInfo:
    """One community: its size, its type labels and its models."""

    id: str
    ontology_id: str | None
    entities: int
    embedded: int
    relationships: int
    chunks: int
    labels: dict[str, int] = field(default_factory=dict)
    relationship_types: dict[str, int] = field(default_factory=dict)
    chain_model: ModelInfo | None = None
    path_model: ModelInfo | None = None
    #: its versions (`LoadState.summary`): `state` (ready, loading, interrupted), `complete`,
    #: `version`, `loaded_at`, `open_load` (the load that has not completed, or None)
    load: dict[str, Any] = field(default_factory=dict)

    @property
    def indexed(self) -> bool:
        """True when every entity is embedded (the search seeds from the embeddings)."""
        return self.entities > 0 and self.embedded == self.entities

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready fields, `indexed` included."""
        return {**asdict(self), "indexed": self.indexed}


def built_at(manifest: dict[str, Any]) -> str | None:
    """When a model was built, from its manifest (`training.finished`, or `chain.finished`)."""
    for section in ("chain", "training"):
        part = manifest.get(section)
        if isinstance(part, dict) and isinstance(part.get("finished"), str):
            return str(part["finished"])
    return None


def model_info(folder: Path) -> ModelInfo | None:
    """The model in `folder` (None when it holds no `manifest.json`)."""
    path = folder / "manifest.json"
    if not path.is_file():
        return None
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        manifest = {}
    shipped = folder.resolve().is_relative_to(PACKAGED_MODELS_DIR.resolve())
    return ModelInfo(str(folder), built_at(manifest if isinstance(manifest, dict) else {}), shipped)


def community_ids(graph: Graph) -> list[str]:
    """Every community's id, sorted."""
    return [str(r["id"]) for r in graph.read("community_ids")]


def describe(graph: Graph, settings: Settings, community_id: str) -> CommunityInfo | None:
    """One community's sizes (what readers see), versions and models (None: no such community)."""
    from pathrag_gds.chain_model import chain_model_dir
    from pathrag_gds.datasets.loader import community_counts
    from pathrag_gds.datasets.staging import read_state
    from pathrag_gds.scoring import tuned_model_dir

    counts = community_counts(graph, community_id)
    state = read_state(graph, community_id)
    if counts is None or state is None:
        return None
    types = {str(k): int(v) for k, v in (counts.get("relationships") or {}).items()}
    return CommunityInfo(
        id=community_id,
        ontology_id=counts.get("ontology_id"),
        entities=int(counts["entities"]),
        embedded=int(counts["embedded"]),
        relationships=sum(types.values()),
        chunks=int(counts.get("chunks") or 0),
        labels=dict(sorted(((str(k), int(v)) for k, v in (counts.get("labels") or {}).items()))),
        relationship_types=dict(sorted(types.items())),
        chain_model=model_info(chain_model_dir(settings, community_id)),
        path_model=model_info(tuned_model_dir(settings, community_id)),
        load=state.summary(settings.load_stale_s),
    )


def inventory(graph: Graph, settings: Settings, community_id: str | None = None) -> list[CommunityInfo]:
    """Every community (or the one named), described; an unknown name gives an empty list."""
    ids = [community_id] if community_id is not None else community_ids(graph)
    found = (describe(graph, settings, cid) for cid in ids)
    return [c for c in found if c is not None]
