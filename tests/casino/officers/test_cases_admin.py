"""Officers open and work cases from the admin; every step calls a command."""

from __future__ import annotations

from django.contrib.admin.utils import quote
from django.contrib.messages import get_messages
from django.urls import reverse

from casino.compliance.models import AlertDismissal, Case, CaseState
from ledger.models import Event


def _messages(response) -> list[str]:
    return [str(m) for m in get_messages(response.wsgi_request)]


def test_an_officer_opens_a_case_from_an_alert_page(officers, traffic):
    """The alert page offers the form; the post opens the case and shows it."""
    olli = officers["olli"]
    alert = traffic.aml_alert
    page = olli.get(reverse("admin:compliance_alert_change", args=[quote(alert.id)]))
    assert page.status_code == 200
    assert b'id="open-case-form"' in page.content
    assert b'id="dismiss-alert-form"' in page.content
    opened = olli.post(reverse("admin:compliance_alert_open_case", args=[quote(alert.id)]),
                       {"title": "", "note": "Asked for payslips", "form_token": "t1"})
    case = Case.objects.get()
    assert opened.status_code == 302
    assert opened["Location"] == reverse("admin:compliance_case_change", args=[case.id])
    assert (case.alert_id, case.opened_by, case.title) == (alert.id, "olli", alert.summary)
    shown = olli.get(opened["Location"])
    html = shown.content.decode()
    assert shown.status_code == 200
    assert 'id="case-move-investigating-form"' in html
    assert "Alert (aml threshold): cash of EUR 2,500.00" in html   # the rendered event
    assert "Asked for payslips" in html
    again = olli.get(reverse("admin:compliance_alert_change", args=[quote(alert.id)]))
    assert b'id="alert-handling-case"' in again.content
    assert b'id="open-case-form"' not in again.content


def test_the_same_form_posted_twice_opens_one_case(officers, traffic):
    """A double click replays the first post (the form's token is the key)."""
    url = reverse("admin:compliance_alert_open_case", args=[quote(traffic.refusal.id)])
    officers["olli"].post(url, {"form_token": "same"})
    officers["olli"].post(url, {"form_token": "same"})
    assert Case.objects.count() == 1


def test_an_officer_moves_notes_and_closes_a_case_in_the_admin(officers, traffic):
    olli = officers["olli"]
    olli.post(reverse("admin:compliance_alert_open_case", args=[quote(traffic.limit_hit.id)]))
    case = Case.objects.get()
    move = reverse("admin:compliance_case_move", args=[case.id])
    olli.post(move, {"to": "investigating"})
    olli.post(reverse("admin:compliance_case_note", args=[case.id]),
              {"text": "The dealer confirms the EUR 4.01 stake"})
    refused = olli.post(move, {"to": "closed", "reason": "short"})
    assert Case.objects.get().state == CaseState.INVESTIGATING
    assert any("compliance.invalid_case_request" in m for m in _messages(refused))
    olli.post(move, {"to": "closed", "reason": "Refused correctly at the table cap"})
    case = Case.objects.get()
    assert (case.state, case.closed_reason, case.notes_count) == (
        CaseState.CLOSED, "Refused correctly at the table cap", 1)
    types = list(Event.objects.filter(stream=f"case/{case.id}").order_by("position")
                 .values_list("type", flat=True))
    assert types == ["compliance.case_opened", "compliance.case_state_changed",
                     "compliance.case_note_added", "compliance.case_state_changed"]
    closed_page = olli.get(reverse("admin:compliance_case_change", args=[case.id]))
    assert b'id="case-actions"' not in closed_page.content


def test_an_auditor_reads_a_case_but_cannot_act(officers, traffic):
    officers["olli"].post(reverse("admin:compliance_alert_open_case",
                                  args=[quote(traffic.refusal.id)]))
    case = Case.objects.get()
    aude = officers["aude"]
    page = aude.get(reverse("admin:compliance_case_change", args=[case.id]))
    assert page.status_code == 200 and b'id="case-actions"' not in page.content
    answer = aude.post(reverse("admin:compliance_case_move", args=[case.id]),
                       {"to": "investigating"})
    assert any("compliance.not_a_compliance_officer" in m for m in _messages(answer))
    assert Case.objects.get().state == CaseState.OPEN


def test_an_officer_dismisses_an_alert_with_a_reason(officers, traffic):
    url = reverse("admin:compliance_alert_dismiss", args=[quote(traffic.refusal.id)])
    officers["outi"].post(url, {"reason": "Self-exclusion worked as it should"})
    dismissal = AlertDismissal.objects.get()
    assert (dismissal.alert_id, dismissal.dismissed_by) == (traffic.refusal.id, "outi")


def test_a_case_without_an_alert_from_the_case_list(officers, traffic):
    olli = officers["olli"]
    assert b'id="open-case-link"' in olli.get(
        reverse("admin:compliance_case_changelist")).content
    answer = olli.post(reverse("admin:compliance_case_open"), {
        "title": "Two players sharing one account",
        "positions": f"{traffic.aml_alert.raised_position}, {traffic.limit_hit.raised_position}",
        "note": "Tip from the floor"})
    case = Case.objects.get()
    assert answer["Location"] == reverse("admin:compliance_case_change", args=[case.id])
    assert sorted(case.links.values_list("position", flat=True)) == sorted(
        [traffic.aml_alert.raised_position, traffic.limit_hit.raised_position])


def test_alerts_and_cases_are_listed_for_officers_without_model_permissions(officers,
                                                                           traffic):
    """Roles, not Django permissions, open the screens to officers."""
    olli = officers["olli"]
    listed = olli.get(reverse("admin:compliance_alert_changelist"))
    assert listed.status_code == 200
    assert len(listed.context["cl"].result_list) == 3
    assert olli.get(reverse("admin:compliance_case_changelist")).status_code == 200
    assert officers["cashier"].get(
        reverse("admin:compliance_alert_changelist")).status_code == 403
