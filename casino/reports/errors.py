"""Reports errors, each with a stable code (never renamed)."""

from enum import StrEnum

from casino.errors import CodedError


class ReportsErrorCode(StrEnum):
    INVALID_REQUEST = "invalid_report_request"
    DAY_NOT_ENDED = "day_not_ended"
    HEAD_AHEAD = "head_ahead_of_ledger"
    CHAIN_BROKEN = "chain_broken"
    RANGE_TOO_LONG = "range_too_long"


class ReportsError(CodedError):
    """A report request refused; nothing was written unless the code says so."""
