"""One catch-up feed over many books, with a vector cursor (issue 19 point 3).

Each book numbers its own events gap-free and in commit order (L2 per
book), but the books commit in parallel, so no single position orders the
whole log: a client that kept one position would skip every event of a
book with lower positions once it had read one event of a book with higher
ones. The cursor is therefore a vector: the last position read in each
book. A book missing from it (opened after the cursor was made) is read
from its beginning.

A page is read in three steps:
1. the heads of every book, in one statement, first: every event up to a
   book's head is committed (the head moves in the transaction that inserts
   the events), and a book's positions become visible in order, so a read of
   `after_b < position <= head_b` never skips one;
2. per book, at most `limit` events after the cursor, capped at that head;
3. a merge of the books' runs by (recorded_at, book, position), cut at
   `limit`. The merge only ever compares the runs' first events, so each
   book's events keep their position order even where a later position was
   recorded earlier (a transaction that began before an earlier one
   committed), and a page holds a prefix of each book's run: no book's event
   is dropped while a later one of the same book is kept.

The new cursor is, per book, the last position the page took (unchanged
for a book it took nothing from). Over HTTP the cursor is opaque: URL-safe
base64 (unpadded) of compact JSON `{book key: local position}` (book keys,
not ids, as ids are a database's numbering; local positions 1, 2, 3..),
with books at 0 left out. `decode_cursor` refuses anything else with a
coded error (`ledger.invalid_cursor`, `ledger.unknown_book`), never a 500.

The database is one parameter, `using`: an alias (every book whose head
is in that database), or a mapping book id -> alias (each book read where
it lives; placement, issue 19 point 4). Each alias's heads are read in one
statement before any of its events; the merge is the same whatever holds
the runs.
"""

from __future__ import annotations

import base64
import binascii
import heapq
import itertools
import re
from dataclasses import dataclass
from typing import Collection, Mapping

import orjson
from django.db import DEFAULT_DB_ALIAS, connections

# The feed's errors are declared with the ledger's others (ledger.errors) and
# importable from here as before.
from .errors import FeedErrorCode, InvalidCursor, InvariantViolation, UnknownBook
from .store import load_book_events_after
from .types import BOOK_SPAN, RecordedEvent

__all__ = ["CURSOR_LENGTH_MAX", "PAGE_EVENTS_MAX", "BookHead", "FeedErrorCode", "FeedPage",
           "InvalidCursor", "UnknownBook", "book_heads", "decode_cursor", "encode_cursor",
           "read_feed"]

# A page's events, over all books (the API's `limit` maximum).
PAGE_EVENTS_MAX = 1000
# An encoded cursor's characters: refused unread beyond. Decision: 8000
# keeps a `next` URL within what common proxies accept (8 KiB) and holds
# about a hundred books with 40-character keys at 13-digit positions.
CURSOR_LENGTH_MAX = 8000
# The book key's form, as ledger_open_book checks it (migration 0007).
BOOK_KEY = re.compile(r"^[a-z][a-z0-9_-]{0,39}$")


@dataclass(frozen=True, slots=True)
class BookHead:
    """A book's id, key and last committed position when the page was read."""

    id: int
    key: str
    position: int

    @property
    def base(self) -> int:
        """The position before the book's first."""
        return (self.id - 1) * BOOK_SPAN


@dataclass(frozen=True, slots=True)
class FeedPage:
    """One page of the feed.

    `cursor` holds every book read (by id) with the last position (global)
    the client has now seen in it; `heads` the books as they were when the
    page was read; `has_more` whether any book had events beyond the page.
    """

    events: tuple[RecordedEvent, ...]
    cursor: Mapping[int, int]
    heads: Mapping[int, BookHead]
    has_more: bool

    def keys(self) -> dict[int, str]:
        """Book id -> key, for every book the page knows."""
        return {book: head.key for book, head in self.heads.items()}


def book_heads(using: str | Mapping[int, str] = DEFAULT_DB_ALIAS) -> dict[int, BookHead]:
    """Return the open books' heads (id, key, position), one statement per database.

    `using` an alias: every book whose head row is there; a mapping book
    id -> alias: those books, each from its own database.
    """
    if isinstance(using, str):
        with connections[using].cursor() as cursor:
            cursor.execute("SELECT id, key, position FROM ledger_head ORDER BY id")
            return {row[0]: BookHead(*row) for row in cursor.fetchall()}
    heads = {}
    for alias in sorted(set(using.values())):
        books = sorted(book for book, placed in using.items() if placed == alias)
        with connections[alias].cursor() as cursor:
            cursor.execute("SELECT id, key, position FROM ledger_head WHERE id = ANY(%s)",
                           [books])
            heads.update({row[0]: BookHead(*row) for row in cursor.fetchall()})
    return dict(sorted(heads.items()))


