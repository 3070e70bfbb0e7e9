"""Cases: an officer's investigation of alerts and events, as events.

An alert of any kind (a rejected stake, a limit hit, an AML threshold or
structuring, a showdown or payout mismatch, a jackpot hit) can open a case;
so can an officer with only a title and the positions of the events it is
about. A case moves open -> investigating -> escalated -> closed, or
investigating -> closed; closing needs a reason. Notes and further events
can be added until it is closed. Every change is an event on the case's
stream `case/<id>` (events.py lists the payloads) and the `Case`,
`CaseNote` and `CaseLink` tables are its projection (projections.py), so a
case's history is the log's, and `rebuild_projections` gives it back.

An alert that needs no case is dismissed with a reason
(`compliance.alert_dismissed`), so the officers' list of open alerts shows
only what nobody has looked at yet.

Each command: replay a recorded idempotency key; check the actor is a
compliance officer (`not_a_compliance_officer`, 403); load the case and run
the django-fsm transition on the loaded row, never saved (a refusal is
`case_transition_not_allowed`, 409); one `append` expecting the stream's
version, so two officers deciding at once cannot both pass a check made on
the same state (the second gets 409).

Decision (case flow): the issue names open -> investigating -> escalated /
closed with a reason. An escalated case is closed by whoever it went to, so
escalated -> closed is allowed; a case is not closed straight from open
(dismiss the alert instead) and a closed case is final: a new case is
opened for new facts. Reason: an investigation that was never started
should not look like one that was, and a reopened case would blur who
decided what.

Decision (one case per alert): an alert that a case still open (not
closed) concerns cannot open a second one (`alert_already_handled`); after
that case closes it may open a new one. Two officers opening a case on the
same alert in the same instant can both succeed; the second is then closed
as a duplicate.
"""

from __future__ import annotations

import uuid
from typing import Iterable, Sequence

from django.contrib.auth import get_user_model
from django_fsm import can_proceed

from casino import clock
from casino.roles import Role, has_role
from ledger import Metadata, NewEvent, append
from ledger.errors import StaleVersion
from ledger.models import Event, Stream
from ledger.store import recorded_result

from .errors import ComplianceError, ComplianceErrorCode
from .events import (
    ALERT_DISMISSED,
    CASE_EVENTS_LINKED,
    CASE_NOTE_ADDED,
    CASE_OPENED,
    CASE_STATE_CHANGED,
    case_stream,
)
from .models import Alert, AlertDismissal, Case, CaseLink, CaseNote, CaseState

SOURCE = "casino.compliance"
TITLE_LENGTH_MAX = 200
NOTE_LENGTH_MAX = 10_000
REASON_LENGTH_MIN = 10
POSITIONS_PER_REQUEST_MAX = 100

# The transition each target state runs (models.Case); "open" is no target.
TRANSITIONS = {
    CaseState.INVESTIGATING: "investigate",
    CaseState.ESCALATED: "escalate",
    CaseState.CLOSED: "close",
}


def _require_officer(actor: str) -> None:
    user = get_user_model().objects.filter(username=actor).first()
    if not has_role(user, Role.COMPLIANCE_OFFICER):
        raise ComplianceError(ComplianceErrorCode.NOT_OFFICER,
                              "only a compliance officer may work on cases and alerts",
                              status=403, actor=actor)


def get_case(case_id: str) -> Case:
    case = Case.objects.filter(id=case_id).first()
    if case is None:
        raise ComplianceError(ComplianceErrorCode.UNKNOWN_CASE, f"no case {case_id!r}",
                              status=404, case_id=case_id)
    return case


def _alert(alert_id: str) -> Alert:
    alert = Alert.objects.filter(id=alert_id).first()
    if alert is None:
        raise ComplianceError(ComplianceErrorCode.UNKNOWN_ALERT, f"no alert {alert_id!r}",
                              status=404, alert=alert_id)
    return alert


def _version(stream: str) -> int:
    return Stream.objects.filter(name=stream).values_list("version", flat=True).first() or 0


def _positions(positions: Iterable[int]) -> list[int]:
    """Return the distinct positions, sorted, each an event in the log."""
    unique = sorted(set(positions))
    if len(unique) > POSITIONS_PER_REQUEST_MAX:
        raise ComplianceError(ComplianceErrorCode.INVALID_CASE,
                              f"at most {POSITIONS_PER_REQUEST_MAX} events at a time",
                              status=400, positions_max=POSITIONS_PER_REQUEST_MAX)
    if any(type(p) is not int for p in unique):
        raise ComplianceError(ComplianceErrorCode.INVALID_CASE,
                              "positions must be whole numbers", status=400)
    found = set(Event.objects.filter(position__in=unique).values_list("position", flat=True))
    missing = [p for p in unique if p not in found]
    if missing:
        raise ComplianceError(ComplianceErrorCode.UNKNOWN_POSITION,
                              f"no event at position {missing[0]}", status=404,
                              positions=missing)
    return unique


