"""Placement: which database holds each book (issue 19, point 4).

The directory (`ledger_placement`, model `BookPlacement`) lives in the
directory database, `default`, and maps each book to a Django database
alias. Book ids are handed out there, so a book keeps its id and its range
of positions wherever it lives. The writer asks `database_for(book)` on
every append (a dictionary lookup after the first) and appends in that
database, with that book's lock; reads of a book go to the same alias
(`ledger.store`'s `using=`, or the ORM inside `reading_book(book)`, which
`BookRouter` reads).

Books placed outside `default` hold the ledger's own tables and projections
(accounts, streams, balances); the casino apps' projections live in
`default` beside the books they read, so apps append to books placed there.

Moving a book (`move_book`, `manage.py move_book`): freeze the old copy
(its insert trigger then refuses appends: a writer that still sends them
there gets SQLSTATE 25006 and, in a writer thread, asks the directory
again and retries once), copy the events in position order into the new
database (whose triggers re-check continuity and the chain and rebuild
accounts, balances and streams), verify the copy's chain and head against
the old, switch the directory, and keep the old copy, read-only. Moving a
book back onto a database holding its frozen old copy copies only what
came after that copy's head, unfreezes it and switches (`_move_back`).
"""

from __future__ import annotations

import threading
import time
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING, Iterator

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, connections, transaction
from django.utils import timezone

from .books import Book, _remember, book_id, book_key

if TYPE_CHECKING:
    from .verify import VerifyResult

DIRECTORY = DEFAULT_DB_ALIAS
COPY_CHUNK_EVENTS = 2_000
READ_ONLY_SQLSTATE = "25006"

# book -> (alias, time.monotonic() when read). An entry is trusted for
# LEDGER_PLACEMENT_CACHE_SECONDS: a write to a moved book is refused by its
# frozen old copy and asks again at once; a read asks again within that time.
_databases: dict[int, tuple[str, float]] = {}
_lock = threading.Lock()
_reading: ContextVar[int | None] = ContextVar("ledger_reading_book", default=None)


def database_for(book: int | str) -> str:
    """The alias of the database that holds `book` (`default` unless placed elsewhere)."""
    book = book_id(book)
    known = _databases.get(book)
    # The main book (every app's writes) is asked once per process: its
    # appends must cost no directory read (statement budgets), and a process
    # learns of its move at its first refused write.
    if known is not None and (book == 1 or time.monotonic() - known[1] < _cache_seconds()):
        return known[0]
    with connections[DIRECTORY].cursor() as cursor:
        cursor.execute("SELECT database FROM ledger_placement WHERE book = %s", [book])
        row = cursor.fetchone()
    alias = row[0] if row else DEFAULT_DB_ALIAS
    with _lock:
        _databases[book] = (alias, time.monotonic())
    return alias


def _cache_seconds() -> float:
    return float(getattr(settings, "LEDGER_PLACEMENT_CACHE_SECONDS", 5.0))


def forget(book: int | None = None) -> None:
    """Drop what this process remembers of the directory (all books, or one)."""
    with _lock:
        if book is None:
            _databases.clear()
        else:
            _databases.pop(book, None)


def is_moved_error(error: BaseException) -> bool:
    """Whether a database error says the book was moved (its old copy is frozen)."""
    cause = getattr(error, "__cause__", None)
    return getattr(cause, "sqlstate", None) == READ_ONLY_SQLSTATE and "was moved" in str(error)


def placements() -> dict[str, str]:
    """Book key -> database alias, from the directory."""
    with connections[DIRECTORY].cursor() as cursor:
        cursor.execute("SELECT key, database FROM ledger_placement ORDER BY book")
        return dict(cursor.fetchall())


def placed_books() -> list[tuple[int, str, str]]:
    """Every book as (id, key, database alias), in id order: the directory's
    books, and the directory database's own books it does not list (a book
    opened there before the directory knew of it, such as main after a flush).

    A moved book is listed once, in its new database; its frozen old copy is
    not a placed book.
    """
    with connections[DIRECTORY].cursor() as cursor:
        cursor.execute(
            "SELECT book, key, database FROM ledger_placement"
            " UNION ALL SELECT id, key, %s FROM ledger_head"
            " WHERE id NOT IN (SELECT book FROM ledger_placement) ORDER BY 1", [DIRECTORY])
        return [(book, key, database) for book, key, database in cursor.fetchall()]


