"""Errors of the gaming machines, each with a stable code (never renamed).

A round refused by a rule (a Part IV cap, age, self-exclusion, the
venue's maximum win, the machine's credit) is recorded as
`machines.round_rejected` and raised as `RoundRejected` (code
`machines.round_rejected`, the rule in `details.rule`).
"""

from enum import StrEnum

from casino.errors import CodedError


class MachinesErrorCode(StrEnum):
    INVALID_REQUEST = "machines.invalid_request"
    """A malformed machine, round or voucher request: 400, nothing written."""
    UNKNOWN_MACHINE = "machines.unknown_machine"
    """No machine with that id: 404."""
    MACHINE_EXISTS = "machines.machine_exists"
    """The machine id is registered already: 409."""
    PLACEMENT_REJECTED = "machines.placement_rejected"
    """A special machine outside a hall or an 18+ premises (002:L1401), or a
    land machine at an online venue and the reverse (recorded): 422."""
    ROUND_REJECTED = "machines.round_rejected"
    """A round refused by a rule, recorded with the rule: 422."""
    ONLINE_PLAY_UNAVAILABLE = "machines.online_play_unavailable"
    """Rounds of online machines are not played from a machine credit: 409."""
    NOTHING_TO_CASH_OUT = "machines.nothing_to_cash_out"
    """The machine's credit is empty: 409."""
    UNKNOWN_VOUCHER = "machines.unknown_voucher"
    """No voucher with that id: 404."""
    VOUCHER_REDEEMED = "machines.voucher_redeemed"
    """The voucher was redeemed already (redeemed exactly once): 409."""
    VOUCHER_OTHER_VENUE = "machines.voucher_other_venue"
    """A voucher is redeemed only at a machine of the venue that issued it: 422."""
    UNKNOWN_JACKPOT = "machines.unknown_jackpot"
    """No machine jackpot with that id (at that venue): 404."""
    JACKPOT_EXISTS = "machines.jackpot_exists"
    """The jackpot id is posted already: 409."""
    JACKPOT_ALREADY_PAID = "machines.jackpot_already_paid"
    """This round's hit of this jackpot was paid already: 409."""
    JACKPOT_HIT_REJECTED = "machines.jackpot_hit_rejected"
    """A jackpot hit its terms do not allow (recorded with the reason): 422."""
    UNKNOWN_MALFUNCTION_CREDIT = "machines.unknown_malfunction_credit"
    """No malfunction credit with that id: 404."""
    MALFUNCTION_CREDIT_DECIDED = "machines.malfunction_credit_decided"
    """The malfunction credit was approved or rejected already: 409."""
    APPROVER_IS_PROPOSER = "machines.approver_is_proposer"
    """A malfunction credit is approved by a second person: 403."""
    UNKNOWN_SLOT_TOURNAMENT = "machines.unknown_slot_tournament"
    """No slot tournament with that id: 404."""
    SLOT_TOURNAMENT_EXISTS = "machines.slot_tournament_exists"
    """The slot tournament id is announced already: 409."""
    SLOT_TOURNAMENT_STATE = "machines.slot_tournament_state"
    """Not in this state of the tournament (entries and prizes before the start,
    results after it): 409."""
    SLOT_TOURNAMENT_REJECTED = "machines.slot_tournament_rejected"
    """An entry fee over its Part IV cap (recorded): 422."""


class MachinesRule(StrEnum):
    """The machines' own rules: the `rule` of a recorded refusal (compliance's
    rules, `compliance.max_stake` and the rest, are the pipeline's)."""

    SPECIAL_MACHINE_PLACEMENT = "machines.special_machine_placement"
    """002:L1401: a special machine only in a RAY hall or an 18+ premises."""
    ONLINE_KIND_ON_PREMISES = "machines.online_kind_on_premises"
    """Decision machines.placement.online: an online kind only at an online venue."""
    LAND_KIND_OFF_PREMISES = "machines.land_kind_off_premises"
    """Decision machines.placement.online: a cabinet only on premises."""
    REUSED_ABOVE_WINS = "machines.reused_above_wins"
    """002:L3373: re-used stakes come from the round's own earlier wins."""
    INSUFFICIENT_CREDIT = "machines.insufficient_credit"
    """Nothing on credit (002:L135): a machine plays from its credit only."""
    STAKE_NOT_OFFERED = "machines.stake_not_offered"
    """Decision machines.stake_options: more stakes than paylines, or an amount
    the machine does not offer."""


class MachinesError(CodedError):
    """A machines request refused; what it wrote, if anything, is said by the raiser."""


class RoundRejected(MachinesError):
    """A round a rule refuses; its `machines.round_rejected` event is committed."""

    def __init__(self, payload, position: int | None) -> None:
        super().__init__(
            MachinesErrorCode.ROUND_REJECTED, payload["message"],
            machine_id=payload["machine_id"], round_id=payload["round_id"],
            rule=payload["rule"], limit_minor=payload["limit_minor"],
            amount_minor=payload["amount_minor"], rulebook=payload["rulebook"],
            cite=payload["cite"], hint=payload["hint"], rejection_position=position)


class PlacementRejected(MachinesError):
    """A machine a placement rule refuses; its refusal event is committed."""

    def __init__(self, payload, position: int | None) -> None:
        super().__init__(
            MachinesErrorCode.PLACEMENT_REJECTED, payload["message"],
            machine_id=payload["machine_id"], venue=payload["venue"], kind=payload["kind"],
            rule=payload["rule"], cite=payload["cite"], rejection_position=position)
