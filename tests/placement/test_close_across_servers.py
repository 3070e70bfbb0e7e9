"""The daily close of a venue whose day spans two servers (issue 19 point 4).

The main book (server 1, `default`) holds the players' gaming accounts; the
venue's book `vb` is placed on server 2 with the venue's cage. The day's
money between them goes through the books' clearing accounts (each book's
events balance on their own). The close reads each book where the directory
places it, each up to its own head, and combines the two servers' answers:
it reconciles and shows both books' lines; a book's events above its head
are not counted.
"""

from __future__ import annotations

import datetime as dt
import itertools

import pytest
from django.db import connections
from django.test.utils import CaptureQueriesContext

from casino.compliance.verification import verify_every_book
from casino.reports.close import compute_close
from casino.reports.journal import trial_balance_rows
from casino.reports.reading import head_at
from ledger import NewEvent, Posting, append, open_account
from ledger.books import open_book

from .conftest import THREE_SERVERS

pytestmark = [THREE_SERVERS, pytest.mark.slow]

DAY = dt.date(2026, 6, 16)
VENUE, BOOK = "tallinn", "vb"
CASH, CHIPS = f"cage/{VENUE}/cash", f"cage/{VENUE}/chips"
PLAYER = "player/p-1/account"
MAIN_CLEARING, BOOK_CLEARING = f"clearing/main/{BOOK}/EUR", f"clearing/{BOOK}/main/EUR"
_streams = itertools.count(1)


def _event(postings, day: dt.date = DAY) -> NewEvent:
    return NewEvent(stream=f"test/{next(_streams)}", type="cage.deposited",
                    payload={"venue": VENUE},
                    postings=tuple(Posting(code, amount, "EUR") for code, amount in postings),
                    gaming_day=day)


def _deposit(amount: int, day: dt.date = DAY) -> None:
    """Cash into the venue's cage (server 2), credited to the player (server 1): one
    event per book, each balanced through its clearing account."""
    append([_event([(PLAYER, -amount), (MAIN_CLEARING, amount)], day)])
    append([_event([(CASH, amount), (BOOK_CLEARING, -amount)], day)], book=BOOK)


@pytest.fixture
def venue_day(three_servers):
    open_book(BOOK, "server2")
    for code, kind in ((CASH, "asset"), (CHIPS, "liability"), (BOOK_CLEARING, "asset")):
        open_account(code=code, type=kind, currency="EUR", book=BOOK)
    for code, kind in ((PLAYER, "liability"), (MAIN_CLEARING, "asset")):
        open_account(code=code, type=kind, currency="EUR")
    _deposit(5_000, DAY - dt.timedelta(days=1))           # the opening
    _deposit(10_000)
    _deposit(20_000)
    append([_event([(CASH, 3_000), (CHIPS, -3_000)])], book=BOOK)
    return head_at()


def test_the_close_reads_each_book_on_its_server_and_reconciles(venue_day):
    head = venue_day
    assert {(book.key, book.database) for book in head.books} == {
        ("main", "default"), (BOOK, "server2")}
    close = compute_close(VENUE, DAY, head)
    assert close.reconciled, close.differences
    lines = {line.line: line for line in close.lines}
    # The cage on server 2, the player on server 1: both in one close.
    assert (lines["cage_cash"].debit_minor, lines["cage_cash"].opening_minor,
            lines["cage_cash"].closing_minor) == (33_000, 5_000, 38_000)
    assert lines["cage_cash"].closing_minor == lines["cage_cash"].projection_closing_minor
    assert lines["player_accounts"].net_minor == -30_000
    assert lines["player_accounts"].closing_minor == -35_000
    assert lines["chip_float"].net_minor == -3_000
    # What moved between the books, both sides, netting to zero.
    assert lines[f"clearing/main/{BOOK}"].net_minor == 30_000
    assert lines[f"clearing/{BOOK}/main"].net_minor == -30_000
    assert close.payload()["heads"] == {
        book.key: {"position": book.position, "hash": book.hash} for book in head.books}
    # The trial balance spans the servers too.
    trial = {row[0]: row for row in trial_balance_rows(DAY, DAY, head)}
    assert trial[CASH][7] == 38_000 and trial[PLAYER][7] == -35_000


def test_a_books_events_above_its_head_are_not_counted(venue_day):
    before = compute_close(VENUE, DAY, venue_day).payload()
    _deposit(7_000)
    append([_event([(CASH, 1_000), (CHIPS, -1_000)])], book=BOOK)
    assert compute_close(VENUE, DAY, venue_day).payload() == before
    now = compute_close(VENUE, DAY)
    assert now.reconciled, now.differences
    cash = next(line for line in now.lines if line.line == "cage_cash")
    assert (cash.debit_minor, cash.closing_minor) == (41_000, 46_000)


def test_one_more_set_of_statements_per_server_and_each_book_verified(venue_day):
    """Server 2 answers the same statements as server 1 (no more); the chain
    verification walks the book on server 2 and records its head."""
    with CaptureQueriesContext(connections["default"]) as first, \
            CaptureQueriesContext(connections["server2"]) as second:
        compute_close(VENUE, DAY, venue_day)
    assert len(second.captured_queries) == len(first.captured_queries) == 5
    result, heads = verify_every_book()
    assert result.ok, result.problem
    book = next(book for book in venue_day.books if book.key == BOOK)
    assert heads[BOOK] == {"position": book.position, "hash": book.hash}


def test_linked_events_are_read_on_their_books_servers(venue_day):
    """A suspicious-transaction report's events (casino/reports/suspicious.py) are
    read where each book lives."""
    from casino.reports.reading import events_at
    from ledger.models import Event

    book = next(book for book in venue_day.books if book.key == BOOK)
    on_main = Event.objects.filter(book=1).order_by("-position").first().position
    found = events_at([book.position, on_main, book.position])
    assert [event.position for event in found] == [on_main, book.position]
    assert found[1].payload == {"venue": VENUE}
