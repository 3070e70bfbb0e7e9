"""ledger: a domain-free event store with a double-entry ledger.

Public API: `append`, `open_account`, `NewEvent`, `Posting`, `Metadata`,
`AppendResult`, `RecordedEvent`, `verify_chain`, `verify_ledger`,
`rebuild_projections`, the reads of `ledger.read` (`stream_version`,
`stream_events`, `events`, `balances`, `head`, `recorded_result`,
`recorded_request`, and the log's models for read-only querysets), the
`LedgerError` family, `GENESIS_HASH`, `request_fingerprint`, the admin's
`ReadOnlyAdmin`/`ReadOnlyInline`, `stop_writer`, and
`ledger.projections.register`; money between books (`ledger.transfers`:
`transfer`, `transfer_atomic`, `transfer_two_phase`, the phases `begin`,
`receive`, `refuse`, `resolve`, the sweep `resolve_pending`, `status`,
`TransferStatus`, `TransferResult`); the feed over many books
(`ledger.feed`: `read_feed`, `book_heads`, `encode_cursor`,
`decode_cursor`, `BookHead`, `FeedPage`, and its errors `FeedErrorCode`,
`InvalidCursor`, `UnknownBook`). An import contract holds the apps to these:
they import `ledger`, `ledger.read` and `ledger.projections`, nothing else
(pyproject.toml's import-linter contracts name the modules they may not
import). Nothing here knows about casinos; `casino.*` builds on it, never
the reverse.

Books (issue 19, `ledger.books`, migration 0007): the log is partitioned
into books, each with its own gap-free positions (book b holds
(b-1)*2^40+1 .. b*2^40), hash chain, seals and writer lock, so books append
in parallel. Every guarantee below holds per book; an event posts only to
its own book's accounts and extends only its own book's streams, and money
moves between books as two events through clearing accounts
(`ledger.transfers`). Book 1, `main`, holds everything the casino apps
write. A directory (`ledger.placement`, migration 0008) says which database
holds each book. tests/ledger/test_books.py proves L1-L9 per book.

Guarantees (each enforced where stated and proven by the named tests):

L1  Immutable. Events, postings and idempotency records are never updated or
    deleted: PostgreSQL triggers reject UPDATE, DELETE and TRUNCATE for every
    role (migration 0002); the admin is read-only.
    tests/ledger/test_immutability.py
L2  Gap-free, commit-ordered positions. A book's positions run on from its
    first with no gap and become visible in order: the book's writer lock is
    held through commit; an insert trigger refuses a non-contiguous position
    and moves the book's head.
    tests/ledger/test_concurrency.py, test_immutability.py
L3  Balanced. Each event's postings sum to zero per currency: checked in
    `NewEvent`, again by a statement trigger on insert, again by verify.
    tests/ledger/test_append.py, test_money_properties.py
L4  Accounts hold their constraints, and only the log moves them. No
    posting takes a may-not-go-negative account below zero or any account
    over its maximum: checked per event by the writer against the balance
    it reads under the writer lock, again by CHECK constraints on the
    balance row. That row is written by the log's insert triggers alone (an
    account opens from its event, a balance moves by its postings); any
    other INSERT, UPDATE, DELETE or TRUNCATE is refused for every role,
    superusers included, unless triggers are off or it is a rebuild run by
    the owner (migration 0004). `verify_ledger` recomputes every balance
    from the postings and names the first account that differs (stored and
    recomputed), which is how an edit with triggers off is caught.
    tests/ledger/test_concurrency.py, test_append.py, test_balance_guard.py,
    test_immutability.py, test_verify.py
L5  Currency-true. A posting's currency is its account's: checked by the
    writer, again by the posting insert trigger, one set-based check per
    statement in place of a composite foreign key (row-by-row foreign keys
    cost a third of a batch append, migration 0002; and a rebuild must be
    able to empty ledger_account under the log's postings).
    tests/ledger/test_append.py, test_immutability.py
L6  Optimistic concurrency. An append with a stale expected stream version
    is refused and writes nothing. Stream versions, like balances, are
    moved by the event insert trigger only (migration 0004); on the
    partitioned log the trigger `ledger_event_versions_continue` refuses a
    version that does not continue its stream (migration 0009).
    tests/ledger/test_append.py, test_balance_guard.py
L7  Idempotent. A repeated key with the same request returns the original
    result and writes nothing; with a different request it is refused.
    tests/ledger/test_idempotency.py
L8  Tamper-evident. hash = sha256(prev_hash || canonical event) over each
    book's order, from the genesis hash; `verify_ledger` names the first altered, missing or
    reordered position. tests/ledger/test_verify.py
L9  Rebuildable. Every projection is a function of the log: a rebuild
    reproduces the live tables exactly. `verify_ledger` rebuilds every
    registered projection into a scratch schema and names the first table
    and row that differ from the live one (or the projection whose rebuild
    fails). tests/ledger/test_rebuild.py, test_money_properties.py,
    test_verify.py, tests/casino/test_rebuild_everything.py
"""

