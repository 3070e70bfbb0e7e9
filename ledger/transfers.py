"""Money between books (issue 19, point 2): clearing accounts, atomic and
two-phase transfers.

An account belongs to one book and an event posts only to its own book's
accounts (ledger.books), so a movement of `amount_minor` out of account X in
book A into account Y in book B is two events, one in each book, linked by
a transfer id, each balanced by a clearing account of its own book:

    book A  transfer/<id>/out   X  -s*amount   clearing/<A>/<B>/<C>  +s*amount
    book B  transfer/<id>/in    Y  +s*amount   clearing/<B>/<A>/<C>  -s*amount

where s = natural_sign of X's (and Y's) type: "out of X" lowers X's natural
balance, "into Y" raises Y's. Clearing accounts are assets, opened on first
use by a `ledger.account_opened` event appended just before, in the same
transaction (not in the same append: PostgreSQL's posting trigger checks
accounts as they stood before the statement, `_append_after_opening`). After every
completed transfer, balance(clearing A/B) + balance(clearing B/A) == 0:
what A owes B is what B is owed by A.

Decision: X and Y must be on the same natural side (both debit-normal or
both credit-normal). Out of a liability into an asset would lower the one
and raise the other, and the two clearing legs (+s_X*amount in A,
-s_Y*amount in B) would then no longer cancel: that is the settlement of two
claims, not a movement of money. Every use the issue names (a player's
online funds used at a venue, a jackpot group's pools, a satellite seat's
value) moves a liability into a liability, or cash into cash.

Two ways to move it, both all-or-nothing:

* Atomic (`transfer`, when both books share a database): both events are
  appended in ONE `transaction.atomic()`, books locked in ascending id order
  so two transfers in opposite directions cannot deadlock. Stream versions
  0 make a transfer id usable once; idempotency keys derived from the id
  make a retry return the first result.
* Two-phase (`transfer_two_phase`, books on different databases; callable
  on one database too, so it is tested today), after TigerBeetle's pending
  transfers:
    1. book A `ledger.transfer_pending`: X -> hold `pending/<A>/<B>/<C>`
       (asset), with `expires_at` (now + timeout);
    2. book B decides once, on `transfer/<id>/in` at expected version 0:
       `ledger.transfer_received` (clearing B/A -> Y) or
       `ledger.transfer_refused` (no postings); the first to commit wins and
       the other gets StaleVersion, so a late receive after a refusal (and a
       refusal after a receive) is impossible;
    3. book A, on `transfer/<id>/out` at expected version 1:
       `ledger.transfer_posted` (hold -> clearing A/B) after a receive, or
       `ledger.transfer_voided` (hold -> X) after a refusal.
  `resolve(transfer_id, now)` drives one transfer forward from whatever
  phase it stopped at; `resolve_pending(now)` sweeps every pending one
  (`manage.py resolve_transfers`, the beat task
  `casino.ops.tasks.resolve_transfers`). A transfer B has not decided by its
  `expires_at` is refused at B (which then can never receive it) and voided.

Refusals raise ledger errors and write nothing: an unknown account
(`ledger.unknown_account`), an account of another book, the same book on
both sides, an amount that is not a positive integer, accounts on opposite
sides, a clearing or hold account named as X or Y (`ledger.invalid_event`),
a currency other than the accounts' (`ledger.currency_mismatch`), too
little in X (`ledger.insufficient_funds`, from the writer under the book's
lock), too much in Y (`ledger.balance_max_exceeded`, atomic path; in the
two-phase path B refuses and the transfer is voided).

Databases. The placement directory (`ledger.placement.database_for`)
names each book's database: `_database(book)` asks it, and
`_same_database(a, b)` chooses the path. Every read here goes to the
book's own database (`connections[alias]`); the appends go through
`ledger.append`, which routes each book to its database by itself. The
public functions that take a transfer id take `using`, the database where
to look for its source stream first (a moved book's live copy is then
found through the directory); `resolve_pending` sweeps every database
that holds books, each for the books placed there.
"""

from __future__ import annotations

import datetime as dt
import json
import logging
import re
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Callable, Mapping

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, connections, transaction

from .books import book_id, book_key
from .placement import database_for, placed_books
from .errors import (AccountExists, CurrencyMismatch, IdempotencyConflict, InvalidEvent,
                     LedgerError, StaleVersion, UnknownAccount)
