"""A journal a general ledger imports (issue 17 item 5): summarised entries
per venue, gaming day and GL account that balance, and a trial balance by
GL account in which the player liabilities are one line."""

from __future__ import annotations

import csv
import datetime as dt
import io
from decimal import Decimal

from django.urls import reverse

from casino.cage.commands import deposit
from casino.reports.journal import CsvExport, write_xlsx
from casino.roles import Role
from tests.casino.conftest import NOON, make_player
from tests.casino.officers.conftest import signed_in, staff

DAY = NOON.date()


def _rows(part: str) -> list[dict[str, str]]:
    data = b"".join(CsvExport(DAY, DAY, part=part))
    return list(csv.DictReader(io.StringIO(data.decode())))


def _traffic():
    players = [make_player() for _ in range(3)]
    for index, player in enumerate(players):
        deposit(player_id=player.id, venue="casino-helsinki", amount_minor=(index + 1) * 100_00,
                currency="EUR", method="cash", actor="cashier", at=NOON)
    deposit(player_id=players[0].id, venue="hall-helsinki", amount_minor=50_00,
            currency="EUR", method="cash", actor="cashier", at=NOON)
    return players


def test_the_summary_has_one_balanced_entry_per_venue_and_day(venues):
    _traffic()
    rows = _rows("summary")
    # With venue books (issue 19) a deposit's leg to the player's account on the
    # main book adds inter-book clearing (GL 1900, casino/reports/chart.py), which
    # nets to zero within each venue's entry; the other lines are the same.
    clearing = [r for r in rows if r["gl_account"] == "1900"]
    assert all(Decimal(r["debit"]) == Decimal(r["credit"]) for r in clearing), clearing
    assert [(r["entry"], r["gaming_day"], r["venue"], r["gl_account"], r["debit"], r["credit"],
             r["postings"]) for r in rows if r["gl_account"] != "1900"] == [
        ("casino-helsinki/2026-06-16", "2026-06-16", "casino-helsinki", "1000", "600.00",
         "0.00", "3"),
        ("casino-helsinki/2026-06-16", "2026-06-16", "casino-helsinki", "2100", "0.00",
         "600.00", "3"),
        ("hall-helsinki/2026-06-16", "2026-06-16", "hall-helsinki", "1000", "50.00", "0.00",
         "1"),
        ("hall-helsinki/2026-06-16", "2026-06-16", "hall-helsinki", "2100", "0.00", "50.00",
         "1")]
    for entry in {r["entry"] for r in rows}:
        lines = [r for r in rows if r["entry"] == entry]
        assert sum(Decimal(r["debit"]) for r in lines) == sum(Decimal(r["credit"])
                                                              for r in lines)


def test_player_liabilities_are_one_line_of_the_gl_trial_balance(venues):
    _traffic()
    per_account = _rows("trial_balance")
    by_gl = {r["gl_account"]: r for r in _rows("gl_trial_balance")}
    assert len([r for r in per_account if r["gl_account"] == "2100"]) == 3
    assert (by_gl["2100"]["accounts"], by_gl["2100"]["credit"], by_gl["2100"]["closing"]) == (
        "3", "650.00", "-650.00")
    assert by_gl["1000"]["debit"] == "650.00"
    assert sum(Decimal(r["closing"]) for r in by_gl.values()) == 0


def test_the_workbook_carries_the_summary_with_real_dates(venues):
    import zipfile

    _traffic()
    export = write_xlsx(DAY, DAY)
    with export.file, zipfile.ZipFile(export.file) as archive:
        names = archive.namelist()
        workbook = archive.read("xl/workbook.xml").decode()
        summary = archive.read("xl/worksheets/sheet3.xml").decode()
    assert 'name="summary"' in workbook and 'name="gl_trial_balance"' in workbook
    assert "xl/worksheets/sheet4.xml" in names
    # A real date is a number (days since 1899-12-30) with a date style, not text.
    serial = (dt.date(2026, 6, 16) - dt.date(1899, 12, 30)).days
    assert f"<v>{serial}</v>" in summary


def test_an_accountant_downloads_the_summary_from_the_admin(venues):
    _traffic()
    staff("anna", Role.ACCOUNTANT)
    response = signed_in("anna").get(reverse("admin:reports_journalexport_export"), {
        "first_day": DAY.isoformat(), "last_day": DAY.isoformat(), "format": "csv",
        "part": "summary"})
    assert response.status_code == 200
    assert response["Content-Disposition"].endswith('-summary.csv"')
    rows = list(csv.DictReader(io.StringIO(b"".join(response.streaming_content).decode())))
    assert {r["venue"] for r in rows} == {"casino-helsinki", "hall-helsinki"}
