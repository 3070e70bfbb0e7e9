"""The append path: one serial writer per book, with group commit.

Every append takes its book's writer lock (`SELECT ... FOR UPDATE` on the
book's `ledger_head` row) and holds it through its commit; appends to
different books take different rows and never wait for each other's lock
(issue 19). Positions are
therefore assigned and made visible in the same order, so a reader of
`position > n` can never see position n+1 before n (L2). Holding a lock
across the commit's disk flush limits a lone writer to one flush per commit;
group commit wins the throughput back: concurrent callers in one process hand
their requests to a writer thread, which drains what is waiting, checks each
request in order inside one transaction, commits once and answers each caller
with its own result. A refused request (stale version, overdraft, reused key)
is checked before anything is inserted, so it never spoils the others.

One writer thread per DATABASE, not per book: it gathers the waiting
requests of every book placed there and writes them in one transaction
(`write_books`: the books' heads locked in ascending id in one statement,
every book's rows inserted in one statement, one commit), so four books
share one disk flush as one book's callers do. Decision, measured with
benchmarks/books.py (README, Scaling out): a thread per book committed
each book alone, one flush per book per round, and four books wrote about
half as many events per second through the writers as one book
(group_ratio 0.45-0.56 on a quiet box, 0.76-0.78 under load); with one
thread per database four books write 0.83-0.96 of one book's rate, the
rest being each extra book's own head lock and update and its pass of the
insert trigger's per-book loop (about 7 % more per round, writer alone).
A single-book database gets the same thread and the same statements as
before (one book's rate unchanged). A database error in one book of a group
(a book frozen by a move) fails that round's transaction; the writer then
writes book by book, so only that book's requests see it.

A caller already inside `transaction.atomic()` appends directly in its own
transaction instead: its events must commit or roll back with its other
writes, and the writer lock is then held until that transaction ends.
"""

from __future__ import annotations

import concurrent.futures
import json
import logging
import os
import queue
import threading
import time
from collections import defaultdict
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from django.db import DEFAULT_DB_ALIAS, DatabaseError, connections, transaction
from django.utils import timezone
from prometheus_client import Gauge, Histogram

from . import projections
from .canonical import dumps, event_hash, request_fingerprint, timestamp_text
from .errors import (
    AccountExists,
    BalanceMaxExceeded,
    CurrencyMismatch,
    IdempotencyConflict,
    InsufficientFunds,
    InvalidEvent,
    InvariantViolation,
    LedgerError,
    StaleVersion,
    UnknownAccount,
)
from .models import natural_sign
from .store import load_events
from .books import MAIN_BOOK, book_id
from .placement import database_for, forget, is_moved_error
from .types import (
    AMOUNT_MINOR_ABS_MAX,
    KEY_LENGTH_MAX,
    AppendResult,
    Metadata,
    NewEvent,
    RecordedEvent,
)

logger = logging.getLogger(__name__)

# Metrics (issue 18): observed only, no behaviour depends on them. Exposed
# with every other metric at /metrics (casino/ops/metrics.py).
APPEND_SECONDS = Histogram("ledger_append_seconds", "Time of one ledger append, queue wait included")
GROUP_SIZE = Histogram("ledger_group_size", "Requests committed together by the group writer",
                       buckets=(1, 2, 4, 8, 16, 32, 64, 128, 256, 512))
GROUP_BOOKS = Histogram("ledger_group_books", "Books committed together by the group writer",
                        buckets=(1, 2, 4, 8, 16, 32))
WRITER_QUEUE_DEPTH = Gauge("ledger_writer_queue_depth",
                           "Appends waiting for this process's group writer")

EVENTS_PER_APPEND_MAX = 10_000
# A group holds at most this many requests and this many events: the writer
# lock is held while a group is checked and inserted, so its size bounds
# every other writer's wait. One append of the largest size must still fit.
REQUESTS_PER_GROUP_MAX = 512
EVENTS_PER_GROUP_MAX = 10_000
GATHER_YIELDS_MAX = 16
assert EVENTS_PER_APPEND_MAX <= EVENTS_PER_GROUP_MAX, "an append must fit in one group"
from .projections import ACCOUNT_OPENED


