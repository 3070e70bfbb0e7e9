"""Jackpot payouts from the officers' desk, with the second-person rule.

A hit is recorded by the system when a hand meets a pool's criteria
(casino.jackpots); an officer approves it (which fixes each player's
share), and a second person pays it. Decision (two people per payout): the
officer who pays a hit must not be the one who approved it
(`jackpots.payer_is_approver`, 403), as a manual correction must be approved
by someone other than its proposer (DESIGN 3, two-person rule). Reason:
the approval fixes the amounts and the payment moves the money; one person
doing both is what the rule is there to prevent. Both steps need the
compliance officer role.

The jackpots app is built beside this one: its commands are looked up when
called, and a missing one is reported (`officers.jackpot_commands_unavailable`, 409)
instead of breaking the desk. The two-person rule lives in
casino.jackpots.commands (casino.roles.TWO_PERSON_RULES): the desk, the API
and the jackpots' admin actions all meet it there, as the recorded refusal
`jackpots.payer_is_approver` (the code `officers.jackpot_payer_is_approver`
is kept, unused, as codes are never renamed).
"""

from __future__ import annotations

import importlib

from django.contrib.auth import get_user_model

from casino.roles import Role, has_role

from .errors import OfficerError, OfficerErrorCode

DECISIONS = {"approve": "approve_hit", "reject": "reject_hit", "pay": "pay_hit"}
VERBS = {"approve": "approved", "reject": "rejected", "pay": "paid"}


def _command(name: str):
    try:
        module = importlib.import_module("casino.jackpots.commands")
    except ImportError:
        module = None
    command = getattr(module, name, None)
    if command is None:
        raise OfficerError(OfficerErrorCode.JACKPOTS_UNAVAILABLE,
                           f"the jackpots app offers no {name} yet")
    return command


def _hit(hit_id: str):
    try:
        from casino.jackpots.models import JackpotHit
    except ImportError:
        raise OfficerError(OfficerErrorCode.JACKPOTS_UNAVAILABLE,
                           "the jackpots app has no hits yet") from None
    hit = JackpotHit.objects.filter(id=hit_id).first()
    if hit is None:
        raise OfficerError(OfficerErrorCode.UNKNOWN_HIT, f"no jackpot hit {hit_id!r}",
                           hit_id=hit_id)
    return hit


def decide(*, hit_id: str, decision: str, actor: str, reason: str = "",
           idempotency_key: str | None = None) -> str:
    """Approve, reject or pay a hit as `actor`; return the past-tense verb.

    Raises OfficerError (not_a_compliance_officer 403,
    unknown_jackpot_decision 400,
    unknown_jackpot_hit 404, jackpot_commands_unavailable 409) or the
    jackpots app's own JackpotError.
    """
    if decision not in DECISIONS:
        raise OfficerError(OfficerErrorCode.UNKNOWN_DECISION,
                           f"decide with one of {', '.join(DECISIONS)}")
    user = get_user_model().objects.filter(username=actor).first()
    if not has_role(user, Role.COMPLIANCE_OFFICER):
        raise OfficerError(OfficerErrorCode.NOT_OFFICER,
                           "only a compliance officer decides jackpot hits")
    _hit(hit_id)
    # The second-person rule is the command's (`jackpots.payer_is_approver`,
    # recorded as jackpots.four_eyes_refused): the desk asks it like the API.
    command = _command(DECISIONS[decision])
    arguments = {"hit_id": hit_id, "actor": actor, "idempotency_key": idempotency_key}
    if decision == "reject":
        arguments["reason"] = reason
    command(**arguments)
    return VERBS[decision]
