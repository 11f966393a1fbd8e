"""HTTP API: `python -m pathrag_gds serve` (FastAPI + uvicorn).

Example:
    >>> from pathrag_gds.api import create_app  # doctest: +SKIP
    >>> app = create_app(Settings.from_env())  # doctest: +SKIP
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pathrag_gds.api.app import create_app, create_app_from_env

__all__ = ["create_app", "create_app_from_env"]


def __getattr__(name: str) -> Any:
    """Import the app lazily: the CLI reads the request and response models without FastAPI."""
    if name in __all__:
        from pathrag_gds.api import app

        return getattr(app, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