@dataclass(frozen=True, slots=True)
class AppendRequest:
    events: tuple[NewEvent, ...]
    expected_versions: Mapping[str, int]
    idempotency_key: str | None
    fingerprint: str | None
    metadata: Mapping[str, str]
    # Accounts whose balances the caller wants after each event besides
    # those it posts to: read in the writer's one account read, so the
    # caller's answer needs no statement of its own.
    report_balances: tuple[str, ...] = ()
    book: int = MAIN_BOOK


def append(
    events: Sequence[NewEvent],
    *,
    expected_versions: Mapping[str, int] | None = None,
    idempotency_key: str | None = None,
    metadata: Metadata | None = None,
    request: Any = None,
    report_balances: Sequence[str] = (),
    book: int | str = MAIN_BOOK,
) -> AppendResult:
    """Append events and their postings atomically; return what was written.

    To `book` (its id or key; the main book by default): its streams, its
    accounts, its next positions. An event may not post to an account of
    another book nor extend a stream of another book (`ledger.books`
    moves money between books).

    `expected_versions` maps a stream to the version it must have now (0: no
    events yet); streams not named are not checked. With `idempotency_key`, a
    repeat of the same request returns the original result and writes
    nothing, and a different request under the same key is refused. The
    request is identified by `request` when given (the caller's own input,
    for commands whose events depend on state) and otherwise by the events'
    streams, types, payloads and postings. Each recorded event carries the
    balances just after it of the accounts it posts to and of
    `report_balances` (`RecordedEvent.balances_after`).

    Raises a `LedgerError` (nothing written): InvalidEvent,
    UnbalancedPostings, UnknownAccount, CurrencyMismatch, AccountExists,
    InsufficientFunds, BalanceMaxExceeded, StaleVersion, IdempotencyConflict.
    """
    append_request = _build_request(events, expected_versions, idempotency_key, metadata, request,
                                    report_balances, book_id(book))
    using = database_for(append_request.book)
    with APPEND_SECONDS.time():
        if connections[using].in_atomic_block:
            outcome = write_group([append_request], using=using)[0]
        else:
            try:
                outcome = _writer(append_request.book, using).submit(append_request)
            except DatabaseError as error:
                # The book was moved and this process's directory entry is
                # stale: the old copy refused (it is frozen). Ask again, once.
                if not is_moved_error(error):
                    raise
                forget(append_request.book)
                moved_to = database_for(append_request.book)
                if moved_to == using:
                    raise
                outcome = _writer(append_request.book, moved_to).submit(append_request)
    if isinstance(outcome, LedgerError):
        raise outcome
    return outcome


def _build_request(
    events: Sequence[NewEvent],
    expected_versions: Mapping[str, int] | None,
    idempotency_key: str | None,
    metadata: Metadata | None,
    request: Any,
    report_balances: Sequence[str] = (),
    book: int = 1,
) -> AppendRequest:
    events = tuple(events)
    if not events:
        raise InvalidEvent("append needs at least one event")
    if len(events) > EVENTS_PER_APPEND_MAX:
        raise InvalidEvent("too many events in one append", events_max=EVENTS_PER_APPEND_MAX)
    for event in events:
        if not isinstance(event, NewEvent):
            raise InvalidEvent("events must be ledger.NewEvent values")
        if event.postings and event.gaming_day is None:
            # Money belongs to a business day, and only the caller knows
            # whose day (a venue's own boundary and zone): the ledger does not
            # guess it from the calendar.
            raise InvalidEvent("an event that moves money must carry its gaming day",
                               stream=event.stream, type=event.type)
    expected = dict(expected_versions or {})
    for stream, version in expected.items():
        if type(version) is not int or version < 0:
            raise InvalidEvent("expected versions must be integers >= 0", stream=stream)
    fingerprint = None
    if idempotency_key is not None:
        if not isinstance(idempotency_key, str) or not 0 < len(idempotency_key) <= KEY_LENGTH_MAX:
            raise InvalidEvent("idempotency key must be 1 to 200 characters")
        if request is None:
            request = [
                [e.stream, e.type, e.schema_version, e.payload,
                 [[p.account, p.amount_minor, p.currency] for p in e.postings]]
                for e in events
            ]
        fingerprint = request_fingerprint(request)
    return AppendRequest(
        events=events,
        expected_versions=expected,
        idempotency_key=idempotency_key,
        fingerprint=fingerprint,
        metadata=(metadata or Metadata()).as_dict(),
        report_balances=tuple(report_balances),
        book=book,
    )


