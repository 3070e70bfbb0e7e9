"""Reading the log: events with their postings, by position range.

Used by the catch-up feed, idempotent replays, verification and rebuilds.
Reads go through raw SQL in position order because they run over the whole
log; the ORM models stay for the admin and simple queries. Rows are fetched
in psycopg's binary format: its C loaders turn timestamps and dates into
Python values several times faster than the text loaders Django registers,
which is most of what a rebuild spends.
"""

from __future__ import annotations

from typing import Iterable, Iterator

import orjson

from django.db import DEFAULT_DB_ALIAS, connection, connections

from django.db.models import Q, Sum

from .models import Account, natural_sign
from .books import base_position
from .types import BOOK_SPAN, Posting, RecordedEvent, book_of

# JSON comes back as text and is parsed by orjson: its values are exactly the
# json module's for the JSON the ledger admits (no floats, 64-bit integers),
# at a third of the cost; decoding is most of what a rebuild spends.
EVENT_COLUMNS = (
    "position, stream, version, type, schema_version, payload::text, metadata::text, "
    "idempotency_key, occurred_at, recorded_at, gaming_day, prev_hash, hash"
)
CHUNK_EVENTS_MAX = 10_000


def _cursor(using: str = DEFAULT_DB_ALIAS):
    database = connections[using]
    database.ensure_connection()
    return database.connection.cursor(binary=True)


def load_events(first: int, last: int, using: str = DEFAULT_DB_ALIAS) -> list[RecordedEvent]:
    """Return events first..last (inclusive) with postings, in position order."""
    return _fetch("position BETWEEN %s AND %s ORDER BY position", [first, last], using)


def load_events_after(after: int, limit: int) -> list[RecordedEvent]:
    """Return up to `limit` events with position > after, in order (all books)."""
    return _fetch("position > %s ORDER BY position LIMIT %s", [after, limit])


def load_book_events_after(book: int, after: int, limit: int,
                           using: str = DEFAULT_DB_ALIAS) -> list[RecordedEvent]:
    """Return up to `limit` events of `book` after position `after`, in order.

    A book's positions are one range (ledger.books), so the primary key
    serves this read; `after` below the book's range starts at its first.
    """
    base = base_position(book)
    return _fetch("position > %s AND position <= %s ORDER BY position LIMIT %s",
                  [max(after, base), base + BOOK_SPAN, limit], using)


def _fetch(where: str, params: list[int], using: str = DEFAULT_DB_ALIAS) -> list[RecordedEvent]:
    with _cursor(using) as cursor:
        cursor.execute(f"SELECT {EVENT_COLUMNS} FROM ledger_event WHERE {where}", params)
        rows = cursor.fetchall()
        if not rows:
            return []
        cursor.execute(
            "SELECT event_id, account_id, amount_minor, currency FROM ledger_posting"
            " WHERE event_id BETWEEN %s AND %s ORDER BY event_id, index",
            [rows[0][0], rows[-1][0]],
        )
        posting_rows = cursor.fetchall()
    return _assemble(rows, posting_rows)


def load_stream_events(stream: str, after_version: int, limit: int) -> list[RecordedEvent]:
    """Return up to `limit` events of one stream with version > after_version, in order."""
    assert 0 < limit <= CHUNK_EVENTS_MAX, "page size out of range"
    with _cursor() as cursor:
        cursor.execute(
            f"SELECT {EVENT_COLUMNS} FROM ledger_event WHERE stream = %s AND version > %s"
            " ORDER BY version LIMIT %s",
            [stream, after_version, limit],
        )
        rows = cursor.fetchall()
        if not rows:
            return []
        # A stream's positions are scattered over the log: fetch its own.
        cursor.execute(
            "SELECT event_id, account_id, amount_minor, currency FROM ledger_posting"
            " WHERE event_id = ANY(%s::bigint[]) ORDER BY event_id, index",
            [[row[0] for row in rows]],
        )
        posting_rows = cursor.fetchall()
    return _assemble(rows, posting_rows)


def balances_now(codes: Iterable[str]) -> dict[str, int]:
    """Return each account's balance now (natural direction); 0 if not open."""
    codes = list(codes)
    balances = dict.fromkeys(codes, 0)
    balances.update(Account.objects.filter(code__in=codes).values_list("code", "balance_minor"))
    return balances


def iter_event_chunks(
    chunk_events: int = CHUNK_EVENTS_MAX, after: int = 0
) -> Iterator[list[RecordedEvent]]:
    """Yield the whole log (from `after`) in position order, chunk by chunk."""
    assert 0 < chunk_events <= CHUNK_EVENTS_MAX, "chunk size out of range"
    while True:
        chunk = load_events_after(after, chunk_events)
        if not chunk:
            return
        yield chunk
        after = chunk[-1].position


def is_recorded_key(idempotency_key: str | None) -> bool:
    """Whether an append under this idempotency key has already committed."""
    if idempotency_key is None:
        return False
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1 FROM ledger_idempotency WHERE key = %s", [idempotency_key])
        return cursor.fetchone() is not None


