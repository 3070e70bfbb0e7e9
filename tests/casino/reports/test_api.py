"""The reports API and the admin export: roles, dates, files, closes."""

from __future__ import annotations

import hashlib

import pytest
from django.contrib.auth.models import Group, User
from rest_framework.test import APIClient

from casino.reports.events import DAY_CLOSED, JOURNAL_EXPORTED
from casino.roles import Role, ensure_role_groups
from ledger.models import Event
from tests.casino.api.conftest import client_for

from .conftest import DAY, DAY_AFTER, ROOM
from .files import read_csv, read_xlsx

JOURNAL = "/api/v1/reports/journal"


def body(response) -> bytes:
    return b"".join(response.streaming_content)


@pytest.mark.parametrize("role", [Role.ACCOUNTANT, Role.AUDITOR, Role.COMPLIANCE_OFFICER])
def test_readers_download_the_journal_as_csv(seeded_day, role):
    client = client_for(role)
    response = client.get(JOURNAL, {"from": DAY.isoformat(), "to": DAY.isoformat()})
    assert response.status_code == 200
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    assert response["Content-Disposition"] == (
        f'attachment; filename="journal-{DAY.isoformat()}-{DAY.isoformat()}.csv"')
    data = body(response)
    event = Event.objects.filter(type=JOURNAL_EXPORTED).order_by("-position").first()
    assert event.payload["actor"] == client.username
    assert hashlib.sha256(data).hexdigest() == event.payload["sha256"]
    assert len(read_csv(data)) - 1 == event.payload["rows"] > 0


@pytest.mark.parametrize("role", [Role.TABLE_CONTROLLER, Role.CAGE, None])
def test_other_roles_are_refused_and_nothing_is_recorded(seeded_day, role):
    count = Event.objects.count()
    response = client_for(role).get(JOURNAL, {"from": DAY.isoformat(), "to": DAY.isoformat()})
    assert response.status_code == 403
    assert Event.objects.count() == count


@pytest.mark.parametrize("query, field", [
    ({"from": "16.6.2026", "to": "2026-06-16"}, "from"),
    ({"from": "2026-06-16"}, "to"),
    ({"from": "2026-06-16", "to": "2026-06-16", "format": "pdf"}, "format"),
    ({"from": "2026-06-16", "to": "2026-06-16", "head": "-1"}, "head"),
])
def test_bad_parameters_answer_400_per_field(venues, query, field):
    response = client_for(Role.ACCOUNTANT).get(JOURNAL, query)
    assert response.status_code == 400
    assert field in response.json()["details"]


def test_an_inverted_range_answers_a_coded_400(venues):
    count = Event.objects.count()
    response = client_for(Role.AUDITOR).get(JOURNAL, {"from": "2026-06-17",
                                                      "to": "2026-06-16"})
    assert response.status_code == 400
    assert response.json()["code"] == "reports.invalid_request"
    assert Event.objects.count() == count


def test_the_xlsx_has_both_sheets_and_its_digest_in_a_header(seeded_day):
    response = client_for(Role.AUDITOR).get(JOURNAL, {"from": DAY.isoformat(),
                                                      "to": DAY.isoformat(),
                                                      "format": "xlsx"})
    assert response.status_code == 200
    data = body(response)
    response.close()
    assert hashlib.sha256(data).hexdigest() == response["X-Export-SHA256"]
    assert list(read_xlsx(data)) == ["journal", "trial_balance", "summary", "gl_trial_balance"]


