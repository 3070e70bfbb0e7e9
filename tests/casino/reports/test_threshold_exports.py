"""Issue 17 item 3: exports of threshold reports are recorded as events.

A CSV or XLSX sent from the admin's report page appends
`reports.threshold_report_exported` through the runner: who, which report,
which gaming days, the format, the rows, the SHA-256 of the bytes and the
ledger head the rows were read at. Rebuilding the report up to that head
gives the same bytes; a report shown on the screen records nothing; a
refused request (a range too long) records nothing.
"""

from __future__ import annotations

import datetime as dt
import hashlib

from django.contrib.admin.utils import quote
from django.urls import reverse

from casino.cage.commands import deposit
from casino.reports import thresholds
from casino.reports.events import EXPORTS_STREAM, THRESHOLD_REPORT_EXPORTED
from casino.reports.journal import _created
from casino.reports.models import ReportExport
from casino.reports.reading import head_at
from casino.roles import Role
from ledger.read import Event
from tests.casino.conftest import NOON, make_player
from tests.casino.officers.conftest import signed_in, staff

DAY = NOON.date()
URL = "admin:officers_threshold_reports"


def _cash(player, amount, *, at=NOON):
    deposit(player_id=player.id, venue="casino-helsinki", amount_minor=amount, currency="EUR",
            method="cash", actor="cashier", at=at)


def _exports():
    return list(Event.objects.filter(type=THRESHOLD_REPORT_EXPORTED).order_by("position"))


def _query(report="large_cash_log", **more):
    return {"report": report, "first_day": DAY.isoformat(), "last_day": DAY.isoformat(),
            **more}


def test_a_csv_export_is_recorded_with_who_what_and_the_digest(venues):
    player = make_player()
    _cash(player, 1_900_00)
    _cash(player, 2_500_00)
    staff("anna", Role.ACCOUNTANT)
    response = signed_in("anna").get(reverse(URL), _query(format="csv"))
    assert response.status_code == 200
    [event] = _exports()
    assert event.stream == EXPORTS_STREAM
    assert event.metadata["actor"] == "anna"
    p = event.payload
    assert (p["actor"], p["report"], p["from"], p["to"], p["format"]) == (
        "anna", "large_cash_log", DAY.isoformat(), DAY.isoformat(), "csv")
    assert p["rows"] == 2
    assert p["sha256"] == hashlib.sha256(response.content).hexdigest()
    assert p["bytes"] == len(response.content)
    assert p["head_position"] == event.position - 1
    assert response["X-Export-Position"] == str(event.position)
    export = ReportExport.objects.get(position=event.position)
    assert (export.actor, export.report, export.rows, export.format) == (
        "anna", "large_cash_log", 2, "csv")


def test_the_recorded_head_rebuilds_the_same_bytes(venues):
    """Cash after the export changes the report, not the recorded one."""
    player = make_player()
    _cash(player, 1_900_00)
    staff("olli", Role.COMPLIANCE_OFFICER)
    client = signed_in("olli")
    for format in ("csv", "xlsx"):
        client.get(reverse(URL), _query(format=format))
    _cash(player, 1_950_00, at=NOON + dt.timedelta(hours=1))
    for event in _exports():
        p = event.payload
        head = head_at(p["head_position"])
        assert head.hash == p["head_hash"]
        rows = thresholds.build(p["report"], DAY, DAY, up_to=p["head_position"])
        assert len(rows) == p["rows"] == 1
        body = thresholds.render(p["report"], rows, p["format"], created=_created(head))
        assert hashlib.sha256(body).hexdigest() == p["sha256"], p["format"]
    assert len(thresholds.build("large_cash_log", DAY, DAY)) == 2


def test_showing_a_report_or_a_refused_range_records_nothing(venues):
    player = make_player()
    _cash(player, 2_500_00)
    staff("anna", Role.ACCOUNTANT)
    client = signed_in("anna")
    assert client.get(reverse(URL), _query(format="html")).status_code == 200
    too_long = _query(format="csv", first_day=(DAY - dt.timedelta(days=200)).isoformat())
    page = client.get(reverse(URL), too_long)
    assert page.status_code == 200 and b"gaming days" in page.content
    assert _exports() == []


def test_the_exports_page_lists_who_exported_what(venues):
    player = make_player()
    _cash(player, 2_500_00)
    staff("aude", Role.AUDITOR)
    client = signed_in("aude")
    client.get(reverse(URL), _query(report="cash_by_player_day", format="xlsx"))
    page = client.get(reverse("admin:reports_reportexport_changelist")).content.decode()
    assert "aude" in page and "cash_by_player_day" in page and "xlsx" in page
    [export] = ReportExport.objects.all()
    detail = client.get(reverse("admin:reports_reportexport_change",
                                args=[quote(export.pk)]))
    assert detail.status_code == 200