from .models import AccountType, natural_sign
from .projections import ACCOUNT_OPENED
from .types import AMOUNT_MINOR_ABS_MAX, Metadata, NewEvent, Posting
from .writer import append

logger = logging.getLogger(__name__)

__all__ = [
    "TRANSFER_SENT", "TRANSFER_PENDING", "TRANSFER_RECEIVED", "TRANSFER_REFUSED",
    "TRANSFER_POSTED", "TRANSFER_VOIDED", "TIMEOUT_SECONDS_DEFAULT", "TransferStatus",
    "TransferResult", "clearing_account", "hold_account", "transfer", "transfer_atomic",
    "transfer_two_phase", "begin", "receive", "refuse", "resolve", "resolve_pending",
    "status", "pending_transfers",
]

TRANSFER_SENT = "ledger.transfer_sent"          # atomic path, book A
TRANSFER_PENDING = "ledger.transfer_pending"    # two-phase 1, book A
TRANSFER_RECEIVED = "ledger.transfer_received"  # both paths, book B
TRANSFER_REFUSED = "ledger.transfer_refused"    # two-phase 2, book B
TRANSFER_POSTED = "ledger.transfer_posted"      # two-phase 3, book A
TRANSFER_VOIDED = "ledger.transfer_voided"      # two-phase 3, book A

# Decision: a hold lasts 5 minutes unless the caller or the setting
# LEDGER_TRANSFER_TIMEOUT_SECONDS says otherwise (the brief's default): long
# enough for a book on another server to answer through a failover, short
# enough that a player's funds are not held from them for long.
TIMEOUT_SECONDS_DEFAULT = 300
TIMEOUT_SECONDS_MAX = 7 * 24 * 3600
# The id is part of stream names and keys (at most 200 characters each).
TRANSFER_ID_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._:-]{0,99}$")
# The sweep reads pending transfers in pages of this many.
PENDING_PAGE_MAX = 500
# A sweep stops after this many pages (a named bound on its loop); the next
# run continues.
PENDING_PAGES_MAX = 1_000
CLEARING_PREFIX = "clearing/"
HOLD_PREFIX = "pending/"

# A crash injected by tests: called with the name of the point just passed
# ("pending", "decided", "refused", "between_books"); raising stops there.
Hook = Callable[[str], None]


class TransferStatus(StrEnum):
    PENDING = "pending"    # phase 1 written; B has not decided, or A not yet told
    POSTED = "posted"      # the money is in Y (atomic, or two-phase posted)
    VOIDED = "voided"      # the money is back in X


@dataclass(frozen=True, slots=True)
class TransferResult:
    """Where a transfer stands: its status and the positions of its events.

    `source_positions` are the events of `transfer/<id>/out` (book A) and
    `target_positions` those of `transfer/<id>/in` (book B), in version
    order. `replayed`: this call wrote nothing, the transfer was already
    where it is (a retry of the same request).
    """

    transfer_id: str
    status: TransferStatus
    source_positions: tuple[int, ...]
    target_positions: tuple[int, ...]
    replayed: bool = False


@dataclass(frozen=True, slots=True)
class _Account:
    code: str
    book: int
    type: str
    currency: str


@dataclass(frozen=True, slots=True)
class _Step:
    """An event of a transfer's stream, as much as the protocol needs."""

    position: int
    version: int
    type: str
    payload: Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class _Plan:
    """A checked transfer request: who, how much, which accounts."""

    transfer_id: str
    source_book: int
    source_key: str
    source_account: str
    target_book: int
    target_key: str
    target_account: str
    amount_minor: int
    currency: str
    gaming_day: dt.date
    sign: int  # natural_sign of X's and Y's type

    @property
    def out_stream(self) -> str:
        return out_stream(self.transfer_id)

    @property
    def in_stream(self) -> str:
        return in_stream(self.transfer_id)

    def payload(self) -> dict[str, Any]:
        return {
            "transfer_id": self.transfer_id,
            "source_book": self.source_key,
            "source_account": self.source_account,
            "target_book": self.target_key,
            "target_account": self.target_account,
            "amount_minor": self.amount_minor,
            "currency": self.currency,
            "gaming_day": self.gaming_day.isoformat(),
        }

    def request(self, step: str) -> dict[str, Any]:
        """What identifies the request of one step (its idempotency fingerprint).

        The caller's input, not the events: a retry that no longer needs to
        open a clearing account (a concurrent transfer opened it) is still
        the same request.
        """
        return {"step": step, **self.payload()}


