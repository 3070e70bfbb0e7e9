"""The cases API under /api/v1/compliance/: roles, codes, the flow over HTTP."""

from __future__ import annotations

from casino.compliance.models import Case
from casino.roles import Role
from ledger.models import Event
from tests.casino.api.conftest import client_for, post
from tests.casino.officers.conftest import traffic  # noqa: F401 (fixture)


def test_an_officer_works_a_case_over_the_api(venues, traffic):
    """Open from an alert, note, investigate, close; read back with notes and events."""
    olli = client_for(Role.COMPLIANCE_OFFICER, "olli")
    opened = post(olli, "/api/v1/compliance/cases", {"alert_id": traffic.aml_alert.id,
                                                    "note": "CDD requested"}, key="c-1")
    assert opened.status_code == 201, opened.json()
    case_id = opened.json()["id"]
    base = f"/api/v1/compliance/cases/{case_id}"
    assert post(olli, f"{base}/state", {"to": "investigating"}, key="c-2").status_code == 200
    assert post(olli, f"{base}/notes", {"text": "Payslips received"}, key="c-3").status_code == 201
    linked = post(olli, f"{base}/events", {"positions": [traffic.limit_hit.raised_position]},
                  key="c-4")
    assert linked.status_code == 200
    closed = post(olli, f"{base}/state", {"to": "closed", "reason": "Source of funds shown"},
                  key="c-5")
    body = closed.json()
    assert closed.status_code == 200
    assert (body["state"], body["closed_reason"], body["notes_count"]) == (
        "closed", "Source of funds shown", 2)
    assert [n["text"] for n in body["notes"]] == ["CDD requested", "Payslips received"]
    assert [e["position"] for e in body["events"]] == sorted(
        [traffic.aml_alert.raised_position, traffic.limit_hit.raised_position])
    listed = olli.get("/api/v1/compliance/cases", {"state": "closed"}).json()
    assert [case["id"] for case in listed["results"]] == [case_id]


def test_a_refused_move_is_a_coded_409_and_writes_nothing(venues, traffic):
    olli = client_for(Role.COMPLIANCE_OFFICER, "olli")
    case_id = post(olli, "/api/v1/compliance/cases", {"alert_id": traffic.refusal.id},
                   key="c-1").json()["id"]
    before = Event.objects.count()
    answer = post(olli, f"/api/v1/compliance/cases/{case_id}/state", {"to": "escalated"},
                  key="c-2")
    assert answer.status_code == 409
    assert answer.json()["code"] == "compliance.case_transition_not_allowed"
    assert Event.objects.count() == before


def test_an_auditor_reads_cases_but_cannot_open_one(venues, traffic):
    auditor = client_for(Role.AUDITOR)
    refused = post(auditor, "/api/v1/compliance/cases", {"alert_id": traffic.refusal.id})
    assert refused.status_code == 403
    assert Case.objects.count() == 0
    assert auditor.get("/api/v1/compliance/cases").json() == {
        "next": None, "previous": None, "has_more": False, "results": []}


def test_unknown_case_and_alert_are_404(venues):
    olli = client_for(Role.COMPLIANCE_OFFICER, "olli")
    assert olli.get("/api/v1/compliance/cases/nope").json()["code"] == "compliance.unknown_case"
    answer = post(olli, "/api/v1/compliance/cases", {"alert_id": "alert/999999"})
    assert (answer.status_code, answer.json()["code"]) == (404, "compliance.unknown_alert")


def test_dismissing_an_alert_over_the_api(venues, traffic):
    olli = client_for(Role.COMPLIANCE_OFFICER, "olli")
    answer = post(olli, "/api/v1/compliance/alert-dismissals",
                  {"alert_id": traffic.refusal.id, "reason": "Exclusion did its job"})
    assert answer.status_code == 201
    assert answer.json()["dismissed_by"] == "olli"


def test_chain_verification_over_the_api(venues):
    """POST verifies and records; an auditor may read but not run it (a read-only
    role writes nothing: casino.roles.MATRIX, issue 16); an accountant neither."""
    officer = client_for(Role.COMPLIANCE_OFFICER, "aude")
    ran = post(officer, "/api/v1/compliance/chain-verifications", {})
    assert ran.status_code == 201
    assert (ran.json()["ok"], ran.json()["verified_by"]) == (True, "aude")
    accountant = client_for(Role.ACCOUNTANT)
    assert post(accountant, "/api/v1/compliance/chain-verifications", {}).status_code == 403
    assert accountant.get("/api/v1/compliance/chain-verifications").status_code == 403
    auditor = client_for(Role.AUDITOR)
    assert post(auditor, "/api/v1/compliance/chain-verifications", {}).status_code == 403
    listed = auditor.get("/api/v1/compliance/chain-verifications").json()
    assert len(listed["results"]) == 1


def test_a_position_beyond_the_ledger_range_is_a_400(venues, traffic):
    """A position is a bigint: a larger number is refused field by field, not a
    500 from the database driver (found by the schema fuzzer)."""
    olli = client_for(Role.COMPLIANCE_OFFICER, "olli")
    case_id = post(olli, "/api/v1/compliance/cases", {"alert_id": traffic.aml_alert.id},
                   key="c-big-1").json()["id"]
    before = Event.objects.count()
    refused = post(olli, f"/api/v1/compliance/cases/{case_id}/events",
                   {"positions": [2**63]}, key="c-big-2")
    assert refused.status_code == 400
    assert list(refused.json()["details"]) == ["positions"]
    assert Event.objects.count() == before
