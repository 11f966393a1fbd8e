"""`serve` tries its listen address first: a busy port is one line and exit 1 (issue 53).

uvicorn found a busy port only after the app had started its threads; its exit then aborted the
process (`terminate called without an active exception`, exit 134) in most tries. No database is
needed: `serve` stops before it builds the app.
"""

from __future__ import annotations

import socket
from collections.abc import Iterator

import pytest
from pathrag_testutil import free_port, run_cli

from pathrag_gds.commands.serve import listen_problem


@pytest.fixture
def busy_port() -> Iterator[int]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        yield s.getsockname()[1]


def test_serve_on_a_busy_port_exits_1_with_one_line(busy_port: int) -> None:
    for _ in range(3):  # the abort came in 5 of 7 tries: the check must hold every time
        proc = run_cli("serve", "--port", str(busy_port), timeout=120)
        assert proc.returncode == 1, (proc.returncode, proc.stderr[-800:])
        err = proc.stderr.strip()
        assert err == (
            f"error: port {busy_port} on 127.0.0.1 is in use (another `serve`, or another program): stop it, "
            f"or pass another --port (e.g. --port {busy_port + 1})"
        )
        assert "Started server process" not in proc.stderr, "nothing starts before the port is known free"


def test_listen_problem_names_what_to_change(busy_port: int) -> None:
    assert listen_problem("127.0.0.1", free_port()) is None
    assert "is in use" in (listen_problem("127.0.0.1", busy_port) or "")
    assert "is not an address of this machine" in (listen_problem("192.0.2.1", 8000) or "")  # TEST-NET-1
    assert "does not resolve" in (listen_problem("no-such-host.invalid", 8000) or "")
