"""Table-games accounting (issue 17 item 3): a table opens and closes with a
chip inventory by denomination, fills and credits carry slips signed by the
cage and the table, the drop box is counted by two counters with the
variance recorded, and win = drop - fills + credits + (closing - opening),
hold = win / drop."""

from __future__ import annotations

import pytest

from casino.error_table import status_for
from casino.tablegames.commands import close_table, credit, fill, open_table, soft_count
from casino.tablegames.errors import TableGamesError
from casino.tablegames.models import SessionState, Slip, TableSession
from casino.tablegames.projections import win_and_hold
from ledger.models import Account, Event

VENUE = "casino-helsinki"
OPENING = {"10000": 20, "2500": 40, "500": 100}          # 2,000 + 1,000 + 500 = 3,500.00


def balance(code: str) -> int:
    account = Account.objects.filter(code=code).first()
    return account.balance_minor if account else 0


@pytest.mark.parametrize(("drop", "fills", "credits", "opening", "closing", "win", "hold"), [
    (10_000_00, 2_000_00, 0, 3_500_00, 3_500_00, 8_000_00, 8000),     # _case fills only
    (10_000_00, 0, 1_000_00, 3_500_00, 3_000_00, 10_500_00, 10500),   # _case credit, less chips
    (5_000_00, 0, 0, 3_500_00, 4_000_00, 5_500_00, 11000),            # _case inventory up
    (0, 0, 0, 3_500_00, 3_500_00, 0, None),                           # _case no drop, no hold
])
def test_win_and_hold(drop, fills, credits, opening, closing, win, hold):
    assert win_and_hold(drop_minor=drop, fills_minor=fills, credits_minor=credits,
                        opening_minor=opening, closing_minor=closing) == (win, hold)


def test_a_session_from_opening_to_soft_count(venues):
    """Open 3,500, fill 1,000, credit 500, close 2,000, drop 4,000:
    win = 4,000 - 1,000 + 500 + (2,000 - 3,500) = 2,000; hold 50 %."""
    open_table(venue=VENUE, table="bj-1", inventory=OPENING, signed_by=["dora", "pit-pia"],
               actor="dora", idempotency_key="open")
    fill(venue=VENUE, table="bj-1", chips={"10000": 10}, signed_by=["cage-carl", "dora"],
         actor="cage-carl", idempotency_key="fill")
    credit(venue=VENUE, table="bj-1", chips={"2500": 20}, signed_by=["cage-carl", "dora"],
           actor="dora", idempotency_key="credit")
    close_table(venue=VENUE, table="bj-1", inventory={"10000": 15, "2500": 20},
                signed_by=["dora", "pit-pia"], actor="dora", idempotency_key="close")
    result = soft_count(venue=VENUE, table="bj-1", first_count={"5000": 79, "1000": 10},
                        second_count={"5000": 80}, counted_by=["cnt-a", "cnt-b"],
                        actor="cnt-a", idempotency_key="count")
    session = TableSession.objects.get(id=result["session"].id)
    assert (session.state, session.opening_minor, session.fills_minor, session.credits_minor,
            session.closing_minor, session.drop_minor, session.count_variance_minor) == (
        SessionState.COUNTED, 3_500_00, 1_000_00, 500_00, 2_000_00, 4_000_00, -50_00)
    assert (session.win_minor, session.hold_basis_points) == (2_000_00, 5000)
    assert session.counted_by == "cnt-a and cnt-b"
    # The ledger agrees: the venue's table win account holds the win.
    assert balance(f"house/{VENUE}/table_win") == 2_000_00
    assert balance(f"cage/{VENUE}/trays/bj-1") == 2_000_00
    assert balance(f"cage/{VENUE}/chip_bank") == -3_500_00 - 1_000_00 + 500_00
    slips = {slip.kind: slip for slip in Slip.objects.all()}
    assert (slips["fill"].cage_signature, slips["fill"].table_signature) == ("cage-carl", "dora")
    assert slips["credit"].amount_minor == 500_00


