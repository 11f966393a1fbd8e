"""A real uvicorn server in a thread on a loopback port, the API's error-shape check, a slowed search."""

from __future__ import annotations

import secrets
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

import requests
import uvicorn
from fastapi import FastAPI
from pathrag_testutil import free_port

from pathrag_gds.api.app import app_state
from pathrag_gds.api.interrupt import InterruptibleScorer
from pathrag_gds.api.server import uvicorn_config
from pathrag_gds.api.sessions import Sessions
from pathrag_gds.config import Settings
from pathrag_gds.scoring import QuestionScorer, get_scorer
from pathrag_gds.service import PathRag

#: Builds a session store: `(ttl, max_sessions, clock=..., max_per_owner=...)` (the `session_store` fixture).
SessionStoreFactory = Callable[..., Sessions]

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


class SlowScorer:
    """The real scorer, slowed down: each depth takes `delay` more seconds (so a search lasts)."""

    def __init__(self, inner: Any, delay: float) -> None:
        self.inner = inner
        self.delay = delay

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def for_question(self, question: str) -> Any:
        inner: QuestionScorer = self.inner.for_question(question)
        delay = self.delay

        class Slow:
            def score(self, texts: Sequence[str]) -> list[float]:
                time.sleep(delay)
                return list(inner.score(texts))

        return Slow()


def slow_service(settings: Settings, delay: float) -> PathRag:
    """A service whose scorer takes `delay` more seconds per chunk, interruptible like the server's own."""
    return PathRag(settings, scorer=InterruptibleScorer(settings, SlowScorer(get_scorer(settings), delay)))
