"""The demo's back office (issue 17): cashier shifts with a handover and a
short that raises an alert, a blackjack table's fills, credits and soft
counts, the close showing them, and the summary printing them."""

from __future__ import annotations

import pytest
from django.db import transaction

from casino.cashier.models import Shift, ShiftState, Transfer
from casino.compliance.models import Alert
from casino.demo import back_office
from casino.demo.gaming_day import DAYS, run_demo
from casino.demo.summary import summarize
from casino.reports import thresholds
from casino.reports.models import DayClose
from casino.tablegames.models import SessionState, TableSession

SMALL = dict(seed=41, hands_per_day=2, rounds_per_day=1)


@pytest.fixture(scope="module")
def demo(django_db_setup, django_db_blocker, tmp_path_factory):
    out_dir = tmp_path_factory.mktemp("demo-back-office")
    with django_db_blocker.unblock():
        with transaction.atomic():
            result = run_demo(**SMALL, out_dir=out_dir)
            yield result
            transaction.set_rollback(True)


def test_shifts_handovers_and_the_short(demo, db):
    shifts = Shift.objects.filter(venue=back_office.VENUE).order_by("opened_position")
    assert [(s.cashier, s.state, s.over_short_minor) for s in shifts] == [
        ("cara", ShiftState.CLOSED, 0), ("cecil", ShiftState.CLOSED, 0),
        ("cara", ShiftState.CLOSED, 0), ("cecil", ShiftState.CLOSED, -60_00)]
    assert shifts.last().reason == "two EUR 20 and two EUR 10 notes paid out twice"
    assert Transfer.objects.count() == 2
    (alert,) = Alert.objects.filter(kind="cash_short")
    assert alert.details["short_minor"] == 60_00


def test_table_sessions_and_the_close(demo, db):
    sessions = TableSession.objects.filter(table=back_office.TABLE).order_by("gaming_day")
    assert [(s.state, s.fills_minor, s.credits_minor, s.drop_minor, s.count_variance_minor,
             s.win_minor, s.hold_basis_points) for s in sessions] == [
        (SessionState.COUNTED, 1_000_00, 500_00, 4_000_00, 0, 2_000_00, 5000),
        (SessionState.COUNTED, 1_000_00, 500_00, 4_000_00, -50_00, 2_000_00, 5000)]
    for day in DAYS:
        close = DayClose.objects.get(venue=back_office.VENUE, gaming_day=day)
        figures = close.figures["EUR"]
        assert (figures["fills_minor"], figures["credits_minor"],
                figures["soft_count_drop_minor"]) == (1_000_00, 500_00, 4_000_00)
        assert close.reconciled, close.differences


def test_the_summary_and_the_threshold_report(demo, db):
    lines = summarize(DAYS).lines()
    assert any(line.startswith("cashier shifts     4 closed (1 short), over/short EUR -60.00")
               for line in lines), lines
    assert any("fills EUR 2,000.00, credits EUR 1,000.00, drop EUR 8,000.00" in line
               and "hold 50.00 %" in line for line in lines), lines
    rows = thresholds.cash_by_player_day(DAYS[0], DAYS[1])
    assert rows and any(row["cash_out"] for row in rows)