def test_the_count_variance_is_recorded(venues):
    open_table(venue=VENUE, table="bj-2", inventory=OPENING, signed_by=["dora", "pia"],
               actor="dora")
    close_table(venue=VENUE, table="bj-2", inventory=OPENING, signed_by=["dora", "pia"],
                actor="dora")
    soft_count(venue=VENUE, table="bj-2", first_count={"5000": 10},
               second_count={"5000": 10, "1000": 2}, counted_by=["a", "b"], actor="a")
    session = TableSession.objects.get(table="bj-2")
    assert (session.drop_minor, session.count_variance_minor) == (520_00, 20_00)


@pytest.mark.parametrize("signed", [["dora"], ["dora", "dora"], ["x", "y"]])
def test_a_fill_needs_two_signatures_one_the_recorder(venues, signed):
    open_table(venue=VENUE, table="bj-3", inventory=OPENING, signed_by=["dora", "pia"],
               actor="dora")
    events = Event.objects.count()
    with pytest.raises(TableGamesError) as refused:
        fill(venue=VENUE, table="bj-3", chips={"10000": 1}, signed_by=signed, actor="dora")
    assert refused.value.code == "tablegames.signatures_required"
    assert status_for(refused.value.code) == 400
    assert Event.objects.count() == events


def test_fills_need_an_open_table_and_counts_a_closed_one(venues):
    with pytest.raises(TableGamesError) as refused:
        fill(venue=VENUE, table="bj-4", chips={"10000": 1}, signed_by=["c", "d"], actor="c")
    assert refused.value.code == "tablegames.table_not_open"
    with pytest.raises(TableGamesError) as refused:
        soft_count(venue=VENUE, table="bj-4", first_count={}, second_count={},
                   counted_by=["a", "b"], actor="a")
    assert refused.value.code == "tablegames.nothing_to_count"
    open_table(venue=VENUE, table="bj-4", inventory=OPENING, signed_by=["d", "p"], actor="d")
    with pytest.raises(TableGamesError) as refused:
        open_table(venue=VENUE, table="bj-4", inventory=OPENING, signed_by=["d", "p"],
                   actor="d")
    assert refused.value.code == "tablegames.table_open"


def test_a_second_session_opens_from_the_trays_balance(venues):
    """Reopening with the inventory left at the close moves no chips."""
    open_table(venue=VENUE, table="bj-5", inventory=OPENING, signed_by=["d", "p"], actor="d")
    close_table(venue=VENUE, table="bj-5", inventory={"10000": 30}, signed_by=["d", "p"],
                actor="d")
    reopened = open_table(venue=VENUE, table="bj-5", inventory={"10000": 30},
                          signed_by=["d", "p"], actor="d")
    assert Event.objects.get(position=reopened["position"]).postings.count() == 0
    assert balance(f"cage/{VENUE}/trays/bj-5") == 3_000_00


def test_the_daily_close_includes_fills_credits_and_the_soft_count(venues):
    """The close of the day shows the session's fills, credits, soft count and
    table win (no longer 0), and still reconciles."""
    import datetime as dt

    from casino.reports.commands import close_day
    from casino.reports.models import DayClose
    from tests.casino.conftest import NOON

    open_table(venue=VENUE, table="bj-1", inventory=OPENING, signed_by=["dora", "pia"],
               actor="dora")
    fill(venue=VENUE, table="bj-1", chips={"10000": 10}, signed_by=["carl", "dora"],
         actor="carl")
    credit(venue=VENUE, table="bj-1", chips={"2500": 20}, signed_by=["carl", "dora"],
           actor="carl")
    close_table(venue=VENUE, table="bj-1", inventory={"10000": 15, "2500": 20},
                signed_by=["dora", "pia"], actor="dora")
    soft_count(venue=VENUE, table="bj-1", first_count={"5000": 80},
               second_count={"5000": 80}, counted_by=["a", "b"], actor="a")
    close_day(venue=VENUE, gaming_day=NOON.date(), actor="acc",
              at=NOON + dt.timedelta(days=1))
    close = DayClose.objects.get(venue=VENUE)
    figures = close.figures["EUR"]
    assert (figures["fills_minor"], figures["credits_minor"],
            figures["soft_count_drop_minor"], figures["table_win_minor"]) == (
        1_000_00, 500_00, 4_000_00, 2_000_00)
    assert close.reconciled, close.differences
