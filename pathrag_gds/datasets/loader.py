"""The generic batched writer: ontology, community, entities, relationships and chunks into Neo4j.

Every write is a `MERGE` (see `cypher/load_*.cypher`), so loading the same data twice changes
nothing: the second run finds every node and relationship and sets the same property values.
Dynamic labels and relationship types go through APOC, so one statement serves every type, and
rows travel in batches (`UNWIND $rows AS row ...`), one transaction per batch.

Example:
    >>> ds = Dataset(ontology=Ontology("o"), community_id="c", entities=[EntityRow("c:a", "a")])
    >>> ds.entity_count
    1
    >>> GraphLoader(graph).load(ds)  # doctest: +SKIP
"""

from __future__ import annotations

import logging
import re
import time
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from tqdm import tqdm

from pathrag_gds.errors import InvalidInput
from pathrag_gds.graph import Graph
from pathrag_gds.ontology import Ontology

log = logging.getLogger(__name__)

T = TypeVar("T")

_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")

#: Statements run before loading: constraints and indexes (all `IF NOT EXISTS`).
SCHEMA_STATEMENTS = (
    "schema_entity_id",
    "schema_community_id",
    "schema_chunk_id",
    "schema_ontology_id",
    "schema_entity_name",
)


class DatasetError(InvalidInput):
    """A data or ontology file cannot be loaded as it is (the message says what to fix)."""


@dataclass(frozen=True, slots=True)
class EntityRow:
    """One entity to write: id (globally unique), name, type labels, description, attributes."""

    id: str
    name: str
    labels: tuple[str, ...] = ()
    description: str = ""
    attributes: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class RelationRow:
    """One relationship to write: entity ids, the ontology type, scalar attributes."""

    source: str
    type: str
    target: str
    attributes: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class ChunkRow:
    """One provenance chunk and the entity ids it mentions."""

    id: str
    text: str
    source: str = ""
    mentions: tuple[str, ...] = ()


@dataclass
class Dataset:
    """Everything one load writes: one ontology, one community and its data."""

    ontology: Ontology
    community_id: str
    entities: list[EntityRow] = field(default_factory=list)
    relationships: list[RelationRow] = field(default_factory=list)
    chunks: list[ChunkRow] = field(default_factory=list)

    @property
    def entity_count(self) -> int:
        """Number of entities."""
        return len(self.entities)


@dataclass
class LoadReport:
    """What a load did. `created` counts new nodes / relationships, `existing` ones already there."""

    community_id: str
    entities_created: int = 0
    entities_existing: int = 0
    entities_changed: int = 0
    relationships_created: int = 0
    relationships_existing: int = 0
    relationships_missing_endpoint: int = 0
    chunks: int = 0
    mentions: int = 0
    seconds: float = 0.0

    def lines(self) -> list[str]:
        """The report as human-readable lines."""
        return [
            f"community {self.community_id}: loaded in {self.seconds:.1f} s",
            f"  entities:      {self.entities_created + self.entities_existing:>9,} "
            f"({self.entities_created:,} created, {self.entities_existing:,} existing, "
            f"{self.entities_changed:,} of them changed)",
            f"  relationships: {self.relationships_created + self.relationships_existing:>9,} "
            f"({self.relationships_created:,} created, {self.relationships_existing:,} existing)",
            f"  chunks:        {self.chunks:>9,} ({self.mentions:,} mentions)",
        ]


def batched(items: Sequence[T], size: int) -> Iterator[Sequence[T]]:
    """Consecutive slices of at most `size` items."""
    for start in range(0, len(items), size):
        yield items[start : start + size]


def check_identifier(name: str, what: str) -> str:
    """Return `name` if it can be a label / relationship type / property name.

    Raises:
        DatasetError: it holds characters other than letters, digits and `_`.
    """
    if not _IDENT.match(name):
        raise DatasetError(f"{what} {name!r} is not a valid name: use letters, digits and '_' only")
    return name


def check_value(value: Any, where: str) -> Any:
    """Return `value` if Neo4j can store it as a property (a scalar or a list of scalars).

    Raises:
        DatasetError: a map, a nested list or a mixed list.
    """
    scalar = (str, int, float, bool)
    if value is None or isinstance(value, scalar):
        return value
    if (
        isinstance(value, list | tuple)
        and all(isinstance(v, scalar) for v in value)
        and len({type(v) for v in value}) <= 1
    ):
        return list(value)
    raise DatasetError(
        f"{where}: value {value!r} is not a scalar or a list of scalars of one kind; flatten it"
    )


def ontology_rows(ontology: Ontology) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The ontology's entity types and relation types as Cypher parameter rows."""
    ets = [{"label": e.label, "description": e.description} for e in ontology.entity_types]
    rts = [
        {
            "type": r.type,
            "phrase": r.phrase,
            "inverse_phrase": r.inverse_phrase,
            "description": r.description,
            "source_labels": list(r.source_labels),
            "target_labels": list(r.target_labels),
        }
        for r in ontology.relation_types
    ]
    return ets, rts


