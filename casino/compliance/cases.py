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

Each command runs through `casino.runner.run` (which replays a recorded
idempotency key): its load checks the actor is a compliance officer
(`compliance.not_a_compliance_officer`, 403), reads the stream's version, then loads
the case and runs the django-fsm transition on the loaded row, never saved
(a refusal is `compliance.case_transition_not_allowed`, 409); the decision expects that
version, so two officers deciding at once cannot both pass a check made on
the same state (the second is loaded again and refused).

Decision (case flow): the issue names open -> investigating -> escalated /
closed with a reason. An escalated case is closed by whoever it went to, so
escalated -> closed is allowed; a case is not closed straight from open
(dismiss the alert instead) and a closed case is final: a new case is
opened for new facts. Reason: an investigation that was never started
should not look like one that was, and a reopened case would blur who
decided what.

Decision (one case per alert): an alert that a case still open (not
closed) concerns cannot open a second one (`compliance.alert_already_handled`); after
that case closes it may open a new one. Two officers opening a case on the
same alert in the same instant can both succeed; the second is then closed
as a duplicate.
"""

from __future__ import annotations

import datetime as dt
import uuid
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping, Sequence

from django.contrib.auth import get_user_model
from django_fsm import can_proceed

from casino import clock
from casino.roles import Role, has_role
from casino.rules import queries as rules
from casino.clock import operator_day
from casino.runner import BaseCommand, Call, Decision, run
from ledger import NewEvent, RecordedEvent
from ledger.read import Event
from ledger.read import stream_version

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
                              actor=actor)


def get_case(case_id: str) -> Case:
    case = Case.objects.filter(id=case_id).first()
    if case is None:
        raise ComplianceError(ComplianceErrorCode.UNKNOWN_CASE, f"no case {case_id!r}",
                              case_id=case_id)
    return case


def _alert(alert_id: str) -> Alert:
    alert = Alert.objects.filter(id=alert_id).first()
    if alert is None:
        raise ComplianceError(ComplianceErrorCode.UNKNOWN_ALERT, f"no alert {alert_id!r}",
                              alert=alert_id)
    return alert


def _positions(positions: Iterable[int]) -> list[int]:
    """Return the distinct positions, sorted, each an event in the log."""
    unique = sorted(set(positions))
    if len(unique) > POSITIONS_PER_REQUEST_MAX:
        raise ComplianceError(ComplianceErrorCode.INVALID_CASE,
                              f"at most {POSITIONS_PER_REQUEST_MAX} events at a time",
                              positions_max=POSITIONS_PER_REQUEST_MAX)
    if any(type(p) is not int for p in unique):
        raise ComplianceError(ComplianceErrorCode.INVALID_CASE,
                              "positions must be whole numbers")
    found = set(Event.objects.filter(position__in=unique).values_list("position", flat=True))
    missing = [p for p in unique if p not in found]
    if missing:
        raise ComplianceError(ComplianceErrorCode.UNKNOWN_POSITION,
                              f"no event at position {missing[0]}",
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
                              case_id=case.id)


def _gaming_day(venue_code: str, at: dt.datetime) -> dt.date:
    """The venue's gaming day of a case event about a venue; the operator's otherwise."""
    if not venue_code:
        return operator_day(at)
    return rules.venue_day(rules.venue(venue_code), at)


@dataclass(frozen=True, slots=True)
class CaseContext:
    """What a case command read: the stream's version first, then the rows."""

    arguments: Mapping[str, Any]
    stream: str
    version: int
    at: dt.datetime
    payload: Mapping[str, Any] = field(default_factory=dict)
    venue: str = ""


class _NothingToLink(Exception):
    """Every event named is already linked: nothing to append."""


class CaseCommand(BaseCommand[CaseContext, Any]):
    """One write on a case or an alert: `load` reads and refuses, `decide` is pure."""

    source = SOURCE
    event_type = ""

    def decide(self, context: CaseContext) -> Decision:
        event = NewEvent(stream=context.stream, type=self.event_type,
                         payload=dict(context.payload), occurred_at=context.at,
                         gaming_day=_gaming_day(context.venue, context.at))
        return Decision([event], {context.stream: context.version})

    def answer(self, events: Sequence[RecordedEvent], *, replayed: bool) -> Any:
        return get_case(events[0].payload["case_id"])