@dataclass(slots=True)
class _AccountState:
    code: str
    type: str
    currency: str
    must_not_go_negative: bool
    balance_max_minor: int | None
    balance_minor: int
    book: int


class _GroupState:
    """What the writer knows while it holds the lock: the database plus the
    effects of the requests already accepted in this group."""

    def __init__(self, cursor, requests: Sequence[AppendRequest], book: int,
                 using: str = DEFAULT_DB_ALIAS, *, locked: Sequence[Any] | None = None) -> None:
        self.book = book
        self.using = using
        if locked is None:
            # The lock, then the reads as a statement of their own: under READ
            # COMMITTED a statement sees the snapshot from when it started, so
            # reads folded into the locking statement would miss whatever the
            # previous lock holder committed while this one waited (a retried
            # key, a new stream version, a balance). `ledger_lock_and_read`
            # (migration 0005) runs the two statements, each with its own
            # snapshot, in one round trip. `_lock_books` locks several books
            # in one statement and passes each its row.
            cursor.execute("SELECT * FROM ledger_lock_and_read(%b::smallint, %b::text[],"
                           " %b::text[], %b::text[])", [book, *_lock_reads(requests)])
            locked = cursor.fetchone()
        self.position, self.hash, self.now, key_rows, stream_rows, account_rows = locked
        self.keys: dict[str, tuple[str, int, int]] = {
            row[0]: (row[1], row[2], row[3]) for row in _json_rows(key_rows)
        }
        stream_rows = _json_rows(stream_rows)
        self.versions: dict[str, int] = {row[0]: row[1] for row in stream_rows}
        # Streams of other books: this book may neither check nor extend them.
        self.foreign_streams: dict[str, int] = {row[0]: row[2] for row in stream_rows
                                                if row[2] != book}
        self.accounts: dict[str, _AccountState] = {
            row[0]: _AccountState(*row) for row in _json_rows(account_rows)
        }
        self.now_text = timestamp_text(self.now)
        self.zone = timezone.get_default_timezone()
        self.recorded: list[RecordedEvent] = []
        # The stored JSON text of each recorded event, the same bytes hashed.
        self.payload_json: list[str] = []
        self.metadata_json: list[str] = []
        self.results_by_key: dict[str, AppendResult] = {}
        self.new_keys: list[tuple[str, str, int, int]] = []

    def apply(self, request: AppendRequest) -> AppendResult:
        """Check one request against the state; on success, extend the state."""
        key = request.idempotency_key
        if key is not None and key in self.keys:
            fingerprint, first, last = self.keys[key]
            if fingerprint != request.fingerprint:
                raise IdempotencyConflict(
                    "this idempotency key was already used for a different request",
                    idempotency_key=key,
                )
            if key in self.results_by_key:
                return AppendResult(self.results_by_key[key].events, replayed=True)
            return AppendResult(tuple(load_events(first, last, self.using)), replayed=True)

        for stream in (*request.expected_versions, *(e.stream for e in request.events)):
            if stream in self.foreign_streams:
                raise InvalidEvent(f"stream {stream} belongs to another book",
                                   stream=stream, book=self.foreign_streams[stream])
        for stream, expected in request.expected_versions.items():
            current = self.versions.get(stream, 0)
            if current != expected:
                raise StaleVersion(
                    f"stream {stream} is at version {current}, not {expected}",
                    stream=stream, expected_version=expected, current_version=current,
                )

        balances: dict[str, int] = {}
        balances_after: list[dict[str, int]] = []
        opened: dict[str, _AccountState] = {}
        for event in request.events:
            if event.type == ACCOUNT_OPENED:
                account = _account_from_payload(event.payload, self.book)
                if account.code in self.accounts or account.code in opened:
                    raise AccountExists(f"account {account.code} already exists", account=account.code)
                opened[account.code] = account
            for posting in event.postings:
                if posting.account in opened:
                    # The postings' insert trigger checks accounts as they stood
                    # before the statement's own account openings: post in a
                    # later append, once the account exists.
                    raise InvalidEvent(f"account {posting.account} is opened by this append;"
                                       " post to it in a later one", account=posting.account)
                account = self.accounts.get(posting.account)
                if account is None:
                    raise UnknownAccount(f"account {posting.account} does not exist",
                                         account=posting.account)
                if account.book != self.book:
                    raise InvalidEvent(
                        f"account {account.code} belongs to another book; money moves"
                        " between books by a transfer through clearing accounts",
                        account=account.code, book=account.book)
                if posting.currency != account.currency:
                    raise CurrencyMismatch(
                        f"account {account.code} holds {account.currency}, not {posting.currency}",
                        account=account.code, currency=posting.currency,
                    )
                before = balances.get(account.code, account.balance_minor)
                balances[account.code] = before + natural_sign(account.type) * posting.amount_minor
            # Constraints hold after every event, not just at the end of the
            # request: a balance is never seen negative, even in between.
            # In posting order, so that when two accounts break their rules
            # the error reported is the same in every process (a set's order
            # follows the per-process string hash seed).
            touched = dict.fromkeys(posting.account for posting in event.postings)
            for code in touched:
                _check_balance(opened.get(code) or self.accounts[code], balances[code])
            after = {code: balances[code] for code in touched}
            for code in request.report_balances:
                if code not in after:
                    known = opened.get(code) or self.accounts.get(code)
                    after[code] = balances.get(code, known.balance_minor if known else 0)
            balances_after.append(after)

        positions_start = self.position
        versions = dict(self.versions)
        prev_hash = self.hash
        recorded = []
        metadata = dict(request.metadata)
        metadata_json = dumps(metadata)
        recorded_at_text = self.now_text
        for offset, event in enumerate(request.events, start=1):
            position = positions_start + offset
            version = versions.get(event.stream, 0) + 1
            versions[event.stream] = version
            if event.occurred_at is None:
                occurred_at, occurred_at_text = self.now, self.now_text
            else:
                occurred_at, occurred_at_text = event.occurred_at, timestamp_text(event.occurred_at)
            gaming_day = event.gaming_day or occurred_at.astimezone(self.zone).date()
            payload_json = dumps(event.payload)
            hash_ = event_hash(
                prev_hash=prev_hash, position=position, stream=event.stream, version=version,
                type=event.type, schema_version=event.schema_version, payload_json=payload_json,
                metadata_json=metadata_json, idempotency_key=key,
                occurred_at_text=occurred_at_text, recorded_at_text=recorded_at_text,
                gaming_day=gaming_day,
                postings=[(p.account, p.amount_minor, p.currency) for p in event.postings],
            )
            recorded.append(RecordedEvent(
                position=position, stream=event.stream, version=version, type=event.type,
                schema_version=event.schema_version, payload=event.payload, metadata=metadata,
                idempotency_key=key, occurred_at=occurred_at, recorded_at=self.now,
                gaming_day=gaming_day, prev_hash=prev_hash, hash=hash_,
                postings=event.postings, balances_after=balances_after[offset - 1],
            ))
            self.payload_json.append(payload_json)
            self.metadata_json.append(metadata_json)
            prev_hash = hash_

        # Accepted: fold the request into the group's state.
        self.position = recorded[-1].position
        self.hash = prev_hash
        self.versions = versions
        self.accounts.update(opened)
        for code, balance in balances.items():
            self.accounts[code].balance_minor = balance
        self.recorded.extend(recorded)
        result = AppendResult(tuple(recorded))
        if key is not None:
            self.keys[key] = (request.fingerprint, result.first_position, result.last_position)
            self.results_by_key[key] = result
            self.new_keys.append((key, request.fingerprint, result.first_position,
                                  result.last_position))
        return result


