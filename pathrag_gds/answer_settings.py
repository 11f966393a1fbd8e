"""Settings of optional answer generation: an OpenAI-compatible chat endpoint writes `answer`.

One group of :class:`pathrag_gds.config.Settings` (its variables `PATHRAG_ANSWER_LLM_*`), kept in a
module of its own as the retrieval modes' are (`mode_settings`); docs/settings.md lists them.
"""

from __future__ import annotations

import re

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator


class AnswerModelSettings(BaseModel):
    """Optional answer generation: an OpenAI-compatible chat endpoint writes `answer` from the top paths."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    #: Base URL of an OpenAI-compatible chat API (Ollama `http://localhost:11434/v1`, vLLM, llama.cpp
    #: server): `answer` is then written by that model from the top paths and their source passages,
    #: streamed token by token over SSE (docs/http-api.md#generated-answers). Unset: the extractive
    #: answer alone, no call made. Any failure falls back to the extractive answer.
    answer_llm_url: str | None = None
    #: The model's name on that server (e.g. `llama3.2`); required with `PATHRAG_ANSWER_LLM_URL`.
    answer_llm_model: str | None = Field(None, validate_default=True)
    #: Sent as `Authorization: Bearer ...` (vLLM `--api-key`, hosted endpoints); unset: no header.
    answer_llm_api_key: str | None = None
    #: Seconds the answer model may take to connect, to send each next token, and to finish (checked
    #: between tokens); past it the extractive answer is given. The HTTP API's time limit grows by
    #: twice this for a generated answer, so a slow model never turns a query into a 504.
    answer_llm_timeout_s: float = Field(60.0, gt=0, le=600)
    #: Most tokens the model may write (`max_tokens`).
    answer_llm_max_tokens: int = Field(512, ge=1, le=32768)
    #: Sampling temperature (0: the most likely words, the same answer each time where the server allows).
    answer_llm_temperature: float = Field(0.0, ge=0.0, le=2.0)
    #: Top paths put in the prompt (best first).
    answer_llm_paths: int = Field(5, ge=1, le=50)
    #: Source passages of those paths put in the prompt, numbered for the answer to cite as `[n]`.
    answer_llm_passages: int = Field(8, ge=0, le=50)

    @field_validator("answer_llm_url")
    @classmethod
    def _check_llm_url(cls, v: str | None) -> str | None:
        if v is None:
            return None
        v = v.strip().rstrip("/")
        if not re.fullmatch(r"https?://[^\s/]+(/\S*)?", v):
            raise ValueError("must be an http:// or https:// base URL, e.g. http://localhost:11434/v1")
        return v

    @field_validator("answer_llm_model")
    @classmethod
    def _check_llm_model(cls, v: str | None, info: ValidationInfo) -> str | None:
        if v is not None and not v.strip():
            v = None
        if v is None and info.data.get("answer_llm_url"):
            raise ValueError(
                "must be set when PATHRAG_ANSWER_LLM_URL is: the model's name on that server (e.g. llama3.2)"
            )
        return v