def out_stream(transfer_id: str) -> str:
    return f"transfer/{transfer_id}/out"


def in_stream(transfer_id: str) -> str:
    return f"transfer/{transfer_id}/in"


def clearing_account(book: str, other: str, currency: str) -> str:
    """The code of book `book`'s clearing account with book `other` (keys)."""
    return f"{CLEARING_PREFIX}{book}/{other}/{currency}"


def hold_account(book: str, other: str, currency: str) -> str:
    """The code of book `book`'s hold account for pending transfers to `other`."""
    return f"{HOLD_PREFIX}{book}/{other}/{currency}"


def _database(book: int) -> str:
    """The alias of the database holding `book` (the placement directory's answer)."""
    return database_for(book)


def _same_database(source_book: int, target_book: int) -> bool:
    """Whether both books live in one database, so one transaction spans them."""
    return _database(source_book) == _database(target_book)


# ---------------------------------------------------------------- reads


def _account(code: str, using: str) -> _Account | None:
    with connections[using].cursor() as cursor:
        cursor.execute("SELECT code, book, type, currency FROM ledger_account WHERE code = %s",
                       [code])
        row = cursor.fetchone()
    return _Account(*row) if row else None


def _steps(stream: str, using: str) -> list[_Step]:
    """The events of a transfer's stream, in version order (at most a few)."""
    with connections[using].cursor() as cursor:
        cursor.execute("SELECT position, version, type, payload::text FROM ledger_event"
                       " WHERE stream = %s ORDER BY version", [stream])
        rows = cursor.fetchall()
    return [_Step(position, version, type_, json.loads(payload))
            for position, version, type_, payload in rows]


def status(transfer_id: str, *, using: str = DEFAULT_DB_ALIAS) -> TransferResult:
    """Where the transfer stands now; `using` is the source book's database.

    Raises InvalidEvent if no transfer has this id.
    """
    out = _source_steps(transfer_id, using)
    target = book_id(out[0].payload["target_book"])
    into = _steps(in_stream(transfer_id), _database(target))
    return _result(transfer_id, out, into)


def _source_steps(transfer_id: str, using: str) -> list[_Step]:
    """The transfer's source stream, read in its book's live database.

    Looked for in `using` first; if the directory places the source book
    elsewhere (it moved, leaving a frozen copy here), read again there.
    Raises InvalidEvent if no transfer has this id.
    """
    out = _steps(out_stream(transfer_id), using)
    if out:
        live = _database(book_id(out[0].payload["source_book"]))
        if live != using:
            out = _steps(out_stream(transfer_id), live)
    if not out:
        raise InvalidEvent(f"no transfer {transfer_id!r} was begun", transfer_id=transfer_id)
    return out


def _result(transfer_id: str, out: list[_Step], into: list[_Step],
            replayed: bool = False) -> TransferResult:
    last = out[-1].type
    if last in (TRANSFER_SENT, TRANSFER_POSTED):
        state = TransferStatus.POSTED
    elif last == TRANSFER_VOIDED:
        state = TransferStatus.VOIDED
    else:
        state = TransferStatus.PENDING
    return TransferResult(transfer_id, state, tuple(s.position for s in out),
                          tuple(s.position for s in into), replayed)