def verify_placed_books() -> list[tuple[str, str, "VerifyResult"]]:
    """Verify each placed book's chain in its own database: (key, alias, result) per book.

    One book's failure does not stop the others' walks: each result names
    its own first bad position (`verify_chain(book=..., using=...)`).
    """
    from dataclasses import replace

    from .verify import verify_chain

    # The result names its book (a failure's message then gives the book's
    # own position too).
    return [(key, database, replace(verify_chain(book=book, using=database), book=key))
            for book, key, database in placed_books()]


def feed_databases() -> str | dict[int, str]:
    """Where to read each book: `default` when every book is there (one read of
    the heads), else book id -> alias from the directory (the feed's `using`)."""
    placed = {book: database for book, _, database in placed_books()}
    if all(alias == DEFAULT_DB_ALIAS for alias in placed.values()):
        return DEFAULT_DB_ALIAS
    return placed


def place_book(key: str, database: str = DEFAULT_DB_ALIAS) -> Book:
    """Open a book in `database` under an id the directory hands out (or return it).

    Run as the tables' owner: opening a book is an operator's act.
    """
    with transaction.atomic(using=DIRECTORY), connections[DIRECTORY].cursor() as cursor:
        cursor.execute("LOCK TABLE ledger_placement IN SHARE ROW EXCLUSIVE MODE")
        cursor.execute("SELECT book, database FROM ledger_placement WHERE key = %s", [key])
        row = cursor.fetchone()
        if row is None:
            # Ids already used in the directory database's own heads count too
            # (a book opened there before the directory knew of it).
            cursor.execute("SELECT greatest((SELECT max(book) FROM ledger_placement),"
                           " (SELECT max(id) FROM ledger_head), 0) + 1")
            book = cursor.fetchone()[0]
            cursor.execute("INSERT INTO ledger_placement (book, key, database)"
                           " VALUES (%s, %s, %s)", [book, key, database])
        else:
            book, placed = row
            if placed != database:
                raise ValueError(f"book {key} is placed in {placed}, not {database}")
        opened = _open_head(key, book, database)
    with _lock:
        _databases[opened.id] = (database, time.monotonic())
    _remember(key, opened.id)
    return opened


def _open_head(key: str, book: int, database: str) -> Book:
    with connections[database].cursor() as cursor:
        cursor.execute("SELECT ledger_open_book(%s, %s::smallint)", [key, book])
        cursor.execute("SELECT id, key, position, hash FROM ledger_head WHERE id = %s", [book])
        return Book(*cursor.fetchone())


def move_book(key: str, to_database: str) -> Book:
    """Move a book to another database: freeze, copy, verify, switch; the old copy stays frozen.

    Returns the book as it stands in its new database. Nothing is lost: an
    append after the freeze is refused by the old copy (and retried by the
    writer against the new one once the directory has switched), and the
    copy is checked event by event by the new database's triggers and
    against the old head before the switch.

    Onto a database that still holds the book's frozen old copy (it was
    moved away from there before), the book moves back (`_move_back`): only
    the events after the old copy's head are copied, once the old copy is
    found to be a prefix of the live one, and the old copy is unfrozen.
    """
    from .store import heads
    from .verify import verify_chain

    book = book_id(key)
    from_database = database_for(book)
    if from_database == to_database:
        raise ValueError(f"book {key} is already in {to_database}")
    with connections[to_database].cursor() as cursor:
        cursor.execute("SELECT position, hash, read_only FROM ledger_head WHERE id = %s",
                       [book])
        left_behind = cursor.fetchone()
    if left_behind is not None and left_behind[2]:
        # The book's frozen old copy is there: it moves back onto it.
        return _move_back(key, book, from_database, to_database,
                          (left_behind[0], left_behind[1]))
    _freeze(book, from_database)
    frozen_head = heads(using=from_database)[book]
    with transaction.atomic(using=to_database):
        # A move stopped after its copy committed (before the switch) is
        # rerun from what the new database already holds: its triggers
        # refuse anything but the events that continue that copy's chain.
        _copy_after(book, _open_head(key, book, to_database).position, from_database,
                    to_database)
    copied = verify_chain(book=book, using=to_database)
    if not copied.ok or not _holds(book, to_database, frozen_head):
        raise RuntimeError(f"the copy of book {key} in {to_database} does not verify: {copied}")
    return _switch(key, book, from_database, to_database)


def _freeze(book: int, database: str) -> None:
    """Freeze the book's copy in `database` (idempotent): its trigger refuses appends."""
    with transaction.atomic(using=database), connections[database].cursor() as cursor:
        cursor.execute("SELECT ledger_freeze_book(%s::smallint)", [book])


