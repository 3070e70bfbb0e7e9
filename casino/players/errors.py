"""Player errors, each with a stable code."""

from enum import StrEnum

from casino.errors import CodedError


class PlayerErrorCode(StrEnum):
    UNKNOWN_PLAYER = "players.unknown_player"
    DUPLICATE_IDENTITY = "players.duplicate_identity"
    INVALID_PLAYER = "players.invalid_player"
    ALREADY_VERIFIED = "players.already_verified"
    SELF_EXCLUSION_ACTIVE = "players.self_exclusion_active"
    INVALID_SELF_EXCLUSION = "players.invalid_self_exclusion"
    INVALID_LIMIT = "players.invalid_limit"


class PlayerError(CodedError):
    """An operating error of the players app; see casino.errors."""

