"""Two-person manual corrections: one proposes, a different officer decides.

proposed -> approved -> posted, or proposed -> rejected (django-fsm on the
projection guards each step). The events record who, when, the balance
before and after, and why: what US and EU gaming regulators ask of exception
reports.
"""

from __future__ import annotations

import uuid

from django.contrib.auth import get_user_model
from django_fsm import can_proceed

from casino import clock
from casino.roles import Role, has_role
from ledger import Metadata, NewEvent, Posting, append
from ledger.errors import BalanceMaxExceeded, InsufficientFunds, StaleVersion
from ledger.models import Account, natural_sign
from ledger.store import is_recorded_key

from .errors import ComplianceError, ComplianceErrorCode
from .events import (
    CORRECTION_APPROVED,
    CORRECTION_POSTED,
    CORRECTION_PROPOSED,
    CORRECTION_REJECTED,
    correction_stream,
)
from .models import Correction

REASON_LENGTH_MIN = 10


def _account(code: str) -> Account:
    try:
        return Account.objects.get(code=code)
    except Account.DoesNotExist:
        raise ComplianceError(ComplianceErrorCode.INVALID_CORRECTION, f"no account {code!r}",
                              status=404, account=code) from None


def propose_correction(*, account: str, counter_account: str, amount_minor: int,
                       reason: str, actor: str, idempotency_key: str | None = None) -> Correction:
    """Propose moving `amount_minor` into `account` (natural direction) from
    `counter_account`; nothing moves until a second person approves."""
    if type(amount_minor) is not int or amount_minor == 0:
        raise ComplianceError(ComplianceErrorCode.INVALID_CORRECTION,
                              "amount_minor must be a non-zero whole number of cents", status=400)
    if len(reason.strip()) < REASON_LENGTH_MIN:
        raise ComplianceError(ComplianceErrorCode.INVALID_CORRECTION,
                              "give a reason of at least 10 characters", status=400)
    target, counter = _account(account), _account(counter_account)
    if target.currency != counter.currency or target.code == counter.code:
        raise ComplianceError(ComplianceErrorCode.INVALID_CORRECTION,
                              "the two accounts must differ and share a currency", status=400)
    correction_id = uuid.uuid4().hex[:16]
    event = NewEvent(
        stream=correction_stream(correction_id), type=CORRECTION_PROPOSED,
        payload={"correction_id": correction_id, "account": account,
                 "counter_account": counter_account, "amount_minor": amount_minor,
                 "currency": target.currency, "reason": reason,
                 "balance_before_minor": target.balance_minor},
    )
    result = append([event], idempotency_key=idempotency_key,
                    request={"op": "propose_correction", "account": account,
                             "counter_account": counter_account, "amount_minor": amount_minor,
                             "reason": reason},
                    metadata=Metadata(actor=actor, source="casino.compliance"))
    return Correction.objects.get(id=result.events[0].payload["correction_id"])


def _load(correction_id: str) -> Correction:
    correction = Correction.objects.filter(id=correction_id).first()
    if correction is None:
        raise ComplianceError(ComplianceErrorCode.UNKNOWN_CORRECTION,
                              f"no correction {correction_id!r}", status=404)
    return correction


def _decidable(correction_id: str, actor: str) -> Correction:
    correction = _load(correction_id)
    if correction.proposed_by == actor:
        raise ComplianceError(ComplianceErrorCode.SAME_PERSON,
                              "a correction must be decided by someone other than its proposer",
                              status=403)
    user = get_user_model().objects.filter(username=actor).first()
    if not has_role(user, Role.COMPLIANCE_OFFICER):
        raise ComplianceError(ComplianceErrorCode.NOT_APPROVER,
                              "only a compliance officer may decide corrections", status=403)
    return correction


def approve_correction(*, correction_id: str, actor: str, note: str = "",
                       idempotency_key: str | None = None) -> Correction:
    """Approve and post a proposed correction in one append."""
    # A retry of a decision already taken skips the state checks (the state
    # has moved on) and lets append return the original result, or refuse a
    # different request under the same key.
    retry = is_recorded_key(idempotency_key)
    correction = _load(correction_id) if retry else _decidable(correction_id, actor)
    if not retry and not can_proceed(correction.approve):
        raise ComplianceError(ComplianceErrorCode.WRONG_STATE,
                              f"correction is {correction.state}, not proposed", status=409)
    target = _account(correction.account)
    counter = _account(correction.counter_account)
    # Natural direction: raise `account` by amount_minor; the counter
    # account takes the other leg.
    debit = natural_sign(target.type) * correction.amount_minor
    balance_after = target.balance_minor + correction.amount_minor
    stream = correction_stream(correction_id)
    events = [
        NewEvent(stream=stream, type=CORRECTION_APPROVED,
                 payload={"correction_id": correction_id, "note": note}),
        NewEvent(stream=stream, type=CORRECTION_POSTED,
                 payload={"correction_id": correction_id,
                          "balance_before_minor": target.balance_minor,
                          "balance_after_minor": balance_after},
                 postings=(Posting(target.code, debit, target.currency),
                           Posting(counter.code, -debit, counter.currency))),
    ]
    try:
        # The request, not the events, identifies a retry: the balances in
        # the events move once the correction is posted.
        append(events, expected_versions={stream: 1}, idempotency_key=idempotency_key,
               request={"op": "approve_correction", "correction_id": correction_id,
                        "note": note},
               metadata=Metadata(actor=actor, source="casino.compliance"))
    except (StaleVersion, InsufficientFunds, BalanceMaxExceeded) as error:
        # Another decision got there first, or the balance no longer allows
        # it; a reused key for another request stays an idempotency conflict.
        raise ComplianceError(ComplianceErrorCode.WRONG_STATE,
                              f"correction cannot be posted: {error.message}",
                              status=409, ledger=str(error.code)) from None
    return Correction.objects.get(id=correction_id)


def reject_correction(*, correction_id: str, actor: str, note: str,
                      idempotency_key: str | None = None) -> Correction:
    retry = is_recorded_key(idempotency_key)
    correction = _load(correction_id) if retry else _decidable(correction_id, actor)
    if not retry and not can_proceed(correction.reject):
        raise ComplianceError(ComplianceErrorCode.WRONG_STATE,
                              f"correction is {correction.state}, not proposed", status=409)
    stream = correction_stream(correction_id)
    append([NewEvent(stream=stream, type=CORRECTION_REJECTED,
                     payload={"correction_id": correction_id, "note": note},
                     occurred_at=clock.now())],
           expected_versions={stream: 1}, idempotency_key=idempotency_key,
           request={"op": "reject_correction", "correction_id": correction_id, "note": note},
           metadata=Metadata(actor=actor, source="casino.compliance"))
    return Correction.objects.get(id=correction_id)
