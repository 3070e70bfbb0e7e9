"""Erasure by two officers: propose, then a second officer approves (the key is destroyed).

`propose_erasure` checks that the player is registered and that the
retention period is over: the player's last event on their stream lies
at least `retention.aml_records.years` before the business time (the
longest figure of the rulebooks in force: a player is the operator's,
not one venue's). `approve_erasure` is refused to the proposer (the
two-person rule `privacy.approve_erasure`, recorded as
`privacy.four_eyes_refused`, 403); otherwise it appends
`privacy.personal_data_erased`, whose projection destroys the key in the
same transaction. Nothing else changes: no money moves, no event is edited.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from casino.clock import operator_day
from casino.roles import four_eyes_payload, same_person, two_person_rule
from casino.rules import queries as rules
from casino.runner import BaseCommand, Call, Decision, Rejection, run
from ledger import NewEvent, RecordedEvent
from ledger.read import stream_events, stream_version

from .errors import PrivacyError, PrivacyErrorCode as Code
from .events import (
    ERASURE_PROPOSED,
    FOUR_EYES_REFUSED,
    PERSONAL_DATA_ERASED,
    SOURCE,
    player_stream,
)
from .models import Erasure

RETENTION_FIGURE = "retention.aml_records.years"
REASON_LENGTH_MAX = 1000
STREAM_PAGE_MAX = 1000


@dataclass(frozen=True, slots=True)
class ErasureContext:
    player_id: str
    version: int
    at: dt.datetime
    actor: str
    reason: str = ""
    proposed_by: str = ""


@dataclass(frozen=True, slots=True)
class ErasureResult:
    player_id: str
    state: str
    position: int
    replayed: bool


def retention_years(on: dt.date) -> int:
    """The longest `retention.aml_records.years` of the rulebooks in force."""
    years = [int(row.value) for version in rules.versions_in_force(on)
             if (row := rules.figure(version, RETENTION_FIGURE, on)) is not None]
    if not years:
        raise PrivacyError(Code.RETENTION_NOT_OVER, "no rulebook in force sets the retention"
                           " period: nothing may be erased", figure=RETENTION_FIGURE)
    return max(years)


def _last_event(player_id: str) -> RecordedEvent | None:
    last, after = None, 0
    while True:
        page = stream_events(player_stream(player_id), after, limit=STREAM_PAGE_MAX)
        if not page:
            return last
        last, after = page[-1], page[-1].version
        if len(page) < STREAM_PAGE_MAX:
            return last


def _add_years(day: dt.date, years: int) -> dt.date:
    try:
        return day.replace(year=day.year + years)
    except ValueError:      # 29 February
        return day.replace(year=day.year + years, day=28)


class ProposeErasure(BaseCommand[ErasureContext, ErasureResult]):
    name = "privacy.propose_erasure"
    source = SOURCE

    def load(self, arguments: Mapping[str, Any], call: Call) -> ErasureContext:
        player_id, reason = arguments["player_id"], arguments["reason"].strip()
        if not reason or len(reason) > REASON_LENGTH_MAX:
            raise PrivacyError(Code.INVALID_REQUEST, f"give the reason, 1 to"
                               f" {REASON_LENGTH_MAX} characters", field="reason")
        last = _last_event(player_id)
        if last is None:
            raise PrivacyError(Code.UNKNOWN_PLAYER, f"no player {player_id}", player=player_id)
        if Erasure.objects.filter(player_id=player_id).exists():
            raise PrivacyError(Code.ERASURE_EXISTS, f"the erasure of {player_id} is already"
                               " proposed or done", player=player_id)
        at = call.moment()
        years = retention_years(operator_day(at))
        due = _add_years(last.occurred_at.date(), years)
        if operator_day(at) < due:
            raise PrivacyError(Code.RETENTION_NOT_OVER,
                               f"the records of {player_id} are kept until {due.isoformat()}"
                               f" ({years} years after the last event)",
                               player=player_id, due=due.isoformat(), years=years,
                               last_position=last.position)
        return ErasureContext(player_id, last.version, at, call.actor, reason=reason)

    def decide(self, context: ErasureContext) -> Decision:
        event = NewEvent(stream=player_stream(context.player_id), type=ERASURE_PROPOSED,
                         payload={"player_id": context.player_id, "reason": context.reason,
                                  "proposed_by": context.actor},
                         occurred_at=context.at, gaming_day=operator_day(context.at))
        return Decision([event], {player_stream(context.player_id): context.version})

    def answer(self, events: Sequence[RecordedEvent], *, replayed: bool) -> ErasureResult:
        return ErasureResult(events[0].payload["player_id"], "proposed", events[0].position,
                             replayed)


class ApproveErasure(BaseCommand[ErasureContext, ErasureResult]):
    name = "privacy.approve_erasure"
    source = SOURCE

    def load(self, arguments: Mapping[str, Any], call: Call) -> ErasureContext:
        player_id = arguments["player_id"]
        erasure = Erasure.objects.filter(player_id=player_id).first()
        if erasure is None or erasure.state != Erasure.State.PROPOSED:
            raise PrivacyError(Code.ERASURE_NOT_PROPOSED, f"no erasure of {player_id} waits"
                               " for approval", player=player_id,
                               state=erasure.state if erasure else None)
        return ErasureContext(player_id, stream_version(player_stream(player_id)),
                              call.moment(), call.actor, reason=arguments.get("note", ""),
                              proposed_by=erasure.proposed_by)

    def check(self, context: ErasureContext) -> Rejection | None:
        """The proposer may not approve their own erasure: refused on the record."""
        rule = two_person_rule(self.name)
        if not same_person(rule, actor=context.actor, earlier_actor=context.proposed_by):
            return None
        message = "an erasure is approved by a second officer, not its proposer"
        payload = four_eyes_payload(rule, actor=context.actor, earlier_actor=context.proposed_by,
                                    record=context.player_id, message=message)
        event = NewEvent(stream=f"{player_stream(context.player_id)}/erasure-rejections",
                         type=FOUR_EYES_REFUSED, payload=payload, occurred_at=context.at,
                         gaming_day=operator_day(context.at))

        def error(position: int) -> PrivacyError:
            return PrivacyError(Code.APPROVER_IS_PROPOSER, message, player=context.player_id,
                                rejection_position=position)

        return Rejection(event, error)

    def decide(self, context: ErasureContext) -> Decision:
        event = NewEvent(stream=player_stream(context.player_id), type=PERSONAL_DATA_ERASED,
                         payload={"player_id": context.player_id,
                                  "proposed_by": context.proposed_by,
                                  "approved_by": context.actor, "note": context.reason},
                         occurred_at=context.at, gaming_day=operator_day(context.at))
        return Decision([event], {player_stream(context.player_id): context.version})

    def answer(self, events: Sequence[RecordedEvent], *, replayed: bool) -> ErasureResult:
        if events[0].type == FOUR_EYES_REFUSED:     # a replayed refusal is refused again
            p = events[0].payload
            raise PrivacyError(Code.APPROVER_IS_PROPOSER, p["message"], player=p["record"],
                               rejection_position=events[0].position)
        return ErasureResult(events[0].payload["player_id"], "erased", events[0].position,
                             replayed)


PROPOSE_ERASURE = ProposeErasure()
APPROVE_ERASURE = ApproveErasure()


def propose_erasure(*, player_id: str, reason: str, actor: str,
                    idempotency_key: str | None = None,
                    at: dt.datetime | None = None) -> ErasureResult:
    """Propose erasing a player's personal data (after retention); a second officer approves."""
    return run(PROPOSE_ERASURE, {"player_id": player_id, "reason": reason},
               Call(actor=actor, key=idempotency_key, at=at, source=SOURCE))


def approve_erasure(*, player_id: str, actor: str, note: str = "",
                    idempotency_key: str | None = None,
                    at: dt.datetime | None = None) -> ErasureResult:
    """Approve a proposed erasure (not its proposer): the player's key is destroyed."""
    return run(APPROVE_ERASURE, {"player_id": player_id, "note": note},
               Call(actor=actor, key=idempotency_key, at=at, source=SOURCE))
