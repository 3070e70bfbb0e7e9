"""The daily close against a seeded day of real traffic, reconciled to the cent."""

from __future__ import annotations

import datetime as dt

import pytest
from django.db import connection

from casino.books import venue_book
from casino.reports import commands
from casino.reports.close import UNATTRIBUTED, compute_close, day_venues
from casino.reports.errors import ReportsError
from casino.reports.events import DAY_CLOSED
from casino.reports.models import DayClose
from casino.reports.reading import head_at
from casino.rules.errors import RulesError
from ledger import Metadata, NewEvent, Posting, open_account, rebuild_projections
from ledger.books import book_key
from ledger.crossbook import append_across
from ledger.models import Account, Event

from .conftest import CASINO, DAY, DAY_AFTER, ROOM


def sql_sum(where: str, params: list) -> int:
    """Sum of postings joined to their events, filtered by `where` (SQL)."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT COALESCE(sum(p.amount_minor), 0) FROM ledger_posting p"
            f" JOIN ledger_event e ON e.position = p.event_id WHERE {where}", params)
        return int(cursor.fetchone()[0])


def balance(code_like: str) -> int:
    """Sum of projected balances (natural direction) of accounts LIKE the pattern."""
    return sum(Account.objects.filter(code__regex=code_like)
               .values_list("balance_minor", flat=True))


def line(close, name: str):
    return next(item for item in close.lines if item.line == name)


def test_the_rooms_close_reconciles_and_each_figure_equals_an_independent_sum(seeded_day):
    """Drop, rake, time charges, fees, jackpot, float and liabilities, each
    recomputed by SQL over the postings or read from the projected balances."""
    close = compute_close(ROOM, DAY)
    assert close.reconciled, close.differences
    assert close.checks == {"lines_balance": True, "day_postings": True,
                            "balances_projection": True, "balances_movement": True}
    f = close.figures["EUR"]
    day = "e.gaming_day = %s AND p.account_id = %s"
    cash = f"cage/{ROOM}/cash"
    # Drop: 8 x 1,000 + 2,000 deposited and 200 of chips sold at the cage;
    # 150 bought in for cash at the table.
    assert f["drop_minor"] == 1_035_000 == sql_sum(f"{day} AND p.amount_minor > 0",
                                                   [DAY, cash])
    assert f["drop_by_source_minor"] == {"cage": 1_020_000, "tables": 15_000}
    assert f["cash_paid_out_minor"] == 15_000 == -sql_sum(f"{day} AND p.amount_minor < 0",
                                                          [DAY, cash])
    assert (f["fills_minor"], f["credits_minor"]) == (0, 0)
    rake = f"house/{ROOM}/rake"
    # 000:L430-448: EUR 1 per full EUR 20 of a 6,000 pot; the time charge
    # of EUR 6 a seat for two seats (000:L464-465).
    assert f["rake_minor"] == 300 == -sql_sum(f"{day} AND e.type <> 'poker.time_charged'",
                                              [DAY, rake])
    assert f["time_charges_minor"] == 1_200 == -sql_sum(
        f"{day} AND e.type = 'poker.time_charged'", [DAY, rake])
    # Three entries of 600 + 70 (a room tournament starts with three, 000:L3240).
    assert f["tournament_fees_minor"] == 21_000 == -sql_sum(
        day, [DAY, f"house/{ROOM}/tournament_fees"])
    pending = f"jackpot/{ROOM}/bad_beat/pending"
    assert f["jackpots"]["bad_beat"] == {
        "contributions_minor": 100, "rolled_up_minor": 100, "paid_out_minor": 0,
        "pool_credits_minor": 100, "pending_minor": 0, "pool_minor": 100}
    assert -sql_sum(f"{day} AND p.amount_minor < 0", [DAY, pending]) == 100
    assert balance(f"^jackpot/{ROOM}/bad_beat/pool$") == 100
    # The chip float: 200 sold, 50 redeemed.
    assert f["chip_float_minor"] == 15_000 == balance(f"^cage/{ROOM}/chips$")
    assert f["player_liabilities_minor"] == balance(r"^player/[^/]+/account$")
    assert f["table_stacks_minor"] == (
        balance(f"^table/{seeded_day.table_id}/stacks$")
        + balance(f"^table/{seeded_day.time_table_id}/stacks$"))
    assert f["house_result_minor"] == 300 + 1_200 + 21_000
    assert line(close, "bank_clearing").closing_minor == 1_000_00
    assert (line(close, "cage_cash").closing_minor
            == line(close, "cage_cash").projection_closing_minor == 1_020_000)


def test_the_casinos_close_shows_the_house_games_result(seeded_day):
    """The house lost 380 on the roulette round (35:1 and an even-money win)."""
    close = compute_close(CASINO, DAY)
    assert close.reconciled, close.differences
    assert close.figures["EUR"]["games_result_minor"] == {"roulette": -38_000}
    assert -sql_sum("e.gaming_day = %s AND p.account_id = %s",
                    [DAY, f"house/{CASINO}/games/roulette"]) == -38_000
    assert line(close, "game_stakes").closing_minor == 0


def test_every_posting_of_the_day_is_in_exactly_one_line_of_one_close(seeded_day):
    """The venues' closes and the unattributed partition the day's postings."""
    head = head_at()
    venues = day_venues(DAY, head)
    assert venues == [CASINO, ROOM]
    closes = [compute_close(venue, DAY, head) for venue in venues]
    counted = sum(item.postings for close in closes for item in close.lines)
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM ledger_posting p JOIN ledger_event e"
                       " ON e.position = p.event_id WHERE e.gaming_day = %s", [DAY])
        assert counted == sum(c.postings for c in closes) == cursor.fetchone()[0]
    for close in closes:
        nets: dict[str, int] = {}
        for item in close.lines:
            nets[item.currency] = nets.get(item.currency, 0) + item.net_minor
        assert nets == {"EUR": 0}


def _promo_account(code: str, venue: str | None = None) -> None:
    """Open a promotion account on the venue's book (casino.books; main without one)."""
    open_account(code=code, type="expense", currency="EUR", book=venue_book(venue))


