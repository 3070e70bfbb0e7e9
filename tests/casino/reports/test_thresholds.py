"""Threshold and exception reports (issue 17 item 4).

Cash in and cash out per player and gaming day are kept apart against the
venue's CDD threshold (aml.cdd.transaction_threshold, EUR 2,000, EU 2015/849
art. 11(d)); the large-cash log lists transactions from 90 % of it; the
structuring review flags transactions just below it across days and venues;
the exception report lists corrections with who, when, before, after, why.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import zipfile

import pytest
from django.urls import reverse

from casino.cage.commands import deposit, withdraw
from casino.compliance.commands import propose_correction, reject_correction
from casino.reports import thresholds
from casino.roles import Role
from tests.casino.conftest import NOON, make_player
from tests.casino.officers.conftest import signed_in, staff

DAY = NOON.date()


def _cash(player, venue, amount, *, out=False, days=0):
    command = withdraw if out else deposit
    command(player_id=player.id, venue=venue, amount_minor=amount, currency="EUR",
            method="cash", actor="cashier", at=NOON + dt.timedelta(days=days))


def test_cash_in_and_out_are_kept_apart(venues):
    """EUR 1,500 in and EUR 1,200 out: neither side reaches EUR 2,000, though
    together they would; both totals and the threshold are reported."""
    player = make_player()
    _cash(player, "casino-helsinki", 1_500_00)
    _cash(player, "casino-helsinki", 1_200_00, out=True)
    rows = thresholds.cash_by_player_day(DAY, DAY)
    assert [(r["player_id"], r["cash_in"], r["cash_in_transactions"], r["cash_out"],
             r["cash_out_transactions"], r["cdd_threshold"], r["cash_in_reached"],
             r["cash_out_reached"]) for r in rows] == [
        (player.id, 1_500_00, 1, 1_200_00, 1, 2_000_00, False, False)]
    assert rows[0]["player"] == "Test Player"


def test_a_side_reaching_the_threshold_is_flagged(venues):
    player = make_player()
    _cash(player, "casino-helsinki", 1_000_00)
    _cash(player, "casino-helsinki", 1_000_00)
    (row,) = thresholds.cash_by_player_day(DAY, DAY)
    assert (row["cash_in"], row["cash_in_reached"], row["cash_out_reached"]) == (
        2_000_00, True, False)


def test_the_large_cash_log_starts_at_90_percent(venues):
    player = make_player()
    _cash(player, "casino-helsinki", 2_500_00)
    _cash(player, "casino-helsinki", 1_800_00, out=True)
    _cash(player, "casino-helsinki", 1_799_99)
    _cash(player, "casino-helsinki", 1_000_00)
    rows = thresholds.large_cash_log(DAY, DAY)
    assert [(r["amount"], r["direction"], r["share_percent"], r["at_or_above"])
            for r in rows] == [(2_500_00, "in", 125, True), (1_800_00, "out", 90, False)]


def test_structuring_across_days_and_venues(venues):
    """EUR 1,900 at the casino and EUR 1,850 at the poker room two days later."""
    player, other = make_player(), make_player()
    _cash(player, "casino-helsinki", 1_900_00)
    _cash(player, "poker-helsinki", 1_850_00, days=2)
    _cash(other, "casino-helsinki", 1_900_00)           # once only: not flagged
    rows = thresholds.structuring_review(DAY, DAY + dt.timedelta(days=2))
    assert [(r["player_id"], r["near_transactions"], r["near_total"], r["venues"], r["days"])
            for r in rows] == [(player.id, 2, 3_750_00, "casino-helsinki, poker-helsinki", 2)]


def test_the_exception_report_says_who_when_before_after_why(venues):
    player = make_player()
    _cash(player, "casino-helsinki", 100_00)
    staff("olli", Role.COMPLIANCE_OFFICER)
    staff("outi", Role.COMPLIANCE_OFFICER)
    correction = propose_correction(
        account=f"player/{player.id}/account", counter_account="cage/casino-helsinki/cash",
        amount_minor=25_00, reason="Deposit keyed short by EUR 25, slip 118", actor="olli")
    reject_correction(correction_id=correction.id, actor="outi", note="Slip shows EUR 100")
    rows = thresholds.exception_report(DAY, DAY)
    assert [(r["what"], r["who"], r["value_before"], r["value_after"], r["why"])
            for r in rows] == [
        ("correction proposed", "olli", "EUR 100.00", "EUR 125.00",
         "Deposit keyed short by EUR 25, slip 118"),
        ("correction rejected", "outi", "", "", "Slip shows EUR 100")]


def test_reports_export_as_csv_and_xlsx_from_the_admin(venues):
    player = make_player()
    _cash(player, "casino-helsinki", 1_500_00)
    _cash(player, "casino-helsinki", 1_200_00, out=True)
    staff("anna", Role.ACCOUNTANT)
    client = signed_in("anna")
    url = reverse("admin:officers_threshold_reports")
    query = {"report": "cash_by_player_day", "first_day": DAY.isoformat(),
             "last_day": DAY.isoformat()}
    exported = client.get(url, {**query, "format": "csv"})
    assert exported.status_code == 200
    rows = list(csv.DictReader(io.StringIO(exported.content.decode())))
    assert [(r["player_id"], r["cash_in"], r["cash_out"], r["cdd_threshold"]) for r in rows] == [
        (player.id, "1500.00", "1200.00", "2000.00")]
    workbook = client.get(url, {**query, "format": "xlsx"})
    assert workbook["Content-Disposition"].endswith('.xlsx"')
    with zipfile.ZipFile(io.BytesIO(workbook.content)) as archive:
        strings = archive.read("xl/sharedStrings.xml").decode()
        sheet = archive.read("xl/worksheets/sheet1.xml").decode()
    assert player.id in strings and "cash_in" in strings
    assert "<v>1500</v>" in sheet and "<v>1200</v>" in sheet
    page = client.get(url, {**query, "format": "html"}).content.decode()
    assert "EUR 1,500.00" in page and "EUR 1,200.00" in page


def test_a_cage_cashier_may_not_read_the_reports(venues):
    staff("cash", Role.CAGE)
    assert signed_in("cash").get(reverse("admin:officers_threshold_reports")).status_code == 403


def test_a_range_is_bounded():
    with pytest.raises(ValueError):
        thresholds.build("large_cash_log", DAY, DAY + dt.timedelta(days=400))