def read_feed(cursor: Mapping[int, int], limit: int,
              using: str | Mapping[int, str] = DEFAULT_DB_ALIAS,
              books: Collection[int] | None = None) -> FeedPage:
    """Read the next page of the feed after a vector cursor.

    `cursor` maps a book id to the last position (global, as stored) the
    client has seen in it; an open book it leaves out is read from its
    beginning. `using` is an alias or a mapping book id -> alias (module
    docstring). `books` narrows the page to some books (the API's `after`
    reads only the main book). Events come ordered by recorded_at, then
    book, then position, each book's in position order (module docstring).
    Raises UnknownBook for a book in `cursor` that is not open and
    InvalidCursor for a position outside its book's range.
    """
    if not 0 < limit <= PAGE_EVENTS_MAX:
        raise InvariantViolation(f"a feed page holds 1 to {PAGE_EVENTS_MAX} events: {limit}")
    heads = book_heads(using)                # first: everything up to each head is committed
    for book, position in cursor.items():
        head = heads.get(book)
        if head is None:
            raise UnknownBook(f"book {book} is not open", book=book)
        if not head.base <= position <= head.base + BOOK_SPAN:
            raise InvalidCursor(f"position {position} is not in book {head.key}",
                                book=head.key, position=position)
    read = heads if books is None else {book: heads[book] for book in books if book in heads}
    runs = []
    for book, head in read.items():
        after = max(cursor.get(book, head.base), head.base)
        # Positions are gap-free per book: head - after events remain up to the head.
        count = min(limit, head.position - after)
        if count > 0:
            alias = using if isinstance(using, str) else using[book]
            runs.append(_load(book, after, count, alias))
    merged = heapq.merge(*runs, key=lambda event: (event.recorded_at, event.book,
                                                   event.position))
    events = tuple(itertools.islice(merged, limit))
    moved = {book: max(cursor.get(book, head.base), head.base) for book, head in read.items()}
    for event in events:
        moved[event.book] = event.position       # each book's run is taken in order
    has_more = any(moved[book] < head.position for book, head in read.items())
    return FeedPage(events=events, cursor=moved, heads=read, has_more=has_more)


def _load(book: int, after: int, count: int, using: str) -> list[RecordedEvent]:
    # The store's `using=` comes with placement (issue 19 point 4); the
    # default alias is passed by omission so this reads on the store before it.
    events = (load_book_events_after(book, after, count) if using == DEFAULT_DB_ALIAS
              else load_book_events_after(book, after, count, using=using))
    if len(events) != count:
        raise InvariantViolation(
            f"book {book} holds {len(events)} events after {after}, not {count}: a gap below"
            " its head (L2)")
    return events


def encode_cursor(positions: Mapping[int, int], keys: Mapping[int, str]) -> str:
    """Return the opaque cursor for these positions (book id -> global position)."""
    local = {keys[book]: position - (book - 1) * BOOK_SPAN
             for book, position in positions.items()}
    text = orjson.dumps({key: value for key, value in local.items() if value},
                        option=orjson.OPT_SORT_KEYS)
    return base64.urlsafe_b64encode(text).rstrip(b"=").decode("ascii")


def decode_cursor(text: str, heads: Mapping[int, BookHead]) -> dict[int, int]:
    """Return the positions (book id -> global position) an opaque cursor holds.

    An empty cursor is every book's beginning. Raises InvalidCursor for
    anything `encode_cursor` would not have made, UnknownBook for a book
    key that is not open in `heads`.
    """
    if len(text) > CURSOR_LENGTH_MAX:
        raise InvalidCursor(f"a cursor is at most {CURSOR_LENGTH_MAX} characters",
                            length=len(text))
    if not text:
        return {}
    try:
        raw = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
        value = orjson.loads(raw)
    except (binascii.Error, ValueError, orjson.JSONDecodeError):
        raise InvalidCursor("the cursor is not one this feed gave: pass `next_cursor` as"
                            " it came") from None
    if not isinstance(value, dict):
        raise InvalidCursor("the cursor is not one this feed gave: pass `next_cursor` as"
                            " it came")
    ids = {head.key: book for book, head in heads.items()}
    positions = {}
    for key, local in value.items():
        if not BOOK_KEY.match(key):
            raise InvalidCursor("the cursor names a book by a malformed key", book=key[:40])
        if type(local) is not int or not 0 <= local <= BOOK_SPAN:
            raise InvalidCursor(f"the cursor's position in book {key} is not a whole number"
                                f" from 0 to {BOOK_SPAN}", book=key)
        book = ids.get(key)
        if book is None:
            raise UnknownBook(f"book {key!r} is not open", book=key)
        positions[book] = heads[book].base + local
    return positions
