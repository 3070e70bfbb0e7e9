"""Books: the parts of the log that append in parallel (issue 19).

A book has its own gap-free positions, hash chain, seals and writer lock
(one `ledger_head` row each, migration 0007). Book 1, `main`, is the log as
it always was; `open_book` adds another. Book b holds positions
(b-1)*2^40+1 .. b*2^40, so a position names its book (`book_of`) and stays
a unique key over all books.

Every event, posting, account and stream belongs to one book: an event may
post only to accounts of its own book and extend only streams of its own
book. Money moves between books by two events linked by a transfer id,
through clearing accounts (`ledger.transfers`).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

from django.db import connection, connections

from .errors import InvalidEvent
from .types import BOOK_SPAN, book_of

__all__ = ["MAIN_BOOK", "MAIN_BOOK_KEY", "BOOK_SPAN", "Book", "book_of", "book_id", "book_key",
           "books", "open_book", "ensure_book", "base_position", "local_position"]

MAIN_BOOK = 1
MAIN_BOOK_KEY = "main"

_ids: dict[str, int] = {MAIN_BOOK_KEY: MAIN_BOOK}
_ids_lock = threading.Lock()


@dataclass(frozen=True, slots=True)
class Book:
    id: int
    key: str
    position: int
    hash: str

    @property
    def events(self) -> int:
        """How many events the book holds (its positions are gap-free)."""
        return self.position - base_position(self.id)


def base_position(book: int) -> int:
    """The position before the book's first: its first event is base + 1."""
    return (book - 1) * BOOK_SPAN


def local_position(position: int) -> int:
    """The event's number within its book: 1, 2, 3..."""
    return position - base_position(book_of(position))


def book_id(book: int | str) -> int:
    """The id of a book given by id or key; refuses a key that is not open."""
    if isinstance(book, int) and not isinstance(book, bool):
        if book < 1:
            raise InvalidEvent("a book id is a positive integer", book=book)
        return book
    known = _ids.get(book)
    if known is not None:
        return known
    return _look_up(book, "book", "key", "id", "key")[1]


def book_key(book: int) -> str:
    """The key of the book with this id."""
    for key, known in list(_ids.items()):
        if known == book:
            return key
    return _look_up(book, "key", "book", "key", "id")[0]


def _look_up(value: int | str, wanted: str, by: str, head_wanted: str, head_by: str
             ) -> tuple[str, int]:
    """(key, id) of the book whose `by` is `value`, remembered for next time.

    The directory knows every book, wherever it is placed; a book opened
    before the directory knew of it is in the heads.
    """
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT coalesce((SELECT {wanted} FROM ledger_placement WHERE {by} = %s),"
            f" (SELECT {head_wanted} FROM ledger_head WHERE {head_by} = %s))", [value, value])
        row = cursor.fetchone()
    if row is None or row[0] is None:
        raise InvalidEvent(f"book {value!r} is not open", book=value)
    key, book = (value, row[0]) if by == "key" else (row[0], value)
    _remember(key, book)
    return key, book


def books(using: str = "default") -> list[Book]:
    """Every book open in one database with its head, in id order."""
    with connections[using].cursor() as cursor:
        cursor.execute("SELECT id, key, position, hash FROM ledger_head ORDER BY id")
        return [Book(*row) for row in cursor.fetchall()]


def open_book(key: str, database: str = "default") -> Book:
    """Open a book in `database` (or return it if open). Only the tables' owner may.

    The directory (ledger.placement) hands out the id and records where it lives.
    """
    from .placement import place_book

    return place_book(key, database)


def ensure_book(key: str) -> int:
    """The id of book `key`, opened in the main database if it is open nowhere.

    What the application's runtime role may do (migration 0013): open a new
    book, never move, freeze or rewrite one. The casino opens a venue's
    book this way on the venue's first write (casino/books.py).
    """
    with connection.cursor() as cursor:
        cursor.execute("SELECT ledger_open_venue_book(%s)", [key])
        book = cursor.fetchone()[0]
    _remember(key, book)
    return book


def _remember(key: str, book: int) -> None:
    with _ids_lock:
        # A key may have been opened before under another id in a database
        # since emptied (tests): the database's answer wins.
        for stale in [k for k, v in _ids.items() if (v == book) != (k == key)]:
            del _ids[stale]
        _ids[key] = book