def pending_transfers(*, using: str = DEFAULT_DB_ALIAS, after_position: int = 0,
                      limit: int = PENDING_PAGE_MAX,
                      books: list[int] | None = None) -> list[tuple[int, str]]:
    """(position, transfer id) of pending transfers in `using`, in position order.

    Of the books placed in `using` (or of `books`): a moved book's frozen
    old copy keeps its pending events at version 1 forever, and is not
    where the transfer goes on.

    A pending transfer is a `ledger.transfer_pending` event whose stream is
    still at version 1 (no posted or voided after it). Decision: read from
    the log and `ledger_stream` rather than a projection of transfers: the
    (type, position) index finds the pending events and the stream's primary
    key their versions, and no new table (with its rebuild and its own
    migration in the ledger's schema) is needed. The cost grows with the
    number of two-phase transfers ever begun; a partial index or a
    projection is the next step if that number grows large.
    """
    assert 0 < limit <= PENDING_PAGE_MAX, "page size out of range"
    if books is None:
        books = [book for book, _, database in placed_books() if database == using]
    with connections[using].cursor() as cursor:
        cursor.execute(
            "SELECT e.position, e.payload->>'transfer_id' FROM ledger_event e"
            " JOIN ledger_stream s ON s.name = e.stream"
            " WHERE e.type = %s AND e.position > %s AND s.version = 1"
            " AND e.book = ANY(%s::smallint[]) ORDER BY e.position LIMIT %s",
            [TRANSFER_PENDING, after_position, books, limit])
        return [(position, transfer_id) for position, transfer_id in cursor.fetchall()]


# ---------------------------------------------------------------- checks


def _plan(transfer_id: str, source_book: int | str, source_account: str,
          target_book: int | str, target_account: str, amount_minor: int, currency: str,
          gaming_day: dt.date) -> _Plan:
    """Check a transfer request against the accounts; raise a LedgerError if refused.

    Nothing is written either way. Funds and maxima are the writer's to
    check, under the books' locks.
    """
    if not isinstance(transfer_id, str) or not TRANSFER_ID_PATTERN.match(transfer_id):
        raise InvalidEvent("a transfer id is 1 to 100 letters, digits, '.', '_', ':' or '-',"
                           " starting with a letter or digit", transfer_id=repr(transfer_id))
    if type(amount_minor) is not int or not 0 < amount_minor <= AMOUNT_MINOR_ABS_MAX:
        raise InvalidEvent("a transfer moves a positive integer number of minor units",
                           amount_minor=repr(amount_minor))
    if not (isinstance(currency, str) and len(currency) == 3 and currency.isascii()
            and currency.isupper()):
        raise InvalidEvent("currency must be a three-letter ISO 4217 code",
                           currency=repr(currency))
    if not isinstance(gaming_day, dt.date) or isinstance(gaming_day, dt.datetime):
        raise InvalidEvent("a transfer moves money and must carry its gaming day (a date)")
    source, target = book_id(source_book), book_id(target_book)
    if source == target:
        raise InvalidEvent("a transfer moves money between two books; within one book,"
                           " append one event", book=source)
    source_key, target_key = book_key(source), book_key(target)
    x = _checked_account(source_account, source, source_key, currency, "source")
    y = _checked_account(target_account, target, target_key, currency, "target")
    if natural_sign(x.type) != natural_sign(y.type):
        raise InvalidEvent(
            f"account {x.code} is {x.type} and {y.code} is {y.type}: a transfer moves money"
            " between accounts of the same natural side (both debit-normal or both"
            " credit-normal), so that the clearing accounts cancel",
            source_account=x.code, target_account=y.code)
    return _Plan(transfer_id, source, source_key, x.code, target, target_key, y.code,
                 amount_minor, currency, gaming_day, natural_sign(x.type))


def _checked_account(code: str, book: int, key: str, currency: str, side: str) -> _Account:
    if not isinstance(code, str) or not code:
        raise InvalidEvent(f"the {side} account must be an account code")
    if code.startswith((CLEARING_PREFIX, HOLD_PREFIX)):
        raise InvalidEvent(f"account {code} is a clearing or hold account; transfers move"
                           " them, callers do not", account=code)
    account = _account(code, _database(book))
    if account is None:
        raise UnknownAccount(f"{side} account {code} does not exist in book {key}",
                             account=code, book=key)
    if account.book != book:
        raise InvalidEvent(f"{side} account {code} belongs to another book, not to {key}",
                           account=code, book=key)
    if account.currency != currency:
        raise CurrencyMismatch(f"account {code} holds {account.currency}, not {currency}",
                               account=code, currency=currency)
    return account


# ---------------------------------------------------------------- events


