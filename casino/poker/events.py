"""Event types of poker cash games, their streams and the accounts they post to.

Streams:

    table/<table_id>            table_opened, player_bought_in, player_cashed_out,
                                buy_in_rejected, hand_history_rejected,
                                time_charged, time_charge_rejected
    hand/<table_id>/<number>    hand_started, action_taken, action_rejected,
                                hand_settled, hand_disputed, dispute_decided,
                                hand_voided, and the compliance.alert_raised of
                                a disputed showdown

A hand's events hold everything needed to rebuild its betting state:
`hand_started` carries the engine's start inputs (variant, structure, stakes,
stacks at the start by seat, button) and each `action_taken` the action as
sent; replaying the actions through `engine.apply` gives the state back
(`commands.load_hand`). Rejected actions are on the stream for the record
and are skipped by the replay.

Payload keys by type (amounts in minor units, seats as strings in JSON maps):

    table_opened        table_id, venue, currency, rulebook, variant, structure,
                        stakes{...Stakes fields}, seats_max, buy_in_minor_min,
                        buy_in_minor_max, rake{kind, ...rule}, drop{...}|None,
                        jackpot (the drop's account or None), banzai (absent:
                        false), jackpot_time_fee{...TimeCharge}|None
    player_bought_in    table_id, seat, player_id, amount_minor, paid_with,
                        stack_minor_after, verdict
    player_cashed_out   table_id, seat, player_id, amount_minor, paid_to
    time_charged        table_id, per_seat{seat: {rake_minor, jackpot_minor}},
                        players{seat: player_id}, rake_minor, jackpot_minor,
                        period_minutes, cite, consenting_players,
                        stacks_minor_after{seat: stack}
    buy_in_rejected     table_id, seat, player_id, amount_minor, code, message,
                        details
    hand_history_rejected  table_id, step (index), seat, kind, amount_minor,
                        code, message, details: a complete history refused
                        whole (no hand was started)
    hand_started        hand_id, table_id, number, venue, currency, variant,
                        structure, stakes, button, blind_seats, straddles,
                        first_seat, missed_blinds{seat: "big"|"small"} (only
                        when given), stacks_minor{seat: stack},
                        players{seat: player_id}, phase, to_act
    action_taken        hand_id, seat, kind, amount_minor (as sent), record (the
                        engine's Record), phase, to_act, pot_minor; kind
                        "open_street" (stud: who acts first, open_pair) is
                        the dealer's, not a bet; kind "muck" (at the
                        showdown, no chips) gives up the hand's pots
    action_rejected     hand_id, seat, kind, amount_minor, code, message, details
    hand_settled        hand_id, table_id, returned[[seat, amount]], pots[...],
                        rake{...}, drop{...}, pots_net[...], awards_verified,
                        awards_claimed (None: no showdown), board, hands,
                        stacks_minor_after{seat: stack}, showdown (bool),
                        mucked[seat, in order] (only when someone mucked)
    hand_disputed       hand_id, table_id, pots_net, awards_verified,
                        awards_claimed, board, hands
    hand_voided         hand_id, table_id, reason, stacks_minor_after
    dispute_decided     hand_id, table_id, decision ("settle_verified" | "void"),
                        note, decided_by, awards_verified, awards_claimed; the
                        same append then holds the hand_settled (with the
                        verified awards) or the hand_voided
"""

from casino import accounts

SCHEMA_VERSION = 1

TABLE_OPENED = "poker.table_opened"
PLAYER_BOUGHT_IN = "poker.player_bought_in"
PLAYER_CASHED_OUT = "poker.player_cashed_out"
BUY_IN_REJECTED = "poker.buy_in_rejected"
HAND_STARTED = "poker.hand_started"
ACTION_TAKEN = "poker.action_taken"
ACTION_REJECTED = "poker.action_rejected"
HAND_SETTLED = "poker.hand_settled"
HAND_DISPUTED = "poker.hand_disputed"
HAND_VOIDED = "poker.hand_voided"
DISPUTE_DECIDED = "poker.dispute_decided"
HAND_HISTORY_REJECTED = "poker.hand_history_rejected"
TIME_CHARGED = "poker.time_charged"
TIME_CHARGE_REJECTED = "poker.time_charge_rejected"
TABLE_REJECTED = "poker.table_rejected"  # on venue/<venue>: a table not opened

OPEN_STREET = "open_street"
"""An action_taken kind that is not a bet: the dealer names who acts first
on a stud street (000:L2201-2213)."""
MUCK = "muck"
"""An action_taken kind that is not a bet: at the showdown a player throws
the hand away unshown, and it is dead (000:L245-248)."""

TABLE_EVENT_TYPES = frozenset({TABLE_OPENED, PLAYER_BOUGHT_IN, PLAYER_CASHED_OUT,
                               TIME_CHARGED})
HAND_EVENT_TYPES = frozenset({HAND_STARTED, ACTION_TAKEN, HAND_SETTLED, HAND_DISPUTED,
                              HAND_VOIDED})
HAND_FINAL_TYPES = frozenset({HAND_SETTLED, HAND_VOIDED})


def table_stream(table_id: str) -> str:
    return f"table/{table_id}"


def hand_stream(table_id: str, number: int) -> str:
    return f"hand/{table_id}/{number}"


def hand_id_of(table_id: str, number: int) -> str:
    """The hand's id in the API and the projection: `<table_id>.<number>`."""
    return f"{table_id}.{number}"


def parse_hand_id(hand_id: str) -> tuple[str, int] | None:
    table_id, _, number = hand_id.rpartition(".")
    if not table_id or not number.isdigit():
        return None
    return table_id, int(number)


# The table's and the house's accounts, named by the chart of accounts.
table_stacks = accounts.table_stacks
house_rake = accounts.house_rake


def jackpot_pending(venue: str) -> str:
    """The venue's bad-beat drops not yet rolled up into the pool (liability).

    Named by the chart of accounts (casino/accounts.py): poker posts the
    drops and never imports the jackpots app, which listens to
    `signals.hand_settled` and rolls the pending drops up.
    """
    return accounts.pending_account(venue, accounts.BAD_BEAT)
