"""Optional answer generation: an OpenAI-compatible chat endpoint writes `answer` from the top paths.

Where `PATHRAG_ANSWER_LLM_URL` names such an endpoint (Ollama, vLLM, llama.cpp server, ...), the
answer is written by its model (`PATHRAG_ANSWER_LLM_MODEL`) from the question, the top paths' texts
and their source passages, numbered so the answer can cite them as `[n]` (`answer_prompt`). The call
is `POST {url}/chat/completions` with `"stream": true`; its Server-Sent Events (`data: {...}` chunks
whose `choices[0].delta.content` is the next piece of text, then `data: [DONE]`) are read as they
come, and each token is handed to a callback (the HTTP API streams it on as an `answer_token` event,
the CLI prints it).

Any failure (connection refused, timeout, a status other than 200, a malformed chunk, an error
chunk, a stream cut short, no text) gives the extractive answer (`pathrag_gds.answer`) with
`generated: false` and the reason, and logs a warning: generation never fails a query. Stdlib only
(urllib): the library and the CLI need no HTTP client of their own.

Example:
    >>> list(chunk_tokens(['data: {"choices":[{"delta":{"content":"Jane"}}]}', "", "data: [DONE]"]))
    ['Jane']
"""

from __future__ import annotations

import http.client
import json
import logging
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from pathrag_gds.answer import Answer, extractive_answer
from pathrag_gds.answer_prompt import build_prompt
from pathrag_gds.config import Settings
from pathrag_gds.results import PathRagResult

log = logging.getLogger(__name__)

#: Called with each piece of text as the answer model writes it.
TokenCallback = Callable[[str], None]
#: Longest line of the event stream read at once (a chunk is one line; longer lines are malformed).
MAX_LINE = 1 << 20
#: The reason given when generation is asked for on a server that has no answer model.
NOT_CONFIGURED = (
    "no answer model is configured: set PATHRAG_ANSWER_LLM_URL and PATHRAG_ANSWER_LLM_MODEL "
    "(docs/http-api.md#generated-answers)"
)


class AnswerModelError(Exception):
    """The answer model gave no usable answer; the message says why, in words."""


def wants_generation(settings: Settings, generate: bool | None) -> bool:
    """Whether to ask the answer model: as the call says, else when one is configured."""
    return generate if generate is not None else settings.answer_llm_url is not None


def _malformed(data: str, what: str) -> AnswerModelError:
    shown = data if len(data) <= 120 else data[:120] + "..."
    return AnswerModelError(f"malformed chunk from the answer model ({what}): {shown!r}")


def _error_text(error: Any) -> str:
    if isinstance(error, dict):
        return str(error.get("message") or error)
    return str(error)


def chunk_tokens(lines: Iterable[str]) -> Iterator[str]:
    """The pieces of text of an OpenAI-style chat-completions event stream, line by line.

    Lines other than `data:` (blank lines, `:` comments, `event:`, `id:`) carry no text. A chunk
    without choices (usage statistics) or without `delta.content` (a role, a finish reason) yields
    nothing; `data: [DONE]` ends the stream.

    Raises:
        AnswerModelError: a chunk that is not JSON or not a chat-completion chunk, an `error` chunk,
            or a stream that ends before `[DONE]`.
    """
    for raw in lines:
        line = raw.rstrip("\r\n")
        if not line.startswith("data:"):
            continue
        data = line[5:].strip()
        if data == "[DONE]":
            return
        try:
            chunk = json.loads(data)
        except ValueError:
            raise _malformed(data, "not JSON") from None
        if not isinstance(chunk, dict):
            raise _malformed(data, "not an object")
        if chunk.get("error") is not None:
            raise AnswerModelError(f"the answer model reported an error: {_error_text(chunk['error'])}")
        choices = chunk.get("choices")
        if not isinstance(choices, list):
            raise _malformed(data, "no `choices` list")
        if not choices:
            continue
        first = choices[0]
        delta = first.get("delta") if isinstance(first, dict) else None
        if not isinstance(delta, dict):
            raise _malformed(data, "no `choices[0].delta` object")
        content = delta.get("content")
        if content is not None and not isinstance(content, str):
            raise _malformed(data, "`delta.content` is not a string")
        if content:
            yield content
    raise AnswerModelError("the answer model's stream ended before `data: [DONE]`")


def _request(settings: Settings, messages: list[dict[str, str]]) -> urllib.request.Request:
    body = {
        "model": settings.answer_llm_model,
        "messages": messages,
        "stream": True,
        "max_tokens": settings.answer_llm_max_tokens,
        "temperature": settings.answer_llm_temperature,
    }
    headers = {"Content-Type": "application/json", "Accept": "text/event-stream"}
    if settings.answer_llm_api_key:
        headers["Authorization"] = f"Bearer {settings.answer_llm_api_key}"
    return urllib.request.Request(
        f"{settings.answer_llm_url}/chat/completions",
        data=json.dumps(body, ensure_ascii=False).encode("utf-8"),
        headers=headers,
        method="POST",
    )


