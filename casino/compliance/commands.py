"""Two-person manual corrections: one proposes, a different officer decides.

proposed -> approved -> posted, or proposed -> rejected (django-fsm on the
projection guards each step). The events record who, when, the balance
before and after, and why: what US and EU gaming regulators ask of exception
reports.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from django.contrib.auth import get_user_model
from django_fsm import can_proceed

from casino import clock
from casino.roles import Role, four_eyes_payload, has_role, same_person, two_person_rule
from casino.clock import operator_day
from casino.runner import BaseCommand, Call, Decision, Rejection, run
from ledger import NewEvent, Posting, RecordedEvent
from ledger import BalanceMaxExceeded, InsufficientFunds, LedgerError
from ledger.read import Account, natural_sign
from ledger.read import stream_version

from .errors import ComplianceError, ComplianceErrorCode
from .events import (
    CORRECTION_APPROVED,
    CORRECTION_POSTED,
    CORRECTION_PROPOSED,
    CORRECTION_REJECTED,
    FOUR_EYES_REFUSED,
    correction_stream,
)
from .models import Correction

SOURCE = "casino.compliance"
REASON_LENGTH_MIN = 10


def _account(code: str) -> Account:
    try:
        return Account.objects.get(code=code)
    except Account.DoesNotExist:
        raise ComplianceError(ComplianceErrorCode.UNKNOWN_ACCOUNT, f"no account {code!r}",
                              account=code) from None


@dataclass(frozen=True, slots=True)
class CorrectionContext:
    """What a correction command read: the stream's version first, then the rows."""

    arguments: Mapping[str, Any]
    correction_id: str
    version: int
    target: Account
    counter: Account
    at: Any = None
    proposed_by: str = ""       # a decision: the proposer (the two-person rule)
    actor: str = ""


class ProposeCorrection(BaseCommand[CorrectionContext, Correction]):
    name = "compliance.propose_correction"
    source = SOURCE

    def load(self, arguments: Mapping[str, Any], call: Call) -> CorrectionContext:
        target = _account(arguments["account"])
        counter = _account(arguments["counter_account"])
        if target.currency != counter.currency or target.code == counter.code:
            raise ComplianceError(ComplianceErrorCode.INVALID_CORRECTION,
                                  "the two accounts must differ and share a currency")
        return CorrectionContext(arguments=arguments, correction_id=uuid.uuid4().hex[:16],
                                 version=0, target=target, counter=counter, at=call.moment())

    def decide(self, context: CorrectionContext) -> Decision:
        a, correction_id = context.arguments, context.correction_id
        stream = correction_stream(correction_id)
        event = NewEvent(
            stream=stream, type=CORRECTION_PROPOSED,
            payload={"correction_id": correction_id, "account": a["account"],
                     "counter_account": a["counter_account"],
                     "amount_minor": a["amount_minor"], "currency": context.target.currency,
                     "reason": a["reason"],
                     "balance_before_minor": context.target.balance_minor},
            occurred_at=context.at, gaming_day=operator_day(context.at),
        )
        return Decision([event], {stream: 0})

    def answer(self, events: Sequence[RecordedEvent], *, replayed: bool) -> Correction:
        return Correction.objects.get(id=events[0].payload["correction_id"])


