"""What the routes share: :class:`ApiState` (settings, tokens, service, runner, sessions, database gate).

Kept apart from the application factory so that the routes import it without importing the app.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from dataclasses import dataclass, field
from typing import Any

from pathrag_gds.api.auth import TokenTable
from pathrag_gds.api.dbgate import DatabaseGate
from pathrag_gds.api.runner import SearchRunner
from pathrag_gds.api.sessions import Sessions
from pathrag_gds.config import Settings
from pathrag_gds.errors import PathRagError
from pathrag_gds.scoring import tuned_model_dir
from pathrag_gds.service import PathRag

log = logging.getLogger(__name__)


@dataclass
class ApiState:
    """What the routes share: settings, tokens, the service, the runner, sessions, the database gate."""

    settings: Settings
    tokens: TokenTable
    service: PathRag
    runner: SearchRunner
    sessions: Sessions
    gate: DatabaseGate
    warmup_error: str | None = None
    warmed_up: threading.Event = field(default_factory=threading.Event)
    #: the last /readyz verdict: (time.monotonic(), ready, checks)
    readiness: tuple[float, bool, dict[str, Any]] | None = None
    readiness_lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    #: time.monotonic() of the last re-read of the communities (unknown-community answers)
    communities_read_at: float = 0.0

    @property
    def database_name(self) -> str:
        """The database every query runs against (named in the configuration)."""
        return self.settings.neo4j_database


def app_state(app: Any) -> ApiState:
    """The shared state of an app built by :func:`create_app`."""
    state: ApiState = app.state.api
    return state


def load_models(service: PathRag) -> None:
    """Load the embedder and the scorer (raises `ModelError` when files are missing)."""
    _ = service.embedder
    scorer = service.scorer
    load = getattr(scorer, "load", None)
    if callable(load):
        load()


def warm_up_state(state: ApiState) -> None:
    """Load the models and read the graph facts, so the first request is not slow."""
    try:
        load_models(state.service)
        info = state.service.refresh()
        for community_id in info.communities:  # tuned cross-encoders load now, not on a first query
            if (tuned_model_dir(state.settings, community_id) / "manifest.json").is_file():
                state.service.scorer_for(community_id)
        state.warmup_error = None
    except PathRagError as exc:
        state.warmup_error = str(exc)
        state.gate.guard(exc)
        log.warning("warm-up incomplete: %s", exc)
    except Exception as exc:  # keep serving: /readyz reports it
        state.warmup_error = f"{type(exc).__name__}: {exc}"
        log.exception("warm-up failed")
    finally:
        state.warmed_up.set()