def _opening(code: str) -> NewEvent:
    """The opening event of a clearing or hold account (an asset, unconstrained)."""
    currency = code.rsplit("/", 1)[1]
    return NewEvent(
        stream=f"account/{code}",
        type=ACCOUNT_OPENED,
        payload={"code": code, "type": str(AccountType.ASSET), "currency": currency,
                 "name": "clearing between books" if code.startswith(CLEARING_PREFIX)
                 else "transfers pending between books",
                 "must_not_go_negative": False, "balance_max_minor": None},
    )


def _leg(plan: _Plan, stream: str, type_: str, account: str, counter: str,
         amount_natural: int, extra: Mapping[str, Any] | None = None) -> NewEvent:
    """An event posting `plan.sign * amount_natural` to `account` and the
    opposite to `counter` (a clearing or hold account, an asset).

    For X and Y (whose natural sign is `plan.sign`) that moves the natural
    balance by `amount_natural`: negative out of X, positive into Y.
    """
    posting = plan.sign * amount_natural
    return NewEvent(
        stream=stream, type=type_, payload={**plan.payload(), **(extra or {})},
        postings=(Posting(account, posting, plan.currency),
                  Posting(counter, -posting, plan.currency)),
        gaming_day=plan.gaming_day,
    )


def _append_after_opening(counter: str, book: int, using: str, event: NewEvent,
                          **kwargs: Any):
    """Append `event` to `book`, opening its clearing or hold account first if
    it is not open yet (first use of the pair of books and currency).

    The opening is an append of its own in the same transaction: the
    posting insert trigger checks accounts against `ledger_account` as it
    was before the statement, so an account opened and posted to in one
    append is refused by PostgreSQL (the writer itself would accept it).
    A concurrent first use that opened it meanwhile is no error.
    """
    if _account(counter, using) is not None:
        return append([event], book=book, **kwargs)
    with transaction.atomic(using=using):
        try:
            append([_opening(counter)], book=book, metadata=kwargs.get("metadata"))
        except AccountExists:
            pass  # opened by a concurrent transfer between the same books
        return append([event], book=book, **kwargs)


def _idempotency_key(plan: _Plan, step: str) -> str:
    return f"transfer/{plan.transfer_id}/{step}"


# ---------------------------------------------------------------- atomic


def transfer(transfer_id: str, source_book: int | str, source_account: str,
             target_book: int | str, target_account: str, amount_minor: int, currency: str,
             gaming_day: dt.date, metadata: Metadata | None = None, *,
             now: dt.datetime | None = None, hook: Hook | None = None) -> TransferResult:
    """Move `amount_minor` out of `source_account` (book A) into `target_account` (book B).

    Atomically when both books share a database (`transfer_atomic`), else
    in two phases (`transfer_two_phase`, with the default timeout). A retry
    with the same id and request returns the first result; another request
    under the same id is refused (ledger.idempotency_key_reused).
    """
    source, target = book_id(source_book), book_id(target_book)
    if _same_database(source, target):
        return transfer_atomic(transfer_id, source, source_account, target, target_account,
                               amount_minor, currency, gaming_day, metadata, hook=hook)
    return transfer_two_phase(transfer_id, source, source_account, target, target_account,
                              amount_minor, currency, gaming_day, metadata, now=now, hook=hook)


def transfer_atomic(transfer_id: str, source_book: int | str, source_account: str,
                    target_book: int | str, target_account: str, amount_minor: int,
                    currency: str, gaming_day: dt.date, metadata: Metadata | None = None, *,
                    hook: Hook | None = None) -> TransferResult:
    """Append both events of a transfer in one transaction: both or neither.

    Books are locked in ascending id order (each append takes its book's
    writer lock and holds it to the commit), so two transfers crossing the
    same books in opposite directions wait for each other instead of
    deadlocking. Raises the LedgerError that refused either side.
    """
    plan = _plan(transfer_id, source_book, source_account, target_book, target_account,
                 amount_minor, currency, gaming_day)
    using = _database(plan.source_book)
    clearing_a = clearing_account(plan.source_key, plan.target_key, plan.currency)
    clearing_b = clearing_account(plan.target_key, plan.source_key, plan.currency)

    sent = _leg(plan, plan.out_stream, TRANSFER_SENT, plan.source_account, clearing_a,
                -plan.amount_minor)
    received = _leg(plan, plan.in_stream, TRANSFER_RECEIVED, plan.target_account, clearing_b,
                    plan.amount_minor)
    sides = sorted([
        (plan.source_book, sent, "sent", clearing_a),
        (plan.target_book, received, "received", clearing_b),
    ], key=lambda side: side[0])
    results = {}
    with transaction.atomic(using=using):
        for index, (book, event, step, clearing) in enumerate(sides):
            if index == 1 and hook is not None:
                hook("between_books")
            results[event.stream] = _append_after_opening(
                clearing, book, _database(book), event, expected_versions={event.stream: 0},
                idempotency_key=_idempotency_key(plan, step), request=plan.request(step),
                metadata=metadata)
    out, into = results[plan.out_stream], results[plan.in_stream]
    return TransferResult(plan.transfer_id, TransferStatus.POSTED,
                          tuple(e.position for e in out.events if e.stream == plan.out_stream),
                          tuple(e.position for e in into.events if e.stream == plan.in_stream),
                          replayed=out.replayed and into.replayed)


