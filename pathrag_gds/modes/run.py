"""Dispatch of the modes that are not the local path search (`PathRag.pathrag` calls it)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pathrag_gds.modes import ModeRequest, RetrievalMode
from pathrag_gds.modes.clusters import run_global, run_hybrid
from pathrag_gds.modes.mix import run_mix
from pathrag_gds.results import PathRagResult

if TYPE_CHECKING:  # pragma: no cover
    from pathrag_gds.service import PathRag


def run_mode(service: PathRag, mode: RetrievalMode, request: ModeRequest) -> PathRagResult:
    """Answer a validated request in the global, hybrid or mix mode.

    Raises:
        ValueError: `local` or `naive` (the service runs those itself).
    """
    if mode is RetrievalMode.MIX:
        return run_mix(service, request)
    if mode is RetrievalMode.GLOBAL:
        return run_global(service, request)
    if mode is RetrievalMode.HYBRID:
        return run_hybrid(service, request)
    raise ValueError(f"{mode.value} is run by the service itself")
