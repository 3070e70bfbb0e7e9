"""Cage errors, each with a stable code (never renamed).

Rule refusals by the compliance pipeline surface as
`casino.compliance.errors.AttemptRejected`; a key reused for another request
as `ledger.errors.IdempotencyConflict`. The codes here are the cage's own.
"""

from enum import StrEnum

from casino.errors import CodedError


class CageErrorCode(StrEnum):
    INVALID_REQUEST = "cage.invalid_request"
    METHOD_NOT_OFFERED = "cage.method_not_offered"
    INSUFFICIENT_FUNDS = "cage.insufficient_funds"
    CHIPS_NOT_OUTSTANDING = "cage.chips_not_outstanding"
    ACCOUNT_CEILING = "cage.account_ceiling"
    CONCURRENT_UPDATE = "cage.concurrent_update"
    WINDOW_NOT_OPEN = "cage.window_not_open"
    """Cash named to a cashier window that has no open shift (issue 17): 409."""


class CageError(CodedError):
    """A cage request refused before or by the ledger; nothing was written."""
