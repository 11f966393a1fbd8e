"""The only module that talks to Neo4j: the driver, the Cypher files, round-trip counting.

Every statement lives in `cypher/<name>.cypher` and takes `$parameters`. Where a label, relationship
type or property name must be spliced in (Cypher cannot parameterize them), the file writes
`{{name}}`; :meth:`Graph.render` fills it with a backtick-quoted identifier that was checked first.

Example:
    >>> g = Graph.connect()  # doctest: +SKIP
    >>> g.read("ping")  # doctest: +SKIP
    [{'ok': 1}]
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from neo4j import Driver, GraphDatabase, ManagedTransaction, RoutingControl, Session, unit_of_work
from neo4j.api import BookmarkManager
from neo4j.exceptions import (
    AuthError,
    ClientError,
    ConfigurationError,
    Neo4jError,
    ServiceUnavailable,
    SessionExpired,
)

from pathrag_gds.config import CYPHER_DIR, Settings, get_settings, neo4j_uri_problem
from pathrag_gds.errors import ConfigError, DatabaseUnavailable, SchemaError
from pathrag_gds.search.context import RoundTripCounter

if TYPE_CHECKING:  # pragma: no cover
    from graphdatascience import GraphDataScience

_PLACEHOLDER = re.compile(r"\{\{(\w+)\}\}")
_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def quote_identifier(name: str) -> str:
    """Backtick-quote a label, type or property name for splicing into Cypher.

    Raises:
        SchemaError: the name is empty or holds characters outside letters, digits and `_`.
    """
    if not _IDENT.match(name):
        raise SchemaError(
            f"invalid graph identifier {name!r}: use letters, digits and '_' only (it names a label, "
            "relationship type or property)"
        )
    return f"`{name}`"


@cache
def load_cypher(name: str, cypher_dir: Path = CYPHER_DIR) -> str:
    """The text of `cypher/<name>.cypher`."""
    path = cypher_dir / f"{name}.cypher"
    if not path.is_file():
        raise FileNotFoundError(f"no Cypher statement {path}")
    return path.read_text(encoding="utf-8")


def _unavailable_message(settings: Settings, exc: Exception) -> str:
    if settings.external_db:
        hint = "check NEO4J_URI and that the server is up"
    else:
        hint = "start the local server with `python -m pathrag_gds db start`, or set NEO4J_URI to your own"
    return f"cannot reach Neo4j at {settings.neo4j_uri} ({type(exc).__name__}): {hint}"


class Graph:
    """A connection to one Neo4j database, running the statements of `cypher/`."""

    def __init__(self, driver: Driver, settings: Settings) -> None:
        self.driver = driver
        self.settings = settings
        self.database = settings.neo4j_database
        #: where the statements live (tests point it elsewhere to prove read transactions refuse writes)
        self.cypher_dir = CYPHER_DIR

    @classmethod
    def connect(cls, settings: Settings | None = None, verify: bool = True) -> Graph:
        """Open a driver from settings and (by default) check that the server answers.

        Raises:
            ConfigError: the URI is not a Bolt URI (`http://...`).
            DatabaseUnavailable: the server cannot be reached or refused the credentials.
        """
        settings = settings or get_settings()
        problem = neo4j_uri_problem(settings.neo4j_uri)  # settings built by model_copy are unchecked
        if problem is not None:
            raise ConfigError(f"NEO4J_URI {problem}")
        password = settings.resolved_password()
        auth = (settings.neo4j_user, password) if password else None
        try:
            driver = GraphDatabase.driver(
                settings.neo4j_uri,
                auth=auth,
                connection_acquisition_timeout=10.0,
                max_connection_pool_size=50,
                max_transaction_retry_time=settings.neo4j_retry_s,
                notifications_min_severity="OFF",
            )
        except (ValueError, ConfigurationError) as exc:  # neo4j 6 raises ConfigurationError
            raise DatabaseUnavailable(
                f"NEO4J_URI {settings.neo4j_uri!r} is not a Neo4j URI ({exc}); use e.g. bolt://host:7687 "
                "or neo4j://host:7687"
            ) from exc
        graph = cls(driver, settings)
        if verify:
            graph.verify()
        return graph

    def verify(self) -> None:
        """Check connectivity and credentials with one `RETURN 1`.

        Raises:
            DatabaseUnavailable: with a message that says what to do.
        """
        try:
            self.driver.verify_connectivity()
            self.driver.execute_query("RETURN 1", database_=self.database, routing_=RoutingControl.READ)
        except AuthError as exc:
            raise DatabaseUnavailable(
                f"Neo4j at {self.settings.neo4j_uri} refused the credentials of user "
                f"{self.settings.neo4j_user!r}: set NEO4J_USER / NEO4J_PASSWORD"
            ) from exc
        except (ServiceUnavailable, SessionExpired, OSError) as exc:
            raise DatabaseUnavailable(_unavailable_message(self.settings, exc)) from exc
        except ClientError as exc:
            if "database" in (exc.message or "").lower():
                raise DatabaseUnavailable(
                    f"Neo4j has no database {self.database!r}: set NEO4J_DATABASE to an existing one"
                ) from exc
            raise

    def close(self) -> None:
        """Close the driver."""
        self.driver.close()

    def __enter__(self) -> Graph:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- statements ---------------------------------------------------------------------------

    def session(self) -> Session:
        """A session on the database that asks the server for no notifications.

        The statements are this package's own: a server's hints about them (a property key such as
        `end` that no data holds yet) say nothing to the user, and a driver the user opened (the
        neo4j-graphrag adapter) would log each as a large warning.

        Every session shares the driver's bookmark manager (the one `execute_query` uses, so schema
        commands too): the writes and reads of one process are causally chained, and on a cluster a
        question asked right after a load waits for a reader that has applied it.
        """
        return self.driver.session(
            database=self.database,
            notifications_min_severity="OFF",
            bookmark_manager=self.bookmarks,
        )

    @property
    def bookmarks(self) -> BookmarkManager:
        """The bookmark manager every session and `execute_query` of this driver shares."""
        return self.driver.execute_query_bookmark_manager

    def identifiers(self) -> dict[str, str]:
        """The configured names that Cypher files may splice in, quoted."""
        s = self.settings
        names = {
            "entity_label": s.entity_label,
            "id": s.id_property,
            "name": s.name_property,
            "description": s.description_property,
            "embedding": s.embedding_property,
            "community_label": s.community_label,
            "community_rel": s.community_rel,
            "adopts_rel": s.adopts_rel,
            "vector_index": s.vector_index,
            "document_label": s.document_label,
            "section_label": s.section_label,
            "chunk_label": s.chunk_label,
            "has_child": s.has_child_rel,
            "has_part": s.has_part_rel,
            "next_chunk": s.next_chunk_rel,
            "mentioned_in": s.mentioned_in_rel,
            "chunk_vector_index": s.chunk_vector_index,
            "cluster_label": s.cluster_label,
            "cluster_rel": s.cluster_rel,
            "cluster_vector_index": s.cluster_vector_index,
        }
        return {k: quote_identifier(v) for k, v in names.items()}

    def gds(self) -> GraphDataScience:
        """The Graph Data Science client (`graphdatascience`) on this connection, for GDS algorithms.

        Raises:
            SchemaError: the server has no GDS plugin.
            DatabaseUnavailable: the server cannot be reached.
        """
        try:  # first: the client closes the driver it was given when GDS is missing
            self.read("version_gds")
        except ClientError as exc:
            raise SchemaError(
                "the Neo4j server has no Graph Data Science plugin: use the local server "
                "(`python -m pathrag_gds db start` installs GDS) or add GDS 2.x to yours"
            ) from exc
        from graphdatascience import GraphDataScience
        from graphdatascience.error.unable_to_connect import UnableToConnectError

        try:
            return GraphDataScience(self.driver, database=self.database, arrow=False)
        except UnableToConnectError as exc:
            raise DatabaseUnavailable(_unavailable_message(self.settings, exc)) from exc

    def render(self, name: str, extra: Mapping[str, str] | None = None) -> str:
        """The statement `cypher/<name>.cypher` with its `{{placeholders}}` filled and quoted."""
        text = load_cypher(name, self.cypher_dir)
        values = self.identifiers()
        if extra:
            values.update({k: quote_identifier(v) for k, v in extra.items()})

        def fill(m: re.Match[str]) -> str:
            key = m.group(1)
            if key not in values:
                raise KeyError(f"cypher/{name}.cypher needs a value for {{{{{key}}}}}")
            return values[key]

        return _PLACEHOLDER.sub(fill, text)

    def _run(
        self,
        name: str,
        params: Mapping[str, Any],
        *,
        write: bool,
        counter: RoundTripCounter | None,
        extra: Mapping[str, str] | None = None,
        timeout: float | None = None,
    ) -> list[dict[str, Any]]:
        import time

        text = self.render(name, extra)

        @unit_of_work(timeout=timeout)
        def work(tx: ManagedTransaction) -> list[dict[str, Any]]:
            return [r.data() for r in tx.run(text, dict(params))]

        t0 = time.perf_counter()
        try:
            with self.session() as session:
                rows = session.execute_write(work) if write else session.execute_read(work)
        except AuthError as exc:
            raise DatabaseUnavailable(
                f"Neo4j refused the credentials of user {self.settings.neo4j_user!r}: set NEO4J_PASSWORD"
            ) from exc
        except (ServiceUnavailable, SessionExpired) as exc:
            raise DatabaseUnavailable(_unavailable_message(self.settings, exc)) from exc
        finally:
            if counter is not None:
                counter.add(time.perf_counter() - t0)
        return rows

    def read(
        self,
        name: str,
        counter: RoundTripCounter | None = None,
        extra: Mapping[str, str] | None = None,
        timeout: float | None = None,
        **params: Any,
    ) -> list[dict[str, Any]]:
        """Run `cypher/<name>.cypher` in a READ transaction and return its rows as dicts."""
        return self._run(name, params, write=False, counter=counter, extra=extra, timeout=timeout)

    def write(
        self,
        name: str,
        counter: RoundTripCounter | None = None,
        extra: Mapping[str, str] | None = None,
        **params: Any,
    ) -> list[dict[str, Any]]:
        """Run `cypher/<name>.cypher` in a WRITE transaction and return its rows as dicts."""
        return self._run(name, params, write=True, counter=counter, extra=extra)

    def write_steps(
        self,
        steps: Sequence[tuple[str, Mapping[str, Any]]],
        check: Callable[[str, list[dict[str, Any]]], None] | None = None,
    ) -> list[list[dict[str, Any]]]:
        """Run several `cypher/<name>.cypher` statements in ONE write transaction; their rows, in order.

        `check(name, rows)` is called after each statement, inside the transaction: an exception it
        raises rolls the whole transaction back (nothing of it is written) and propagates.
        """
        texts = [(name, self.render(name), dict(params)) for name, params in steps]

        def work(tx: ManagedTransaction) -> list[list[dict[str, Any]]]:
            out = []
            for name, text, params in texts:
                rows = [r.data() for r in tx.run(text, params)]
                if check is not None:
                    check(name, rows)
                out.append(rows)
            return out

        try:
            with self.session() as session:
                return session.execute_write(work)
        except (ServiceUnavailable, SessionExpired) as exc:
            raise DatabaseUnavailable(_unavailable_message(self.settings, exc)) from exc

    def schema_command(self, name: str, extra: Mapping[str, str] | None = None, **params: Any) -> None:
        """Run a schema statement (index, constraint) in an auto-commit transaction."""
        text = self.render(name, extra)
        try:
            self.driver.execute_query(text, params, database_=self.database)
        except (ServiceUnavailable, SessionExpired) as exc:
            raise DatabaseUnavailable(_unavailable_message(self.settings, exc)) from exc

    # --- schema checks --------------------------------------------------------------------------

    def schema(self) -> dict[str, set[str]]:
        """Labels, relationship types and property keys that exist in the database."""
        rows = self.read("schema_names")
        row = rows[0] if rows else {}
        return {
            "labels": set(row.get("labels", [])),
            "types": set(row.get("types", [])),
            "properties": set(row.get("properties", [])),
        }

    def check_names(self, labels: Iterable[str] = (), types: Iterable[str] = ()) -> None:
        """Refuse labels or relationship types that the database does not have.

        Raises:
            SchemaError: naming the unknown ones and the ones that exist.
        """
        schema = self.schema()
        bad_labels = sorted(set(labels) - schema["labels"])
        bad_types = sorted(set(types) - schema["types"])
        if bad_labels:
            raise SchemaError(
                f"label(s) {bad_labels} are not in the database (it has {sorted(schema['labels'])}); "
                "fix PATHRAG_ENTITY_LABEL / PATHRAG_COMMUNITY_LABEL or load data first"
            )
        if bad_types:
            raise SchemaError(
                f"relationship type(s) {bad_types} are not in the database (it has "
                f"{sorted(schema['types'])}); fix the relation whitelist or load data first"
            )


__all__ = ["Graph", "Neo4jError", "RoundTripCounter", "load_cypher", "quote_identifier"]
