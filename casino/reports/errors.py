"""Reports errors, each with a stable code (never renamed)."""

from enum import StrEnum

from casino.errors import CodedError


class ReportsErrorCode(StrEnum):
    INVALID_REQUEST = "reports.invalid_request"
    DAY_NOT_ENDED = "reports.day_not_ended"
    HEAD_AHEAD = "reports.head_ahead_of_ledger"
    CHAIN_BROKEN = "reports.chain_broken"
    RANGE_TOO_LONG = "reports.range_too_long"


class ReportsError(CodedError):
    """A report request refused; nothing was written unless the code says so."""