def _promo_event(venue: str, accounts: tuple[str, str], amount: int, *, day=DAY,
                 payload_venue: bool = True) -> int:
    # Written as the runner writes it: on the venue's book, an account of another
    # book (another venue's, with venue books) reached by a companion leg.
    result = append_across([NewEvent(
        stream="promo/1", type="promo.voucher_issued",
        payload={"venue": venue} if payload_venue else {},
        postings=(Posting(accounts[0], amount, "EUR"), Posting(accounts[1], -amount, "EUR")),
        gaming_day=day)], home_book=venue_book(venue or None),
        metadata=Metadata(actor="test"))
    return result.first_position


def test_an_unrecognised_account_lands_in_other_and_still_reconciles(seeded_day):
    """A promotion's account no chart row knows: listed, never dropped."""
    _promo_account(f"promo/{ROOM}/vouchers", ROOM)
    _promo_event(ROOM, (f"promo/{ROOM}/vouchers", f"cage/{ROOM}/cash"), 25_00)
    close = compute_close(ROOM, DAY)
    other = line(close, "other")
    assert (other.postings, other.net_minor) == (1, 25_00)
    assert other.other_accounts == [f"promo/{ROOM}/vouchers"]
    assert close.figures["EUR"]["other_accounts"] == [f"promo/{ROOM}/vouchers"]
    assert close.figures["EUR"]["cash_paid_out_minor"] == 15_000 + 25_00
    assert close.reconciled, close.differences


def test_another_venues_cash_moved_by_this_venues_event_is_a_difference(seeded_day):
    """The room's event takes cash from the casino's cage: in the room's close
    it is `other`; the casino's close is not reconciled and says by how much."""
    _promo_account(f"promo/{ROOM}/vouchers", ROOM)
    _promo_event(ROOM, (f"promo/{ROOM}/vouchers", f"cage/{CASINO}/cash"), 10_00)
    room = compute_close(ROOM, DAY)
    assert room.reconciled
    assert line(room, "other").other_accounts == [f"promo/{ROOM}/vouchers",
                                                  f"cage/{CASINO}/cash"]
    casino = compute_close(CASINO, DAY)
    assert not casino.reconciled
    assert casino.checks["balances_movement"] is False
    assert casino.differences == (
        {"check": "balance_movement", "line": "cage_cash", "currency": "EUR",
         "expected": 200_000 - 10_00, "actual": 200_000, "difference": 10_00},)


def test_an_event_no_rule_places_is_unattributed_not_dropped(seeded_day):
    open_account(code="promo/nowhere", type="expense", currency="EUR")
    open_account(code="promo/somewhere", type="liability", currency="EUR")
    _promo_event("", ("promo/nowhere", "promo/somewhere"), 5_00, payload_venue=False)
    assert UNATTRIBUTED in day_venues(DAY)
    close = compute_close(UNATTRIBUTED, DAY)
    assert (close.postings, line(close, "other").debit_minor) == (2, 5_00)
    assert compute_close(ROOM, DAY).checks["day_postings"] is True