class OpenCase(CaseCommand):
    name = "compliance.open_case"
    event_type = CASE_OPENED

    def load(self, arguments: Mapping[str, Any], call: Call) -> CaseContext:
        _require_officer(call.actor)
        alert_id, title, note = arguments["alert_id"], arguments["title"].strip(), arguments["note"]
        player_id = venue = ""
        concerned = _positions(arguments["positions"])
        if alert_id:
            alert = _alert(alert_id)
            handling = case_handling(alert)
            if handling is not None:
                raise ComplianceError(ComplianceErrorCode.ALERT_HANDLED,
                                      f"case {handling.id} already concerns {alert_id}",
                                      alert=alert_id, case_id=handling.id)
            title = title or alert.summary[:TITLE_LENGTH_MAX]
            player_id, venue = alert.player_id, alert.venue
            concerned = sorted({alert.raised_position, *concerned})
        if not title:
            raise ComplianceError(ComplianceErrorCode.INVALID_CASE,
                                  "a case without an alert needs a title",
                                  field="title")
        if len(title) > TITLE_LENGTH_MAX or len(note) > NOTE_LENGTH_MAX:
            raise ComplianceError(ComplianceErrorCode.INVALID_CASE,
                                  "the title or the note is too long",
                                  title_length_max=TITLE_LENGTH_MAX,
                                  note_length_max=NOTE_LENGTH_MAX)
        case_id = uuid.uuid4().hex[:16]
        return CaseContext(
            arguments=arguments, stream=case_stream(case_id), version=0, at=call.moment(),
            venue=venue,
            payload={"case_id": case_id, "title": title, "alert_id": alert_id,
                     "player_id": player_id, "venue": venue, "positions": concerned,
                     "note": note.strip()})


class MoveCase(CaseCommand):
    name = "compliance.move_case"
    event_type = CASE_STATE_CHANGED

    def load(self, arguments: Mapping[str, Any], call: Call) -> CaseContext:
        _require_officer(call.actor)
        case_id, to, reason = arguments["case_id"], arguments["to"], arguments["reason"]
        if to not in TRANSITIONS:
            raise ComplianceError(ComplianceErrorCode.INVALID_CASE,
                                  f"a case can be moved to {', '.join(TRANSITIONS)}",
                                  field="to", to=to)
        if to == CaseState.CLOSED and len(reason) < REASON_LENGTH_MIN:
            raise ComplianceError(ComplianceErrorCode.INVALID_CASE,
                                  "give the reason for closing, at least 10 characters",
                                  field="reason")
        if len(reason) > NOTE_LENGTH_MAX:
            raise ComplianceError(ComplianceErrorCode.INVALID_CASE, "the reason is too long",
                                  field="reason")
        stream = case_stream(case_id)
        version = stream_version(stream)
        case = get_case(case_id)
        transition = getattr(case, TRANSITIONS[CaseState(to)])
        if not can_proceed(transition):
            raise ComplianceError(ComplianceErrorCode.CASE_TRANSITION,
                                  f"case {case_id} is {case.state}; it cannot become {to}",
                                  case_id=case_id, state=case.state, to=to)
        return CaseContext(arguments=arguments, stream=stream, version=version,
                           at=call.moment(), venue=case.venue,
                           payload={"case_id": case_id, "from_state": str(case.state),
                                    "to_state": str(to), "reason": reason})


class AddCaseNote(CaseCommand):
    name = "compliance.add_case_note"
    event_type = CASE_NOTE_ADDED

    def load(self, arguments: Mapping[str, Any], call: Call) -> CaseContext:
        _require_officer(call.actor)
        case_id, text = arguments["case_id"], arguments["text"]
        if not text or len(text) > NOTE_LENGTH_MAX:
            raise ComplianceError(ComplianceErrorCode.INVALID_CASE,
                                  f"a note is 1 to {NOTE_LENGTH_MAX} characters",
                                  field="text")
        stream = case_stream(case_id)
        version = stream_version(stream)
        case = get_case(case_id)
        _refuse_closed(case)
        return CaseContext(arguments=arguments, stream=stream, version=version,
                           at=call.moment(), venue=case.venue,
                           payload={"case_id": case_id, "text": text})

    def answer(self, events: Sequence[RecordedEvent], *, replayed: bool) -> CaseNote:
        return CaseNote.objects.get(position=events[0].position)


