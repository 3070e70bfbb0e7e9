"""The daily close over several books (issue 19 points 1 and 4).

A venue's day written across its own book and the main book (the player's
account lives on main, the venue's cage and house accounts on the venue's
book; ledger.crossbook splits a posting to the other book into a companion
event through the books' clearing accounts) closes to the same lines and
nets as the same day written on one book, reconciled, plus the clearing
lines that show what moved between the books. Each book is read up to its
own head: a book's events above its head are not counted.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import itertools

import pytest

from casino.reports import chart, reading
from casino.reports.close import compute_close
from casino.reports.journal import trial_balance_rows
from casino.reports.ledger_entries import summary_rows
from casino.reports.reading import BookHead, Head, day_range_positions, head_at, iter_pages
from casino.reports.thresholds import _events_up_to
from ledger import NewEvent, Posting, open_account
from ledger.books import (BOOK_SPAN, MAIN_BOOK, MAIN_BOOK_KEY, book_id, book_of,
                          open_book)
from ledger.crossbook import CROSSBOOK_LEG, append_across

DAY = dt.date(2026, 6, 16)
BEFORE = DAY - dt.timedelta(days=1)
ONE, TWO = "v-one", "v-two"        # the same day: on main alone, and across two books
_keys = itertools.count(1)


def _open(venue: str, book: str, players: tuple[str, ...]) -> None:
    for code, kind in ((f"cage/{venue}/cash", "asset"), (f"cage/{venue}/chips", "liability"),
                       (f"house/{venue}/rake", "revenue")):
        open_account(code=code, type=kind, currency="EUR", book=book)
    for player in players:
        open_account(code=f"player/{player}/account", type="liability", currency="EUR")


def _event(venue: str, stream: str, kind: str, day: dt.date, postings, *,
           venue_in_payload: bool = True) -> NewEvent:
    payload = {"venue": venue} if venue_in_payload else {}
    return NewEvent(stream=stream, type=kind, payload=payload, gaming_day=day,
                    postings=tuple(Posting(code, amount, "EUR") for code, amount in postings))


def _write(events, home: str) -> None:
    """One request: player streams on main, every other stream on the venue's book."""
    append_across(events, home_book=home,
                  book_for_stream=lambda stream: "main" if stream.startswith("player/")
                  else None, idempotency_key=f"books-close-{next(_keys)}")


def write_day(venue: str, book: str) -> None:
    """The day before (an opening) and the day: deposits, chips, rake, a withdrawal."""
    alice, bob = f"{venue}-alice", f"{venue}-bob"
    _open(venue, book, (alice, bob))
    cash, chips, rake = f"cage/{venue}/cash", f"cage/{venue}/chips", f"house/{venue}/rake"
    a_acct, b_acct = f"player/{alice}/account", f"player/{bob}/account"
    _write([_event(venue, f"player/{alice}", "cage.deposited", BEFORE,
                   [(cash, 5_000), (a_acct, -5_000)])], book)
    # The day: each a request of its own, as the cage and the tables send them.
    _write([_event(venue, f"player/{alice}", "cage.deposited", DAY,
                   [(cash, 10_000), (a_acct, -10_000)])], book)
    _write([_event(venue, f"player/{bob}", "cage.deposited", DAY,
                   [(cash, 20_000), (b_acct, -20_000)])], book)
    _write([_event(venue, f"cage/{venue}/chips-sold", "cage.chips_bought", DAY,
                   [(cash, 3_000), (chips, -3_000)])], book)
    # Rake from the players' accounts into the venue's house account, on the
    # venue's stream (its companion on main carries the venue in its payload).
    _write([_event(venue, f"cage/{venue}/rake", "poker.rake_taken", DAY,
                    [(a_acct, 300), (b_acct, 200), (rake, -500)])], book)
    _write([_event(venue, f"player/{bob}", "cage.withdrawn", DAY,
                   [(b_acct, 4_000), (cash, -4_000)])], book)


@pytest.fixture
def two_ways(db):
    """The same day of ONE on the main book and of TWO across main and book `v-two`."""
    open_book(TWO)
    write_day(ONE, "main")
    write_day(TWO, TWO)
    return head_at()


def _between_books(close) -> list:
    return [line for line in close.lines
            if line.line.partition("/")[0] in chart.BETWEEN_BOOKS_LINES]