def _lock_reads(requests: Sequence[AppendRequest]) -> tuple[list[str], list[str], list[str]]:
    """The idempotency keys, streams and accounts the lock's read must return
    for `requests` (one book's), each sorted."""
    keys = sorted({r.idempotency_key for r in requests if r.idempotency_key is not None})
    streams = sorted({e.stream for r in requests for e in r.events}
                     | {s for r in requests for s in r.expected_versions})
    accounts = sorted({p.account for r in requests for e in r.events for p in e.postings}
                      | {str(e.payload.get("code")) for r in requests for e in r.events
                         if e.type == ACCOUNT_OPENED}
                      | {code for r in requests for code in r.report_balances})
    return keys, streams, accounts


def _lock_books(cursor, requests_by_book: Mapping[int, Sequence[AppendRequest]],
                using: str) -> dict[int, _GroupState]:
    """Lock each book's head and read what its requests need; return a state per book.

    One book: `ledger_lock_and_read`, as `write_group` has always called it.
    Several: one statement, one round trip, the heads locked in ascending
    id (the order `ledger.transfers` and `ledger.crossbook` take them in,
    so none of them waits for another in a cycle). Every head but the last
    is locked by a plain `SELECT ... ORDER BY id FOR UPDATE` (rows are
    locked in the order they come out, and a head moved meanwhile is
    re-read at its newest version); the last, the highest id, by
    `ledger_lock_and_read`, called LATERAL on the locked heads' aggregate,
    so only once all of them are locked. Its reads (a statement of their
    own, after every lock: migration 0005 says why) serve every book: they
    read keys, streams and accounts by name whatever their book, which is
    how a request learns that a name is another book's. (Calling
    `ledger_lock_and_read` once per book cost about 100 us of server time
    per extra book per round, measured with track_functions.)
    """
    books = sorted(requests_by_book)
    if len(books) == 1:
        book = books[0]
        return {book: _GroupState(cursor, requests_by_book[book], book, using)}
    others, last = books[:-1], books[-1]
    reads = [_lock_reads(requests_by_book[book]) for book in books]
    keys, streams, accounts = (sorted({name for read in reads for name in read[kind]})
                               for kind in range(3))
    cursor.execute(
        "SELECT l.ids, l.positions, l.hashes, r.* FROM ("
        " SELECT array_agg(h.id ORDER BY h.id) AS ids,"
        " array_agg(h.position ORDER BY h.id) AS positions,"
        " array_agg(h.hash ORDER BY h.id) AS hashes FROM ("
        " SELECT id, position, hash FROM ledger_head WHERE id = ANY(%b::smallint[])"
        " ORDER BY id FOR UPDATE) AS h) AS l"
        # `0 * coalesce(cardinality(l.ids), 0)` makes the call depend on the
        # locked heads: a LATERAL call, run after the aggregate has read
        # (locked) them all; it is 0 even when none of them is open here.
        " CROSS JOIN LATERAL ledger_lock_and_read((%b::integer"
        " + 0 * coalesce(cardinality(l.ids), 0))::smallint, %b::text[], %b::text[],"
        " %b::text[]) AS r",
        [others, last, keys, streams, accounts])
    ids, positions, hashes, *locked = cursor.fetchone()
    if ids != others:
        # The last book's call raises this for itself; the others are checked here.
        missing = sorted(set(others) - set(ids or ()))
        raise InvariantViolation(f"ledger: books {missing} are not open in database {using}"
                                 " (the writer retries each book alone)")
    heads = {book: (position, hash_, locked[2])
             for book, position, hash_ in zip(ids, positions, hashes)}
    heads[last] = tuple(locked[:3])
    return {book: _GroupState(cursor, requests_by_book[book], book, using,
                              locked=(*heads[book], *locked[3:]))
            for book in books}