def case_handling(alert: Alert) -> Case | None:
    """The case, not closed, that concerns the alert's event, if any."""
    link = (CaseLink.objects.filter(position=alert.raised_position)
            .exclude(case__state=CaseState.CLOSED).select_related("case").first())
    return link.case if link else None


def _refuse_closed(case: Case) -> None:
    if case.state == CaseState.CLOSED:
        raise ComplianceError(ComplianceErrorCode.CASE_CLOSED,
                              f"case {case.id} is closed; open a new case for new facts",
                              status=409, case_id=case.id)


def _metadata(actor: str) -> Metadata:
    return Metadata(actor=actor, source=SOURCE)


def open_case(*, actor: str, alert_id: str = "", title: str = "",
              positions: Sequence[int] = (), note: str = "",
              idempotency_key: str | None = None) -> Case:
    """Open a case on an alert, or on a title and the events it concerns.

    From an alert, the case takes the alert's player, venue and summary (as
    the title unless one is given) and concerns the event that raised it.
    Raises ComplianceError: not_a_compliance_officer (403), unknown_alert or
    unknown_event_position (404), alert_already_handled (409),
    invalid_case_request (400).
    """
    recorded = recorded_result(idempotency_key)
    if recorded is not None:
        return get_case(recorded[0].payload["case_id"])
    _require_officer(actor)
    title = title.strip()
    player_id = venue = ""
    concerned = _positions(positions)
    if alert_id:
        alert = _alert(alert_id)
        handling = case_handling(alert)
        if handling is not None:
            raise ComplianceError(ComplianceErrorCode.ALERT_HANDLED,
                                  f"case {handling.id} already concerns {alert_id}",
                                  status=409, alert=alert_id, case_id=handling.id)
        title = title or alert.summary[:TITLE_LENGTH_MAX]
        player_id, venue = alert.player_id, alert.venue
        concerned = sorted({alert.raised_position, *concerned})
    if not title:
        raise ComplianceError(ComplianceErrorCode.INVALID_CASE,
                              "a case without an alert needs a title", status=400,
                              field="title")
    if len(title) > TITLE_LENGTH_MAX or len(note) > NOTE_LENGTH_MAX:
        raise ComplianceError(ComplianceErrorCode.INVALID_CASE,
                              "the title or the note is too long", status=400,
                              title_length_max=TITLE_LENGTH_MAX,
                              note_length_max=NOTE_LENGTH_MAX)
    case_id = uuid.uuid4().hex[:16]
    stream = case_stream(case_id)
    append([NewEvent(stream=stream, type=CASE_OPENED, occurred_at=clock.now(),
                     payload={"case_id": case_id, "title": title, "alert_id": alert_id,
                              "player_id": player_id, "venue": venue,
                              "positions": concerned, "note": note.strip()})],
           expected_versions={stream: 0}, idempotency_key=idempotency_key,
           request={"op": "open_case", "alert_id": alert_id, "title": title,
                    "positions": list(positions), "note": note},
           metadata=_metadata(actor))
    return get_case(case_id)


def move_case(*, case_id: str, to: str, actor: str, reason: str = "",
              idempotency_key: str | None = None) -> Case:
    """Move a case to `to` (investigating, escalated or closed).

    Closing needs a reason of at least 10 characters. Raises
    ComplianceError: not_a_compliance_officer (403), unknown_case (404),
    invalid_case_request (400), case_transition_not_allowed (409).
    """
    recorded = recorded_result(idempotency_key)
    if recorded is not None:
        return get_case(recorded[0].payload["case_id"])
    _require_officer(actor)
    if to not in TRANSITIONS:
        raise ComplianceError(ComplianceErrorCode.INVALID_CASE,
                              f"a case can be moved to {', '.join(TRANSITIONS)}", status=400,
                              field="to", to=to)
    reason = reason.strip()
    if to == CaseState.CLOSED and len(reason) < REASON_LENGTH_MIN:
        raise ComplianceError(ComplianceErrorCode.INVALID_CASE,
                              "give the reason for closing, at least 10 characters",
                              status=400, field="reason")
    if len(reason) > NOTE_LENGTH_MAX:
        raise ComplianceError(ComplianceErrorCode.INVALID_CASE, "the reason is too long",
                              status=400, field="reason")
    stream = case_stream(case_id)
    version = _version(stream)
    case = get_case(case_id)
    transition = getattr(case, TRANSITIONS[CaseState(to)])
    if not can_proceed(transition):
        raise ComplianceError(ComplianceErrorCode.CASE_TRANSITION,
                              f"case {case_id} is {case.state}; it cannot become {to}",
                              status=409, case_id=case_id, state=case.state, to=to)
    from_state = str(case.state)
    transition()  # on the loaded row only: the event sets the state
    _append_once(stream, version, NewEvent(
        stream=stream, type=CASE_STATE_CHANGED, occurred_at=clock.now(),
        payload={"case_id": case_id, "from_state": from_state,
                 "to_state": str(to), "reason": reason}),
        idempotency_key=idempotency_key,
        request={"op": "move_case", "case_id": case_id, "to": str(to), "reason": reason},
        actor=actor)
    return get_case(case_id)


