"""Errors of the cashier windows, each with a stable code (never renamed)."""

from enum import StrEnum

from casino.errors import CodedError


class CashierErrorCode(StrEnum):
    INVALID_REQUEST = "cashier.invalid_request"
    """A malformed count, denomination, place or amount: 400, nothing written."""
    WINDOW_BUSY = "cashier.window_busy"
    """A shift is open on the window already (close it, or hand over): 409."""
    NO_OPEN_SHIFT = "cashier.no_open_shift"
    """The window has no open shift to close or to move cash through: 409."""
    REASON_REQUIRED = "cashier.reason_required"
    """A count that is over or short needs the cashier's reason: 400."""
    SIGNATURES_REQUIRED = "cashier.signatures_required"
    """A transfer needs two signatures by two different people: 400."""
    UNKNOWN_VENUE = "cashier.unknown_venue"
    """No venue with that code: 404."""


class CashierError(CodedError):
    """A cashier request refused; nothing was written."""