# ---------------------------------------------------------------- two-phase


def _timeout_seconds(timeout_seconds: int | None) -> int:
    if timeout_seconds is None:
        timeout_seconds = getattr(settings, "LEDGER_TRANSFER_TIMEOUT_SECONDS",
                                  TIMEOUT_SECONDS_DEFAULT)
    if type(timeout_seconds) is not int or not 0 < timeout_seconds <= TIMEOUT_SECONDS_MAX:
        raise InvalidEvent("a transfer's timeout is 1 s to 7 days",
                           timeout_seconds=repr(timeout_seconds))
    return timeout_seconds


def _aware(now: dt.datetime | None) -> dt.datetime:
    if now is None:
        from django.utils import timezone

        return timezone.now()
    if not isinstance(now, dt.datetime) or now.tzinfo is None:
        raise InvalidEvent("now must be a timezone-aware datetime")
    return now


def begin(transfer_id: str, source_book: int | str, source_account: str,
          target_book: int | str, target_account: str, amount_minor: int, currency: str,
          gaming_day: dt.date, metadata: Metadata | None = None, *,
          now: dt.datetime | None = None, timeout_seconds: int | None = None,
          ) -> TransferResult:
    """Phase 1: hold the money in book A (`ledger.transfer_pending`).

    X -> `pending/<A>/<B>/<C>`, the payload naming the target and
    `expires_at` = now + timeout (LEDGER_TRANSFER_TIMEOUT_SECONDS, default
    300). A retry returns the first hold (with its first `expires_at`).
    """
    plan = _plan(transfer_id, source_book, source_account, target_book, target_account,
                 amount_minor, currency, gaming_day)
    expires_at = _aware(now) + dt.timedelta(seconds=_timeout_seconds(timeout_seconds))
    using = _database(plan.source_book)
    hold = hold_account(plan.source_key, plan.target_key, plan.currency)

    pending = _leg(plan, plan.out_stream, TRANSFER_PENDING, plan.source_account, hold,
                   -plan.amount_minor, {"expires_at": expires_at.isoformat()})
    result = _append_after_opening(hold, plan.source_book, using, pending,
                                   expected_versions={plan.out_stream: 0},
                                   idempotency_key=_idempotency_key(plan, "pending"),
                                   request=plan.request("pending"), metadata=metadata)
    return TransferResult(plan.transfer_id, TransferStatus.PENDING,
                          tuple(e.position for e in result.events
                                if e.stream == plan.out_stream), (), result.replayed)


def _pending(transfer_id: str,
             using: str) -> tuple[list[_Step], _Plan | None, dt.datetime | None]:
    """The source stream, the plan it records and its expiry (None, None for
    an atomic transfer: nothing of it is ever pending)."""
    out = _source_steps(transfer_id, using)
    payload = out[0].payload
    if out[0].type == TRANSFER_SENT:
        return out, None, None
    source, target = book_id(payload["source_book"]), book_id(payload["target_book"])
    plan = _Plan(transfer_id, source, payload["source_book"], payload["source_account"],
                 target, payload["target_book"], payload["target_account"],
                 payload["amount_minor"], payload["currency"],
                 dt.date.fromisoformat(payload["gaming_day"]),
                 _sign(payload["source_account"], _database(source)))
    return out, plan, dt.datetime.fromisoformat(payload["expires_at"])


