"""Reading postings for the reports: chunked, by gaming day, up to a head per book.

Every report is computed at a head: each book's last position when it
started (or positions the caller names). Positions up to a book's head are
committed and, by the ledger's L1 and L2, can never change or gain a
neighbour, so a report can read them in many short queries (keyset pages on
(position, posting index)) and still see one consistent snapshot without
holding a transaction open: a concurrent append lands after its book's head
and is filtered out. Each page is at most `PAGE_ROWS_MAX` rows, which bounds
memory however long the range is.

Books (issue 19): book b holds positions (b-1)*2^40+1 .. b*2^40, so "a row
is within the head" is `position <= the head of its book`, written as an OR
of one range per book (`Head.bound`, the one place that renders it; each
range is an index range). Books may be placed on other databases
(ledger.placement): every read here runs once per database holding books,
with that database's books' bounds, and the answers are combined (pages
merged in position order, entity maps merged, sums added). With every book
in `default` that is one statement, as before books. A moved book's frozen
old copy is never read. `Head.position` and `Head.hash` stay the main
book's (what closes and exports record as `head_position`, `head_hash`);
`Head.heads()` gives every book's, recorded as `heads`.
"""

from __future__ import annotations

import datetime as dt
import heapq
from dataclasses import dataclass
from typing import Any, Iterator, Mapping

from django.db import DEFAULT_DB_ALIAS, connections

from ledger.read import Event
from ledger.read import placed_heads

from .errors import ReportsError, ReportsErrorCode

PAGE_ROWS_MAX = 5_000
BOOK_SPAN = 2**40           # ledger.books.BOOK_SPAN: positions per book (a test holds them equal)
MAIN_BOOK, MAIN_BOOK_KEY = 1, "main"


@dataclass(frozen=True, slots=True)
class BookHead:
    """One book's head: its last position (global numbering) and hash, and where it lives."""

    book: int
    key: str
    position: int
    hash: str
    database: str = DEFAULT_DB_ALIAS

    @property
    def base(self) -> int:
        """The position before the book's first."""
        return (self.book - 1) * BOOK_SPAN


@dataclass(frozen=True, slots=True)
class Head:
    """The heads a report is computed at: the main book's position and hash, and every book's.

    `books` empty (a head built from a main position alone) means the main
    book only, in `default`.
    """

    position: int
    hash: str
    books: tuple[BookHead, ...] = ()

    def book_heads(self) -> tuple[BookHead, ...]:
        return self.books or (BookHead(MAIN_BOOK, MAIN_BOOK_KEY, self.position, self.hash),)

    def databases(self) -> list[str]:
        """The aliases holding books, `default` first."""
        aliases = {book.database for book in self.book_heads()}
        return sorted(aliases, key=lambda alias: (alias != DEFAULT_DB_ALIAS, alias))

    def bound(self, column: str, database: str = DEFAULT_DB_ALIAS) -> tuple[str, list]:
        """SQL true when `column` (a position) is within its book's head, for the
        books in `database`: an OR of one range per book, and its parameters."""
        parts, params = [], []
        for book in self.book_heads():
            if book.database != database or book.position <= book.base:
                continue
            parts.append(f"{column} BETWEEN %s AND %s")
            params += [book.base + 1, book.position]
        if not parts:
            return "false", []
        return "(" + " OR ".join(parts) + ")", params

    def heads(self) -> dict[str, dict[str, Any]]:
        """Every book's head as recorded in a payload: {key: {position, hash}}."""
        return {book.key: {"position": book.position, "hash": book.hash}
                for book in self.book_heads()}


