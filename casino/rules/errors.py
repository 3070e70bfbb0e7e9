"""Rulebook and venue errors, each with a stable code."""

from enum import StrEnum
from typing import Any


class RulesErrorCode(StrEnum):
    INVALID_RULEBOOK = "invalid_rulebook"
    VERSION_EXISTS = "rulebook_version_exists"
    UNKNOWN_RULEBOOK = "unknown_rulebook"
    NO_VERSION_IN_FORCE = "no_rulebook_version_in_force"
    VENUE_EXISTS = "venue_exists"
    UNKNOWN_VENUE = "unknown_venue"
    INVALID_VENUE = "invalid_venue"


class RulesError(Exception):
    code: RulesErrorCode
    status = 422

    def __init__(self, code: RulesErrorCode, message: str, status: int | None = None,
                 **details: Any) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.details = details
        if status is not None:
            self.status = status