def _json_rows(value: str | list | None) -> list[list[Any]]:
    if value is None:
        return []
    # Django registers a text loader for jsonb only, so json arrives parsed;
    # accept text too in case a deployment's driver set-up differs.
    return json.loads(value) if isinstance(value, str) else value


def _account_from_payload(payload: Mapping[str, Any], book: int) -> _AccountState:
    try:
        return _AccountState(
            code=payload["code"],
            type=payload["type"],
            currency=payload["currency"],
            must_not_go_negative=payload["must_not_go_negative"],
            balance_max_minor=payload["balance_max_minor"],
            balance_minor=0,
            book=book,
        )
    except KeyError as missing:
        raise InvalidEvent(f"{ACCOUNT_OPENED} payload lacks {missing}") from None


def _check_balance(account: _AccountState, balance: int) -> None:
    if abs(balance) > AMOUNT_MINOR_ABS_MAX:
        raise InvalidEvent(f"balance of {account.code} would leave the 64-bit range")
    if account.must_not_go_negative and balance < 0:
        raise InsufficientFunds(
            f"account {account.code} would go negative",
            account=account.code, balance_minor=account.balance_minor, balance_after_minor=balance,
        )
    if account.balance_max_minor is not None and balance > account.balance_max_minor:
        raise BalanceMaxExceeded(
            f"account {account.code} would exceed its maximum balance",
            account=account.code, balance_max_minor=account.balance_max_minor,
            balance_after_minor=balance,
        )


