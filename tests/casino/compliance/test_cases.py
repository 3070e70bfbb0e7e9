"""Cases: opened from an alert, worked through a state machine, all as events."""

from __future__ import annotations

import pytest

from casino.compliance.cases import (
    add_case_note,
    dismiss_alert,
    link_case_events,
    move_case,
    open_case,
)
from casino.compliance.errors import ComplianceError, ComplianceErrorCode
from casino.compliance.models import (
    AlertDismissal,
    Case,
    CaseLink,
    CaseNote,
    CaseState,
)
from ledger import rebuild_projections
from ledger.models import Event
from tests.casino.officers.conftest import key, traffic  # noqa: F401 (fixture)
from tests.casino.officers.conftest import staff
from casino.roles import Role


@pytest.fixture
def people(venues):
    staff("olli", Role.COMPLIANCE_OFFICER)
    staff("outi", Role.COMPLIANCE_OFFICER)
    staff("cashier", Role.CAGE)


def _events(case: Case) -> list[tuple[str, str]]:
    return [(e.type, e.metadata["actor"])
            for e in Event.objects.filter(stream=f"case/{case.id}").order_by("position")]


def test_an_alert_opens_a_case_that_concerns_the_alert_event(people, traffic):
    """From an AML alert: its player, venue and summary, and its event."""
    alert = traffic.aml_alert
    case = open_case(actor="olli", alert_id=alert.id, note="Ask for the source of funds",
                     idempotency_key=key())
    assert (case.state, case.alert_id, case.player_id, case.venue) == (
        CaseState.OPEN, alert.id, traffic.player_id, "casino-helsinki")
    assert case.title == alert.summary
    assert case.opened_by == "olli"
    assert list(case.links.values_list("position", flat=True)) == [alert.raised_position]
    assert [(n.author, n.text) for n in case.notes.all()] == [
        ("olli", "Ask for the source of funds")]
    assert _events(case) == [("compliance.case_opened", "olli")]
    opened = Event.objects.get(stream=f"case/{case.id}")
    assert opened.payload["positions"] == [alert.raised_position]


def test_a_case_moves_open_investigating_escalated_closed_and_every_move_is_an_event(
        people, traffic):
    """The whole flow, by two officers; closing records the reason."""
    case = open_case(actor="olli", alert_id=traffic.limit_hit.id, idempotency_key=key())
    move_case(case_id=case.id, to="investigating", actor="olli", idempotency_key=key())
    add_case_note(case_id=case.id, text="Dealer says the chip stack was misread",
                  actor="olli", idempotency_key=key())
    move_case(case_id=case.id, to="escalated", actor="olli", reason="Needs the floor manager",
              idempotency_key=key())
    closed = move_case(case_id=case.id, to="closed", actor="outi",
                       reason="Surveillance confirms a refused stake only",
                       idempotency_key=key())
    assert closed.state == CaseState.CLOSED
    assert (closed.closed_reason, closed.state_changed_by, closed.notes_count) == (
        "Surveillance confirms a refused stake only", "outi", 1)
    assert _events(case) == [
        ("compliance.case_opened", "olli"),
        ("compliance.case_state_changed", "olli"),
        ("compliance.case_note_added", "olli"),
        ("compliance.case_state_changed", "olli"),
        ("compliance.case_state_changed", "outi"),
    ]
    moves = [(e.payload["from_state"], e.payload["to_state"])
             for e in Event.objects.filter(stream=f"case/{case.id}",
                                           type="compliance.case_state_changed")
             .order_by("position")]
    assert moves == [("open", "investigating"), ("investigating", "escalated"),
                     ("escalated", "closed")]


@pytest.mark.parametrize("path, to, code", [
    ((), "escalated", ComplianceErrorCode.CASE_TRANSITION),
    ((), "closed", ComplianceErrorCode.CASE_TRANSITION),
    (("investigating",), "investigating", ComplianceErrorCode.CASE_TRANSITION),
    (("investigating", "closed"), "escalated", ComplianceErrorCode.CASE_TRANSITION),
    ((), "open", ComplianceErrorCode.INVALID_CASE),
], ids=["open_to_escalated_case", "open_to_closed_case", "investigating_twice_case",
        "closed_is_final_case", "back_to_open_case"])
def test_the_state_machine_refuses_moves_it_does_not_allow(people, traffic, path, to, code):
    """Each refused move is a coded error and writes nothing."""
    case = open_case(actor="olli", alert_id=traffic.refusal.id, idempotency_key=key())
    for step in path:
        move_case(case_id=case.id, to=step, actor="olli", reason="Nothing found, a test",
                  idempotency_key=key())
    before = Event.objects.count()
    with pytest.raises(ComplianceError) as caught:
        move_case(case_id=case.id, to=to, actor="olli", reason="Nothing found, a test",
                  idempotency_key=key())
    assert caught.value.code == code
    assert Event.objects.count() == before


def test_closing_needs_a_reason(people, traffic):
    case = open_case(actor="olli", alert_id=traffic.refusal.id, idempotency_key=key())
    move_case(case_id=case.id, to="investigating", actor="olli", idempotency_key=key())
    with pytest.raises(ComplianceError) as caught:
        move_case(case_id=case.id, to="closed", actor="olli", reason="ok",
                  idempotency_key=key())
    assert caught.value.code == ComplianceErrorCode.INVALID_CASE
    assert Case.objects.get(id=case.id).state == CaseState.INVESTIGATING


