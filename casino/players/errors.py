"""Player errors, each with a stable code."""

from enum import StrEnum

from casino.errors import CodedError


class PlayerErrorCode(StrEnum):
    UNKNOWN_PLAYER = "unknown_player"
    DUPLICATE_IDENTITY = "duplicate_identity"
    INVALID_PLAYER = "invalid_player"
    ALREADY_VERIFIED = "already_verified"
    SELF_EXCLUSION_ACTIVE = "self_exclusion_active"
    INVALID_SELF_EXCLUSION = "invalid_self_exclusion"
    INVALID_LIMIT = "invalid_limit"


class PlayerError(CodedError):
    """An operating error of the players app; see casino.errors."""

