"""HTTP API: `python -m pathrag_gds serve` (FastAPI + uvicorn).

Example:
    >>> from pathrag_gds.api import create_app  # doctest: +SKIP
    >>> app = create_app(Settings.from_env())  # doctest: +SKIP
"""

from __future__ import annotations

from pathrag_gds.api.app import create_app, create_app_from_env

__all__ = ["create_app", "create_app_from_env"]
