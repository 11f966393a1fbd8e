"""`python -m pathrag_gds mcp` with the `mcp` SDK's own clients, against the live Neo4j (read only).

Over stdio (the client spawns the server) and streamable HTTP (a server process on a free loopback
port): the tools are listed, the demo question is answered Whiskerville, and a caller scoped to
other communities (by `--community` or by its bearer token) neither sees nor queries the demo.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from pathrag_testutil import free_port

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]
DEMO = "DefaultCommunity_FictionalStories"
QUESTION = "In which village was Bob when the milk was spilled?"
OTHER = "test_mcp_no_such_community"
TOKEN_DEMO = "demo-token-0123456789abcdef"
TOKEN_OTHER = "other-token-0123456789abcdef"


def _env(**extra: str) -> dict[str, str]:
    keep = (
        "NEO4J_URI",
        "NEO4J_USER",
        "NEO4J_PASSWORD",
        "NEO4J_DATABASE",
        "PATHRAG_MODELS_DIR",
        "PATH",
        "HOME",
    )
    env = {k: os.environ[k] for k in keep if k in os.environ}
    env.update(extra)
    return env


def _payload(result: Any) -> Any:
    assert not result.is_error, result.content
    if result.structured_content is not None:
        data = result.structured_content
        return data.get("result", data) if set(data) == {"result"} else data
    return json.loads(result.content[0].text)


def _stdio(*args: str, **env: str) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable, args=["-m", "pathrag_gds", "mcp", *args], cwd=str(ROOT), env=_env(**env)
    )


def test_stdio_lists_tools_and_answers_the_demo_question() -> None:
    async def main() -> None:
        async with Client(_stdio()) as client:
            tools = {t.name for t in (await client.list_tools()).tools}
            assert tools == {"query", "intent", "communities"}
            ids = [c["id"] for c in _payload(await client.call_tool("communities", {}))]
            assert DEMO in ids
            answer = _payload(
                await client.call_tool("query", {"question": QUESTION, "community": DEMO, "top_n": 3})
            )
            assert answer["answer"].startswith("Whiskerville"), answer["answer"]
            assert answer["community_id"] == DEMO and answer["paths"]
            intent = _payload(await client.call_tool("intent", {"question": QUESTION, "community": DEMO}))
            assert intent["kind"]

    anyio.run(main)


def test_stdio_community_allow_list_hides_the_demo() -> None:
    async def main() -> None:
        async with Client(_stdio("--community", OTHER)) as client:
            ids = [c["id"] for c in _payload(await client.call_tool("communities", {}))]
            assert DEMO not in ids
            for tool in ("query", "intent"):
                res = await client.call_tool(tool, {"question": QUESTION, "community": DEMO})
                assert res.is_error and "may not query" in res.content[0].text

    anyio.run(main)


@pytest.fixture
def http_server(tmp_path: Path) -> Iterator[str]:
    """`mcp --transport http` on a free loopback port, with two tokens scoped to one community each."""
    tokens = tmp_path / "tokens.json"
    tokens.write_text(json.dumps({TOKEN_DEMO: [DEMO], TOKEN_OTHER: [OTHER]}), encoding="utf-8")
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "pathrag_gds", "mcp", "--transport", "http", "--port", str(port)],
        cwd=ROOT,
        env=_env(PATHRAG_API_TOKENS_FILE=str(tokens)),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            assert proc.poll() is None, proc.stderr.read().decode() if proc.stderr else ""
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert time.monotonic() < deadline, "the MCP HTTP server did not start"
                time.sleep(0.2)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        if proc.stderr:
            proc.stderr.close()


def _http(url: str, token: str | None) -> Any:
    headers = {"Authorization": f"Bearer {token}"} if token else None
    return streamable_http_client(url, http_client=create_mcp_http_client(headers=headers))


def test_http_token_scopes_the_caller(http_server: str) -> None:
    async def main() -> None:
        async with Client(_http(http_server, TOKEN_DEMO)) as client:
            tools = {t.name for t in (await client.list_tools()).tools}
            assert tools == {"query", "intent", "communities"}
            assert [c["id"] for c in _payload(await client.call_tool("communities", {}))] == [DEMO]
            answer = _payload(await client.call_tool("query", {"question": QUESTION, "community": DEMO}))
            assert answer["answer"].startswith("Whiskerville"), answer["answer"]
            # a caller with one community may leave it out
            answer = _payload(await client.call_tool("query", {"question": QUESTION}))
            assert answer["community_id"] == DEMO
        async with Client(_http(http_server, TOKEN_OTHER)) as client:
            assert _payload(await client.call_tool("communities", {})) == []
            for tool in ("query", "intent"):
                res = await client.call_tool(tool, {"question": QUESTION, "community": DEMO})
                assert res.is_error and "may not query" in res.content[0].text
        async with Client(_http(http_server, None)) as client:
            res = await client.call_tool("communities", {})
            assert res.is_error and "401" in res.content[0].text
        async with Client(_http(http_server, "wrong-token-0123456789abcdef")) as client:
            res = await client.call_tool("query", {"question": QUESTION, "community": DEMO})
            assert res.is_error and "403" in res.content[0].text

    anyio.run(main)


def test_stdio_token_settings_scope_the_local_caller(tmp_path: Path) -> None:
    tokens = tmp_path / "tokens.json"
    tokens.write_text(json.dumps({TOKEN_DEMO: [DEMO], TOKEN_OTHER: [OTHER]}), encoding="utf-8")

    async def main() -> None:
        scoped = _stdio(PATHRAG_API_TOKENS_FILE=str(tokens), PATHRAG_MCP_TOKEN=TOKEN_OTHER)
        async with Client(scoped) as client:
            assert _payload(await client.call_tool("communities", {})) == []
            res = await client.call_tool("query", {"question": QUESTION, "community": DEMO})
            assert res.is_error and "may not query" in res.content[0].text
        wrong = _stdio(PATHRAG_API_TOKENS_FILE=str(tokens), PATHRAG_MCP_TOKEN="wrong-token-0123456789abcdef")
        async with Client(wrong) as client:
            res = await client.call_tool("communities", {})
            assert res.is_error and "403" in res.content[0].text

    anyio.run(main)


def test_http_beyond_loopback_needs_a_token() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "pathrag_gds", "mcp", "--transport", "http", "--host", "0.0.0.0"],
        cwd=ROOT,
        env=_env(),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 2 and "refusing to listen on 0.0.0.0" in proc.stderr, proc.stderr
