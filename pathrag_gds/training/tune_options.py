"""What a `tune` asks for (`TuneOptions`), what it reports (`TuneResult`), and its progress callback."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from pathrag_gds.training.pairs import PREFIX_LABEL

#: The chain scorer's default share of the untrained encoder in its soup (`tune --base-share`).
BASE_SHARE = 0.0
#: The default share of generated relation phrases said with a synonym (`tune --synonym-share`).
SYNONYM_SHARE = 0.0
#: The default share of generated relation phrases said as the graph's texts say them (`--mined-share`).
MINED_SHARE = 0.0


@dataclass
class TuneOptions:
    """What `python -m pathrag_gds tune` asks for."""

    community: str
    pairs: int = 3000
    epochs: float = 1.0
    minutes: float | None = None
    seed: int = 0
    max_depth: int = 3
    batch_size: int = 32
    max_length: int = 192
    near: int = 4
    hub_cap: int = 25
    cut_short_label: float = PREFIX_LABEL
    freeze_layers: int = 0
    threads: int = 1
    out: Path | None = None
    export: bool = True
    #: models trained (seeds `seed`, `seed + 1`, ...) and averaged at query time; `minutes` is split
    seeds: int = 1
    #: start from this cross-encoder checkpoint (a `checkpoint/` folder kept by another tune) instead
    #: of all-MiniLM-L6-v2: what it learnt on one graph carries over to the next
    base: Path | None = None
    #: also keep the trained Hugging Face checkpoint in `<model>/checkpoint/` (a `base` for later tunes)
    keep_checkpoint: bool = False

    def recorded(self) -> dict[str, Any]:
        """The options as the manifest records them (`training.options`): all but where to write.

        `TuneOptions(**recorded)` asks for the same tune again.

        Example:
            >>> TuneOptions(community="demo", pairs=600).recorded()["pairs"]
            600
        """
        out = as_json(self)
        for where in ("out", "export"):
            out.pop(where)
        return out


def as_json(options: Any) -> dict[str, Any]:
    """A dataclass's fields as a manifest stores them (paths as strings)."""
    return {k: (str(v) if isinstance(v, Path) else v) for k, v in asdict(options).items()}


@dataclass
class TuneResult:
    """Counts, timings and where the model went."""

    model_dir: Path | None
    questions: int
    pairs: int
    data_hash: str
    kinds: dict[str, int]
    timings_s: dict[str, float] = field(default_factory=dict)
    training: dict[str, Any] = field(default_factory=dict)
    manifest: dict[str, Any] = field(default_factory=dict)
    #: the other seeds' results of an ensemble (`TuneOptions.seeds` > 1)
    members: list[TuneResult] = field(default_factory=list)


Progress = Callable[[str, int, int, str], None]