def test_close_day_records_once_per_venue_and_day(seeded_day, monkeypatch):
    """A second call (any actor) returns the recorded close; nothing is added."""
    monkeypatch.setattr("casino.clock.now", lambda: DAY_AFTER)
    first = commands.close_day(venue=ROOM, gaming_day=DAY, actor="anna")
    count = Event.objects.count()
    again = commands.close_day(venue=ROOM, gaming_day=DAY, actor="bert")
    assert (again.position, again.replayed) == (first.position, True)
    assert Event.objects.count() == count
    event = Event.objects.get(position=first.position)
    assert event.type == DAY_CLOSED and event.stream == f"reports/close/{ROOM}/{DAY}"
    assert event.payload["reconciled"] is True
    # The close was read up to its own book's head just before it (the venue's
    # book with venue books, issue 19); head_position/head_hash are main's.
    before = Event.objects.get(position=first.position - 1)
    assert event.payload["heads"][book_key(event.book)] == {"position": before.position,
                                                           "hash": before.hash}
    assert (event.payload["head_position"], event.payload["head_hash"]) == (
        event.payload["heads"]["main"]["position"], event.payload["heads"]["main"]["hash"])
    row = DayClose.objects.get(key=f"{ROOM}/{DAY}")
    assert (row.reconciled, row.closed_by, row.position) == (True, "anna", first.position)
    assert row.figures["EUR"]["rake_minor"] == 300


def test_a_recorded_close_is_reproduced_at_its_head_after_later_traffic(seeded_day,
                                                                        monkeypatch):
    """A late posting of the day changes the close now, not the one at the head."""
    monkeypatch.setattr("casino.clock.now", lambda: DAY_AFTER)
    recorded = commands.close_day(venue=ROOM, gaming_day=DAY, actor="anna")
    _promo_account(f"promo/{ROOM}/vouchers", ROOM)
    _promo_event(ROOM, (f"promo/{ROOM}/vouchers", f"cage/{ROOM}/cash"), 7_00)
    # Every book's head as recorded (only main's without venue books).
    head = head_at(books={key: book["position"]
                          for key, book in recorded.payload["heads"].items()})
    assert compute_close(ROOM, DAY, head).payload() == dict(recorded.payload)
    assert compute_close(ROOM, DAY).figures["EUR"]["other_net_minor"] == 7_00


def test_a_running_day_is_not_closed_and_nothing_is_written(seeded_day):
    """Decision: a day is closed once it has ended in the venue's zone."""
    count = Event.objects.count()
    with pytest.raises(ReportsError) as refused:
        commands.close_day(venue=ROOM, gaming_day=DAY, actor="anna")
    assert (refused.value.code, refused.value.status) == ("reports.day_not_ended", 409)
    with pytest.raises(RulesError):
        commands.close_day(venue="no-such-venue", gaming_day=DAY - dt.timedelta(days=1),
                           actor="anna")
    assert Event.objects.count() == count


def test_an_empty_day_closes_with_zero_lines_and_reconciles(venues):
    close = compute_close(ROOM, DAY)
    assert close.reconciled
    assert close.postings == 0
    assert close.figures == {}


def test_rebuild_reproduces_the_reports_projections(seeded_day, monkeypatch):
    monkeypatch.setattr("casino.clock.now", lambda: DAY_AFTER)
    commands.close_day(venue=ROOM, gaming_day=DAY, actor="anna")
    commands.close_day(venue=CASINO, gaming_day=DAY, actor="anna")
    commands.seal_day(gaming_day=DAY, actor="celery")
    from casino.reports.journal import CsvExport

    export = CsvExport(DAY, DAY, record=lambda e: commands.record_export(
        actor="anna", first=DAY, last=DAY, format="csv", part="journal", head=e.head,
        files=[{"part": "journal", "rows": e.tally.rows, "sha256": e.tally.digest.hexdigest(),
                "bytes": e.tally.bytes, "totals": e.tally.totals()}]))
    b"".join(export)

    def snapshot():
        from casino.reports.models import DayClose, DaySeal, JournalExport

        return [list(model.objects.order_by("pk").values())
                for model in (DayClose, DaySeal, JournalExport)]

    before = snapshot()
    assert [len(rows) for rows in before] == [2, 1, 1]
    rebuild_projections()
    assert snapshot() == before


def test_close_day_command_and_task_record_and_print_the_close(seeded_day, monkeypatch,
                                                              capsys):
    from django.core.management import call_command

    from casino.reports import tasks

    monkeypatch.setattr("casino.clock.now", lambda: DAY_AFTER)
    call_command("close_day", "--venue", ROOM, "--day", DAY.isoformat(), "--preview")
    assert not DayClose.objects.exists()
    call_command("close_day", "--venue", ROOM, "--day", DAY.isoformat())
    out = capsys.readouterr().out
    assert f"close {ROOM} {DAY.isoformat()} (preview, head #" in out
    assert "reconciled=true" in out and "EUR rake_minor: 300" in out
    result = tasks.close_day.delay(CASINO, DAY.isoformat()).get()
    assert (result["reconciled"], result["replayed"]) == (True, False)
    assert sorted(DayClose.objects.values_list("venue", flat=True)) == [CASINO, ROOM]
