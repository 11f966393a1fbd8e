"""How raw model scores become path scores (`Settings.mode`): a name the pure search code can import."""

from __future__ import annotations

from enum import StrEnum


class ScoringMode(StrEnum):
    """How raw model scores become path scores."""

    OPTION_D = "option-d"  #: raw scores, no per-depth normalisation (the spec's default)
    A3 = "a3"  #: min-max within each depth, minus `depth_penalty x depth`
