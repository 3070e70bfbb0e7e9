"""Malfunction credits: what the device recorded before an interruption, by two people.

Seed 002:L1383-1385 (halls and the casino) and L3039-3041 (online): when the
drawing device fails or a draw is interrupted, the player is credited the
wins, free games and credits ("pelivaraukset") accrued before the
interruption, as far as they can be established beyond doubt; when the
display shows a wrong combination, win, free games or credits, the player
is credited what the device (online: RAY's system) recorded. So the credit
is computed from the device's record, never from the display: the display
is kept beside it for the officer, and a difference is named.

It is a correction of a player's money, so it takes two people (like the
compliance app's corrections): one proposes it with the device data
attached (`machines.malfunction_credit_proposed`, nothing moves), another
approves it (`machines.malfunction_credit_approved`, the credit is posted)
or rejects it. The proposer cannot approve (403 machines.approver_is_proposer).

Money (debit positive): machine/<m>/malfunction_credits +A, machine/<m>/credit
-A (online: the player's gaming account, up to its ceiling). Decision
machines.malfunction.free_games (not in the seed): free games are credited
as a count on the record; their money is what they win when played, which
the machine reports as rounds.
"""

from __future__ import annotations

import datetime as dt
import uuid
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from casino.compliance.pipeline import venue_day
from casino.rules import queries as rules
from casino.rules.models import Venue
from casino.roles import four_eyes_payload, same_person, two_person_rule
from casino.runner import BaseCommand, Call, Decision, Rejection, run
from casino.wallet import PlayerCredit, accounts_to_open, credit_players
from ledger import NewEvent, Posting, RecordedEvent
from ledger.read import AccountType, stream_version

from .errors import MachinesError, MachinesErrorCode as Code
from .events import (
    FOUR_EYES_REFUSED,
    MALFUNCTION_CREDIT_APPROVED,
    MALFUNCTION_CREDIT_PROPOSED,
    MALFUNCTION_CREDIT_REJECTED,
    SCHEMA_VERSION,
    SOURCE,
    credit_account,
    malfunction_stream,
)
from .models import ONLINE_KINDS, Machine, MalfunctionCredit, MalfunctionState

AMOUNT_MINOR_MAX = 10**10
FREE_GAMES_MAX = 10_000
DEVICE_FIELDS = ("wins_minor", "credits_minor", "free_games")


def malfunction_account(machine_id: str) -> str:
    """What a machine's malfunctions credited to players (expense)."""
    return f"machine/{machine_id}/malfunction_credits"


def _invalid(message: str, **details: Any) -> MachinesError:
    return MachinesError(Code.INVALID_REQUEST, message, **details)


@dataclass(frozen=True, slots=True)
class MalfunctionResult:
    credit_id: str
    machine_id: str
    state: str
    amount_minor: int
    free_games: int
    differences: Mapping[str, Any]
    position: int
    replayed: bool = False


def _device_figures(record: Mapping[str, Any], name: str) -> dict[str, int]:
    figures = {}
    for field in DEVICE_FIELDS:
        value = record.get(field, 0)
        high = FREE_GAMES_MAX if field == "free_games" else AMOUNT_MINOR_MAX
        if type(value) is not int or not 0 <= value <= high:
            raise _invalid(f"{name}.{field}: a whole number, 0 or more", field=name)
        figures[field] = value
    return figures


def propose_malfunction_credit(*, machine_id: str, device_record: Mapping[str, Any],
                               reason: str, displayed: Mapping[str, Any] | None = None,
                               round_id: str | None = None, player_id: str | None = None,
                               actor: str, idempotency_key: str | None = None
                               ) -> MalfunctionResult:
    """Propose crediting what the device recorded before a malfunction (002:L1383-1385).

    `device_record` is the device's own data (`wins_minor`, `credits_minor`,
    `free_games`, and whatever else it logged: its id, the interrupted draw,
    a log excerpt), attached to the credit as it is; the amount credited is
    its wins plus credits. `displayed` is what the screen showed, kept for
    the record. Online (002:L3039-3041) the player is named: the credit
    goes to their gaming account. Nothing moves until another person approves.
    """
    if not isinstance(device_record, Mapping) or not device_record:
        raise _invalid("the device's record is attached to the credit", field="device_record")
    device = _device_figures(device_record, "device_record")
    shown = _device_figures(displayed, "displayed") if displayed else {}
    if not any(device.values()):
        raise _invalid("the device recorded nothing to credit", field="device_record")
    if not isinstance(reason, str) or not reason.strip():
        raise _invalid("a malfunction credit says what happened", field="reason")
    arguments = {"machine_id": machine_id, "device_record": dict(device_record),
                 "displayed": dict(displayed or {}), "reason": reason,
                 "round_id": round_id, "player_id": player_id,
                 "amount_minor": device["wins_minor"] + device["credits_minor"],
                 "free_games": device["free_games"],
                 "differences": {field: {"device": device[field], "displayed": shown[field]}
                                 for field in DEVICE_FIELDS
                                 if shown and shown[field] != device[field]}}
    return run(PROPOSE, arguments, Call(actor=actor, key=idempotency_key, source=SOURCE))