def recorded_result(idempotency_key: str | None) -> list[RecordedEvent] | None:
    """The events an earlier append under this key wrote, or None.

    Commands call it first so a retry returns the original outcome (an
    acceptance or a recorded refusal) even if the world has changed since.
    """
    if idempotency_key is None:
        return None
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT first_position, last_position FROM ledger_idempotency WHERE key = %s",
            [idempotency_key],
        )
        row = cursor.fetchone()
    return load_events(*row) if row else None


def stream_version(stream: str) -> int:
    """Return a stream's current version (0: no events yet), in one statement."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT version FROM ledger_stream WHERE name = %s", [stream])
        row = cursor.fetchone()
    return row[0] if row else 0


def recorded_request(idempotency_key: str) -> tuple[str, list[RecordedEvent]] | None:
    """Return the fingerprint and the events of an earlier append under this key.

    The command runner compares the fingerprint with the request it is
    asked to run: the same request is answered from the events, another one
    is refused. One statement for the lookup; the events only when found.
    """
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT fingerprint, first_position, last_position FROM ledger_idempotency"
            " WHERE key = %s",
            [idempotency_key],
        )
        row = cursor.fetchone()
    if row is None:
        return None
    return row[0], load_events(row[1], row[2])


def balances_at(codes: Iterable[str], position: int, others: Iterable[int] = ()
                ) -> dict[str, int]:
    """Return each account's balance (natural direction) just after `position`.

    The balance now less what postings after `position` added, in one
    statement (one snapshot), so a concurrent append cannot skew it; replays
    use it to answer with the balances their event left. An account not open
    by then, or not at all, has balance 0. A position orders its own book
    only: an account of another book is read just after the position
    `others` gives in that book (a request written across books), else as
    it is now.
    """
    codes = list(codes)
    later = Q()
    for cutoff in {book_of(p): p for p in (*others, position)}.values():
        # Postings after the cutoff within the cutoff's own book.
        later |= Q(postings__event_id__gt=cutoff,
                   postings__event_id__lte=max(book_of(cutoff), 1) * BOOK_SPAN)
    rows = (
        Account.objects.filter(code__in=codes)
        .annotate(later_minor=Sum("postings__amount_minor", filter=later))
        .values_list("code", "type", "balance_minor", "later_minor")
    )
    balances = dict.fromkeys(codes, 0)
    for code, account_type, balance_minor, later_minor in rows:
        balances[code] = balance_minor - natural_sign(account_type) * (later_minor or 0)
    return balances


def head(book: int = 1, using: str = DEFAULT_DB_ALIAS) -> tuple[int, str]:
    """Return a book's last position and hash (its base and genesis when empty)."""
    with connections[using].cursor() as cursor:
        cursor.execute("SELECT position, hash FROM ledger_head WHERE id = %s", [book])
        position, hash_ = cursor.fetchone()
    return position, hash_


def head_of(account: str, using: str = DEFAULT_DB_ALIAS) -> tuple[int, str]:
    """Return the last position and hash of the book holding `account` (main's
    while the account is not open)."""
    with connections[using].cursor() as cursor:
        cursor.execute("SELECT position, hash FROM ledger_head WHERE id = coalesce("
                       "(SELECT book FROM ledger_account WHERE code = %s), 1)", [account])
        position, hash_ = cursor.fetchone()
    return position, hash_


def heads(using: str = DEFAULT_DB_ALIAS) -> dict[int, tuple[int, str]]:
    """Every book's last position and hash in one database, by book id, in one statement."""
    with connections[using].cursor() as cursor:
        cursor.execute("SELECT id, position, hash FROM ledger_head ORDER BY id")
        return {row[0]: (row[1], row[2]) for row in cursor.fetchall()}


def _assemble(rows: list[tuple], posting_rows: list[tuple]) -> list[RecordedEvent]:
    postings_by_event: dict[int, list[Posting]] = {}
    trusted = Posting.trusted
    for event_id, account, amount_minor, currency in posting_rows:
        postings = postings_by_event.get(event_id)
        if postings is None:
            postings = postings_by_event[event_id] = []
        postings.append(trusted(account, amount_minor, currency))
    no_postings: tuple[Posting, ...] = ()
    loads = orjson.loads
    # Metadata repeats (one actor and source for a whole batch); decode each
    # distinct text once. Callers treat payload and metadata as read-only.
    metadata_by_text: dict[str, dict] = {}

    def metadata(text: str) -> dict:
        value = metadata_by_text.get(text)
        if value is None:
            value = metadata_by_text[text] = loads(text)
        return value

    return [
        RecordedEvent(
            position=row[0],
            stream=row[1],
            version=row[2],
            type=row[3],
            schema_version=row[4],
            payload=loads(row[5]),
            metadata=metadata(row[6]),
            idempotency_key=row[7],
            occurred_at=row[8],
            recorded_at=row[9],
            gaming_day=row[10],
            prev_hash=row[11],
            hash=row[12],
            postings=tuple(postings_by_event.get(row[0], no_postings)),
        )
        for row in rows
    ]