def write_group(requests: Sequence[AppendRequest],
                using: str = DEFAULT_DB_ALIAS) -> list[AppendResult | LedgerError]:
    """Write a group of requests in the current transaction.

    Must run inside `transaction.atomic()`. Returns one outcome per request,
    in order: the result, or the `LedgerError` that refused it. The requests
    of one group are for one book (`write_books` takes several).
    """
    if len({request.book for request in requests}) != 1:
        raise InvariantViolation("a group is written to one book")
    return write_books(requests, using)


def write_books(requests: Sequence[AppendRequest],
                using: str = DEFAULT_DB_ALIAS) -> list[AppendResult | LedgerError]:
    """Write a group of requests to one or more books in the current transaction.

    Must run inside `transaction.atomic()`, on the database `using` that
    holds every book named. Locks the books' heads in ascending id order
    (one statement, `_lock_books`), checks each request in order against
    its own book's state, and inserts every accepted request's rows in one
    statement; the transaction's one commit then makes them durable
    together (the group writer's one WAL flush for all its books). Returns
    one outcome per request, in order: the result, or the `LedgerError` that
    refused it; a refusal in one book never touches another book's
    requests. A database error (a frozen book, a key or stream taken by
    another book of the same group) fails the whole statement: the group
    writer then retries book by book.
    """
    connection = connections[using]
    if not connection.in_atomic_block:
        raise InvariantViolation("write_group must run inside transaction.atomic()")
    if len(requests) > REQUESTS_PER_GROUP_MAX:
        raise InvariantViolation(f"a group holds at most {REQUESTS_PER_GROUP_MAX} requests")
    if sum(len(request.events) for request in requests) > EVENTS_PER_GROUP_MAX:
        raise InvariantViolation(f"a group holds at most {EVENTS_PER_GROUP_MAX} events")
    if not requests:
        raise InvariantViolation("a group holds at least one request")
    requests_by_book: dict[int, list[AppendRequest]] = defaultdict(list)
    for request in requests:
        requests_by_book[request.book].append(request)
    outcomes: list[AppendResult | LedgerError] = []
    with connection.cursor() as cursor:
        states = _lock_books(cursor, requests_by_book, using)
        for request in requests:
            try:
                outcomes.append(states[request.book].apply(request))
            except LedgerError as error:
                outcomes.append(error)
        written = [states[book] for book in sorted(states) if states[book].recorded]
        if written:
            _insert_log(cursor, written)
            if using == DEFAULT_DB_ALIAS:
                # The apps' projections live in the main database, beside the
                # books placed there; a book placed on another server holds
                # the ledger's own projections only (ledger.placement).
                # Ascending book id is ascending position.
                projections.apply([event for state in written for event in state.recorded])
    return outcomes


