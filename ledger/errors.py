"""Errors the ledger raises.

Operating errors (a stale version, an overdraft, a reused idempotency key)
are `LedgerError`s carrying a stable `code` (`ledger.<reason>`) and no HTTP
status: the ledger knows no HTTP, and the casino's one error table
(casino.error_table) maps each code to its status. Nothing is written when
one is raised. Programmer errors in the money path raise
`InvariantViolation`, which `python -O` cannot strip.

Every code the ledger raises is declared here, so that the error table's
test (tests/casino/test_error_table.py, which also walks every LedgerError
subclass of the package) holds each to one HTTP status: `LedgerErrorCode`
for appends and transfers (ledger.transfers raises these), `FeedErrorCode`
for the feed's cursor (ledger.feed re-exports it with its errors).

Precedence. An append that breaks several rules at once is answered with
the first of them in this order, whatever else is wrong (as TigerBeetle
documents its result codes); tests/ledger/test_result_precedence.py walks
the order pair by pair:

1. `ledger.invalid_event`, `ledger.unbalanced_postings`: the request's own form, checked
   before the writer lock (an event without its gaming day, postings that
   do not sum to zero, a key that is too long).
2. `ledger.idempotency_key_reused`: a recorded key with another request. A
   recorded key with the same request answers the recorded result, so
   nothing below is checked for it.
3. `ledger.stale_version`: an expected stream version that is not the current one.
4. Then event by event, in the request's order, and within an event:
   a. `ledger.account_exists`: an account opening for a code already open;
   b. posting by posting, in the event's order: `ledger.unknown_account`, then
      `ledger.currency_mismatch`;
   c. account by account, in posting order, after the event's postings:
      `ledger.insufficient_funds` (a may-not-go-negative account below zero), then
      `ledger.balance_max_exceeded`.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any


class LedgerErrorCode(StrEnum):
    INVALID_EVENT = "ledger.invalid_event"
    UNBALANCED_POSTINGS = "ledger.unbalanced_postings"
    UNKNOWN_ACCOUNT = "ledger.unknown_account"
    CURRENCY_MISMATCH = "ledger.currency_mismatch"
    ACCOUNT_EXISTS = "ledger.account_exists"
    INSUFFICIENT_FUNDS = "ledger.insufficient_funds"
    BALANCE_MAX_EXCEEDED = "ledger.balance_max_exceeded"
    STALE_VERSION = "ledger.stale_version"
    IDEMPOTENCY_CONFLICT = "ledger.idempotency_key_reused"


class LedgerError(Exception):
    """An append the ledger refused; nothing was written."""

    code: LedgerErrorCode

    def __init__(self, message: str, **details: Any) -> None:
        super().__init__(message)
        self.message = message
        self.details = details


class InvalidEvent(LedgerError):
    code = LedgerErrorCode.INVALID_EVENT


class UnbalancedPostings(LedgerError):
    code = LedgerErrorCode.UNBALANCED_POSTINGS


class UnknownAccount(LedgerError):
    code = LedgerErrorCode.UNKNOWN_ACCOUNT


class CurrencyMismatch(LedgerError):
    code = LedgerErrorCode.CURRENCY_MISMATCH


class AccountExists(LedgerError):
    code = LedgerErrorCode.ACCOUNT_EXISTS


class InsufficientFunds(LedgerError):
    code = LedgerErrorCode.INSUFFICIENT_FUNDS


class BalanceMaxExceeded(LedgerError):
    code = LedgerErrorCode.BALANCE_MAX_EXCEEDED


class StaleVersion(LedgerError):
    code = LedgerErrorCode.STALE_VERSION


class IdempotencyConflict(LedgerError):
    code = LedgerErrorCode.IDEMPOTENCY_CONFLICT


class FeedErrorCode(StrEnum):
    """The feed's refusals of a cursor (ledger.feed; `ledger.feed.FeedErrorCode` too)."""

    INVALID_CURSOR = "ledger.invalid_cursor"
    UNKNOWN_BOOK = "ledger.unknown_book"


class InvalidCursor(LedgerError):
    """A cursor that is not one this feed made: malformed, or out of range."""

    code = FeedErrorCode.INVALID_CURSOR


class UnknownBook(LedgerError):
    """A cursor naming a book that is not open in this database."""

    code = FeedErrorCode.UNKNOWN_BOOK


class InvariantViolation(Exception):
    """A broken guarantee: a bug to fix, never a user error."""
