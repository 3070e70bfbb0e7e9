"""The seeded day with a book per venue closes as it does on the main book (issue 19).

The same day of real traffic (conftest.seed_day: the cage, poker, roulette,
a tournament, the jackpot roll-up) is played twice in one test: on the main
book alone (CASINO_VENUE_BOOKS_DEFAULT "main", the default), then rolled
back and played again with a book per venue ("own", casino/books.py), where
each venue's cage, tables and house accounts are on the venue's book and the
players' accounts on main, so most requests are written across two books
(ledger.crossbook). Each venue's close is the same, line for line and figure
for figure, and reconciled; only the clearing lines, which show what moved
between the books, are new, and they net to zero.
"""

from __future__ import annotations

import pytest
from django.db import transaction

from casino.reports import chart
from casino.reports.close import UNATTRIBUTED, compute_close, day_venues

from .conftest import CASINO, DAY, ROOM, seed_day


def _forget_caches() -> None:
    """What the process remembers of rolled-back rows (as tests/conftest.py does)."""
    from casino.books import forget as forget_venue_books
    from casino.rules.cache import invalidate
    from casino.runner import forget_open_accounts
    from ledger.crossbook import forget as forget_books_seen

    invalidate()
    forget_open_accounts()
    forget_venue_books()
    forget_books_seen()


def _comparable(close) -> dict:
    lines = {line.line: (line.postings, line.debit_minor, line.credit_minor, line.opening_minor,
                         line.closing_minor, line.projection_closing_minor,
                         dict(line.by_source))
             for line in close.lines
             if line.line.partition("/")[0] not in chart.BETWEEN_BOOKS_LINES}
    figures = {currency: {k: v for k, v in f.items() if k != "between_books_minor"}
               for currency, f in close.figures.items()}
    return {"lines": lines, "figures": figures, "reconciled": close.reconciled,
            "differences": close.differences}


def _closes() -> dict:
    return {venue: compute_close(venue, DAY) for venue in (ROOM, CASINO, UNATTRIBUTED)}


@pytest.mark.django_db
def test_the_seeded_day_on_venue_books_closes_as_on_one_book(venues, settings):
    settings.CASINO_VENUE_BOOKS_DEFAULT = "main"
    settings.CASINO_VENUE_BOOKS = {}
    with transaction.atomic():
        seed_day()
        one_book = _closes()
        assert day_venues(DAY) == [CASINO, ROOM]
        transaction.set_rollback(True)
    _forget_caches()
    settings.CASINO_VENUE_BOOKS_DEFAULT = "own"
    seed_day()
    own_books = _closes()
    head = own_books[ROOM].head
    assert {book.key for book in head.books} >= {"main", ROOM, CASINO}
    assert day_venues(DAY) == [CASINO, ROOM]          # nothing unattributed
    for venue in (ROOM, CASINO, UNATTRIBUTED):
        assert own_books[venue].reconciled, own_books[venue].differences
        assert _comparable(own_books[venue]) == _comparable(one_book[venue]), venue
    for venue in (ROOM, CASINO):
        assert not [line for line in one_book[venue].lines
                    if line.line.partition("/")[0] in chart.BETWEEN_BOOKS_LINES]
        moved = own_books[venue].figures["EUR"]["between_books_minor"]
        assert set(moved) == {f"clearing/main/{venue}", f"clearing/{venue}/main"}
        assert sum(moved.values()) == 0 and moved[f"clearing/main/{venue}"] > 0
    # The drop the one-book close shows (tests/casino/reports/test_close.py).
    assert own_books[ROOM].figures["EUR"]["drop_minor"] == 1_035_000