def head_at(position: int | None = None, *, books: Mapping[str, int] | None = None) -> Head:
    """Return the current heads, or named ones (which must exist).

    `position` names the main book's head (old closes and exports): the
    head is then the main book's alone. `books` names each book's head by
    key ({"main": 12, "v1": 1099511627790}, as recorded under `heads`);
    a book it leaves out is not read. One statement with every book in
    `default` (and one per other database holding books).
    """
    current = [BookHead(book, key, pos, hash_, database)
               for book, key, pos, hash_, database in placed_heads()]
    main = next((book for book in current if book.book == MAIN_BOOK),
                BookHead(MAIN_BOOK, MAIN_BOOK_KEY, 0, _genesis()))
    if books is None:
        if position is None:
            return Head(main.position, main.hash, tuple(current))
        books = {MAIN_BOOK_KEY: position}
    named = []
    by_key = {book.key: book for book in current}
    for key, wanted in books.items():
        book = by_key.get(key)
        if book is None:
            raise ReportsError(ReportsErrorCode.HEAD_AHEAD,
                               f"book {key!r} is not open", book=key, position=wanted)
        if wanted == book.position:
            named.append(book)
            continue
        if wanted < book.base or wanted > book.position:
            raise ReportsError(ReportsErrorCode.HEAD_AHEAD,
                               f"the ledger's head is at {book.position}; position {wanted}"
                               " is not in the log", head_position=book.position,
                               position=wanted, book=key)
        named.append(BookHead(book.book, key, wanted, _hash_at(wanted, book), book.database))
    named.sort(key=lambda book: book.book)
    main = next((book for book in named if book.book == MAIN_BOOK),
                BookHead(MAIN_BOOK, MAIN_BOOK_KEY, 0, _genesis()))
    return Head(main.position, main.hash, tuple(named))


def parse_heads(text: str) -> dict[str, int]:
    """Book heads named as text, `KEY=N,KEY=N` (the CLI's --heads, the API's `heads`)."""
    heads: dict[str, int] = {}
    for part in text.split(","):
        key, sep, position = part.strip().partition("=")
        if not sep or not key or not position.strip().isdigit():
            raise ReportsError(ReportsErrorCode.INVALID_REQUEST,
                               "heads are KEY=N,KEY=N: a book key and its position",
                               heads=text)
        heads[key] = int(position)
    return heads


def head_of_record(payload: Mapping[str, Any]) -> Head:
    """The head a recorded close or export was read at (its `heads`, else its main head)."""
    heads = payload.get("heads")
    if heads:
        return head_at(books={key: int(value["position"]) for key, value in heads.items()})
    return head_at(int(payload["head_position"]))


def _genesis() -> str:
    from ledger import GENESIS_HASH

    return GENESIS_HASH


def _hash_at(position: int, book: BookHead) -> str:
    if position == book.base:
        return _genesis()
    return (Event.objects.using(book.database).values_list("hash", flat=True)
            .get(position=position))


Ranges = tuple[tuple[int, int], ...]


def iter_pages(select: str, where: str, params: list, *, head: Head,
               page_rows: int = PAGE_ROWS_MAX,
               positions: "Mapping[str, Ranges] | tuple[int, int] | None" = None
               ) -> Iterator[list[tuple]]:
    """Yield pages of `select` rows, in (position, posting index) order.

    `select` must start with `e.position, p.index`; `where` filters events
    `e` and postings `p` (the head's bound is added here). `positions`, per
    database the first and last position the rows can be at in each of its
    books (`day_range_positions`, within the head), bounds the scan to those
    ranges instead of each book's whole range up to its head (a legacy pair
    (first, last) is applied within the head's bound). With books on several
    databases, each database's pages are merged in position order.
    """
    assert 0 < page_rows <= PAGE_ROWS_MAX, "page size out of range"
    spans: dict[str, tuple[str, list, int]] = {}
    for database in head.databases():
        bound, bound_params = head.bound("p.event_id", database)
        if bound == "false":
            continue
        if positions is None:
            spans[database] = (bound, bound_params, 1)
        elif isinstance(positions, tuple):
            first, last = positions
            spans[database] = (f"{bound} AND p.event_id BETWEEN %s AND %s",
                               [*bound_params, first, last], first)
        elif positions.get(database):
            ranges = positions[database]
            spans[database] = ("(" + " OR ".join(["p.event_id BETWEEN %s AND %s"] * len(ranges))
                               + ")", [value for pair in ranges for value in pair],
                               min(low for low, _ in ranges))
    if len(spans) <= 1:
        for database, span in spans.items():
            yield from _pages_in(database, select, where, params, page_rows, span)
        return
    merged = heapq.merge(*(_rows_in(database, select, where, params, page_rows, span)
                           for database, span in spans.items()),
                         key=lambda row: (row[0], row[1]))
    page: list[tuple] = []
    for row in merged:
        page.append(row)
        if len(page) == page_rows:
            yield page
            page = []
    if page:
        yield page


def _rows_in(database, select, where, params, page_rows, span) -> Iterator[tuple]:
    for page in _pages_in(database, select, where, params, page_rows, span):
        yield from page


