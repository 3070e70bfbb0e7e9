"""Player errors, each with a stable code."""

from enum import StrEnum
from typing import Any


class PlayerErrorCode(StrEnum):
    UNKNOWN_PLAYER = "unknown_player"
    DUPLICATE_IDENTITY = "duplicate_identity"
    INVALID_PLAYER = "invalid_player"
    ALREADY_VERIFIED = "already_verified"
    SELF_EXCLUSION_ACTIVE = "self_exclusion_active"
    INVALID_SELF_EXCLUSION = "invalid_self_exclusion"
    INVALID_LIMIT = "invalid_limit"


class PlayerError(Exception):
    status = 422

    def __init__(self, code: PlayerErrorCode, message: str, status: int | None = None,
                 **details: Any) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.details = details
        if status is not None:
            self.status = status