def _insert_log(cursor, states: Sequence[_GroupState]) -> None:
    """Insert the group's events, postings and idempotency records, every book's.

    One statement (data-modifying CTEs) instead of three, and one for all
    the books of a group: each round trip costs more than the rows it
    carries. The tables' AFTER STATEMENT triggers run once the whole
    statement is done, so they see every row; they check continuity and
    the chain book by book (migration 0007).
    """
    events = [event for state in states for event in state.recorded]
    event_books = [state.book for state in states for _ in state.recorded]
    # A posting is filed under its event's gaming day: the partition key of
    # both tables (migration 0009).
    posting_rows = [
        (e.position, index, p.account, p.amount_minor, p.currency, e.gaming_day, state.book)
        for state in states
        for e in state.recorded
        for index, p in enumerate(e.postings)
    ]
    posting_columns = [list(column) for column in zip(*posting_rows)] or [[]] * 7
    key_rows = [(*key, state.now, state.book) for state in states for key in state.new_keys]
    key_columns = [list(column) for column in zip(*key_rows)] or [[]] * 6
    cursor.execute(
        "WITH new_events AS ("
        " INSERT INTO ledger_event (position, stream, version, type, schema_version, payload,"
        " metadata, idempotency_key, occurred_at, recorded_at, gaming_day, prev_hash, hash,"
        " book)"
        " SELECT * FROM unnest(%b::bigint[], %b::text[], %b::int[], %b::text[],"
        " %b::smallint[], %b::text[]::jsonb[], %b::text[]::jsonb[], %b::text[],"
        " %b::timestamptz[], %b::timestamptz[], %b::date[], %b::text[], %b::text[],"
        " %b::smallint[])"
        "), new_postings AS ("
        " INSERT INTO ledger_posting (event_id, index, account_id, amount_minor, currency,"
        " gaming_day, book)"
        " SELECT * FROM unnest(%b::bigint[], %b::smallint[], %b::text[],"
        " %b::bigint[], %b::text[], %b::date[], %b::smallint[])"
        "), new_keys AS ("
        " INSERT INTO ledger_idempotency (key, fingerprint, first_position, last_position,"
        " recorded_at, book) SELECT * FROM unnest(%b::text[], %b::text[], %b::bigint[],"
        " %b::bigint[], %b::timestamptz[], %b::smallint[])"
        ") SELECT 1",
        [
            [e.position for e in events],
            [e.stream for e in events],
            [e.version for e in events],
            [e.type for e in events],
            [e.schema_version for e in events],
            [text for state in states for text in state.payload_json],
            [text for state in states for text in state.metadata_json],
            [e.idempotency_key for e in events],
            [e.occurred_at for e in events],
            [e.recorded_at for e in events],
            [e.gaming_day for e in events],
            [e.prev_hash for e in events],
            [e.hash for e in events],
            event_books,
            *posting_columns,
            *key_columns,
        ],
    )


class _GroupWriter:
    """A thread that owns one connection to one database and commits the
    requests of every book placed there, in groups: each group in one
    transaction, its books locked together in ascending id order, so the
    books of a database share each commit's disk flush as one book's
    callers do (`write_books`)."""

    def __init__(self, using: str = DEFAULT_DB_ALIAS) -> None:
        self.using = using
        self._queue: queue.SimpleQueue = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._run, name=f"ledger-writer-{using}",
                                        daemon=True)
        self._thread.start()

    def submit(self, request: AppendRequest) -> AppendResult | LedgerError:
        return self.submit_linked((request,))[0]

    def submit_linked(self, requests: Sequence[AppendRequest]
                      ) -> list[AppendResult | LedgerError]:
        """Commit requests together or not at all (a request's parts in several
        books, ledger.crossbook), in a group with others; one outcome each."""
        future: concurrent.futures.Future = concurrent.futures.Future()
        self._queue.put((tuple(requests), future))
        return future.result()

    def stop(self) -> None:
        self._queue.put(None)
        self._thread.join()

    def _run(self) -> None:
        held = None  # a request that did not fit in the last group goes first
        while True:
            item = held if held is not None else self._queue.get()
            if item is None:
                connections[self.using].close()
                return
            # The callers answered by the last commit are waking up to send
            # their next request; without a pause this thread would take the
            # first of them alone. Yield the GIL (never the disk) for as long
            # as each yield brings more requests, so they share the commit.
            waiting = self._queue.qsize()
            for _ in range(GATHER_YIELDS_MAX):
                time.sleep(0)
                arrived = self._queue.qsize()
                if arrived == waiting:
                    break
                waiting = arrived
            group, held = self._drain(item)
            self._commit(group)

    def _drain(self, first: tuple) -> tuple[list[tuple], tuple | None]:
        """Take what is waiting after `first`, up to the group's caps.

        Returns the group and the request that would have broken the events
        cap, if one did: it starts the next group, so order is kept.
        """
        group = [first]
        events = _events(first)
        while len(group) < REQUESTS_PER_GROUP_MAX:
            try:
                item = self._queue.get_nowait()
            except queue.Empty:
                break
            if item is None:
                self._queue.put(None)  # stop after this group
                break
            if events + _events(item) > EVENTS_PER_GROUP_MAX:
                return group, item
            group.append(item)
            events += _events(item)
        return group, None

    def _commit(self, group: list) -> None:
        requests = [request for parts, _ in group for request in parts]
        GROUP_SIZE.observe(len(group))
        books = sorted({request.book for request in requests})
        GROUP_BOOKS.observe(len(books))
        broken: list[tuple[tuple, list]] = []
        try:
            with transaction.atomic(using=self.using):
                outcomes = write_books(requests, self.using)
                answers = _split(group, outcomes)
                broken = [(item, answer) for item, answer in zip(group, answers)
                          if _torn(answer)]
                if broken:
                    raise _Torn
        except _Torn:
            # A linked request had a part refused and another written: the
            # round is undone, the torn requests answered with their refusal,
            # and the rest of the group written again without them.
            # Answered after the rest is written: a refusal names a state
            # (a stream's version) that the rest's commit makes visible, so
            # a caller that reads again at once finds it.
            torn = {id(item) for item, _ in broken}
            rest = [item for item in group if id(item) not in torn]
            if rest:
                self._commit(rest)
            for (_, future), answer in broken:
                future.set_result(answer)
            return
        except BaseException as error:  # noqa: BLE001 - every caller must get an answer
            connection = connections[self.using]
            connection.close_if_unusable_or_obsolete()
            if isinstance(error, DatabaseError):
                connection.close()
            # One book broke the shared transaction: frozen by a move
            # (SQLSTATE 25006 from its insert trigger), or a request that
            # took a key or a stream another book of the group took too.
            # Write book by book, in id order (a linked request alone), so
            # the other books still commit and only the culprit's book sees
            # the error (and then only its culprit, below).
            units = [[item for item in group if len(item[0]) == 1 and item[0][0].book == book]
                     for book in books]
            units = [unit for unit in units if unit] + [[item] for item in group
                                                         if len(item[0]) > 1]
            if len(units) > 1:
                logger.warning("ledger.group_commit_failed",
                               extra={"requests": len(group), "books": len(books)})
                for unit in units:
                    self._commit(unit)
                return
            if len(group) > 1:
                # One request broke the shared transaction (a database error a
                # check should have caught). Retry each alone so the others
                # still commit and only the culprit sees the error.
                logger.warning("ledger.group_commit_failed", extra={"requests": len(group)})
                for item in group:
                    self._commit([item])
                return
            group[0][1].set_exception(error)
            return
        for (_, future), answer in zip(group, answers):
            future.set_result(answer)


