"""Two `serve` processes on two ports share their sessions through Neo4j (`PATHRAG_API_SESSIONS=neo4j`):
a session opened on one is read, used and deleted on the other, as behind a load balancer (issue 55).

Real processes over real HTTP; the sessions live under a scope (`PATHRAG_API_SESSIONS_SCOPE`) and a
token of this test's own, removed at the end.
"""

from __future__ import annotations

import os
import secrets
import subprocess
import sys
import time
from collections.abc import Iterator

import pytest
import requests
from pathrag_testutil import free_port

from pathrag_gds.api.sessions import Neo4jSessionStore
from pathrag_gds.config import ROOT_DIR, Settings
from pathrag_gds.graph import Graph

pytestmark = pytest.mark.integration


def _serve(port: int, env: dict[str, str]) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "pathrag_gds", "serve", "--port", str(port), "--workers", "1"],
        cwd=ROOT_DIR,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )


def _wait_up(url: str, proc: subprocess.Popen[str], deadline: float) -> None:
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            pytest.fail(
                f"`serve` exited {proc.returncode}: {proc.stderr.read()[-2000:] if proc.stderr else ''}"
            )
        try:
            if requests.get(f"{url}/healthz", timeout=2).status_code == 200:
                return
        except requests.ConnectionError:
            pass
        time.sleep(0.2)
    pytest.fail(f"`serve` at {url} did not answer /healthz in time")


@pytest.fixture
def two_servers(graph: Graph, settings: Settings) -> Iterator[tuple[str, str, dict[str, str]]]:
    """Two API servers on free ports, sessions in Neo4j; their URLs and the test token's headers."""
    token = secrets.token_urlsafe(24)
    scope = f"test-{secrets.token_hex(8)}"  # this test's own: removed at the end
    env = {k: v for k, v in os.environ.items() if not k.startswith("PATHRAG_API_")}
    env.update(
        PATHRAG_API_SESSIONS="neo4j",
        PATHRAG_API_SESSIONS_SCOPE=scope,
        PATHRAG_API_TOKEN=token,
        PATHRAG_API_SESSION_TTL_S="120",
        NEO4J_URI=settings.neo4j_uri,
        PYTHONPATH=str(ROOT_DIR),
    )
    password = settings.resolved_password()  # a URI given names an outside server: no password file read
    if password:
        env["NEO4J_PASSWORD"] = password
    procs = []
    urls = []
    try:
        for _ in range(2):
            port = free_port()
            procs.append(_serve(port, env))
            urls.append(f"http://127.0.0.1:{port}")
        deadline = time.monotonic() + 120
        for url, proc in zip(urls, procs, strict=True):
            _wait_up(url, proc, deadline)
        yield urls[0], urls[1], {"Authorization": f"Bearer {token}"}
    finally:
        for proc in procs:
            proc.terminate()
        for proc in procs:
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        Neo4jSessionStore(graph, 1, 1, scope=scope).clear()


def test_a_session_opened_on_one_server_is_used_and_deleted_on_the_other(
    two_servers: tuple[str, str, dict[str, str]],
) -> None:
    a, b, auth = two_servers
    r = requests.post(
        f"{a}/v1/sessions", json={"mode": "local", "hop_depth": 2, "top_n": 4}, headers=auth, timeout=30
    )
    assert r.status_code == 201, r.text
    sid = r.json()["session_id"]
    got = requests.get(f"{b}/v1/sessions/{sid}", headers=auth, timeout=30)
    assert got.status_code == 200, got.text
    assert got.json()["hop_depth"] == 2 and got.json()["top_n"] == 4 and got.json()["mode"] == "local"
    assert got.json()["expires_at"] >= r.json()["expires_at"]  # used on b: its life extended there
    other = {"Authorization": "Bearer " + secrets.token_urlsafe(24)}  # not a token of these servers
    assert requests.get(f"{b}/v1/sessions/{sid}", headers=other, timeout=30).status_code == 403
    assert requests.delete(f"{b}/v1/sessions/{sid}", headers=auth, timeout=30).status_code == 204
    for url in (a, b):
        gone = requests.get(f"{url}/v1/sessions/{sid}", headers=auth, timeout=30)
        assert gone.status_code == 404 and gone.json()["error"]["code"] == "session_not_found", gone.text