from typing import TYPE_CHECKING, Any

_EXPORTS = {
    "append": "ledger.writer",
    "open_account": "ledger.accounts",
    "account_stream": "ledger.accounts",
    "NewEvent": "ledger.types",
    "Posting": "ledger.types",
    "Metadata": "ledger.types",
    "AppendResult": "ledger.types",
    "RecordedEvent": "ledger.types",
    "verify_chain": "ledger.verify",
    "verify_ledger": "ledger.verify",
    "rebuild_projections": "ledger.rebuild",
    "stream_version": "ledger.read",
    "stream_events": "ledger.read",
    "balances": "ledger.read",
    "recorded_result": "ledger.read",
    "LedgerError": "ledger.errors",
    "LedgerErrorCode": "ledger.errors",
    "InvariantViolation": "ledger.errors",
    "AccountExists": "ledger.errors",
    "BalanceMaxExceeded": "ledger.errors",
    "IdempotencyConflict": "ledger.errors",
    "InsufficientFunds": "ledger.errors",
    "StaleVersion": "ledger.errors",
    "UnknownAccount": "ledger.errors",
    "GENESIS_HASH": "ledger.canonical",
    "request_fingerprint": "ledger.canonical",
    "stop_writer": "ledger.writer",
    "ReadOnlyAdmin": "ledger.admin",
    "ReadOnlyInline": "ledger.admin",
    # Money between books (ledger.transfers): the whole transfer, its phases
    # (begin in the source book, receive or refuse in the target, resolve in
    # the source) and the sweep of pending ones.
    "transfer": "ledger.transfers",
    "transfer_atomic": "ledger.transfers",
    "transfer_two_phase": "ledger.transfers",
    "begin": "ledger.transfers",
    "receive": "ledger.transfers",
    "refuse": "ledger.transfers",
    "resolve": "ledger.transfers",
    "resolve_pending": "ledger.transfers",
    "status": "ledger.transfers",
    "TransferStatus": "ledger.transfers",
    "TransferResult": "ledger.transfers",
    # One feed over many books (ledger.feed): pages after a vector cursor.
    "read_feed": "ledger.feed",
    "book_heads": "ledger.feed",
    "encode_cursor": "ledger.feed",
    "decode_cursor": "ledger.feed",
    "BookHead": "ledger.feed",
    "FeedPage": "ledger.feed",
    "FeedErrorCode": "ledger.errors",
    "InvalidCursor": "ledger.errors",
    "UnknownBook": "ledger.errors",
    # One request across books of one database (ledger.crossbook), and the
    # runtime's way to open a book (migration 0013).
    "append_across": "ledger.crossbook",
    "CROSSBOOK_LEG": "ledger.crossbook",
    "recorded_across": "ledger.crossbook",
    "ensure_book": "ledger.books",
    # Which book a position belongs to, and a book's key (the feed's `book`).
    "book_of": "ledger.books",
    "base_position": "ledger.books",
    "local_position": "ledger.books",
    "book_key": "ledger.books",
}

__all__ = sorted(_EXPORTS)

if TYPE_CHECKING:
    from ledger.accounts import account_stream, open_account
    from ledger.admin import ReadOnlyAdmin, ReadOnlyInline
    from ledger.canonical import GENESIS_HASH, request_fingerprint
    from ledger.errors import (AccountExists, BalanceMaxExceeded, FeedErrorCode,
                               IdempotencyConflict, InsufficientFunds, InvalidCursor,
                               InvariantViolation, LedgerError, LedgerErrorCode,
                               StaleVersion, UnknownAccount, UnknownBook)
    from ledger.feed import BookHead, FeedPage, book_heads, decode_cursor, encode_cursor, read_feed
    from ledger.read import balances, recorded_result, stream_events, stream_version
    from ledger.rebuild import rebuild_projections
    from ledger.transfers import (TransferResult, TransferStatus, begin, receive, refuse, resolve,
                                  resolve_pending, status, transfer, transfer_atomic,
                                  transfer_two_phase)
    from ledger.types import AppendResult, Metadata, NewEvent, Posting, RecordedEvent
    from ledger.verify import verify_chain, verify_ledger
    from ledger.writer import append, stop_writer


def __getattr__(name: str) -> Any:
    # Lazy: Django imports this package before its models may be loaded.
    module_name = _EXPORTS.get(name)
    if module_name is None:
        raise AttributeError(f"module 'ledger' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(module_name), name)