class _Torn(Exception):
    """A linked request was written in part: undo the round (`_GroupWriter._commit`)."""


def _events(item: tuple) -> int:
    return sum(len(request.events) for request in item[0])


def _split(group: list, outcomes: list) -> list[list]:
    """The group's outcomes, one list per queued item (a linked request's parts)."""
    answers, at = [], 0
    for parts, _ in group:
        answers.append(outcomes[at:at + len(parts)])
        at += len(parts)
    return answers


def _torn(answer: list) -> bool:
    """Whether a linked request had a part refused while another was written."""
    refused = any(isinstance(outcome, LedgerError) for outcome in answer)
    return refused and any(isinstance(outcome, AppendResult) and not outcome.replayed
                           for outcome in answer)


_writer_lock = threading.Lock()
_writers: dict[str, _GroupWriter] = {}
_writer_pid: int | None = None


def _writer(book: int, using: str = DEFAULT_DB_ALIAS) -> _GroupWriter:
    """This process's writer thread for database `using` (where `book` is
    placed), started on first use: one per database, whatever its books."""
    global _writer_pid
    writer = _writers.get(using)
    if writer is not None and _writer_pid == os.getpid():
        return writer
    with _writer_lock:
        # A forked child (Celery prefork, gunicorn) must not share its
        # parent's threads or connections: it starts its own writers.
        if _writer_pid != os.getpid():
            _writers.clear()
            _writer_pid = os.getpid()
        if using not in _writers:
            _writers[using] = _GroupWriter(using)
        return _writers[using]


def _queue_depth() -> int:
    if _writer_pid != os.getpid():
        return 0
    return sum(writer._queue.qsize() for writer in list(_writers.values()))


WRITER_QUEUE_DEPTH.set_function(_queue_depth)


def stop_writer() -> None:
    """Stop this process's writer threads and close their connections."""
    with _writer_lock:
        if _writer_pid == os.getpid():
            for writer in _writers.values():
                writer.stop()
        _writers.clear()
