"""A reproducible generated graph for scale runs: people, companies, places, products and skills.

Nine entity types and fifteen relationship types (:data:`ONTOLOGY`). The relationships of a
graph of `size` relationships are split over the types by share; the targets of most types are
drawn from a Zipf-like law, so a few skills, industries, cities and people collect a large share of
the edges (at 5 million relationships the largest skill has 93,768 neighbours), and five
types are functional (every city lies in one country, every company has one headquarters, ...).
Everything comes from one `numpy.random.Generator(seed)`: the same size and seed give the same
graph, byte for byte. Entity names are unique across the graph (names are built from the entity's
index), and every entity has a short description.

The graph is held as arrays (:class:`SyntheticGraph`); :func:`to_dataset` turns it into the
:class:`~pathrag_gds.datasets.loader.Dataset` the batched loader writes, and
:mod:`pathrag_gds.datasets.bulk` writes it as CSV files for `neo4j-admin database import`.

Example:
    >>> g = generate(10_000, seed=1)
    >>> g.relationship_count, len(ONTOLOGY.entity_types), len(ONTOLOGY.relation_types)
    (10000, 9, 15)
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

import numpy as np

from pathrag_gds.datasets.ontology_files import DATA_DIR, read_ontology
from pathrag_gds.datasets.rows import Dataset, EntityRow, RelationRow, entity_id
from pathrag_gds.datasets.synthetic_names import entity_description, entity_name
from pathrag_gds.ontology import Ontology

#: The generated graph's ontology (bundled, so `load triples --ontology` can read it as it is).
SCALE_ONTOLOGY = DATA_DIR / "scale_ontology.yaml"
ONTOLOGY: Ontology = read_ontology(SCALE_ONTOLOGY)

#: Entities per relationship of the graph, by type, and the (floor, ceiling) of each count.
ENTITY_SHARE: dict[str, tuple[float, int, int]] = {
    "Person": (0.12, 50, 10**9),
    "Company": (0.01, 20, 10**9),
    "City": (0.004, 20, 10**9),
    "Country": (0.0002, 10, 250),
    "Product": (0.02, 20, 10**9),
    "Project": (0.01, 20, 10**9),
    "Skill": (0.0008, 20, 4000),
    "Event": (0.004, 10, 10**9),
    "Industry": (0.0004, 10, 40),
}


@dataclass(frozen=True)
class RelationSpec:
    """How one relationship type is drawn: its share of the graph (or one per source), Zipf exponents."""

    type: str
    share: float  #: of the non-functional relationships (ignored when `functional`)
    source_skew: float = 0.5  #: Zipf exponent of the sources (0: uniform)
    target_skew: float = 1.0  #: Zipf exponent of the targets (0: uniform)
    functional: bool = False  #: exactly one relationship per source entity


RELATIONS: tuple[RelationSpec, ...] = (
    RelationSpec("knows", 0.24, 0.6, 0.8),
    RelationSpec("manages", 0.04, 0.0, 0.3),
    RelationSpec("works_for", 0.12, 0.3, 1.0),
    RelationSpec("lives_in", 0.09, 0.0, 1.0),
    RelationSpec("has_skill", 0.20, 0.5, 1.0),
    RelationSpec("works_on", 0.10, 0.5, 0.8),
    RelationSpec("attended", 0.08, 0.6, 0.9),
    RelationSpec("runs", 0.03, 0.8, 0.0),
    RelationSpec("uses_product", 0.06, 0.3, 1.0),
    RelationSpec("competes_with", 0.04, 0.8, 0.8),
    RelationSpec("made_by", 0.0, target_skew=1.0, functional=True),
    RelationSpec("headquartered_in", 0.0, target_skew=1.0, functional=True),
    RelationSpec("in_industry", 0.0, target_skew=1.0, functional=True),
    RelationSpec("located_in", 0.0, target_skew=0.8, functional=True),
    RelationSpec("held_in", 0.0, target_skew=1.0, functional=True),
)


@dataclass
class SyntheticGraph:
    """A generated graph as arrays: per type, entity count; per relationship type, index pairs.

    `relationships[type] = (sources, targets)`: indices into the entities of the relation's
    source and target types. Entities without any relationship are kept out of every output
    (:meth:`used`), like a triple file that never names them.
    """

    size: int
    seed: int
    counts: dict[str, int]
    relationships: dict[str, tuple[np.ndarray, np.ndarray]] = field(default_factory=dict)
    _names: dict[str, list[str]] = field(default_factory=dict, repr=False)

    def names(self, label: str) -> list[str]:
        """The names of every entity of a type, by index (built once)."""
        if label not in self._names:
            self._names[label] = [entity_name(label, i) for i in range(self.counts[label])]
        return self._names[label]

    @property
    def relationship_count(self) -> int:
        """Relationships in all (distinct per source, type, target)."""
        return sum(len(s) for s, _ in self.relationships.values())

    def used(self) -> dict[str, np.ndarray]:
        """Per entity type, the sorted indices of the entities that have a relationship."""
        seen: dict[str, list[np.ndarray]] = {label: [] for label in self.counts}
        for rt in ONTOLOGY.relation_types:
            src, tgt = self.relationships[rt.type]
            seen[rt.source_labels[0]].append(src)
            seen[rt.target_labels[0]].append(tgt)
        return {
            label: np.unique(np.concatenate(parts)) if parts else np.zeros(0, dtype=np.int64)
            for label, parts in seen.items()
        }

    def entities(self) -> Iterator[tuple[str, int, str, str]]:
        """(label, index, name, description) of every used entity, type by type in index order."""
        for label, idx in self.used().items():
            names = self.names(label)
            for i in idx.tolist():
                yield label, i, names[i], entity_description(label, i, names[i])

    def triples(self) -> Iterator[tuple[str, str, str]]:
        """(subject name, relationship type, object name) of every relationship."""
        for rt in ONTOLOGY.relation_types:
            src, tgt = self.relationships[rt.type]
            s_names, t_names = self.names(rt.source_labels[0]), self.names(rt.target_labels[0])
            for s, t in zip(src.tolist(), tgt.tolist(), strict=True):
                yield s_names[s], rt.type, t_names[t]

    def degrees(self) -> dict[str, np.ndarray]:
        """Per entity type, the degree (both directions, all types) of each of its entities."""
        deg = {label: np.zeros(n, dtype=np.int64) for label, n in self.counts.items()}
        for rt in ONTOLOGY.relation_types:
            src, tgt = self.relationships[rt.type]
            deg[rt.source_labels[0]] += np.bincount(src, minlength=self.counts[rt.source_labels[0]])
            deg[rt.target_labels[0]] += np.bincount(tgt, minlength=self.counts[rt.target_labels[0]])
        return deg


def entity_counts(size: int) -> dict[str, int]:
    """How many entities of each type a graph of `size` relationships draws from."""
    out = {}
    for label, (share, floor, ceiling) in ENTITY_SHARE.items():
        out[label] = int(min(max(round(size * share), floor), ceiling))
    return out


def _zipf(rng: np.random.Generator, n: int, k: int, skew: float) -> np.ndarray:
    """`k` indices in [0, n) drawn with probability ~ 1 / rank**skew over a seeded random ranking."""
    if skew <= 0:
        return rng.integers(0, n, size=k)
    weights = 1.0 / np.arange(1, n + 1, dtype=np.float64) ** skew
    ranking = rng.permutation(n)  # which entity is the largest hub is random, not index 0
    return ranking[rng.choice(n, size=k, p=weights / weights.sum())]


def _distinct_pairs(
    src: np.ndarray, tgt: np.ndarray, n_tgt: int, keep: int, *, same_type: bool
) -> tuple[np.ndarray, np.ndarray]:
    """The first `keep` distinct (source, target) pairs in draw order (`same_type`: no self-pairs)."""
    codes = src.astype(np.int64) * n_tgt + tgt
    _, first = np.unique(codes, return_index=True)
    first.sort()
    if same_type:
        first = first[src[first] != tgt[first]]
    first = first[:keep]
    return src[first], tgt[first]


def generate(size: int, seed: int = 0) -> SyntheticGraph:
    """A graph of `size` relationships (fewer only when a type runs out of distinct pairs).

    Raises:
        ValueError: `size` is below 1,000 (too small for every type to get relationships).
    """
    if size < 1000:
        raise ValueError(f"a synthetic graph needs at least 1,000 relationships (got {size:,})")
    rng = np.random.default_rng(seed)
    counts = entity_counts(size)
    graph = SyntheticGraph(size=size, seed=seed, counts=counts)
    ontology = {rt.type: rt for rt in ONTOLOGY.relation_types}
    functional = sum(counts[ontology[r.type].source_labels[0]] for r in RELATIONS if r.functional)
    rest = max(size - functional, 0)
    shares = sum(r.share for r in RELATIONS if not r.functional)
    for spec in RELATIONS:
        rt = ontology[spec.type]
        n_src, n_tgt = counts[rt.source_labels[0]], counts[rt.target_labels[0]]
        if spec.functional:
            src = np.arange(n_src, dtype=np.int64)
            tgt = _zipf(rng, n_tgt, n_src, spec.target_skew)
            graph.relationships[spec.type] = (src, tgt)
            continue
        want = round(rest * spec.share / shares)
        draw = int(want * 1.2) + 10  # repeats and self-pairs are dropped
        src = _zipf(rng, n_src, draw, spec.source_skew)
        tgt = _zipf(rng, n_tgt, draw, spec.target_skew)
        same = rt.source_labels[0] == rt.target_labels[0]
        graph.relationships[spec.type] = _distinct_pairs(src, tgt, n_tgt, want, same_type=same)
    _trim(graph, size)
    return graph


def _trim(graph: SyntheticGraph, size: int) -> None:
    """Drop relationships of the largest non-functional type until the graph has `size` of them."""
    extra = graph.relationship_count - size
    if extra <= 0:
        return
    drawn = [r for r in RELATIONS if not r.functional]
    largest = max(drawn, key=lambda r: len(graph.relationships[r.type][0]))
    src, tgt = graph.relationships[largest.type]
    graph.relationships[largest.type] = (src[: len(src) - extra], tgt[: len(tgt) - extra])


def entity_rows(graph: SyntheticGraph, community_id: str) -> Iterator[EntityRow]:
    """The used entities as loader rows (ids `<community>:<name>`, as `load triples` makes them)."""
    for label, _, name, description in graph.entities():
        yield EntityRow(entity_id(community_id, name), name, (label,), description)


def relation_rows(graph: SyntheticGraph, community_id: str) -> Iterator[RelationRow]:
    """The relationships as loader rows."""
    for s, rel, o in graph.triples():
        yield RelationRow(entity_id(community_id, s), rel, entity_id(community_id, o))


def to_dataset(graph: SyntheticGraph, community_id: str) -> Dataset:
    """The graph as the batched loader's dataset."""
    return Dataset(
        ONTOLOGY,
        community_id,
        list(entity_rows(graph, community_id)),
        list(relation_rows(graph, community_id)),
    )


def parse_size(text: str) -> int:
    """`100k`, `1m`, `5M`, `250000` -> relationships.

    Raises:
        ValueError: not a count.

    Example:
        >>> parse_size("100k"), parse_size("5M")
        (100000, 5000000)
    """
    t = text.strip().lower().replace("_", "").replace(",", "")
    mult = {"k": 1_000, "m": 1_000_000}.get(t[-1:], 1)
    digits = t[:-1] if mult > 1 else t
    try:
        return int(float(digits) * mult)
    except ValueError:
        raise ValueError(f"{text!r} is not a size: write e.g. 100k, 1m or 250000") from None


def size_label(size: int) -> str:
    """`100000` -> `100k`, `5000000` -> `5m` (community ids and file names)."""
    if size % 1_000_000 == 0:
        return f"{size // 1_000_000}m"
    if size % 1_000 == 0:
        return f"{size // 1_000}k"
    return str(size)
