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
import time
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from typing import Any, TypeVar

from pathrag_gds.clusters.store import delete_clusters
from pathrag_gds.datasets.checks import (
    bad_character,
    check_dataset,
    check_identifier,
    check_text,
    check_text_value,
    check_value,
)
from pathrag_gds.datasets.load_report import MAX_LISTED_REFUSED, LoadReport
from pathrag_gds.datasets.prepare import PreparedLoad, namespace_error, ontology_rows, prepare
from pathrag_gds.datasets.rows import (
    ChunkRow,
    Dataset,
    DatasetError,
    EntityRow,
    RelationRow,
    entity_id,
    id_community,
    split_entity_id,
)
from pathrag_gds.datasets.staging import (
    begin_load,
    commit_load,
    discard_load,
    embed_staged,
    fenced_write,
    read_state,
    touch,
)
from pathrag_gds.errors import InvalidInput, LoadConflict, LoadInterrupted, PathRagError
from pathrag_gds.graph import Graph, Neo4jError
from pathrag_gds.indexing import IndexReport, TextEncoder
from pathrag_gds.load_versions import dataset_digest, interrupted_message
from pathrag_gds.ontology import Ontology, type_labels
from pathrag_gds.progress import bar as progress_bar

#: Moved to `rows`, `checks`, `load_report` and `prepare`; still importable from here.
__all__ = [
    "MAX_LISTED_REFUSED",
    "ChunkRow",
    "Dataset",
    "DatasetError",
    "EntityRow",
    "LoadReport",
    "RelationRow",
    "bad_character",
    "check_dataset",
    "check_identifier",
    "check_text",
    "check_text_value",
    "check_value",
    "entity_id",
    "ontology_rows",
    "split_entity_id",
]

log = logging.getLogger(__name__)

T = TypeVar("T")


#: Statements run before loading: constraints and indexes (all `IF NOT EXISTS`).
SCHEMA_STATEMENTS = (
    "schema_entity_id",
    "schema_community_id",
    "schema_chunk_id",
    "schema_ontology_id",
    "schema_entity_name",
    "schema_community_loading",
    "schema_staged_load",
)