def _whole_message(body: bytes) -> Iterator[str]:
    """The text of a non-streamed answer (a server that ignored `stream: true` and sent JSON)."""
    data = body.decode("utf-8", "replace")
    try:
        message = json.loads(data)["choices"][0]["message"]["content"]
    except (ValueError, LookupError, TypeError):
        raise _malformed(data, "a JSON answer without `choices[0].message.content`") from None
    if not isinstance(message, str):
        raise _malformed(data, "`message.content` is not a string")
    yield message


def stream_chat(
    settings: Settings, messages: list[dict[str, str]], *, cancel: threading.Event | None = None
) -> Iterator[str]:
    """Ask the answer model with `stream: true`; yield its text piece by piece.

    `answer_llm_timeout_s` bounds the connection, each wait for the next line, and the whole answer.

    Raises:
        AnswerModelError: unreachable, a timeout, a status other than 200, a malformed stream, or
            `cancel` set.
    """
    timeout = settings.answer_llm_timeout_s
    request = _request(settings, messages)
    where = request.full_url
    deadline = time.monotonic() + timeout
    try:
        response = urllib.request.urlopen(request, timeout=timeout)
    except urllib.error.HTTPError as exc:
        detail = " ".join(exc.read(300).decode("utf-8", "replace").split())
        raise AnswerModelError(f"{where} answered HTTP {exc.code}{': ' + detail if detail else ''}") from None
    except (urllib.error.URLError, OSError, http.client.HTTPException) as exc:
        reason = getattr(exc, "reason", None) or exc
        raise AnswerModelError(f"cannot reach the answer model at {where}: {reason}") from None
    with response:
        if response.headers.get_content_type() == "application/json":
            yield from _whole_message(response.read(MAX_LINE))
            return

        def lines() -> Iterator[str]:
            while True:
                if cancel is not None and cancel.is_set():
                    raise AnswerModelError("cancelled: the caller went away")
                if time.monotonic() > deadline:
                    raise AnswerModelError(f"the answer model did not finish within {timeout:g} s")
                try:
                    raw = response.readline(MAX_LINE)
                except TimeoutError:
                    raise AnswerModelError(f"the answer model sent nothing for {timeout:g} s") from None
                except (OSError, http.client.HTTPException) as exc:
                    raise AnswerModelError(f"the answer model's stream broke off: {exc!r}") from None
                if not raw:
                    return
                yield raw.decode("utf-8", "replace")

        yield from chunk_tokens(lines())


def generate_answer(
    settings: Settings,
    result: PathRagResult,
    *,
    on_token: TokenCallback | None = None,
    cancel: threading.Event | None = None,
) -> Answer | None:
    """The answer model's answer to a result, or the extractive answer saying why not.

    Never raises for the model's sake: every failure is logged and falls back (see the module
    docstring). None when the result holds nothing to answer from (no paths, no clusters).

    Args:
        settings: the answer model's settings (`PATHRAG_ANSWER_LLM_*`).
        result: the retrieved paths (or clusters) and the question.
        on_token: called with each piece of text as it arrives (before the answer is known to be whole).
        cancel: set it to stop reading (the extractive answer is then given).
    """
    extractive = extractive_answer(result.paths, result.clusters, result.query)
    if extractive is None:
        return None
    model = settings.answer_llm_model
    if settings.answer_llm_url is None or model is None:
        return extractive.model_copy(update={"reason": NOT_CONFIGURED})
    prompt = build_prompt(
        result.query,
        result.paths,
        result.clusters,
        max_paths=settings.answer_llm_paths,
        max_passages=settings.answer_llm_passages,
    )
    pieces: list[str] = []
    try:
        for token in stream_chat(settings, prompt.messages, cancel=cancel):
            pieces.append(token)
            if on_token is not None:
                on_token(token)
    except AnswerModelError as exc:
        reason = str(exc)
    except Exception as exc:  # the query has its paths: whatever broke here, answer extractively
        log.exception("answer model %s: unexpected error", model)
        reason = f"unexpected error while reading the answer model: {exc!r}"
    else:
        text = "".join(pieces).strip()
        if text:
            return extractive.model_copy(
                update={"text": text, "generated": True, "model": model, "passages": prompt.passages}
            )
        reason = "the answer model returned no text"
    level = logging.INFO if cancel is not None and cancel.is_set() else logging.WARNING  # caller gone
    log.log(
        level,
        "answer model %s at %s: %s; giving the extractive answer",
        model,
        settings.answer_llm_url,
        reason,
    )
    return extractive.model_copy(update={"model": model, "reason": reason})