def _comparable(close) -> dict:
    """Lines and figures without the clearing lines (only across books)."""
    lines = {line.line: dataclasses.replace(line, by_source=dict(line.by_source))
             for line in close.lines
             if line.line.partition("/")[0] not in chart.BETWEEN_BOOKS_LINES}
    figures = {currency: {k: v for k, v in f.items() if k != "between_books_minor"}
               for currency, f in close.figures.items()}
    return {"lines": {name: (line.postings, line.debit_minor, line.credit_minor,
                             line.net_minor, line.opening_minor, line.closing_minor,
                             line.projection_closing_minor, line.by_source)
                      for name, line in lines.items()},
            "figures": figures}


def test_a_day_across_two_books_closes_as_the_same_day_on_one_book(two_ways):
    """Same lines, same nets, both reconciled; the clearing lines net to zero."""
    assert {book.key for book in two_ways.books} >= {"main", TWO}
    one, two = compute_close(ONE, DAY, two_ways), compute_close(TWO, DAY, two_ways)
    assert one.reconciled, one.differences
    assert two.reconciled, two.differences
    assert _comparable(two) == _comparable(one)
    assert _comparable(one)["lines"]["cage_cash"][:4] == (4, 33_000, 4_000, 29_000)
    assert one.figures["EUR"]["rake_minor"] == two.figures["EUR"]["rake_minor"] == 500
    # One book moves nothing between books; two show both sides of each pair.
    assert _between_books(one) == []
    moved = {line.line: line.net_minor for line in _between_books(two)}
    # Into the venue's book from main: the deposits' cash (30,000) and the
    # withdrawal (-4,000) were posted by main's player events; the rake
    # (500) by the venue's event from the players' accounts on main.
    assert moved == {f"clearing/{TWO}/main": -(30_000 - 4_000) + 500,
                     f"clearing/main/{TWO}": (30_000 - 4_000) - 500}
    assert sum(moved.values()) == 0
    assert two.figures["EUR"]["between_books_minor"] == moved
    payload = two.payload()
    assert set(payload["heads"]) >= {"main", TWO}
    assert payload["heads"]["main"] == {"position": two_ways.position, "hash": two_ways.hash}
    assert (payload["head_position"], payload["head_hash"]) == (two_ways.position,
                                                                 two_ways.hash)


def test_companions_are_read_and_attributed_as_the_event_they_complete(two_ways):
    """Without the companions the venue's player lines would be missing."""
    from ledger.models import Event

    companions = Event.objects.filter(type=CROSSBOOK_LEG, payload__venue=TWO)
    assert companions.count() == 5
    assert {e.payload["type"] for e in companions} == {
        "cage.deposited", "cage.withdrawn", "poker.rake_taken"}
    close = compute_close(TWO, DAY, two_ways)
    player = next(line for line in close.lines if line.line == "player_accounts")
    assert player.net_minor == -(30_000 - 4_000) + 500
    # Sources are the original's app (the companions' type is the original's).
    cash = next(line for line in close.lines if line.line == "cage_cash")
    assert cash.by_source == {"cage": 33_000}


def test_a_companion_without_a_venue_is_attributed_by_its_accounts(two_ways):
    """A request whose event names no venue: its companion on the venue's book
    posts to the venue's cage and is the venue's."""
    cash = f"cage/{TWO}/cash"
    _write([_event(TWO, f"player/{TWO}-alice", "cage.deposited", DAY,
                   [(cash, 700), (f"player/{TWO}-alice/account", -700)],
                   venue_in_payload=False)], TWO)
    head = head_at()
    close = compute_close(TWO, DAY, head)
    line = next(line for line in close.lines if line.line == "cage_cash")
    assert line.debit_minor == 33_700
    assert close.checks["lines_balance"] and close.checks["day_postings"]


def test_events_above_a_books_head_are_not_counted(two_ways):
    """Each book up to its own head: later events of either book are left out."""
    before = compute_close(TWO, DAY, two_ways).payload()
    # Later on the same day: one on the venue's book, one across both books.
    _write([_event(TWO, f"cage/{TWO}/chips-sold", "cage.chips_bought", DAY,
                   [(f"cage/{TWO}/cash", 1_000), (f"cage/{TWO}/chips", -1_000)])], TWO)
    _write([_event(TWO, f"player/{TWO}-bob", "cage.deposited", DAY,
                   [(f"cage/{TWO}/cash", 2_000), (f"player/{TWO}-bob/account", -2_000)])],
           TWO)
    again = compute_close(TWO, DAY, two_ways).payload()
    assert again == before
    now = compute_close(TWO, DAY)
    assert now.reconciled, now.differences
    assert next(line for line in now.lines if line.line == "cage_cash").debit_minor == (
        33_000 + 3_000)
    # The venue's book at its old head, main at its new one: the new
    # deposit's cash (venue's book) is out, its credit to the player (main) in.
    venue_book = next(book for book in two_ways.books if book.key == TWO)
    mixed = Head(now.head.position, now.head.hash,
                 tuple(venue_book if book.key == TWO else book for book in now.head.books))
    partial = compute_close(TWO, DAY, mixed)
    lines = {line.line: line for line in partial.lines}
    assert lines["cage_cash"].debit_minor == 33_000
    assert lines["player_accounts"].net_minor == -(30_000 - 4_000) + 500 - 2_000
    # Each book's part balances on its own (through its clearing account),
    # so the close at mixed heads still reconciles; the main book's side
    # of the pair shows the 2,000 the venue's book has not recorded yet.
    assert partial.reconciled, partial.differences
    assert lines[f"clearing/main/{TWO}"].net_minor == 25_500 + 2_000
    assert lines[f"clearing/{TWO}/main"].net_minor == -25_500


