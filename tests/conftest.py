"""Shared fixtures: `settings` and a live `graph` (integration tests).

Where the database comes from:

- `NEO4J_URI` set: that server (with `NEO4J_USER` / `NEO4J_PASSWORD` / `NEO4J_DATABASE`).
- `PATHRAG_TEST_BACKEND=docker`: a throw-away `neo4j:5.26` container with APOC and GDS (testcontainers;
  needs a Docker engine).
- otherwise: the local server of `python -m pathrag_gds db start` (started here when it does not run,
  and then stopped at the end of the session; a server that already ran is left running).

Tests share the server with other developers: they create only uniquely named data and remove it.
The shared communities they read (the demo, Harbour_Stories) are loaded only when missing, and then
removed at the end; a developer's own copy is never reloaded, nor its clusters rebuilt.
"""

from __future__ import annotations

import dataclasses
import os
import subprocess
import uuid
from collections.abc import Iterator
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any

import pytest
import yaml
from pathrag_testutil import PeopleFactory, run_cli

from pathrag_gds import localdb
from pathrag_gds.clusters.store import cluster_state, delete_clusters
from pathrag_gds.config import Settings
from pathrag_gds.datasets.bob_suite import DATA
from pathrag_gds.datasets.demo import DEMO_COMMUNITY
from pathrag_gds.datasets.loader import GraphLoader, delete_community
from pathrag_gds.datasets.ontology_files import read_ontology
from pathrag_gds.datasets.people import PEOPLE_ONTOLOGY, generate
from pathrag_gds.datasets.triples import read_triples_text
from pathrag_gds.graph import Graph

DOCKER_IMAGE = "neo4j:5.26"
DOCKER_PASSWORD = "pathrag-test-password"


def _backend() -> str:
    return os.environ.get("PATHRAG_TEST_BACKEND", "local").strip().lower() or "local"


@pytest.fixture(scope="session")
def _docker_neo4j() -> Iterator[Any]:
    """A Neo4j 5.26 container with APOC and GDS (only for PATHRAG_TEST_BACKEND=docker)."""
    try:
        from testcontainers.community.neo4j import Neo4jContainer
    except ImportError:  # testcontainers < 4.13
        from testcontainers.neo4j import Neo4jContainer

    container = (
        Neo4jContainer(DOCKER_IMAGE, password=DOCKER_PASSWORD)
        .with_env("NEO4J_PLUGINS", '["apoc", "graph-data-science"]')
        .with_env("NEO4J_dbms_security_procedures_unrestricted", "apoc.*,gds.*")
    )
    with container:
        yield container


@pytest.fixture(scope="session")
def settings(request: pytest.FixtureRequest) -> Settings:
    """Settings from the environment (pointing at the test container with PATHRAG_TEST_BACKEND=docker)."""
    if _backend() == "docker":
        container = request.getfixturevalue("_docker_neo4j")
        return Settings.from_env(
            neo4j_uri=container.get_connection_url(),
            neo4j_user="neo4j",
            neo4j_password=DOCKER_PASSWORD,
            external_db=True,
        )
    return Settings.from_env()


def _db_cli(action: str) -> subprocess.CompletedProcess[str]:
    return run_cli("db", action, timeout=None)


@pytest.fixture(scope="session")
def graph(settings: Settings) -> Iterator[Graph]:
    """A connected Graph; the local server is started first when needed (see the module docstring)."""
    started_here = False
    if not settings.external_db:
        started_here = localdb.running_pid(settings) is None
        proc = _db_cli("start")  # also waits until an already starting server answers
        if proc.returncode != 0:
            msg = f"`db start` failed (exit {proc.returncode}):\n{proc.stdout}{proc.stderr}"
            pytest.fail(msg, pytrace=False)
    g = Graph.connect(settings)
    try:
        yield g
    finally:
        g.close()
        if started_here:
            _db_cli("stop")


def _load(*args: str) -> None:
    """Run `python -m pathrag_gds load ARGS` (idempotent); fail the test on an error."""
    proc = run_cli("load", *args, timeout=None)
    if proc.returncode != 0:
        pytest.fail(f"`load {' '.join(args)}` failed:\n{proc.stdout}{proc.stderr}", pytrace=False)


def _indexed(graph: Graph, community: str) -> bool:
    """Is the community loaded, with its entities embedded and the vector index online?"""
    s = graph.settings
    rows = graph.read("graph_info", index_name=s.vector_index)
    found = {c["id"]: c for c in rows[0]["communities"]} if rows else {}
    state = graph.read("index_state", index_name=s.vector_index)
    return community in found and bool(state) and state[0]["state"] == "ONLINE"


def shared_community(graph: Graph, community: str, *load_args: str) -> Iterator[str]:
    """A community of the user's database the tests read: loaded only when it is missing, and then
    deleted at the end (with its ontology when no other community uses it); never reloaded.

    A community a developer already has stays as it is: the tests only read it (issue 53: the suite
    once reloaded the demo and Harbour_Stories and rewrote the demo's clusters).
    """
    if graph.read("load_community_exists", community_id=community):
        if not _indexed(graph, community):
            pytest.fail(
                f"community {community!r} is loaded but not indexed: run "
                f"`python -m pathrag_gds index --community {community}` (the tests do not write it)",
                pytrace=False,
            )
        yield community
        return
    _load(*load_args)
    try:
        yield community
    finally:
        delete_community(graph, community, drop_ontology=True)