def _holds(book: int, database: str, frozen_head: tuple[int, str]) -> bool:
    """Whether the book's copy in `database` holds the frozen chain up to its head.

    At that head exactly, or beyond it: a copy the directory does not name
    yet can only have grown through its own triggers, from a writer whose
    directory entry was stale (a move back unfreezes the old copy before the
    switch), and then it holds the frozen chain as its prefix.
    """
    from .store import heads

    head = heads(using=database).get(book)
    if head is None or head[0] < frozen_head[0]:
        return False
    return head == frozen_head or _hash_at(book, frozen_head[0], database) == frozen_head[1]


def _hash_at(book: int, position: int, database: str) -> str | None:
    """The chain hash at `position` of the book in `database` (the genesis hash at
    its base; None: no such event there)."""
    from .books import base_position
    from .canonical import GENESIS_HASH
    from .store import load_events

    if position == base_position(book):
        return GENESIS_HASH
    found = load_events(position, position, using=database)
    return found[0].hash if found else None


def _move_back(key: str, book: int, from_database: str, to_database: str,
               old_head: tuple[int, str]) -> Book:
    """Move a book back onto its frozen old copy in `to_database`.

    The old copy must be a prefix of the live one: the live copy carries the
    old head's hash at the old head's position (else nothing is frozen and
    ValueError says why), and the old copy's chain verifies as it stands
    (frozen, so its walk needs no lock; else RuntimeError, nothing frozen).
    Then: freeze the live copy; in one transaction of `to_database`,
    unfreeze the old copy, copy only the events after its head (and their
    idempotency keys) through its triggers, and verify that tail against
    the frozen live head; then switch the directory. The copy left behind
    stays frozen.

    Unfreezing: `ledger_unfreeze_book(book, position, hash)` (migration
    0014, the owner only) clears `read_only` only on a copy frozen at
    exactly that head; the head guard lets nothing else through. It locks
    that book's head row alone, so the other books of `to_database` keep
    appending while the tail is copied.
    All of it commits together or not at all, so a writer with a stale
    directory entry can never append to the old copy at its old head (it
    waits on the head row and appends after the copied tail).

    Resumable: stopped before that transaction commits, a rerun starts
    here again (the old copy is still frozen); stopped after it, the old
    copy is no longer frozen and a rerun takes `move_book`'s own path, which
    copies nothing more and switches.
    """
    from .store import heads
    from .verify import verify_chain

    live_hash = _hash_at(book, old_head[0], from_database)
    if live_hash != old_head[1]:
        raise ValueError(
            f"book {key}'s frozen old copy in {to_database} is not a prefix of its copy in"
            f" {from_database}: at its head, position {old_head[0]}, the live copy has"
            f" {'no event' if live_hash is None else 'another hash'}; it cannot move back"
            " there")
    old_copy = verify_chain(book=book, using=to_database)
    if not old_copy.ok:
        raise RuntimeError(f"the old copy of book {key} in {to_database} does not verify,"
                           f" it stays frozen: {old_copy}")
    _freeze(book, from_database)
    frozen_head = heads(using=from_database)[book]
    with transaction.atomic(using=to_database):
        with connections[to_database].cursor() as cursor:
            # Only if frozen at exactly that head (migration 0014).
            cursor.execute("SELECT ledger_unfreeze_book(%s::smallint, %s, %s)",
                           [book, *old_head])
            unfrozen = cursor.fetchone()[0]
        if not unfrozen:
            raise RuntimeError(f"the old copy of book {key} in {to_database} changed while"
                               " moving back onto it")
        _copy_after(book, old_head[0], from_database, to_database)
        tail = verify_chain(book=book, after=old_head[0], prev_hash=old_head[1],
                            using=to_database)
        if not tail.ok or heads(using=to_database)[book] != frozen_head:
            raise RuntimeError(f"the copy of book {key} in {to_database} does not verify:"
                               f" {tail}")
    return _switch(key, book, from_database, to_database)


def _copy_after(book: int, after: int, from_database: str, to_database: str) -> None:
    """Copy the book's events after `after`, then their keys, chunk by chunk."""
    from .store import load_book_events_after

    copied_before = after
    while True:
        chunk = load_book_events_after(book, after, COPY_CHUNK_EVENTS, using=from_database)
        if not chunk:
            break
        _copy_events(chunk, to_database)
        after = chunk[-1].position
    _copy_keys(book, from_database, to_database, copied_before)


