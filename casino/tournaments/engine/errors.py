"""The engine's refusals: a stable code and the facts, no Django.

The app turns an `EngineError` into a `TournamentError` with the code
`tournaments.<code>` (casino/tournaments/errors.py).
"""

from __future__ import annotations

from typing import Any


class EngineError(Exception):
    """A tournament rule refused an operation."""

    def __init__(self, code: str, message: str, **details: Any) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.details = details