def batched(items: Sequence[T], size: int) -> Iterator[Sequence[T]]:
    """Consecutive slices of at most `size` items."""
    for start in range(0, len(items), size):
        yield items[start : start + size]


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
        """Write the ontology node with its entity and relation types (names checked first)."""
        ets, rts = ontology_rows(ontology)
        self.graph.write("load_ontology", ontology_id=ontology.id)
        self.graph.write("load_entity_types", ontology_id=ontology.id, rows=ets)
        self.graph.write("load_relation_types", ontology_id=ontology.id, rows=rts)

    def check_ontology_owner(self, ontology: Ontology, community_id: str) -> None:
        """Refuse to change an ontology that other communities use (new or different types).

        Raises:
            DatasetError: naming the communities and the first changed type.
        """
        users = [
            r["id"]
            for r in self.graph.read(
                "load_ontology_users", ontology_id=ontology.id, community_id=community_id
            )
        ]
        if not users:
            return
        stored = self.graph.read("ontology_read", ontology_id=ontology.id)
        have: dict[tuple[str, str], dict[str, Any]] = {}
        for row in stored:
            have.update({("entity type", t["label"]): t for t in row["entity_types"]})
            have.update({("relationship type", t["type"]): t for t in row["relation_types"]})
        ets, rts = ontology_rows(ontology)
        wanted = [(("entity type", t["label"]), t) for t in ets] + [
            (("relationship type", t["type"]), t) for t in rts
        ]
        changed = [key for key, row in wanted if have.get(key) != row]
        if changed:
            what, name = changed[0]
            raise DatasetError(
                f"ontology {ontology.id!r} is used by community {users[0]!r}"
                f"{f' and {len(users) - 1} more' if len(users) > 1 else ''}, and this load would change "
                f"it ({len(changed)} new or different type(s), first: {what} {name!r}); nothing "
                "loaded. Give the ontology another id, or pass --shared to change it for all"
            )

    def check_foreign_exist(self, load: PreparedLoad) -> None:
        """Refuse a shared load that names a missing entity of another community's namespace.

        Raises:
            DatasetError: naming the first such id and its community.
        """
        found = {str(r["id"]) for r in self.graph.read("load_entities_existing", ids=load.foreign)}
        missing = [(i, id_community(i) or "") for i in load.foreign if i not in found]
        if missing:
            raise DatasetError(namespace_error(missing, load.community_id, missing=True))

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
        """Write `rows` in batches, each in one transaction behind the load's fence (`params["load"]`)."""
        cid, load_id = str(params["community_id"]), str(params["load"])
        with progress_bar(len(rows), desc, "row", enabled=self.progress) as bar:
            for chunk in batched(rows, self.batch_size):
                result = fenced_write(self.graph, cid, load_id, name, {**params, "rows": list(chunk)})
                on_result(result[0] if result else {})
                bar.update(len(chunk))

    def _write_entities(self, load: PreparedLoad, report: LoadReport, shared: bool, load_id: str) -> set[str]:
        """MERGE the entities and tie them to the community.

        Returns the ids refused: entities another community aggregates (unless `shared`).
        """
        refused: set[str] = set()

        def add(r: dict[str, Any]) -> None:
            created = int(r.get("created", 0))
            report.entities_created += created
            report.entities_existing += int(r.get("total", 0)) - created
            report.entities_changed += int(r.get("changed", 0))
            ids = [str(i) for i in r.get("refused") or []]
            report.entities_refused += len(ids)
            report.note_refused(ids)
            refused.update(ids)

        params = {
            "community_id": load.community_id,
            "load": load_id,
            "embedding_key": self.graph.settings.embedding_property,
            "shared": shared,
        }
        self._batches("load_entities", load.entities, "write entities", params, add)
        return refused

    def _write_relationships(
        self, load: PreparedLoad, report: LoadReport, refused: Collection[str], shared: bool, load_id: str
    ) -> None:
        """MERGE relationships (one per source, type, target) between existing entities.

        Not written: relationships touching a `refused` id, and (unless `shared`) those with an
        endpoint the community does not aggregate; both count as refused.
        """
        rows = [r for r in load.relationships if r["source"] not in refused and r["target"] not in refused]
        report.relationships_refused += len(load.relationships) - len(rows)
        matched = 0  # rows whose two endpoints exist (written or refused as foreign)

        def add(r: dict[str, Any]) -> None:
            nonlocal matched
            created = int(r.get("created", 0))
            total = int(r.get("total", 0))
            report.relationships_created += created
            report.relationships_existing += total - created
            report.relationships_refused += int(r.get("foreign", 0))
            matched += total + int(r.get("foreign", 0))

        params = {"community_id": load.community_id, "load": load_id, "shared": shared}
        self._batches("load_relationships", rows, "write relationships", params, add)
        report.relationships_missing_endpoint = len(rows) - matched

    def _write_chunks(
        self, load: PreparedLoad, report: LoadReport, refused: Collection[str], shared: bool, load_id: str
    ) -> None:
        """MERGE provenance chunks and their MENTIONED_IN edges.

        Unless `shared`, a chunk that only other communities' entities mention is left as it is, and
        mentions of `refused` ids or of entities outside the community are not written.
        """
        rows = []
        for c in load.chunks:
            kept = [m for m in c["mentions"] if m not in refused]
            report.mentions_refused += len(c["mentions"]) - len(kept)
            rows.append({**c, "mentions": kept})

        def add(r: dict[str, Any]) -> None:
            report.chunks += int(r.get("chunks", 0))
            report.mentions += int(r.get("mentions") or 0)
            report.mentions_refused += int(r.get("foreign") or 0)
            ids = [str(i) for i in r.get("refused") or []]
            report.chunks_refused += len(ids)
            report.note_refused(ids)

        params = {"community_id": load.community_id, "load": load_id, "shared": shared}
        self._batches("load_chunks", rows, "write chunks", params, add)

    def load(
        self, dataset: Dataset, *, shared: bool = False, encoder: TextEncoder | None = None
    ) -> LoadReport:
        """Write a whole dataset as a new version of its community; readers see it whole or not at all.

        The whole dataset is checked first (:func:`~pathrag_gds.datasets.prepare.prepare`), so a
        load refused for its data writes nothing. An entity another community already aggregates
        is not changed and not tied to this community, and nothing of this load touches it
        (relationships, mentions), unless `shared`: the report counts and lists what was refused.
        `shared` is for graphs that share entities between communities on purpose.

        Entity ids in another community's namespace (an unescaped `:`, docs/graph-model.md) are
        refused; a `shared` load may name existing ones, to share them, but not create them.

        Readers (queries, `info`, `/v1/info`) see the previous complete version until the load's last
        transaction, which applies its staged changes and the ontology
        (:mod:`~pathrag_gds.load_versions`). With `encoder`, the new and changed entities are
        embedded and the vector index built before that, so the new version is searchable the moment
        it is visible. A load that stops half-way stays invisible; the same load run again resumes
        and completes it.

        Raises:
            DatasetError: bad text, names or values in the data, repeated ids, an entity id in
                another community's namespace (unless `shared` and it exists), or (unless
                `shared`) an ontology that other communities use and this load would change;
                nothing is written then.
            LoadConflict: another load of other data is running in the community.
            LoadInterrupted: the load stopped on a database error; readers still see the previous
                version, and running the same load again completes it.
        """
        t0 = time.perf_counter()
        load = prepare(dataset, self.graph.settings, shared=shared)
        cid = load.community_id
        report = LoadReport(cid)
        self.ensure_schema()
        if load.foreign:
            self.check_foreign_exist(load)
        if not shared:
            self.check_ontology_owner(dataset.ontology, cid)
        onto = {"id": load.ontology.id, "types": [load.entity_types, load.relation_types]}
        digest = dataset_digest(
            cid,
            onto,
            shared,
            load.entities,
            load.relationships,
            load.chunks,
        )
        begin = begin_load(self.graph, cid, digest, self.graph.settings.load_stale_s)
        report.load_id, report.note = begin.load_id, begin.note
        if begin.note:
            log.warning("%s", begin.note)  # at the start: the load may take long
        try:
            refused = self._write_entities(load, report, shared, begin.load_id)
            self._write_relationships(load, report, refused, shared, begin.load_id)
            if load.chunks:
                self._write_chunks(load, report, refused, shared, begin.load_id)
            if encoder is not None:
                report.index = self._index(cid, begin.load_id, encoder)
            report.staged = commit_load(self.graph, load, begin.load_id)
        except LoadConflict:
            raise
        except KeyboardInterrupt as exc:
            exc.add_note(interrupted_message(cid, begin.load_id, "interrupted"))
            raise
        except (PathRagError, Neo4jError) as exc:
            raise LoadInterrupted(interrupted_message(cid, begin.load_id, exc)) from exc
        report.seconds = time.perf_counter() - t0
        if report.refused:
            log.warning("load of %s refused %d item(s) of other communities", cid, report.refused)
        return report

    def _index(self, community_id: str, load_id: str, encoder: TextEncoder) -> IndexReport:
        """Embed the load's new and changed entities and build the vector index, before it completes."""
        from pathrag_gds.indexing import embed_entities, ensure_vector_index

        def alive() -> None:
            touch(self.graph, community_id, load_id)

        t0 = time.perf_counter()
        report = embed_entities(
            self.graph, encoder, community=community_id, progress=self.progress, on_page=alive
        )
        changed = embed_staged(self.graph, encoder, community_id, load_id, progress=self.progress)
        report.pending += changed
        report.embedded += changed
        t1 = time.perf_counter()
        state = ensure_vector_index(self.graph, encoder.dim, progress=self.progress, on_wait=alive)
        report.index_seconds = time.perf_counter() - t1
        report.index_state = str(state.get("state"))
        report.seconds = time.perf_counter() - t0
        return report


