"""Write side of poker cash games: tables, buy-ins, cash-outs and hands.

Every write is a command run by casino.runner (`run`): the runner answers a
request whose idempotency key is recorded (its result, or its recorded
refusal; the key with another request is 409 `request.idempotency_key_reused`);
the command's `load` reads the versions of the streams it depends on, then
the table or hand; `check` returns a refusal by a rule, which the runner
appends as `poker.buy_in_rejected`, `poker.action_rejected`,
`poker.hand_history_rejected` or `poker.time_charge_rejected` under the
request's key before raising it; `decide` returns the events and postings;
the runner appends them expecting the versions read and on a stale version
starts again from `load`. The betting rules are the engine's
(casino/poker/engine): the commands replay a hand's accepted actions
through `engine.apply` and append what it returns, never amounts or pots
sent by a client. Every event carries the venue's gaming day
(`casino.rules.queries.venue_day`).

Money. All chips on a table are one ledger account, `table/<id>/stacks`
(liability: the operator owes the players the chips in front of them); the
split by seat is the Seat projection. Postings, debit positive, for an
amount A:

    buy_in      means +A             table/<id>/stacks -A
    cash_out    table/<id>/stacks +A means -A
    settle      table/<id>/stacks +(rake + drop)
                house/<venue>/rake -rake           (revenue)
                jackpot/<venue>/bad_beat/pending -drop (liability)

where "means" is the player's gaming account `player/<id>/account` (paid
with or to the account) or the cage's cash `cage/<venue>/cash`. Chips that
change hands within a hand (bets, pots, an uncalled bet returned) stay on the
table and move no ledger account: only the house's takes leave it, at
settlement. So every posting balances, and the table account's balance is
always the sum of the seats' stacks (Seat.stack_minor), which change only at
hand boundaries.

Streams and the race between buy-ins and hands: a buy-in or cash-out reads
the table's last hand number n and appends expecting `hand/<t>/<n>` at its
version and `hand/<t>/<n+1>` still empty; `start_hand` appends expecting the
table stream's version and `hand/<t>/<n+1>` empty. Whichever commits second
is stale and, retried, sees the other: no chips are added or removed once a
hand has started (000:L281), and a hand starts from the stacks it read.

A hand ends settled (pots awarded: by a verified showdown, or to the last
player in without cards, 000:L192-195; a hand mucked at the showdown is dead
and wins nothing, `engine.muck`, 000:L245-248), voided (stacks back to the start of
the hand; no posting, as nothing left the table), or disputed: the claimed
showdown result differs from `native_eval.showdown`'s, a compliance alert
(showdown_mismatch) records both, and nothing settles until a decision.
A disputed hand ends only by a compliance officer's `decide_dispute`:
settle with the verified awards (the same postings as any settlement), or
void. Decision: the table controller's `void_hand` refuses a disputed hand,
since the controller's own claim is what is in dispute and the issue gives
the resolution to "a compliance officer ... with a recorded decision".

Modules, by concern (the public names are re-exported here, so
`from casino.poker import commands` and `commands.buy_in` keep working):

    base        results, the table and hand loads, checks and helpers
    tables      open_table, charge_time
    seats       buy_in, cash_out
    hands       start_hand, act, record_hand
    settlement  showdown, void_hand, decide_dispute (settlement, disputes, voids)
    forfeits    forfeit_unresolved_hand(s): unresolved hands' stakes to charity
                after the rulebook's days (001:L110)
"""

from ..models import Table
from .base import (
    SOURCE,
    Deal,
    HandContext,
    HandResult,
    SeatResult,
    Step,
    TableContext,
    TableResult,
    _rule_from,
    load_hand,
    load_table,
)
from .forfeits import forfeit_unresolved_hand, forfeit_unresolved_hands
from .hands import act, record_hand, start_hand
from .seats import buy_in, cash_out
from .settlement import Decided, Showdown, _decide_settlement, decide_dispute, showdown, void_hand
from .tables import JACKPOT_VARIANTS, TimeChargeResult, charge_time, open_table

__all__ = [
    "Deal", "Decided", "HandContext", "HandResult", "JACKPOT_VARIANTS", "SOURCE", "SeatResult",
    "Showdown", "Step", "Table", "TableContext", "TableResult", "TimeChargeResult", "act",
    "buy_in", "cash_out", "charge_time", "decide_dispute", "forfeit_unresolved_hand",
    "forfeit_unresolved_hands", "load_hand", "load_table",
    "open_table", "record_hand", "showdown", "start_hand", "void_hand",
    # read by the demo (a hand's rake rule) and the property tests (a settlement)
    "_decide_settlement", "_rule_from",
]