def _switch(key: str, book: int, from_database: str, to_database: str) -> Book:
    """Point the directory at `to_database`; return the book as it stands there."""
    from .store import heads

    with transaction.atomic(using=DIRECTORY), connections[DIRECTORY].cursor() as cursor:
        cursor.execute(
            "INSERT INTO ledger_placement (book, key, database, previous_database, moved_at)"
            " VALUES (%s, %s, %s, %s, %s) ON CONFLICT (book) DO UPDATE SET"
            " database = EXCLUDED.database, previous_database = EXCLUDED.previous_database,"
            " moved_at = EXCLUDED.moved_at",
            [book, key, to_database, from_database, timezone.now()])
    forget(book)
    position, hash_ = heads(using=to_database)[book]
    return Book(book, key, position, hash_)


def _copy_events(events, database: str) -> None:
    """Insert recorded events with their postings as they are (same positions, same hashes).

    Two statements, the events first: the posting trigger checks each
    posting's account as the accounts stood before its statement, and a
    chunk holds the `ledger.account_opened` events whose accounts its later
    events post to (the event trigger opens them). In one statement those
    postings were refused ("unknown account").
    """
    from .canonical import dumps

    posting_rows = [(e.position, index, p.account, p.amount_minor, p.currency, e.book,
                     e.gaming_day)
                    for e in events for index, p in enumerate(e.postings)]
    with connections[database].cursor() as cursor:
        cursor.execute(
            "INSERT INTO ledger_event (position, book, stream, version, type, schema_version,"
            " payload, metadata, idempotency_key, occurred_at, recorded_at, gaming_day,"
            " prev_hash, hash)"
            " SELECT * FROM unnest(%s::bigint[], %s::smallint[], %s::text[], %s::int[],"
            " %s::text[], %s::smallint[], %s::text[]::jsonb[], %s::text[]::jsonb[], %s::text[],"
            " %s::timestamptz[], %s::timestamptz[], %s::date[], %s::text[], %s::text[])",
            [
                [e.position for e in events], [e.book for e in events],
                [e.stream for e in events], [e.version for e in events],
                [e.type for e in events], [e.schema_version for e in events],
                [dumps(e.payload) for e in events], [dumps(e.metadata) for e in events],
                [e.idempotency_key for e in events], [e.occurred_at for e in events],
                [e.recorded_at for e in events], [e.gaming_day for e in events],
                [e.prev_hash for e in events], [e.hash for e in events],
            ],
        )
        if not posting_rows:
            return
        cursor.execute(
            "INSERT INTO ledger_posting (event_id, index, account_id, amount_minor, currency,"
            " book, gaming_day) SELECT * FROM unnest(%s::bigint[], %s::smallint[], %s::text[],"
            " %s::bigint[], %s::text[], %s::smallint[], %s::date[])",
            [list(column) for column in zip(*posting_rows)],
        )


def _copy_keys(book: int, from_database: str, to_database: str, after: int) -> None:
    """Copy the idempotency keys of the events copied (those after `after`)."""
    with connections[from_database].cursor() as cursor:
        cursor.execute("SELECT key, fingerprint, first_position, last_position, recorded_at"
                       " FROM ledger_idempotency WHERE book = %s AND first_position > %s",
                       [book, after])
        rows = cursor.fetchall()
    if not rows:
        return
    with connections[to_database].cursor() as cursor:
        cursor.executemany(
            "INSERT INTO ledger_idempotency (key, fingerprint, first_position, last_position,"
            " recorded_at, book) VALUES (%s, %s, %s, %s, %s, %s)",
            [(*row, book) for row in rows])


@contextmanager
def reading_book(book: int | str) -> Iterator[str]:
    """ORM reads of the ledger's models inside go to the book's database (BookRouter)."""
    token = _reading.set(book_id(book))
    try:
        yield database_for(book)
    finally:
        _reading.reset(token)


def book_databases() -> list[str]:
    """Aliases that hold books only (settings.LEDGER_BOOK_DATABASES)."""
    return list(getattr(settings, "LEDGER_BOOK_DATABASES", ()))


class BookRouter:
    """Routes the ledger's models to a book's database inside `reading_book`,
    and keeps every app but the ledger out of databases that hold books only."""

    def db_for_read(self, model, **hints):
        book = _reading.get()
        if book is not None and model._meta.app_label == "ledger":
            return database_for(book)
        return None

    db_for_write = db_for_read

    def allow_migrate(self, db, app_label, model_name=None, **hints):
        if db in book_databases():
            return app_label == "ledger"
        return None

    def allow_relation(self, obj1, obj2, **hints):
        return None


__all__ = ["database_for", "forget", "place_book", "move_book", "placements", "placed_books",
           "verify_placed_books", "reading_book",
           "BookRouter", "book_key", "is_moved_error"]
