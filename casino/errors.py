"""The base of every casino app's operating errors.

An error carries a stable `code` (a StrEnum member, never renamed), a
sentence for people and `details` for machines. Its HTTP status is not the
raise site's to say: it is the code's row in the one error table
(casino.error_table), read by `status` and by casino.exception_handler.
Programmer errors are not CodedErrors.
"""

from __future__ import annotations

from typing import Any

from casino.error_table import status_for


class CodedError(Exception):
    def __init__(self, code: str, message: str, **details: Any) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.details = details

    @property
    def status(self) -> int:
        """The code's one HTTP status (casino.error_table)."""
        return status_for(self.code)