@dataclass(frozen=True, slots=True)
class ProposeContext:
    arguments: Mapping[str, Any]
    machine: Machine
    place: Venue
    credit_id: str
    at: dt.datetime


class Propose(BaseCommand[ProposeContext, MalfunctionResult]):
    name = "machines.propose_malfunction_credit"
    source = SOURCE

    def load(self, arguments: Mapping[str, Any], call: Call) -> ProposeContext:
        machine = Machine.objects.filter(id=arguments["machine_id"]).first()
        if machine is None:
            raise MachinesError(Code.UNKNOWN_MACHINE, f"no machine {arguments['machine_id']!r}",
                                machine_id=arguments["machine_id"])
        if machine.kind in ONLINE_KINDS and not arguments["player_id"]:
            raise _invalid("an online malfunction credit names the player whose gaming"
                           " account it goes to (002:L3039-3041)", field="player_id")
        return ProposeContext(arguments, machine, rules.venue(machine.venue),
                              f"mc-{uuid.uuid4().hex[:16]}", call.moment())

    def decide(self, context: ProposeContext) -> Decision:
        stream = malfunction_stream(context.credit_id)
        payload = {**context.arguments, "credit_id": context.credit_id,
                   "venue": context.place.code,
                   "cite": ("002:L3039-3041" if context.machine.kind in ONLINE_KINDS
                            else "002:L1383-1385")}
        event = NewEvent(stream=stream, type=MALFUNCTION_CREDIT_PROPOSED, payload=payload,
                         schema_version=SCHEMA_VERSION, occurred_at=context.at,
                         gaming_day=venue_day(context.place, context.at))
        return Decision([event], {stream: 0})

    def answer(self, events: Sequence[RecordedEvent], *, replayed: bool) -> MalfunctionResult:
        return _result(events[0], replayed)


PROPOSE = Propose()


def _result(event: RecordedEvent, replayed: bool) -> MalfunctionResult:
    p = event.payload
    state = {MALFUNCTION_CREDIT_PROPOSED: MalfunctionState.PROPOSED,
             MALFUNCTION_CREDIT_APPROVED: MalfunctionState.APPROVED,
             MALFUNCTION_CREDIT_REJECTED: MalfunctionState.REJECTED}[event.type]
    return MalfunctionResult(p["credit_id"], p["machine_id"], state, p["amount_minor"],
                             p["free_games"], p.get("differences", {}), event.position,
                             replayed)


def approve_malfunction_credit(*, credit_id: str, actor: str, note: str = "",
                               idempotency_key: str | None = None) -> MalfunctionResult:
    """Approve a proposed malfunction credit (a second person) and post it."""
    return run(APPROVE, {"credit_id": credit_id, "note": note},
               Call(actor=actor, key=idempotency_key, source=SOURCE))


def reject_malfunction_credit(*, credit_id: str, actor: str, note: str,
                              idempotency_key: str | None = None) -> MalfunctionResult:
    """Reject a proposed malfunction credit (a second person); nothing moves."""
    return run(REJECT, {"credit_id": credit_id, "note": note},
               Call(actor=actor, key=idempotency_key, source=SOURCE))


@dataclass(frozen=True, slots=True)
class DecideContext:
    credit: MalfunctionCredit
    machine: Machine
    place: Venue
    version: int
    note: str
    credits: Mapping[str, PlayerCredit]
    at: dt.datetime
    actor: str = ""


