"""Codes and the exception of an action the betting rules refuse.

`IllegalAction` carries `code`, `message` and `details`, the shape
`casino.exception_handler` turns into a 4xx answer (the status is the code's
row in casino.error_table), without importing the project's error base: the
engine imports nothing outside itself. Codes are
stable and never renamed; each names the rule it enforces in its docstring.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any


class BettingErrorCode(StrEnum):
    HAND_OVER = "poker.hand_over"
    """The hand has ended (one player left or all bets made for showdown)."""
    STREET_NOT_OPEN = "poker.street_not_open"
    """Stud: the next street's first player has not been given yet."""
    NOT_YOUR_TURN = "poker.not_your_turn"
    """Only the player whose turn it is may act (000:L18, L1562)."""
    UNKNOWN_ACTION = "poker.unknown_action"
    INVALID_AMOUNT = "poker.invalid_amount"
    """An amount that is not a positive whole number of minor units, or a call
    amount other than the call."""
    MORE_THAN_STACK = "poker.more_than_stack"
    """Only the chips on the table at the hand's start play (000:L281)."""
    CANNOT_CHECK = "poker.cannot_check"
    """A check is allowed only when there is nothing to call (001:L56-58)."""
    NOTHING_TO_CALL = "poker.nothing_to_call"
    """A call needs a bet to call (001:L60-62)."""
    CANNOT_BET = "poker.cannot_bet"
    """There is already a bet on this street: raise instead (001:L64-66)."""
    NOTHING_TO_RAISE = "poker.nothing_to_raise"
    """There is no bet on this street to raise: bet instead (001:L64-66)."""
    BET_BELOW_MINIMUM = "poker.bet_below_minimum"
    """A bet of at least the big blind or opening bet (000:L1293-1295, 001:L71)."""
    RAISE_BELOW_MINIMUM = "poker.raise_below_minimum"
    """A raise of at least the largest previous increment (000:L1301-1312, 001:L70)."""
    NOT_LIMIT_AMOUNT = "poker.not_limit_amount"
    """Fixed limit: a bet or raise is exactly one unit (000:L1250-1253)."""
    OVER_SPREAD_LIMIT = "poker.over_spread_limit"
    """Spread limit: a bet or raise increment of at most the street's maximum."""
    OVER_POT_LIMIT = "poker.over_pot_limit"
    """Pot limit: at most the pot after calling (000:L1373-1393)."""
    RAISE_CAP_REACHED = "poker.raise_cap_reached"
    """Limit: bet and three raises per round, unless heads-up (000:L1253-1260)."""
    ACTION_NOT_REOPENED = "poker.action_not_reopened"
    """A short all-in does not reopen the raising (000:L1358-1369, 001:L82-84)."""
    NO_ONE_TO_RAISE = "poker.no_one_to_raise"
    """Every other player still in is all-in, so a bet or raise could not be
    called by anyone (000:L346-350)."""
    BET_OR_RAISE_BARRED = "poker.bet_or_raise_barred"
    """The player may only check, call or fold: checked out of turn, or showed
    cards early (000:L212-217, L1574-1575; 003:L55)."""
    BIG_UNIT_NOT_ALLOWED = "poker.big_unit_not_allowed"
    """The big unit on an open pair is for fourth street of limit high stud
    (000:L2216-2230, L2458-2465)."""
    BRING_IN_REQUIRED = "poker.bring_in_required"
    """The first player must bring in or complete (000:L2170-2174, L1768-1770)."""
    BRING_IN_NOT_ALLOWED = "poker.bring_in_not_allowed"
    """The bring-in is made once, by the first to act on the first street."""
    INVALID_FORCED_BET = "poker.invalid_forced_bet"
    """A straddle or blind the table's rules do not allow (000:L975-1005)."""
    NOT_IN_HAND = "poker.not_in_hand"
    """The seat named (a stud street's first player, a barred player) is not
    in the hand."""
    NOT_AT_SHOWDOWN = "poker.muck_before_showdown"
    """A hand is mucked at the showdown only, once the betting is over
    (recorded, 422; the commands' `poker.hand_not_at_showdown` is a 409)."""
    TIME_CHARGE_NOT_ALLOWED = "poker.time_charge_not_allowed"
    """Tallinn: time rake only with three or fewer players (003:L140)."""


class IllegalAction(Exception):
    """An action or setup the rules refuse; the state it was applied to is unchanged.

    `details` holds machine-readable context: the seat, the amount tried, the
    limit it broke (`limit_minor`) and the seed citation (`cite`).
    """

    def __init__(self, code: BettingErrorCode, message: str, **details: Any) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.details = details

    def __repr__(self) -> str:
        return f"IllegalAction({self.code.value!r}, {self.message!r}, {self.details!r})"


class InvariantViolation(Exception):
    """A programmer error in the money path: the engine's own arithmetic broke.

    Raised instead of `assert`, which `python -O` strips.
    """