def test_one_sql_bound_per_book_renders_each_books_range(two_ways):
    """The bound is an OR of one range per book of the database, nothing else."""
    assert (reading.BOOK_SPAN, reading.MAIN_BOOK, reading.MAIN_BOOK_KEY) == (
        BOOK_SPAN, MAIN_BOOK, MAIN_BOOK_KEY)
    books = two_ways.books
    bound, params = two_ways.bound("e.position")
    assert bound.count("BETWEEN") == sum(1 for b in books if b.position > b.base)
    for book in books:
        if book.position > book.base:
            assert (book.base + 1, book.position) in zip(params[::2], params[1::2])
    assert Head(5, "x").bound("p.event_id") == ("(p.event_id BETWEEN %s AND %s)", [1, 5])
    assert Head(5, "x", (BookHead(2, "b", 2**40 + 3, "y", "elsewhere"),)).bound(
        "p.event_id") == ("false", [])
    # A named main position reads the main book alone (old closes).
    main_only = head_at(two_ways.position)
    assert [book.key for book in main_only.books] == ["main"]
    assert compute_close(TWO, DAY, main_only).postings < compute_close(
        TWO, DAY, two_ways).postings


def test_journal_summary_trial_balance_and_cash_report_read_every_book(two_ways):
    positions = day_range_positions(DAY, DAY, two_ways)
    # One range per book: the day's first and last position in each.
    assert positions is not None and len(positions["default"]) == 2
    (low_1, high_1), (low_2, high_2) = positions["default"]
    assert high_1 < 2**40 < low_2 <= high_2
    rows = [row for page in iter_pages("e.position, p.index", "e.gaming_day = %s", [DAY],
                                       head=two_ways, positions=positions) for row in page]
    assert rows == sorted(rows)
    assert any(row[0] > 2**40 for row in rows)
    trial = {row[0]: row for row in trial_balance_rows(DAY, DAY, two_ways)}
    assert trial[f"cage/{TWO}/cash"][4:] == trial[f"cage/{ONE}/cash"][4:] == (
        5_000, 33_000, 4_000, 34_000)
    assert sum(row[7] for row in trial.values()) == 0
    summary = [row for row in summary_rows(DAY, DAY, two_ways) if row[2] in (ONE, TWO)]
    by_venue = {venue: sorted((r[3], r[6] - r[7]) for r in summary if r[2] == venue
                              and r[3] != "1900") for venue in (ONE, TWO)}
    assert by_venue[ONE] == by_venue[TWO]
    # The threshold reports' reads: every book, each up to its head.
    rakes = _events_up_to(two_ways, ("position", "payload"), gaming_day__range=(DAY, DAY),
                          type="poker.rake_taken")
    assert [(book_of(position), payload["venue"]) for position, payload in rakes] == [
        (1, ONE), (book_id(TWO), TWO)]
    _write([_event(TWO, f"cage/{TWO}/rake", "poker.rake_taken", DAY,
                   [(f"player/{TWO}-alice/account", 100), (f"house/{TWO}/rake", -100)])], TWO)
    assert len(_events_up_to(two_ways, ("position",), type="poker.rake_taken")) == 2
    assert len(_events_up_to(None, ("position",), type="poker.rake_taken")) == 3


def test_the_chain_verification_records_every_books_head(two_ways):
    """What verifies a close's heads walks every book and names each head."""
    from casino.compliance.verification import verify_every_book

    result, heads = verify_every_book()
    assert result.ok, result.problem
    assert heads == two_ways.heads()
    assert set(heads) >= {"main", TWO}
    assert result.head_position == two_ways.position