class _Decide(BaseCommand[DecideContext, MalfunctionResult]):
    source = SOURCE
    approving = True

    def load(self, arguments: Mapping[str, Any], call: Call) -> DecideContext:
        credit = MalfunctionCredit.objects.filter(id=arguments["credit_id"]).first()
        if credit is None:
            raise MachinesError(Code.UNKNOWN_MALFUNCTION_CREDIT,
                                f"no malfunction credit {arguments['credit_id']!r}",
                                credit_id=arguments["credit_id"])
        version = stream_version(malfunction_stream(credit.id))
        if credit.state != MalfunctionState.PROPOSED or version != 1:
            raise MachinesError(Code.MALFUNCTION_CREDIT_DECIDED,
                                f"malfunction credit {credit.id} is {credit.state}",
                                credit_id=credit.id, state=credit.state)
        machine = Machine.objects.get(id=credit.machine)
        place = rules.venue(credit.venue)
        credits = {}
        if self.approving and machine.kind in ONLINE_KINDS and credit.amount_minor:
            credits = credit_players({credit.player_id: credit.amount_minor},
                                     currency=machine.currency, venue=place.code,
                                     open_payouts_due=False)
        return DecideContext(credit, machine, place, version, arguments["note"], credits,
                             call.moment(), call.actor)

    def check(self, context: DecideContext) -> Rejection | None:
        """The proposer may not decide their own credit: refused on the record."""
        credit = context.credit
        rule = two_person_rule(self.name)
        if not same_person(rule, actor=context.actor, earlier_actor=credit.proposed_by):
            return None
        message = "a malfunction credit is decided by a second person, not its proposer"
        payload = four_eyes_payload(rule, actor=context.actor, earlier_actor=credit.proposed_by,
                                    record=credit.id, message=message)
        event = NewEvent(stream=f"{malfunction_stream(credit.id)}/rejections",
                         type=FOUR_EYES_REFUSED, payload=payload, schema_version=SCHEMA_VERSION,
                         occurred_at=context.at, gaming_day=venue_day(context.place, context.at))

        def error(position: int) -> MachinesError:
            return MachinesError(Code.APPROVER_IS_PROPOSER, message, credit_id=credit.id,
                                 rejection_position=position)

        return Rejection(event, error)

    def answer(self, events: Sequence[RecordedEvent], *, replayed: bool) -> MalfunctionResult:
        if events[0].type == FOUR_EYES_REFUSED:     # a replayed refusal is refused again
            p = events[0].payload
            raise MachinesError(Code.APPROVER_IS_PROPOSER, p["message"], credit_id=p["record"],
                                rejection_position=events[0].position)
        return _result(events[0], replayed)


class Approve(_Decide):
    name = "machines.approve_malfunction_credit"

    def decide(self, context: DecideContext) -> Decision:
        credit, machine, currency = context.credit, context.machine, context.machine.currency
        amount = credit.amount_minor
        postings: list[Posting] = []
        accounts: list[Mapping[str, Any]] = [dict(
            code=malfunction_account(machine.id), type=AccountType.EXPENSE, currency=currency,
            name=f"Malfunction credits of machine {machine.id}")]
        if amount:
            postings.append(Posting(malfunction_account(machine.id), amount, currency))
            if machine.kind in ONLINE_KINDS:
                postings += list(context.credits[credit.player_id].postings)
                accounts += accounts_to_open(context.credits.values())
            else:
                postings.append(Posting(credit_account(machine.id), -amount, currency))
        stream = malfunction_stream(credit.id)
        event = NewEvent(
            stream=stream, type=MALFUNCTION_CREDIT_APPROVED,
            payload={"credit_id": credit.id, "machine_id": machine.id, "venue": credit.venue,
                     "player_id": credit.player_id or None, "amount_minor": amount,
                     "free_games": credit.free_games, "device_record": credit.device_record,
                     "note": context.note},
            postings=tuple(postings), schema_version=SCHEMA_VERSION, occurred_at=context.at,
            gaming_day=venue_day(context.place, context.at))
        return Decision([event], {stream: context.version}, accounts=accounts)


class Reject(_Decide):
    name = "machines.reject_malfunction_credit"
    approving = False

    def decide(self, context: DecideContext) -> Decision:
        credit = context.credit
        stream = malfunction_stream(credit.id)
        event = NewEvent(
            stream=stream, type=MALFUNCTION_CREDIT_REJECTED,
            payload={"credit_id": credit.id, "machine_id": credit.machine,
                     "venue": credit.venue, "amount_minor": credit.amount_minor,
                     "free_games": credit.free_games, "note": context.note},
            schema_version=SCHEMA_VERSION, occurred_at=context.at,
            gaming_day=venue_day(context.place, context.at))
        return Decision([event], {stream: context.version})


APPROVE = Approve()
REJECT = Reject()