def _pages_in(database: str, select: str, where: str, params: list, page_rows: int,
              span: tuple[str, list, int]) -> Iterator[list[tuple]]:
    bound, bound_params, first = span
    sql = (f"SELECT {select} FROM ledger_posting p JOIN ledger_event e"
           " ON e.position = p.event_id"
           f" WHERE ({where}) AND {bound}"
           " AND (p.event_id, p.index) > (%s, %s)"
           " ORDER BY p.event_id, p.index LIMIT %s")
    after = (first - 1, 2**15)
    while True:
        with connections[database].cursor() as cursor:
            cursor.execute(sql, [*params, *bound_params, after[0], after[1], page_rows])
            rows = cursor.fetchall()
        if not rows:
            return
        yield rows
        if len(rows) < page_rows:
            return
        after = (rows[-1][0], rows[-1][1])


def events_at(positions) -> list:
    """The events at these positions (ledger Event rows), each read where its book
    is placed, in position order. The main book's alone: one statement, as before
    books; else one more for the directory and one per database holding them."""
    positions = sorted(set(positions))
    if all(position <= BOOK_SPAN for position in positions):
        return list(Event.objects.filter(position__in=positions).order_by("position"))
    where = {book: database for book, _, _, _, database in placed_heads()}
    by_database: dict[str, list[int]] = {}
    for position in positions:
        database = where.get((position - 1) // BOOK_SPAN + 1)
        if database is not None:
            by_database.setdefault(database, []).append(position)
    found = []
    for database, wanted in by_database.items():
        events = Event.objects if database == DEFAULT_DB_ALIAS else Event.objects.using(database)
        found += events.filter(position__in=wanted)
    return sorted(found, key=lambda event: event.position)


def day_range_where(first: dt.date, last: dt.date) -> tuple[str, list]:
    return "e.gaming_day BETWEEN %s AND %s", [first, last]


def day_range_positions(first: dt.date, last: dt.date, head: Head
                        ) -> dict[str, Ranges] | None:
    """Per database, each book's first and last position of an event of these
    gaming days, within the head; None if there is none anywhere.

    One probe of the (gaming_day, position) index per database holding
    books, so that reading a day at the end of a long log does not walk the
    postings before it, nor (with several books) a book's later days.
    """
    found: dict[str, Ranges] = {}
    for database in head.databases():
        bound, params = head.bound("position", database)
        if bound == "false":
            continue
        with connections[database].cursor() as cursor:
            cursor.execute("SELECT min(position), max(position) FROM ledger_event"
                           f" WHERE gaming_day BETWEEN %s AND %s AND {bound}"
                           f" GROUP BY (position - 1) / {BOOK_SPAN} ORDER BY 1",
                           [first, last, *params])
            ranges = tuple((low, high) for low, high in cursor.fetchall())
        if ranges:
            found[database] = ranges
    return found or None


def entity_venues(head: Head) -> dict[str, dict[str, str]]:
    """Map poker tables, house-game tables, tournaments and machines to their venues.

    Read from the log (the events that opened them), not from the apps'
    projections, so a report at an old head sees what the log said then;
    from every database holding books (the maps merge).
    """
    kinds = {"poker.table_opened": ("poker_table", "table_id"),
             "games.table_opened": ("game_table", "table_id"),
             "tournaments.tournament_announced": ("tournament", "tournament_id"),
             "machines.machine_registered": ("machine", "machine_id")}
    entities: dict[str, dict[str, str]] = {kind: {} for kind, _ in kinds.values()}
    for database in head.databases():
        bound, params = head.bound("position", database)
        if bound == "false":
            continue
        with connections[database].cursor() as cursor:
            cursor.execute(
                "SELECT type, payload->>'table_id', payload->>'tournament_id',"
                " payload->>'machine_id', payload->>'venue'"
                f" FROM ledger_event WHERE type = ANY(%s) AND {bound} ORDER BY position",
                [list(kinds), *params])
            rows = cursor.fetchall()
        for event_type, table_id, tournament_id, machine_id, venue in rows:
            kind, field = kinds[event_type]
            entity = {"table_id": table_id, "tournament_id": tournament_id,
                      "machine_id": machine_id}[field]
            if entity and venue:
                entities[kind][entity] = venue
    return entities