def test_the_seal_records_where_the_day_ends_in_every_book(two_ways):
    """A seal names each book's head and the day's last event and count in it."""
    from casino.reports.commands import seal_day
    from ledger.models import Event

    sealed = seal_day(gaming_day=DAY, actor="t",
                      at=dt.datetime(2026, 6, 18, 12, tzinfo=dt.timezone.utc))
    payload = sealed.payload
    assert set(payload["heads"]) >= {"main", TWO}
    assert payload["heads"]["main"]["position"] == two_ways.position
    book = book_id(TWO)
    events = Event.objects.filter(book=book)
    last = events.filter(gaming_day__lte=DAY).order_by("-position").first()
    assert payload["day_ends"][TWO] == {
        "day_last_position": last.position, "day_last_hash": last.hash,
        "day_events": events.filter(gaming_day=DAY).count()}
    assert payload["day_ends"][TWO]["day_events"] >= 4
    main = Event.objects.filter(book=1, gaming_day__lte=DAY, position__lte=two_ways.position
                                ).order_by("-position").first()
    assert payload["day_last_position"] == main.position


def test_export_journal_reproduces_an_export_at_every_books_recorded_head(two_ways, tmp_path):
    """--heads KEY=N,... reads each book up to the head an export recorded."""
    from django.core.management import call_command
    from django.core.management.base import CommandError

    from ledger.models import Event

    first = tmp_path / "first.csv"
    call_command("export_journal", "--from", DAY.isoformat(), "--to", DAY.isoformat(),
                 "--out", str(first), "--no-progress")
    recorded = Event.objects.filter(type="reports.journal_exported").order_by("position")[0]
    heads = recorded.payload["heads"]
    assert set(heads) >= {"main", TWO}
    # Later events of the day on both books; the export at the recorded heads is the same.
    _write([_event(TWO, f"player/{TWO}-bob", "cage.deposited", DAY,
                   [(f"cage/{TWO}/cash", 2_000), (f"player/{TWO}-bob/account", -2_000)])],
           TWO)
    again = tmp_path / "again.csv"
    call_command("export_journal", "--from", DAY.isoformat(), "--to", DAY.isoformat(),
                 "--out", str(again), "--no-progress", "--heads",
                 ",".join(f"{key}={value['position']}" for key, value in heads.items()))
    assert again.read_bytes() == first.read_bytes()
    now = tmp_path / "now.csv"
    call_command("export_journal", "--from", DAY.isoformat(), "--to", DAY.isoformat(),
                 "--out", str(now), "--no-progress")
    assert now.read_bytes() != first.read_bytes()
    with pytest.raises(CommandError):
        call_command("export_journal", "--from", DAY.isoformat(), "--to", DAY.isoformat(),
                     "--out", str(now), "--heads", "main")


def test_the_api_exports_at_every_books_head_and_names_them(two_ways):
    """GET /api/v1/reports/journal?heads=KEY=N,... and the X-Ledger-Heads header."""
    from casino.roles import Role
    from tests.casino.api.conftest import client_for

    client = client_for(Role.ACCOUNTANT)
    query = {"from": DAY.isoformat(), "to": DAY.isoformat()}
    first = client.get("/api/v1/reports/journal", query)
    named = dict(part.split("=") for part in first["X-Ledger-Heads"].split(","))
    assert {key: int(value) for key, value in named.items()} == {
        book.key: book.position for book in two_ways.books}
    data = b"".join(first.streaming_content)
    _write([_event(TWO, f"cage/{TWO}/chips-sold", "cage.chips_bought", DAY,
                   [(f"cage/{TWO}/cash", 1_000), (f"cage/{TWO}/chips", -1_000)])], TWO)
    again = client.get("/api/v1/reports/journal", {**query, "heads": first["X-Ledger-Heads"]})
    assert again.status_code == 200
    assert b"".join(again.streaming_content) == data
    now = client.get("/api/v1/reports/journal", query)
    assert b"".join(now.streaming_content) != data
    refused = client.get("/api/v1/reports/journal", {**query, "heads": "main"})
    assert refused.status_code == 400


def test_books_in_one_database_cost_the_close_no_statement_more(two_ways):
    """The heads in one statement; the close's five statements whatever the books."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as heads:
        head_at()
    main_only = head_at(two_ways.position)
    with CaptureQueriesContext(connection) as one_book:
        compute_close(ONE, DAY, main_only)
    with CaptureQueriesContext(connection) as two_books:
        compute_close(TWO, DAY, two_ways)
    assert len(heads.captured_queries) == 1
    assert len(two_books.captured_queries) == len(one_book.captured_queries) == 5
