"""Errors the ledger raises.

Operating errors (a stale version, an overdraft, a reused idempotency key)
are `LedgerError`s carrying a stable `code`; callers turn them into 4xx
answers. Nothing is written when one is raised. Programmer errors in the
money path raise `InvariantViolation`, which `python -O` cannot strip.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any


class LedgerErrorCode(StrEnum):
    INVALID_EVENT = "invalid_event"
    UNBALANCED_POSTINGS = "unbalanced_postings"
    UNKNOWN_ACCOUNT = "unknown_account"
    CURRENCY_MISMATCH = "currency_mismatch"
    ACCOUNT_EXISTS = "account_exists"
    INSUFFICIENT_FUNDS = "insufficient_funds"
    BALANCE_MAX_EXCEEDED = "balance_max_exceeded"
    STALE_VERSION = "stale_version"
    IDEMPOTENCY_CONFLICT = "idempotency_key_reused"


class LedgerError(Exception):
    """An append the ledger refused; nothing was written."""

    code: LedgerErrorCode
    status = 422

    def __init__(self, message: str, **details: Any) -> None:
        super().__init__(message)
        self.message = message
        self.details = details


class InvalidEvent(LedgerError):
    code = LedgerErrorCode.INVALID_EVENT
    status = 400


class UnbalancedPostings(LedgerError):
    code = LedgerErrorCode.UNBALANCED_POSTINGS
    status = 400


class UnknownAccount(LedgerError):
    code = LedgerErrorCode.UNKNOWN_ACCOUNT
    status = 404


class CurrencyMismatch(LedgerError):
    code = LedgerErrorCode.CURRENCY_MISMATCH
    status = 400


class AccountExists(LedgerError):
    code = LedgerErrorCode.ACCOUNT_EXISTS
    status = 409


class InsufficientFunds(LedgerError):
    code = LedgerErrorCode.INSUFFICIENT_FUNDS


class BalanceMaxExceeded(LedgerError):
    code = LedgerErrorCode.BALANCE_MAX_EXCEEDED


class StaleVersion(LedgerError):
    code = LedgerErrorCode.STALE_VERSION
    status = 409


class IdempotencyConflict(LedgerError):
    code = LedgerErrorCode.IDEMPOTENCY_CONFLICT
    status = 409


class InvariantViolation(Exception):
    """A broken guarantee: a bug to fix, never a user error."""