class GraphLoader:
    """Writes datasets into a graph in batches, idempotently.

    Args:
        graph: the connection.
        batch_size: rows per transaction.
        progress: show progress bars (on stderr).
    """

    def __init__(self, graph: Graph, batch_size: int = 2000, progress: bool = True) -> None:
        if batch_size < 1:
            raise InvalidInput(f"batch size must be at least 1 (got {batch_size}); pass --batch-size 2000")
        self.graph = graph
        self.batch_size = batch_size
        self.progress = progress

    def ensure_schema(self) -> None:
        """Create the constraints and indexes the loaders rely on (no-op when they exist)."""
        for name in SCHEMA_STATEMENTS:
            self.graph.schema_command(name)

    def load_ontology(self, ontology: Ontology) -> None:
        """Write the ontology node with its entity and relation types."""
        for et in ontology.entity_types:
            check_identifier(et.label, "entity type label")
        for rt in ontology.relation_types:
            check_identifier(rt.type, "relationship type")
        ets, rts = ontology_rows(ontology)
        self.graph.write("load_ontology", ontology_id=ontology.id)
        self.graph.write("load_entity_types", ontology_id=ontology.id, rows=ets)
        self.graph.write("load_relation_types", ontology_id=ontology.id, rows=rts)

    def load_community(self, community_id: str, ontology_id: str) -> None:
        """Write the community node."""
        self.graph.write("load_community", community_id=community_id, ontology_id=ontology_id)

    def _batches(
        self,
        name: str,
        rows: Sequence[dict[str, Any]],
        desc: str,
        params: Mapping[str, Any],
        on_result: Callable[[dict[str, Any]], None],
    ) -> None:
        with tqdm(total=len(rows), desc=desc, unit="row", disable=not self.progress, leave=True) as bar:
            for chunk in batched(rows, self.batch_size):
                result = self.graph.write(name, rows=list(chunk), **params)
                on_result(result[0] if result else {})
                bar.update(len(chunk))

    def load_entities(self, entities: Sequence[EntityRow], community_id: str, report: LoadReport) -> None:
        """MERGE entities (ids must be distinct) and tie them to the community."""
        s = self.graph.settings
        reserved = {s.id_property, s.name_property, s.embedding_property}
        rows = []
        for e in entities:
            props: dict[str, Any] = {}
            if e.description:
                props[s.description_property] = e.description
            for key, value in e.attributes.items():
                check_identifier(key, f"attribute of entity {e.id!r}")
                if key in reserved:
                    raise DatasetError(
                        f"entity {e.id!r} has an attribute {key!r}, a reserved property; rename it"
                    )
                props[key] = check_value(value, f"entity {e.id!r} attribute {key!r}")
            labels = [check_identifier(label, "entity type label") for label in e.labels]
            rows.append({"id": e.id, "name": e.name, "labels": labels, "props": props})

        def add(r: dict[str, Any]) -> None:
            created = int(r.get("created", 0))
            report.entities_created += created
            report.entities_existing += int(r.get("total", 0)) - created
            report.entities_changed += int(r.get("changed", 0))

        self._batches(
            "load_entities",
            rows,
            "entities",
            {"community_id": community_id, "embedding_key": s.embedding_property},
            add,
        )

    def load_relationships(self, relationships: Sequence[RelationRow], report: LoadReport) -> None:
        """MERGE relationships (one per source, type, target) between existing entities."""
        rows = [
            {
                "source": r.source,
                "type": check_identifier(r.type, "relationship type"),
                "target": r.target,
                "props": {
                    check_identifier(k, f"attribute of relationship {r.type}"): check_value(
                        v, f"relationship {r.source} {r.type} {r.target} attribute {k!r}"
                    )
                    for k, v in r.attributes.items()
                },
            }
            for r in relationships
        ]

        def add(r: dict[str, Any]) -> None:
            created = int(r.get("created", 0))
            total = int(r.get("total", 0))
            report.relationships_created += created
            report.relationships_existing += total - created

        self._batches("load_relationships", rows, "relationships", {}, add)
        report.relationships_missing_endpoint = len(rows) - (
            report.relationships_created + report.relationships_existing
        )

    def load_chunks(self, chunks: Sequence[ChunkRow], report: LoadReport) -> None:
        """MERGE provenance chunks and their MENTIONED_IN edges."""
        rows = [
            {"id": c.id, "text": c.text, "source": c.source, "mentions": list(c.mentions)} for c in chunks
        ]

        def add(r: dict[str, Any]) -> None:
            report.chunks += int(r.get("chunks", 0))
            report.mentions += int(r.get("mentions") or 0)

        self._batches("load_chunks", rows, "chunks", {}, add)

    def load(self, dataset: Dataset) -> LoadReport:
        """Write a whole dataset: schema, ontology, community, entities, relationships, chunks."""
        t0 = time.perf_counter()
        report = LoadReport(dataset.community_id)
        counts = Counter(e.id for e in dataset.entities)
        if len(counts) != len(dataset.entities):
            dupes = sorted(i for i, n in counts.items() if n > 1)[:5]
            raise DatasetError(f"entity ids must be distinct; repeated: {dupes}. Merge those entities")
        self.ensure_schema()
        self.load_ontology(dataset.ontology)
        self.load_community(dataset.community_id, dataset.ontology.id)
        self.load_entities(dataset.entities, dataset.community_id, report)
        self.load_relationships(dataset.relationships, report)
        if dataset.chunks:
            self.load_chunks(dataset.chunks, report)
        report.seconds = time.perf_counter() - t0
        return report


def community_counts(graph: Graph, community_id: str) -> dict[str, Any] | None:
    """What a community holds (entities, embedded, labels, relationships by type, chunks), or None."""
    rows = graph.read(
        "community_counts", community_id=community_id, entity_label=graph.settings.entity_label
    )
    return rows[0] if rows else None


def delete_community(
    graph: Graph, community_id: str, *, drop_ontology: bool = False, batch_size: int = 5000
) -> int:
    """Delete a community with its entities (those no other community holds) and their own chunks.

    The ontology stays unless `drop_ontology` (and no other community uses it). Returns the number
    of entities deleted.
    """
    deleted = 0
    while True:
        rows = graph.write("community_delete_batch", community_id=community_id, limit=batch_size)
        n = int(rows[0]["deleted"]) if rows else 0
        deleted += n
        if n == 0:
            break
    graph.write("community_delete", community_id=community_id, drop_ontology=drop_ontology)
    return deleted
