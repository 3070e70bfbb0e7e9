"""Poker errors, each with a stable code (never renamed).

The betting engine's refusals keep their own codes (`poker.not_your_turn`,
`poker.raise_below_minimum`... casino/poker/engine/errors.py); the commands
turn an `IllegalAction` into a `PokerError` with the same code after
recording it. Refusals by the compliance pipeline surface as
`casino.compliance.errors.AttemptRejected`.
"""

from enum import StrEnum

from casino.errors import CodedError


class PokerErrorCode(StrEnum):
    INVALID_REQUEST = "poker.invalid_request"
    """A malformed request (unknown variant, bad stakes, bad seat): 400."""
    INCOMPLETE_HISTORY = "poker.incomplete_history"
    """A complete hand history that does not end the hand: 400."""
    UNKNOWN_TABLE = "poker.unknown_table"
    UNKNOWN_HAND = "poker.unknown_hand"
    RAKE_RULE_NOT_OFFERED = "poker.rake_rule_not_offered"
    JACKPOT_TERMS_NOT_POSTED = "poker.jackpot_terms_not_posted"
    """The venue's rulebook has no such rake or jackpot rule."""
    TOO_MANY_SEATS = "poker.too_many_seats"
    """More seats than the rulebook allows at a table (000:L495, L2832)."""
    BUY_IN_BELOW_MINIMUM = "poker.buy_in_below_minimum"
    """Less than the table's minimum buy-in (000:L535-546, L541-543)."""
    BUY_IN_ABOVE_MAXIMUM = "poker.buy_in_above_maximum"
    """More than the table's maximum, top-ups included (000:L545-546)."""
    ONE_STACK_PER_EVENING = "poker.one_stack_per_evening"
    RETURN_STACK_TOO_SMALL = "poker.return_stack_too_small"
    CASH_BUY_IN_TOO_LARGE = "poker.cash_buy_in_too_large"
    """Back the same evening with less than the stack left with (000:L306-319, L549-551)."""
    SHORT_BUY_IN_REFUSED = "poker.short_buy_in_refused"
    """Under the minimum and not an allowed short buy-in (000:L557-560; 003:L122)."""
    BANZAI_STACK_LOCKED = "poker.banzai_stack_locked"
    """Left a Banzai table with over 10 BB under 30 minutes ago (001:L223)."""
    BANZAI_TABLE_LIMIT = "poker.banzai_table_limit"
    """Already at two Banzai tables of this stake level (001:L221)."""
    NO_TIME_CHARGE = "poker.no_time_charge"
    """The table is raked by the pot, or nobody sits there: 409."""
    TIME_CHARGE_CONSENT_MISSING = "poker.time_charge_consent_missing"
    """Every player must agree (000:L2876; 003:L140)."""
    STACK_BELOW_TIME_CHARGE = "poker.stack_below_time_charge"
    """A stack cannot pay its share of the period: 409."""
    SEAT_TAKEN = "poker.seat_taken"
    SEAT_EMPTY = "poker.seat_empty"
    NOT_SEATED_HERE = "poker.not_seated_here"
    """The player sits at another seat of this table."""
    HAND_IN_PROGRESS = "poker.hand_in_progress"
    """No chips are added or removed while a hand runs (000:L281)."""
    TOO_FEW_PLAYERS = "poker.too_few_players"
    """A hand needs two players with chips (000:L495)."""
    HAND_NOT_IN_BETTING = "poker.hand_not_in_betting"
    """The hand's betting is over (showdown, settled, disputed or voided)."""
    HAND_NOT_AT_SHOWDOWN = "poker.hand_not_at_showdown"
    HAND_FINISHED = "poker.hand_finished"
    """The hand is settled or voided: nothing changes it any more."""
    HAND_DISPUTED = "poker.hand_disputed"
    """A disputed hand settles only by an officer's decision, or is voided."""
    HAND_NOT_DISPUTED = "poker.hand_not_disputed"
    """Only a disputed hand takes an officer's decision."""
    NOT_COMPLIANCE_OFFICER = "poker.not_compliance_officer"
    """A disputed hand is decided by a compliance officer only: 403."""
    INVALID_SHOWDOWN = "poker.invalid_showdown"
    """Cards the evaluator refuses (a card twice, wrong count, seat missing)."""
    FORFEIT_NOT_DUE = "poker.forfeit_not_due"
    """The venue's rulebook forfeits no unresolved hand, or not this one yet (001:L110): 409."""
    INSUFFICIENT_FUNDS = "poker.insufficient_funds"
    CONCURRENT_UPDATE = "poker.concurrent_update"
    """Kept for the record of old answers; writes now answer the runner's
    `request.concurrent_update` (casino.runner.RunnerError, 409)."""


class PokerError(CodedError):
    """A poker request refused; what it wrote, if anything, is said by the raiser."""