def _sign(code: str, using: str) -> int:
    account = _account(code, using)
    if account is None:  # it posted the pending event: it exists
        raise InvalidEvent(f"account {code} of a pending transfer is gone", account=code)
    return natural_sign(account.type)


def receive(transfer_id: str, *, now: dt.datetime | None = None,
            metadata: Metadata | None = None, using: str = DEFAULT_DB_ALIAS) -> TransferResult:
    """Phase 2: book B decides, once: received (clearing B/A -> Y) or refused.

    Refused if the hold has expired (now >= expires_at) or if book B
    refuses the receipt (Y unknown, of another book or currency, over its
    maximum: the ledger error's code is the refusal's reason). If B has
    decided already, its decision stands: a receive that loses the race
    to a refusal gets StaleVersion inside and answers the refusal.
    `using` is the source book's database.
    """
    out, plan, expires_at = _pending(transfer_id, using)
    if plan is None or len(out) > 1:
        return status(transfer_id, using=using)
    using = _database(plan.source_book)
    target_db = _database(plan.target_book)
    if _steps(plan.in_stream, target_db):
        return _replayed(status(transfer_id, using=using))
    if _aware(now) >= expires_at:
        return _refuse(plan, "ledger.transfer_expired", "the hold expired before book"
                       f" {plan.target_key} received it", metadata, using)
    clearing_b = clearing_account(plan.target_key, plan.source_key, plan.currency)

    received = _leg(plan, plan.in_stream, TRANSFER_RECEIVED, plan.target_account, clearing_b,
                    plan.amount_minor)
    try:
        _append_after_opening(clearing_b, plan.target_book, target_db, received,
                              expected_versions={plan.in_stream: 0},
                              idempotency_key=_idempotency_key(plan, "received"),
                              request=plan.request("received"), metadata=metadata)
    except StaleVersion:
        pass  # B decided meanwhile (a refusal): that decision stands
    except IdempotencyConflict:
        raise
    except LedgerError as error:
        return _refuse(plan, str(error.code), error.message, metadata, using)
    return status(transfer_id, using=using)


def refuse(transfer_id: str, *, reason: str = "ledger.transfer_refused", message: str = "",
           metadata: Metadata | None = None, using: str = DEFAULT_DB_ALIAS) -> TransferResult:
    """Phase 2, refused: book B records that it will never receive the transfer.

    Loses to a receive that committed first (then answers it).
    """
    out, plan, _ = _pending(transfer_id, using)
    if plan is None:
        return status(transfer_id, using=using)
    return _refuse(plan, reason, message, metadata, _database(plan.source_book))


def _refuse(plan: _Plan, reason: str, message: str, metadata: Metadata | None,
            using: str) -> TransferResult:
    event = NewEvent(stream=plan.in_stream, type=TRANSFER_REFUSED,
                     payload={**plan.payload(), "reason": reason, "message": message},
                     gaming_day=plan.gaming_day)
    try:
        append([event], book=plan.target_book, expected_versions={plan.in_stream: 0},
               idempotency_key=_idempotency_key(plan, "refused"), request=plan.request("refused"),
               metadata=metadata)
    except StaleVersion:
        pass  # B received it first: that decision stands
    return status(plan.transfer_id, using=using)


def _replayed(result: TransferResult) -> TransferResult:
    return TransferResult(result.transfer_id, result.status, result.source_positions,
                          result.target_positions, replayed=True)


def _finish(plan: _Plan, received: bool, metadata: Metadata | None,
            using: str) -> TransferResult:
    """Phase 3 in book A: post (hold -> clearing A/B) or void (hold -> X)."""
    hold = hold_account(plan.source_key, plan.target_key, plan.currency)
    clearing_a = clearing_account(plan.source_key, plan.target_key, plan.currency)
    step = "posted" if received else "voided"

    if received:
        # The hold gives back exactly what phase 1 put in it.
        event = _leg(plan, plan.out_stream, TRANSFER_POSTED, hold, clearing_a,
                     -plan.amount_minor)
    else:
        event = _leg(plan, plan.out_stream, TRANSFER_VOIDED, plan.source_account, hold,
                     plan.amount_minor)
    try:
        _append_after_opening(clearing_a if received else hold, plan.source_book, using,
                              event, expected_versions={plan.out_stream: 1},
                              idempotency_key=_idempotency_key(plan, step),
                              request=plan.request(step), metadata=metadata)
    except StaleVersion:
        pass  # another resolver finished it: read what it wrote
    return status(plan.transfer_id, using=using)


