"""Event types of the gaming machines, their streams and accounts.

Streams:

    machine/<machine_id>            machine_registered, cash_inserted,
                                    round_played, round_rejected,
                                    voucher_issued, voucher_redeemed (a
                                    redemption into this machine's credit)
    machines/placement/<venue>      placement_rejected
    machines/premises/<venue>       premises_entry_posted
    voucher/<venue>/<voucher_id>    voucher_redeemed (its one event: a
                                    second redemption is a stale version)
    machines/jackpot/<id>           jackpot_configured, jackpot_hit_paid,
                                    jackpot_hit_rejected
    machines/malfunction/<id>       malfunction_credit_proposed, _approved,
                                    _rejected (two people)
    machines/tournament/<id>        slot_tournament_announced, _prizes_published,
                                    _entered, _started, _finished, _rejected
    machines/meters/<venue>/<day>   meters_reconciled

Payload keys (amounts in minor units):

    machine_registered     machine_id, venue, kind, games, long_interactive_rounds,
                           currency, rulebook
    placement_rejected     machine_id, venue, kind, rule, message, cite
    premises_entry_posted  venue, adults_only
    cash_inserted          machine_id, venue, amount_minor
    round_played           machine_id, venue, round_id, player_id, stakes
                           [{option, unit, amount_minor}], total_minor,
                           reused_minor, win_minor, caps
                           {unit: [limit, cite]}, verdict
    round_rejected         machine_id, venue, round_id, player_id, rule,
                           message, amount_minor, limit_minor, rulebook, cite,
                           hint, checks_passed
    voucher_issued         voucher_id, machine_id, venue, amount_minor
    credits_cancelled      machine_id, venue, amount_minor, to ("cash_desk" or
                           "account"), player_id, overflow (a split credit)
    voucher_redeemed       voucher_id, venue, amount_minor, at ("cage" or
                           "machine"), machine_id (the redeeming machine)

Money (debit positive). Each machine has four accounts; coin in and coin
out are the meters the ledger keeps (002:L1381: a win is credited to the
machine's credit at once, and can be staked again):

    cash_inserted    machine/<m>/cash +A           machine/<m>/credit -A
    round_played     machine/<m>/credit +T         machine/<m>/coin_in -T
                     machine/<m>/coin_out +W       machine/<m>/credit -W
    voucher_issued   machine/<m>/credit +V         voucher/<venue>/<v> -V
    voucher_redeemed voucher/<venue>/<v> +V        cage/<venue>/cash -V
                                                   (or machine/<n>/credit -V)

T is the round total, re-used stakes included (002:L3371-3373), W every
win of the round: the credit moves by W - T. The rest (casino/machines):

    round_played (online)  player/<p>/account +T   coin_in -T; coin_out +W,
                           player/<p>/account -W (above its ceiling:
                           bank/<venue>/payouts_due)
    round_played (linked)  machine/<m>/jackpot_contributions +C   pool -C
    credits_cancelled      machine/<m>/credit +A   cage/<venue>/cash -A (or
                           the player's account)
    jackpot_configured     house/<venue>/jackpot_funding +S   pool -S (seed)
    jackpot_hit_paid       pool (or funding) +P   machine/<m>/credit -P (online:
                           the player's account); funding +R   pool -R (re-seed)
    malfunction_credit_approved  machine/<m>/malfunction_credits +A
                           machine/<m>/credit -A (online: the player's account)
    slot_tournament_entered  cage/<venue>/cash (online: the account) +F
                           machines/tournament/<t>/prize_pool -F
    slot_tournament_finished  prize_pool +F; the prizes to the cage's cash or the
                           accounts; the overlay or the fees' rest to the house

Pools are `jackpot/<venue>/machine-<pool>/pool`.
"""

from __future__ import annotations

SCHEMA_VERSION = 1
SOURCE = "casino.machines"

MACHINE_REGISTERED = "machines.machine_registered"
PLACEMENT_REJECTED = "machines.placement_rejected"
PREMISES_ENTRY_POSTED = "machines.premises_entry_posted"
CASH_INSERTED = "machines.cash_inserted"
ROUND_PLAYED = "machines.round_played"
ROUND_REJECTED = "machines.round_rejected"
VOUCHER_ISSUED = "machines.voucher_issued"
VOUCHER_REDEEMED = "machines.voucher_redeemed"
BATCH_REPORTED = "machines.batch_reported"
JACKPOT_CONFIGURED = "machines.jackpot_configured"
JACKPOT_HIT_PAID = "machines.jackpot_hit_paid"
JACKPOT_HIT_REJECTED = "machines.jackpot_hit_rejected"
MALFUNCTION_CREDIT_PROPOSED = "machines.malfunction_credit_proposed"
MALFUNCTION_CREDIT_APPROVED = "machines.malfunction_credit_approved"
MALFUNCTION_CREDIT_REJECTED = "machines.malfunction_credit_rejected"
# A decision the two-person rule refused (casino.roles TWO_PERSON_RULES), on
# `<credit stream>/rejections`: command, earlier, record, actor, proposed_by,
# rule, message, why. Nothing else is written.
FOUR_EYES_REFUSED = "machines.four_eyes_refused"
SLOT_TOURNAMENT_ANNOUNCED = "machines.slot_tournament_announced"
SLOT_TOURNAMENT_PRIZES_PUBLISHED = "machines.slot_tournament_prizes_published"
SLOT_TOURNAMENT_ENTERED = "machines.slot_tournament_entered"
SLOT_TOURNAMENT_STARTED = "machines.slot_tournament_started"
SLOT_TOURNAMENT_FINISHED = "machines.slot_tournament_finished"
SLOT_TOURNAMENT_REJECTED = "machines.slot_tournament_rejected"
METERS_RECONCILED = "machines.meters_reconciled"
CREDITS_CANCELLED = "machines.credits_cancelled"