class LinkCaseEvents(CaseCommand):
    name = "compliance.link_case_events"
    event_type = CASE_EVENTS_LINKED

    def load(self, arguments: Mapping[str, Any], call: Call) -> CaseContext:
        _require_officer(call.actor)
        case_id = arguments["case_id"]
        concerned = _positions(arguments["positions"])
        if not concerned:
            raise ComplianceError(ComplianceErrorCode.INVALID_CASE, "name at least one event",
                                  field="positions")
        stream = case_stream(case_id)
        version = stream_version(stream)
        case = get_case(case_id)
        _refuse_closed(case)
        known = set(case.links.values_list("position", flat=True))
        new = [p for p in concerned if p not in known]
        if not new:
            raise _NothingToLink()
        return CaseContext(arguments=arguments, stream=stream, version=version,
                           at=call.moment(), venue=case.venue,
                           payload={"case_id": case_id, "positions": new})


class DismissAlert(CaseCommand):
    name = "compliance.dismiss_alert"
    event_type = ALERT_DISMISSED

    def load(self, arguments: Mapping[str, Any], call: Call) -> CaseContext:
        _require_officer(call.actor)
        alert_id, reason = arguments["alert_id"], arguments["reason"]
        if len(reason) < REASON_LENGTH_MIN or len(reason) > NOTE_LENGTH_MAX:
            raise ComplianceError(ComplianceErrorCode.INVALID_CASE,
                                  "give the reason for dismissing, at least 10 characters",
                                  field="reason")
        alert = _alert(alert_id)
        stream = alert_id  # an alert's id is its own stream name, `alert/<position>`
        version = stream_version(stream)
        handling = case_handling(alert)
        if version or handling is not None:
            raise ComplianceError(ComplianceErrorCode.ALERT_HANDLED,
                                  f"{alert_id} is already dismissed or in a case",
                                  alert=alert_id, case_id=handling.id if handling else None)
        return CaseContext(arguments=arguments, stream=stream, version=version,
                           at=call.moment(), venue=alert.venue,
                           payload={"alert_id": alert_id, "reason": reason})

    def answer(self, events: Sequence[RecordedEvent], *, replayed: bool) -> AlertDismissal:
        return AlertDismissal.objects.get(alert_id=events[0].payload["alert_id"])


COMMANDS = {command.name: command for command in (
    OpenCase(), MoveCase(), AddCaseNote(), LinkCaseEvents(), DismissAlert())}


def _call(actor: str, idempotency_key: str | None) -> Call:
    return Call(actor=actor, key=idempotency_key, at=clock.now(), source=SOURCE)


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
    return run(COMMANDS["compliance.open_case"],
               {"alert_id": alert_id, "title": title, "positions": list(positions),
                "note": note},
               _call(actor, idempotency_key))


def move_case(*, case_id: str, to: str, actor: str, reason: str = "",
              idempotency_key: str | None = None) -> Case:
    """Move a case to `to` (investigating, escalated or closed).

    Closing needs a reason of at least 10 characters. Raises
    ComplianceError: not_a_compliance_officer (403), unknown_case (404),
    invalid_case_request (400), case_transition_not_allowed (409).
    """
    return run(COMMANDS["compliance.move_case"],
               {"case_id": case_id, "to": str(to), "reason": reason.strip()},
               _call(actor, idempotency_key))


def add_case_note(*, case_id: str, text: str, actor: str,
                  idempotency_key: str | None = None) -> CaseNote:
    """Add a note to a case that is not closed.

    Raises ComplianceError: not_a_compliance_officer (403), unknown_case
    (404), invalid_case_request (400), case_closed (409).
    """
    return run(COMMANDS["compliance.add_case_note"], {"case_id": case_id, "text": text.strip()},
               _call(actor, idempotency_key))


def link_case_events(*, case_id: str, positions: Sequence[int], actor: str,
                     idempotency_key: str | None = None) -> Case:
    """Add events (by position) to those a case concerns; known ones are skipped.

    Raises ComplianceError: not_a_compliance_officer (403), unknown_case or
    unknown_event_position (404), invalid_case_request (400), case_closed
    (409).
    """
    try:
        return run(COMMANDS["compliance.link_case_events"],
                   {"case_id": case_id, "positions": list(positions)},
                   _call(actor, idempotency_key))
    except _NothingToLink:
        return get_case(case_id)


def dismiss_alert(*, alert_id: str, reason: str, actor: str,
                  idempotency_key: str | None = None) -> AlertDismissal:
    """Close an alert without a case, with the officer's reason.

    Raises ComplianceError: not_a_compliance_officer (403), unknown_alert
    (404), invalid_case_request (400), alert_already_handled (409: already
    dismissed, or a case still open concerns it).
    """
    return run(COMMANDS["compliance.dismiss_alert"],
               {"alert_id": alert_id, "reason": reason.strip()},
               _call(actor, idempotency_key))