class DecideCorrection(BaseCommand[CorrectionContext, Correction]):
    """Approve (and post) or reject a proposed correction: never by its proposer.

    The four eyes: the load refuses the proposer and anyone who is not a
    compliance officer, and a correction no longer proposed (a stale
    version is tried again from the load, which then refuses it).
    """

    source = SOURCE

    def __init__(self, transition: str) -> None:
        self.transition = transition
        self.name = f"compliance.{transition}_correction"

    def load(self, arguments: Mapping[str, Any], call: Call) -> CorrectionContext:
        correction_id = arguments["correction_id"]
        version = stream_version(correction_stream(correction_id))
        correction = _decidable(correction_id, call.actor)
        if not can_proceed(getattr(correction, self.transition)):
            raise ComplianceError(ComplianceErrorCode.WRONG_STATE,
                                  f"correction is {correction.state}, not proposed")
        target = counter = None
        if self.transition == "approve":
            target = _account(correction.account)
            counter = _account(correction.counter_account)
        return CorrectionContext(arguments=dict(arguments, amount_minor=correction.amount_minor),
                                 correction_id=correction_id, version=version,
                                 target=target, counter=counter, at=call.moment(),
                                 proposed_by=correction.proposed_by, actor=call.actor)

    def check(self, context: CorrectionContext) -> Rejection | None:
        """The proposer may not decide their own correction: refused on the record."""
        rule = two_person_rule(self.name)
        if not same_person(rule, actor=context.actor, earlier_actor=context.proposed_by):
            return None
        message = "a correction must be decided by someone other than its proposer"
        payload = four_eyes_payload(rule, actor=context.actor,
                                    earlier_actor=context.proposed_by,
                                    record=context.correction_id, message=message)
        event = NewEvent(stream=f"{correction_stream(context.correction_id)}/rejections",
                         type=FOUR_EYES_REFUSED, payload=payload, occurred_at=context.at,
                         gaming_day=operator_day(context.at))

        def error(position: int) -> ComplianceError:
            return ComplianceError(ComplianceErrorCode.SAME_PERSON, message,
                                   correction_id=context.correction_id,
                                   proposed_by=context.proposed_by,
                                   rejection_position=position)

        return Rejection(event, error)

    def decide(self, context: CorrectionContext) -> Decision:
        correction_id, note = context.correction_id, context.arguments["note"]
        stream = correction_stream(correction_id)
        if self.transition == "reject":
            events = [NewEvent(stream=stream, type=CORRECTION_REJECTED,
                               payload={"correction_id": correction_id, "note": note},
                               occurred_at=context.at, gaming_day=operator_day(context.at))]
            return Decision(events, {stream: context.version})
        target, counter = context.target, context.counter
        amount_minor = context.arguments["amount_minor"]
        # Natural direction: raise `account` by amount_minor; the counter
        # account takes the other leg.
        debit = natural_sign(target.type) * amount_minor
        events = [
            NewEvent(stream=stream, type=CORRECTION_APPROVED,
                     payload={"correction_id": correction_id, "note": note},
                     occurred_at=context.at, gaming_day=operator_day(context.at)),
            NewEvent(stream=stream, type=CORRECTION_POSTED,
                     payload={"correction_id": correction_id,
                              "balance_before_minor": target.balance_minor,
                              "balance_after_minor": target.balance_minor + amount_minor},
                     postings=(Posting(target.code, debit, target.currency),
                               Posting(counter.code, -debit, counter.currency)),
                     occurred_at=context.at, gaming_day=operator_day(context.at)),
        ]
        return Decision(events, {stream: context.version})

    def answer(self, events: Sequence[RecordedEvent], *, replayed: bool) -> Correction:
        if events[0].type == FOUR_EYES_REFUSED:     # a replayed refusal is refused again
            p = events[0].payload
            raise ComplianceError(ComplianceErrorCode.SAME_PERSON, p["message"],
                                  correction_id=p["record"], proposed_by=p["proposed_by"],
                                  rejection_position=events[0].position)
        return Correction.objects.get(id=events[0].payload["correction_id"])

    def refusal(self, context: CorrectionContext, error: LedgerError) -> Exception | None:
        if isinstance(error, (InsufficientFunds, BalanceMaxExceeded)):
            # The balance no longer allows it.
            return ComplianceError(ComplianceErrorCode.WRONG_STATE,
                                   f"correction cannot be posted: {error.message}",
                                   ledger=str(error.code))
        return None


COMMANDS = {command.name: command for command in (
    ProposeCorrection(), DecideCorrection("approve"), DecideCorrection("reject"))}


def propose_correction(*, account: str, counter_account: str, amount_minor: int,
                       reason: str, actor: str, idempotency_key: str | None = None) -> Correction:
    """Propose moving `amount_minor` into `account` (natural direction) from
    `counter_account`; nothing moves until a second person approves."""
    if type(amount_minor) is not int or amount_minor == 0:
        raise ComplianceError(ComplianceErrorCode.INVALID_CORRECTION,
                              "amount_minor must be a non-zero whole number of cents")
    if len(reason.strip()) < REASON_LENGTH_MIN:
        raise ComplianceError(ComplianceErrorCode.INVALID_CORRECTION,
                              "give a reason of at least 10 characters")
    return run(COMMANDS["compliance.propose_correction"],
               {"account": account, "counter_account": counter_account,
                "amount_minor": amount_minor, "reason": reason},
               Call(actor=actor, key=idempotency_key, source=SOURCE))


def _load(correction_id: str) -> Correction:
    correction = Correction.objects.filter(id=correction_id).first()
    if correction is None:
        raise ComplianceError(ComplianceErrorCode.UNKNOWN_CORRECTION,
                              f"no correction {correction_id!r}")
    return correction


def _decidable(correction_id: str, actor: str) -> Correction:
    correction = _load(correction_id)
    user = get_user_model().objects.filter(username=actor).first()
    if not has_role(user, Role.COMPLIANCE_OFFICER):
        raise ComplianceError(ComplianceErrorCode.NOT_APPROVER,
                              "only a compliance officer may decide corrections")
    return correction


def approve_correction(*, correction_id: str, actor: str, note: str = "",
                       idempotency_key: str | None = None) -> Correction:
    """Approve and post a proposed correction in one append."""
    return run(COMMANDS["compliance.approve_correction"],
               {"correction_id": correction_id, "note": note},
               Call(actor=actor, key=idempotency_key, source=SOURCE))


def reject_correction(*, correction_id: str, actor: str, note: str,
                      idempotency_key: str | None = None) -> Correction:
    return run(COMMANDS["compliance.reject_correction"],
               {"correction_id": correction_id, "note": note},
               Call(actor=actor, key=idempotency_key, at=clock.now(), source=SOURCE))