def add_case_note(*, case_id: str, text: str, actor: str,
                  idempotency_key: str | None = None) -> CaseNote:
    """Add a note to a case that is not closed.

    Raises ComplianceError: not_a_compliance_officer (403), unknown_case
    (404), invalid_case_request (400), case_closed (409).
    """
    recorded = recorded_result(idempotency_key)
    if recorded is not None:
        return CaseNote.objects.get(position=recorded[0].position)
    _require_officer(actor)
    text = text.strip()
    if not text or len(text) > NOTE_LENGTH_MAX:
        raise ComplianceError(ComplianceErrorCode.INVALID_CASE,
                              f"a note is 1 to {NOTE_LENGTH_MAX} characters", status=400,
                              field="text")
    stream = case_stream(case_id)
    version = _version(stream)
    _refuse_closed(get_case(case_id))
    result = _append_once(stream, version, NewEvent(
        stream=stream, type=CASE_NOTE_ADDED, occurred_at=clock.now(),
        payload={"case_id": case_id, "text": text}),
        idempotency_key=idempotency_key,
        request={"op": "add_case_note", "case_id": case_id, "text": text}, actor=actor)
    return CaseNote.objects.get(position=result)


def link_case_events(*, case_id: str, positions: Sequence[int], actor: str,
                     idempotency_key: str | None = None) -> Case:
    """Add events (by position) to those a case concerns; known ones are skipped.

    Raises ComplianceError: not_a_compliance_officer (403), unknown_case or
    unknown_event_position (404), invalid_case_request (400), case_closed
    (409).
    """
    recorded = recorded_result(idempotency_key)
    if recorded is not None:
        return get_case(recorded[0].payload["case_id"])
    _require_officer(actor)
    concerned = _positions(positions)
    if not concerned:
        raise ComplianceError(ComplianceErrorCode.INVALID_CASE, "name at least one event",
                              status=400, field="positions")
    stream = case_stream(case_id)
    version = _version(stream)
    case = get_case(case_id)
    _refuse_closed(case)
    known = set(case.links.values_list("position", flat=True))
    new = [p for p in concerned if p not in known]
    if new:
        _append_once(stream, version, NewEvent(
            stream=stream, type=CASE_EVENTS_LINKED, occurred_at=clock.now(),
            payload={"case_id": case_id, "positions": new}),
            idempotency_key=idempotency_key,
            request={"op": "link_case_events", "case_id": case_id, "positions": concerned},
            actor=actor)
    return get_case(case_id)


def dismiss_alert(*, alert_id: str, reason: str, actor: str,
                  idempotency_key: str | None = None) -> AlertDismissal:
    """Close an alert without a case, with the officer's reason.

    Raises ComplianceError: not_a_compliance_officer (403), unknown_alert
    (404), invalid_case_request (400), alert_already_handled (409: already
    dismissed, or a case still open concerns it).
    """
    recorded = recorded_result(idempotency_key)
    if recorded is not None:
        return AlertDismissal.objects.get(alert_id=recorded[0].payload["alert_id"])
    _require_officer(actor)
    reason = reason.strip()
    if len(reason) < REASON_LENGTH_MIN or len(reason) > NOTE_LENGTH_MAX:
        raise ComplianceError(ComplianceErrorCode.INVALID_CASE,
                              "give the reason for dismissing, at least 10 characters",
                              status=400, field="reason")
    alert = _alert(alert_id)
    stream = alert_id  # an alert's id is its own stream name, `alert/<position>`
    version = _version(stream)
    handling = case_handling(alert)
    if version or handling is not None:
        raise ComplianceError(ComplianceErrorCode.ALERT_HANDLED,
                              f"{alert_id} is already dismissed or in a case", status=409,
                              alert=alert_id, case_id=handling.id if handling else None)
    _append_once(stream, version, NewEvent(
        stream=stream, type=ALERT_DISMISSED, occurred_at=clock.now(),
        payload={"alert_id": alert_id, "reason": reason}),
        idempotency_key=idempotency_key,
        request={"op": "dismiss_alert", "alert_id": alert_id, "reason": reason}, actor=actor)
    return AlertDismissal.objects.get(alert_id=alert_id)


def _append_once(stream: str, version: int, event: NewEvent, *,
                 idempotency_key: str | None, request: dict, actor: str) -> int:
    """Append one event expecting `version`; a concurrent change is a 409."""
    try:
        result = append([event], expected_versions={stream: version},
                        idempotency_key=idempotency_key, request=request,
                        metadata=_metadata(actor))
    except StaleVersion:
        raise ComplianceError(ComplianceErrorCode.CASE_TRANSITION,
                              "someone changed this at the same moment; look again and retry",
                              status=409, stream=stream) from None
    return result.first_position