def test_the_close_preview_then_the_recorded_close(seeded_day, monkeypatch):
    client = client_for(Role.ACCOUNTANT)
    url = f"/api/v1/reports/closes/{ROOM}/{DAY.isoformat()}"
    preview = client.get(url)
    assert preview.status_code == 200
    assert preview.json()["reconciled"] is True
    assert preview.json()["position"] is None
    assert preview.json()["figures"]["EUR"]["rake_minor"] == 300
    refused = client.post(url, headers={"Idempotency-Key": "close-1"})
    assert (refused.status_code, refused.json()["code"]) == (409, "reports.day_not_ended")
    monkeypatch.setattr("casino.clock.now", lambda: DAY_AFTER)
    created = client.post(url, headers={"Idempotency-Key": "close-2"})
    assert created.status_code == 201
    assert Event.objects.get(position=created.json()["position"]).type == DAY_CLOSED
    retried = client.post(url, headers={"Idempotency-Key": "close-2"})
    assert (retried.status_code, retried["Idempotent-Replayed"]) == (201, "true")
    assert retried.json() == created.json()
    # Another client's own request: the day is closed already, the recorded
    # close answers (200, replayed in the body), and it is no replay of hers.
    again = client_for(Role.COMPLIANCE_OFFICER).post(url, headers={"Idempotency-Key": "x"})
    assert again.status_code == 200 and "Idempotent-Replayed" not in again
    assert again.json()["replayed"] is True
    assert again.json()["position"] == created.json()["position"]
    listed = client_for(Role.AUDITOR).get("/api/v1/reports/closes", {"venue": ROOM})
    assert [row["position"] for row in listed.json()["results"]] == [created.json()["position"]]
    assert client_for(Role.AUDITOR).post(url, headers={"Idempotency-Key": "y"}).status_code \
        == 403


def test_close_answers_400_for_a_bad_day_and_404_for_an_unknown_venue(venues):
    client = client_for(Role.ACCOUNTANT)
    assert client.get(f"/api/v1/reports/closes/{ROOM}/yesterday").status_code == 400
    response = client.get(f"/api/v1/reports/closes/no-such-venue/{DAY.isoformat()}")
    assert response.status_code == 404


def test_exports_and_seals_are_listed_for_auditors(seeded_day, monkeypatch):
    auditor = client_for(Role.AUDITOR)
    body(auditor.get(JOURNAL, {"from": DAY.isoformat(), "to": DAY.isoformat()}))
    exports = auditor.get("/api/v1/reports/exports").json()
    assert [(row["actor"], row["format"]) for row in exports["results"]] == [
        (auditor.username, "csv")]
    monkeypatch.setattr("casino.clock.now", lambda: DAY_AFTER)
    from casino.reports.commands import seal_day

    seal_day(gaming_day=DAY)
    seals = auditor.get("/api/v1/reports/seals").json()
    assert [row["gaming_day"] for row in seals["results"]] == [DAY.isoformat()]


def _staff(username: str, role: Role | None, superuser: bool = False) -> APIClient:
    ensure_role_groups()
    user = User.objects.create_user(username, password="pw", is_staff=True,
                                    is_superuser=superuser)
    if role is not None:
        user.groups.add(Group.objects.get(name=role))
    client = APIClient()
    client.force_login(user)
    return client


def test_the_admin_exports_the_journal_and_records_who(seeded_day):
    client = _staff("accountant-anna", Role.ACCOUNTANT)
    page = client.get("/admin/reports/journalexport/export/")
    assert page.status_code == 200
    assert b"Export the journal" in page.content
    response = client.get("/admin/reports/journalexport/export/", {
        "first_day": DAY.isoformat(), "last_day": DAY.isoformat(), "format": "csv",
        "part": "journal"})
    assert response.status_code == 200
    data = body(response)
    event = Event.objects.filter(type=JOURNAL_EXPORTED).order_by("-position").first()
    assert (event.payload["actor"], event.payload["sha256"]) == (
        "accountant-anna", hashlib.sha256(data).hexdigest())
    listing = client.get("/admin/reports/journalexport/")
    assert listing.status_code == 200
    assert event.payload["sha256"].encode() in listing.content
    assert b"/admin/reports/journalexport/export/" in listing.content


def test_the_admin_export_refuses_staff_without_a_reporting_role(seeded_day):
    client = _staff("floor-frank", Role.TABLE_CONTROLLER)
    assert client.get("/admin/reports/journalexport/export/").status_code == 403


def test_the_reports_admin_is_read_only(seeded_day, monkeypatch):
    monkeypatch.setattr("casino.clock.now", lambda: DAY_AFTER)
    from casino.reports.commands import close_day

    close_day(venue=ROOM, gaming_day=DAY, actor="anna")
    client = _staff("root", None, superuser=True)
    assert client.get("/admin/reports/dayclose/").status_code == 200
    assert client.get("/admin/reports/dayclose/add/").status_code == 403
    assert client.get("/admin/reports/dayseal/").status_code == 200