def community_counts(graph: Graph, community_id: str) -> dict[str, Any] | None:
    """What a community holds (entities, embedded, labels, relationships by type, chunks), or None.

    `labels` counts entities by type label, an adopted entity's read without its prefix
    (:func:`~pathrag_gds.ontology.type_labels`).
    """
    rows = graph.read("community_counts", community_id=community_id, entity_label=graph.settings.entity_label)
    if not rows:
        return None
    counts = dict(rows[0])
    labels: dict[str, int] = {}
    for label, n in (counts.get("labels") or {}).items():
        (plain,) = type_labels([label])
        labels[plain] = labels.get(plain, 0) + int(n)
    counts["labels"] = labels
    return counts


def delete_community(
    graph: Graph, community_id: str, *, drop_ontology: bool = False, batch_size: int = 5000
) -> int:
    """Delete a community: documents (every version), entities (unless shared), their chunks, clusters.

    The ontology stays unless `drop_ontology` (and no other community uses it). A load that has not
    completed is discarded first. Returns the number of entities deleted.
    """
    state = read_state(graph, community_id)
    if state is not None and state.loading is not None:  # what it wrote outside the community too
        discard_load(graph, community_id, state.loading, stale_s=0.0, force=True, batch_size=batch_size)
    deleted = 0
    for statement in ("documents_delete_community", "community_delete_batch"):
        while True:
            rows = graph.write(statement, community_id=community_id, limit=batch_size)
            n = int(rows[0]["deleted"]) if rows else 0
            if statement == "community_delete_batch":
                deleted += n
            if n == 0:
                break
    delete_clusters(graph, community_id)
    graph.write("community_delete", community_id=community_id, drop_ontology=drop_ontology)
    return deleted
