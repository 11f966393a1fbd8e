"""A real local HTTP server speaking the OpenAI chat-completions streaming protocol, for tests.

`FakeChatServer` serves `POST /v1/chat/completions` on a loopback port (stdlib `http.server`, in a
thread), HTTP/1.1 with chunked transfer as Ollama, vLLM and llama.cpp's server send it. With
`stream: true` it answers Server-Sent Events: a role chunk, one chunk per word of the answer, a
finish chunk, a usage chunk without choices, then `data: [DONE]`. The answer is built from the
request, so a test can check what the prompt held: `expected_answer(prompt)` is
`Written from: <the text of Path 1> [1]`.

`mode` switches what it does: `ok`, `500` (an error status with a JSON body), `malformed` (a good
chunk, then one that is not JSON), `hang` (a chunk, then silence for `hang_s`). `stop()` closes the
port (connection refused) and `start()` opens the same port again.
"""

from __future__ import annotations

import json
import re
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from pathrag_testutil import free_port

MODEL = "fake-model"


def expected_answer(prompt: str) -> str:
    """The answer the fake server writes for a user message: from the line of `Path 1`."""
    found = re.search(r"^Path 1: (.*?)(?: \(may answer: [^)]*\))?$", prompt, flags=re.M)
    first = found.group(1) if found else "no path"
    return f"Written from: {first} [1]"


def _chunk(content: str | None = None, *, role: str | None = None, finish: str | None = None) -> bytes:
    delta: dict[str, Any] = {}
    if role is not None:
        delta["role"] = role
    if content is not None:
        delta["content"] = content
    body = {
        "id": "chatcmpl-test",
        "object": "chat.completion.chunk",
        "created": 0,
        "model": MODEL,
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }
    return f"data: {json.dumps(body)}\n\n".encode()


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        pass

    def _send_chunk(self, data: bytes) -> None:
        self.wfile.write(f"{len(data):X}\r\n".encode() + data + b"\r\n")
        self.wfile.flush()

    def do_POST(self) -> None:
        owner = self.server.owner
        length = int(self.headers.get("Content-Length", "0"))
        body = json.loads(self.rfile.read(length))
        owner.requests.append({"path": self.path, "headers": dict(self.headers), "body": body})
        if self.path != "/v1/chat/completions":
            self._plain(404, {"error": {"message": f"no route {self.path}"}})
            return
        if owner.mode == "500":
            self._plain(500, {"error": {"message": "model exploded"}})
            return
        prompt = body["messages"][-1]["content"]
        words = re.findall(r"\S+\s*", expected_answer(prompt))
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Transfer-Encoding", "chunked")
        self.send_header("Connection", "close")
        self.end_headers()
        self._send_chunk(b": a comment line, ignored\n\n" + _chunk(role="assistant"))
        if owner.mode == "malformed":
            self._send_chunk(_chunk(words[0]) + b"data: {this is not json\n\n")
        elif owner.mode == "hang":
            self._send_chunk(_chunk(words[0]))
            time.sleep(owner.hang_s)
        else:
            for word in words:
                self._send_chunk(_chunk(word))
            self._send_chunk(_chunk(finish="stop"))
            usage = {"id": "chatcmpl-test", "choices": [], "usage": {"completion_tokens": len(words)}}
            self._send_chunk(f"data: {json.dumps(usage)}\n\n".encode() + b"data: [DONE]\n\n")
        self.wfile.write(b"0\r\n\r\n")
        self.close_connection = True

    def _plain(self, status: int, payload: dict[str, Any]) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(data)
        self.close_connection = True


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    owner: FakeChatServer


class FakeChatServer:
    """The server (see the module docstring); a context manager. `url` is the API base URL."""

    def __init__(self, mode: str = "ok", hang_s: float = 5.0) -> None:
        self.mode = mode
        self.hang_s = hang_s
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/v1"
        self.requests: list[dict[str, Any]] = []
        self._httpd: _Server | None = None
        self._thread: threading.Thread | None = None

    def start(self) -> FakeChatServer:
        httpd = _Server(("127.0.0.1", self.port), _Handler)
        httpd.owner = self
        self._httpd = httpd
        self._thread = threading.Thread(target=httpd.serve_forever, name="fake-llm", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None
        if self._thread is not None:
            self._thread.join(10)
            self._thread = None

    def __enter__(self) -> FakeChatServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