PROJECTED_TYPES = frozenset({MACHINE_REGISTERED, PREMISES_ENTRY_POSTED, CASH_INSERTED,
                             ROUND_PLAYED, ROUND_REJECTED, VOUCHER_ISSUED,
                             VOUCHER_REDEEMED, JACKPOT_CONFIGURED, JACKPOT_HIT_PAID,
                             MALFUNCTION_CREDIT_PROPOSED, MALFUNCTION_CREDIT_APPROVED,
                             MALFUNCTION_CREDIT_REJECTED, SLOT_TOURNAMENT_ANNOUNCED,
                             SLOT_TOURNAMENT_PRIZES_PUBLISHED, SLOT_TOURNAMENT_ENTERED,
                             SLOT_TOURNAMENT_STARTED, SLOT_TOURNAMENT_FINISHED,
                             METERS_RECONCILED, CREDITS_CANCELLED})


def machine_stream(machine_id: str) -> str:
    return f"machine/{machine_id}"


def placement_stream(venue: str) -> str:
    return f"machines/placement/{venue}"


def premises_stream(venue: str) -> str:
    return f"machines/premises/{venue}"


def voucher_stream(venue: str, voucher_id: str) -> str:
    return f"voucher/{venue}/{voucher_id}"


def batch_stream(machine_id: str) -> str:
    return f"machines/batches/{machine_id}"


def credit_account(machine_id: str) -> str:
    """The players' credit on a machine (liability): never below zero."""
    return f"machine/{machine_id}/credit"


def cash_account(machine_id: str) -> str:
    """Notes and coins in the machine's cash box (asset)."""
    return f"machine/{machine_id}/cash"


def coin_in_account(machine_id: str) -> str:
    """Every stake the machine took (revenue): its coin-in meter."""
    return f"machine/{machine_id}/coin_in"


def coin_out_account(machine_id: str) -> str:
    """Every win the machine credited (expense): its coin-out meter."""
    return f"machine/{machine_id}/coin_out"


def voucher_account(venue: str, voucher_id: str) -> str:
    """An unredeemed voucher (liability): issued once, emptied once."""
    return f"voucher/{venue}/{voucher_id}"


def round_key(machine_id: str, round_id: str) -> str:
    """The idempotency key of a machine's round: the machine's own round id.

    Not scoped to the API client: a round is the machine's, whoever sends
    it, so a controller that fails over to another token re-sends the same
    round, never a second one.
    """
    return f"machine:{machine_id}/{round_id}"


def jackpot_stream(jackpot_id: str) -> str:
    return f"machines/jackpot/{jackpot_id}"


def jackpot_pool_account(venue: str, pool: str) -> str:
    """A machine jackpot's pool (liability): `jackpot/<venue>/machine-<pool>/pool`.

    `<pool>` is the jackpot's id for a group's shared pool, `<jackpot>.<machine>`
    for a machine's own; the reports' chart files it with the jackpot pools.
    """
    return f"jackpot/{venue}/machine-{pool}/pool"


def jackpot_funding_account(venue: str) -> str:
    """The venue's expense for seeding and re-seeding jackpots (casino.accounts)."""
    return f"house/{venue}/jackpot_funding"


def contributions_account(machine_id: str) -> str:
    """What a machine's rounds gave its jackpots (expense), beside its coin in."""
    return f"machine/{machine_id}/jackpot_contributions"


def malfunction_stream(credit_id: str) -> str:
    return f"machines/malfunction/{credit_id}"


def slot_tournament_stream(tournament_id: str) -> str:
    return f"machines/tournament/{tournament_id}"


def slot_tournament_pool(tournament_id: str) -> str:
    """A slot tournament's entry fees, paid out as its prizes (liability)."""
    # Not `tournament/<id>/...`: that root is the tournaments app's entities
    # in the daily close's balance checks.
    return f"machines/tournament/{tournament_id}/prize_pool"


def meters_stream(venue: str, day) -> str:
    return f"machines/meters/{venue}/{day}"