@pytest.fixture(scope="session")
def demo_community(graph: Graph) -> Iterator[str]:
    """The Bob demo graph, loaded and indexed (loaded here only when missing, and then removed)."""
    yield from shared_community(graph, DEMO_COMMUNITY, "demo")


@pytest.fixture(scope="session")
def harbour_community(graph: Graph) -> Iterator[str]:
    """The second story graph (`harbour.yaml`, docs/harbour-graph.md), as `demo_community`."""
    yield from shared_community(graph, "Harbour_Stories", "graph", str(DATA / "harbour.yaml"))


@pytest.fixture(scope="session")
def demo_clusters(graph: Graph, demo_community: str) -> Iterator[dict[str, Any]]:
    """The demo's GDS clusters for the global and hybrid modes: `cluster_state` (`{run, levels}`).

    The clusters a developer built stay as they are; only when the demo has none are they built
    here (`communities`, in-process) and deleted at the end. Building them is tested on a copy of
    the demo (`demo_copy`).
    """
    state = cluster_state(graph, demo_community)
    if state["levels"]:
        yield state
        return
    _communities(demo_community)
    try:
        yield cluster_state(graph, demo_community)
    finally:
        delete_clusters(graph, demo_community)


def _communities(community: str) -> dict[str, Any]:
    """`python -m pathrag_gds communities --community ID --json` in-process: its JSON report."""
    import contextlib
    import io
    import json

    from pathrag_gds.cli import main

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        status = main(["communities", "--community", community, "--json"])
    assert status == 0, out.getvalue()
    report: dict[str, Any] = json.loads(out.getvalue())
    return report


@pytest.fixture(scope="module")
def people_community(graph: Graph) -> Iterator[PeopleFactory]:
    """A factory: `people_community("test_info", seed=5, scale=0.02)` loads a small generated people
    world (the `people` ontology under an id of its own) as the community `<prefix>_<random hex>`,
    not indexed, and returns that id. Every community it loaded is deleted with its ontology when
    the test module ends (a no-op for one the test deleted itself). Module-scoped, so that a
    module-scoped fixture can load once for all its tests; a function-scoped fixture may call it too.
    """
    made: list[str] = []

    def make(prefix: str, *, seed: int = 3, scale: float = 0.05) -> str:
        cid = f"{prefix}_{uuid.uuid4().hex[:10]}"
        onto = dataclasses.replace(read_ontology(PEOPLE_ONTOLOGY), id=f"{cid}_onto")
        tf = read_triples_text(generate(seed=seed, scale=scale).tsv(), "tsv", onto, cid)
        made.append(cid)
        GraphLoader(graph, batch_size=500, progress=False).load(tf.dataset)
        return cid

    try:
        yield make
    finally:
        for cid in made:
            delete_community(graph, cid, drop_ontology=True)


def copy_graph_file(source: Traversable, community: str, target: Path) -> Path:
    """A graph file of `source`'s entities and relationships under a community and ontology of the
    test's own: ids `COMMUNITY:id`, ontology `COMMUNITY_onto` (written to `target`)."""
    data = yaml.safe_load(source.read_text(encoding="utf-8"))
    onto = f"{community}_onto"
    data["ontology"]["id"] = onto
    data["community"] = {"id": community, "ontology_id": onto}
    for e in data["entities"]:
        e["id"] = f"{community}:{e['id']}"
    for r in data["relationships"]:
        r["source"], r["target"] = f"{community}:{r['source']}", f"{community}:{r['target']}"
    target.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return target


@pytest.fixture(scope="module")
def demo_copy(graph: Graph, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The demo graph's entities and relationships in a community of the test's own (no story
    document), loaded and indexed; deleted afterwards with its ontology and clusters."""
    cid = f"test_demo_copy_{uuid.uuid4().hex[:10]}"
    path = copy_graph_file(DATA / "bob.yaml", cid, tmp_path_factory.mktemp("demo_copy") / "bob.yaml")
    try:
        _load("graph", str(path))
        yield cid
    finally:
        delete_community(graph, cid, drop_ontology=True)


@pytest.fixture(params=["sqlite", pytest.param("neo4j", marks=pytest.mark.integration)])
def session_store(request: pytest.FixtureRequest) -> Iterator[Any]:
    """Builds session stores of one kind: SQLite in memory, or Neo4j under a scope of this test's own
    (its sessions removed afterwards); the session tests run against both."""
    from pathrag_gds.api.sessions import Neo4jSessionStore, SessionStore

    made: list[Neo4jSessionStore] = []
    if request.param == "sqlite":

        def sqlite_store(ttl: float, max_sessions: int, **kw: Any) -> SessionStore:
            return SessionStore(ttl, max_sessions, **kw)

        yield sqlite_store
        return
    graph = request.getfixturevalue("graph")

    def neo4j_store(ttl: float, max_sessions: int, **kw: Any) -> Neo4jSessionStore:
        store = Neo4jSessionStore(graph, ttl, max_sessions, scope=f"test-{uuid.uuid4().hex}", **kw)
        made.append(store)
        return store

    try:
        yield neo4j_store
    finally:
        for store in made:
            store.clear()
