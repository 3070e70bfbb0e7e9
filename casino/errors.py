"""The base of every casino app's operating errors.

An error carries a stable `code` (a StrEnum member, never renamed), an HTTP
`status` for the API (casino.exception_handler), a sentence for people and
`details` for machines. Programmer errors are not CodedErrors.
"""

from __future__ import annotations

from typing import Any


class CodedError(Exception):
    status = 422

    def __init__(self, code: str, message: str, status: int | None = None,
                 **details: Any) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.details = details
        if status is not None:
            self.status = status