def test_only_compliance_officers_work_cases(people, traffic):
    """A cashier can neither open a case nor dismiss an alert; nothing is written."""
    before = Event.objects.count()
    for attempt in (lambda: open_case(actor="cashier", alert_id=traffic.refusal.id),
                    lambda: dismiss_alert(alert_id=traffic.refusal.id, actor="cashier",
                                          reason="Looks fine to me, really")):
        with pytest.raises(ComplianceError) as caught:
            attempt()
        assert (caught.value.code, caught.value.status) == (
            ComplianceErrorCode.NOT_OFFICER, 403)
    assert Event.objects.count() == before


def test_an_alert_in_an_open_case_cannot_open_another_or_be_dismissed(people, traffic):
    """One open case per alert; once it is closed a new case may be opened."""
    alert = traffic.aml_alert
    first = open_case(actor="olli", alert_id=alert.id, idempotency_key=key())
    with pytest.raises(ComplianceError) as again:
        open_case(actor="outi", alert_id=alert.id, idempotency_key=key())
    with pytest.raises(ComplianceError) as dismissed:
        dismiss_alert(alert_id=alert.id, actor="outi", reason="Duplicate of the case",
                      idempotency_key=key())
    assert again.value.code == dismissed.value.code == ComplianceErrorCode.ALERT_HANDLED
    assert again.value.details["case_id"] == first.id
    move_case(case_id=first.id, to="investigating", actor="olli", idempotency_key=key())
    move_case(case_id=first.id, to="closed", actor="olli", reason="Funds from a house sale",
              idempotency_key=key())
    second = open_case(actor="outi", alert_id=alert.id, idempotency_key=key())
    assert second.id != first.id


def test_a_closed_case_takes_no_notes_or_events(people, traffic):
    case = open_case(actor="olli", alert_id=traffic.refusal.id, idempotency_key=key())
    move_case(case_id=case.id, to="investigating", actor="olli", idempotency_key=key())
    move_case(case_id=case.id, to="closed", actor="olli", reason="Self-exclusion worked",
              idempotency_key=key())
    for attempt in (
        lambda: add_case_note(case_id=case.id, text="late", actor="olli"),
        lambda: link_case_events(case_id=case.id, positions=[1], actor="olli"),
    ):
        with pytest.raises(ComplianceError) as caught:
            attempt()
        assert caught.value.code == ComplianceErrorCode.CASE_CLOSED


def test_events_can_be_added_by_position_and_unknown_positions_are_refused(people, traffic):
    case = open_case(actor="olli", title="Player moving cash between venues",
                     positions=[traffic.aml_alert.raised_position], idempotency_key=key())
    link_case_events(case_id=case.id, positions=[traffic.limit_hit.raised_position,
                                                 traffic.aml_alert.raised_position],
                     actor="outi", idempotency_key=key())
    assert sorted(case.links.values_list("position", flat=True)) == sorted(
        [traffic.aml_alert.raised_position, traffic.limit_hit.raised_position])
    with pytest.raises(ComplianceError) as caught:
        link_case_events(case_id=case.id, positions=[10_000_000], actor="olli")
    assert caught.value.code == ComplianceErrorCode.UNKNOWN_POSITION


def test_a_case_without_an_alert_needs_a_title(people):
    with pytest.raises(ComplianceError) as caught:
        open_case(actor="olli")
    assert caught.value.code == ComplianceErrorCode.INVALID_CASE


def test_a_repeated_key_returns_the_same_case_and_writes_nothing(people, traffic):
    """L7 through the command: a retried open is the first open."""
    k = key()
    first = open_case(actor="olli", alert_id=traffic.refusal.id, idempotency_key=k)
    before = Event.objects.count()
    again = open_case(actor="olli", alert_id=traffic.refusal.id, idempotency_key=k)
    assert again.id == first.id
    assert Event.objects.count() == before


def test_dismissing_an_alert_records_who_and_why(people, traffic):
    dismissal = dismiss_alert(alert_id=traffic.refusal.id, actor="outi",
                              reason="Self-exclusion did its job", idempotency_key=key())
    assert (dismissal.dismissed_by, dismissal.reason) == ("outi", "Self-exclusion did its job")
    event = Event.objects.get(type="compliance.alert_dismissed")
    assert (event.stream, event.payload["alert_id"]) == (traffic.refusal.id,
                                                         traffic.refusal.id)
    with pytest.raises(ComplianceError) as caught:
        dismiss_alert(alert_id=traffic.refusal.id, actor="olli",
                      reason="Dismiss it twice, a test", idempotency_key=key())
    assert caught.value.code == ComplianceErrorCode.ALERT_HANDLED


def test_rebuild_reproduces_cases_notes_links_and_dismissals(people, traffic):
    """L9 for the case projection: rebuilt rows equal the live ones."""
    case = open_case(actor="olli", alert_id=traffic.aml_alert.id, note="first",
                     idempotency_key=key())
    move_case(case_id=case.id, to="investigating", actor="olli", idempotency_key=key())
    add_case_note(case_id=case.id, text="second", actor="outi", idempotency_key=key())
    link_case_events(case_id=case.id, positions=[traffic.limit_hit.raised_position],
                     actor="outi", idempotency_key=key())
    dismiss_alert(alert_id=traffic.refusal.id, actor="outi", reason="Nothing to look at",
                  idempotency_key=key())

    def snapshot():
        return (list(Case.objects.order_by("id").values()),
                list(CaseNote.objects.order_by("position").values()),
                list(CaseLink.objects.order_by("key").values()),
                list(AlertDismissal.objects.order_by("alert_id").values()))

    live = snapshot()
    assert live[0][0]["notes_count"] == 2
    rebuild_projections()
    assert snapshot() == live
