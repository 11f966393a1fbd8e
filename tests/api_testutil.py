"""A real uvicorn server in a thread on a loopback port, and the API's error-shape check (HTTP tests)."""

from __future__ import annotations

import secrets
import threading
import time
from typing import Any

import requests
import uvicorn
from fastapi import FastAPI
from pathrag_testutil import free_port

from pathrag_gds.api.app import app_state
from pathrag_gds.api.server import uvicorn_config

#: The bearer token of the servers that have one.
TOKEN = secrets.token_urlsafe(24)
AUTH = {"Authorization": f"Bearer {TOKEN}"}


class ServerThread:
    """uvicorn serving an app on a free loopback port, in a thread."""

    def __init__(self, app: FastAPI) -> None:
        self.app = app
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        # the same uvicorn options as `serve` (h11, header limit, read and keep-alive timeouts)
        config = uvicorn_config(
            app, app_state(app).settings, host="127.0.0.1", port=self.port, log_level="warning"
        )
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, name="test-uvicorn", daemon=True)

    def __enter__(self) -> ServerThread:
        self.thread.start()
        deadline = time.monotonic() + 30
        while not self.server.started:
            assert self.thread.is_alive(), "uvicorn did not start"
            assert time.monotonic() < deadline, "uvicorn did not start within 30 s"
            time.sleep(0.05)
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(15)

    def post(self, path: str, body: Any = None, headers: dict[str, str] | None = None, **kw: Any) -> Any:
        return requests.post(
            self.url + path, json=body, headers=AUTH if headers is None else headers, timeout=60, **kw
        )

    def get(self, path: str, headers: dict[str, str] | None = None) -> Any:
        return requests.get(self.url + path, headers=AUTH if headers is None else headers, timeout=60)


def assert_error(resp: Any, status: int, code: str, *words: str) -> dict[str, Any]:
    assert resp.status_code == status, resp.text
    body = resp.json()
    assert set(body) >= {"error"} and set(body["error"]) >= {"code", "message"}, body
    assert body["error"]["code"] == code, body
    for w in words:
        assert w.lower() in body["error"]["message"].lower(), body
    assert "Traceback" not in resp.text and 'File "' not in resp.text
    err: dict[str, Any] = body["error"]
    return err