def transfer_two_phase(transfer_id: str, source_book: int | str, source_account: str,
                       target_book: int | str, target_account: str, amount_minor: int,
                       currency: str, gaming_day: dt.date, metadata: Metadata | None = None,
                       *, now: dt.datetime | None = None, timeout_seconds: int | None = None,
                       hook: Hook | None = None) -> TransferResult:
    """Move money in three steps: hold in A, decide in B, post or void in A.

    A crash anywhere leaves a state `resolve` (and the periodic
    `resolve_pending`) finishes: no step is lost or done twice, since each
    is keyed by the transfer id and checks its stream's version.
    """
    now = _aware(now)
    begin(transfer_id, source_book, source_account, target_book, target_account, amount_minor,
          currency, gaming_day, metadata, now=now, timeout_seconds=timeout_seconds)
    if hook is not None:
        hook("pending")
    using = _database(book_id(source_book))
    receive(transfer_id, now=now, metadata=metadata, using=using)
    if hook is not None:
        hook("decided")
    return resolve(transfer_id, now, metadata=metadata, using=using)


# ---------------------------------------------------------------- resolver


def resolve(transfer_id: str, now: dt.datetime, *, metadata: Metadata | None = None,
            using: str = DEFAULT_DB_ALIAS, hook: Hook | None = None) -> TransferResult:
    """Drive one transfer forward from wherever it stopped.

    Done (posted or voided, or an atomic transfer): answered as it stands.
    Book B received it: post. B refused it: void. B has not decided and the
    hold has expired (now >= expires_at): refuse at B (expected version 0;
    if B received it meanwhile, that stands), then post or void as B
    decided. Not expired: left pending. `using` is the source book's
    database.
    """
    now = _aware(now)
    out, plan, expires_at = _pending(transfer_id, using)
    if plan is None or len(out) > 1:
        return _replayed(status(transfer_id, using=using))
    using = _database(plan.source_book)
    into = _steps(plan.in_stream, _database(plan.target_book))
    if not into:
        if now < expires_at:
            return TransferResult(transfer_id, TransferStatus.PENDING,
                                  tuple(s.position for s in out), (), replayed=True)
        _refuse(plan, "ledger.transfer_expired",
                f"the hold expired before book {plan.target_key} received it", metadata, using)
        into = _steps(plan.in_stream, _database(plan.target_book))
        if hook is not None and into[0].type == TRANSFER_REFUSED:
            hook("refused")
    return _finish(plan, into[0].type == TRANSFER_RECEIVED, metadata, using)


def resolve_pending(now: dt.datetime, *, metadata: Metadata | None = None,
                    using: str | None = None) -> dict[str, int]:
    """Resolve every pending transfer, of every database holding books (or of `using`).

    Each database is swept for the books the directory places there.
    Returns how many ended posted, voided, how many are still pending (not
    expired, B undecided), and how many are blocked: a step the ledger
    refused (a void that would take X over its maximum, because X received
    money while the hold was out), logged as `ledger.transfer_blocked` and
    tried again by the next run; one blocked transfer never stops the
    sweep. Idempotent: a second run at the same `now` posts and voids
    nothing more.
    """
    now = _aware(now)
    placed: dict[str, list[int]] = {}
    for book, _, database in placed_books():
        placed.setdefault(database, []).append(book)
    databases = sorted(placed) if using is None else [using]
    counts = {**{str(state): 0 for state in TransferStatus}, "blocked": 0}
    for database in databases:
        after = 0
        for _ in range(PENDING_PAGES_MAX):
            page = pending_transfers(using=database, after_position=after,
                                     books=placed.get(database, []))
            if not page:
                break
            for position, transfer_id in page:
                after = position
                try:
                    result = resolve(transfer_id, now, metadata=metadata, using=database)
                except LedgerError as error:
                    logger.warning("ledger.transfer_blocked", extra={
                        "transfer_id": transfer_id, "code": str(error.code),
                        "reason": error.message})
                    counts["blocked"] += 1
                    continue
                counts[str(result.status)] += 1
    return counts
