"""What a chain scorer's `tune` asks for (`ChainTuneOptions`) and what it reports (`ChainTuneResult`).

Example:
    >>> ChainTuneOptions(community="metaqa").seeds, ChainTuneOptions(community="metaqa").jobs
    (3, 0)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pathrag_gds.ontology import Ontology
from pathrag_gds.search.schema import TypedChain
from pathrag_gds.training.tune_options import BASE_SHARE, MINED_SHARE, SYNONYM_SHARE


@dataclass
class ChainTuneOptions:
    """What `python -m pathrag_gds tune --community ID` asks of the chain scorer."""

    community: str
    questions: int = 4000
    #: Training steps of each model (0: `epochs` passes over the rows); `minutes` is a cap.
    steps: int = 100
    minutes: float = 12.0
    epochs: float = 2.0
    seed: int = 0
    max_depth: int = 3
    negatives: int = 4
    batch_size: int = 16
    hub_cap: int = 25
    #: Share of 2+ hop walks from an event asked with the event as the occasion ("Where does Bob
    #: hide during the kitchen clean-up?"): rows whose chain starts at the second entity.
    anchored_share: float = 0.3
    threads: int = 2
    #: Dual encoders trained, each on its own walks (seeds `seed`, `seed + 1`, ...). One build is
    #: one draw: single builds that differ only in their seed differ by up to 7 points on 3-hop
    #: MetaQA; three averaged are steadier and at least as good (docs/chains.md).
    seeds: int = 3
    #: With `seeds` > 1: average the models' weights into one (:mod:`.chain_soup`); False: an
    #: ensemble the search scores with the mean of their cosines (a question encoded per model).
    #: Each model of a soup has the whole `minutes` cap: the step budget decides, and a soup of runs
    #: cut short would be one cut short; an ensemble splits it.
    soup: bool = True
    #: Weight of the untrained encoder in the soup (`--base-share`; :mod:`.chain_soup`): keeps
    #: the language the base model knew that the generated phrasing does not hold. 0: the runs alone.
    base_share: float = BASE_SHARE
    #: Share of the generated questions' relation phrases said with a WordNet synonym of the sense
    #: nearest the relation's description (`--synonym-share`; :mod:`.synonyms`). 0: the ontology's.
    synonym_share: float = SYNONYM_SHARE
    #: Share of the generated questions' relation phrases said as the graph's descriptions say them
    #: (`--mined-share`; :mod:`.mined_phrases`). 0: the ontology's.
    mined_share: float = MINED_SHARE
    #: The chain pool's depth (:mod:`pathrag_gds.training.chain_pool`; 0, the default: none, plan
    #: the schema to `max_depth`). Built only for graphs up to `POOL_MAX_RELATIONSHIPS` relationships.
    pool_depth: int = 0
    #: Runs trained at once, each in a worker process with one torch thread (:mod:`.parallel_runs`;
    #: 0: one per core, at most `seeds`; 1: one after another in this process, with `threads`).
    jobs: int = 0
    out: Path | None = None


@dataclass
class ChainTuneResult:
    """Counts, timings and where the model went."""

    model_dir: Path
    questions: int
    rows: int
    timings_s: dict[str, float] = field(default_factory=dict)
    training: dict[str, Any] = field(default_factory=dict)
    manifest: dict[str, Any] = field(default_factory=dict)
    #: (masked question, gold chain, intent type scores) of the held-out questions, and the
    #: ontology: what the question terms are fitted on (again, for an ensemble's mean scores)
    held_out: list[tuple[str, TypedChain, Mapping[str, float]]] = field(default_factory=list, repr=False)
    ontology: Ontology | None = field(default=None, repr=False)
