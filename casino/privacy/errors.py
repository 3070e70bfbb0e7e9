"""Erasure errors, each with a stable code (never renamed)."""

from enum import StrEnum

from casino.errors import CodedError


class PrivacyErrorCode(StrEnum):
    UNKNOWN_PLAYER = "privacy.unknown_player"
    """No registered player with this id: 404."""
    RETENTION_NOT_OVER = "privacy.retention_not_over"
    """The player's records are still within their retention period: 409."""
    ERASURE_NOT_PROPOSED = "privacy.erasure_not_proposed"
    """No erasure of this player is waiting for its second officer: 409."""
    ERASURE_EXISTS = "privacy.erasure_exists"
    """An erasure of this player is already proposed or done: 409."""
    APPROVER_IS_PROPOSER = "privacy.approver_is_proposer"
    """The officer who proposed an erasure may not approve it: 403."""
    INVALID_REQUEST = "privacy.invalid_request"
    """A reason missing or too long: 400."""


class PrivacyError(CodedError):
    """An erasure request refused."""
