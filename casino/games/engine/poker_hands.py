"""Five-card hands for the house-banked poker games, ranked by native_eval (pure).

Hands are the standard high ranking (ace high, A-2-3-4-5 the lowest
straight, suits never rank: 002:L624-662, L2241-2289, L2416-2470); the royal
flush is its own category here because the pay tables pay it apart. The best
five of up to seven cards come from `native_eval.evaluate`; hold'em hands use
`best_hand("holdem", hole, board)`, which takes 2, 1 or 0 hole cards as the
games allow (002:L2148-2150).

Pay-table rows name the hand they pay in `hand` (a category below) or, for
the two-card bonuses, `hole` (a class of the two hole cards, see
`hole_class`); rows of one table that differ by the posted schedule (THB
Bonus I/II, UTH Trips I-IV) carry it in `schedule`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import native_eval

from .common import Row, rank_of

CATEGORIES = ("high_card", "pair", "two_pair", "three_of_a_kind", "straight", "flush",
              "full_house", "four_of_a_kind", "straight_flush", "royal_flush")
ROYAL_VALUE = 7462
# The weakest hand of three tens (T-T-T-3-2): THB's ante option A (002:L2198).
THREE_TENS_VALUE = native_eval.evaluate("Ts Th Td 3c 2d")


@dataclass(frozen=True, slots=True)
class Ranked:
    """A five-card hand's value (higher is better, equal ties) and category."""

    value: int
    category: str

    def at_least(self, floor: str) -> bool:
        """Whether the hand is `floor` or better (`three_tens` is trip tens or better)."""
        if floor == "three_tens":
            return self.value >= THREE_TENS_VALUE
        return CATEGORIES.index(self.category) >= CATEGORIES.index(floor)


def _ranked(value: int) -> Ranked:
    category = native_eval.category(value)
    return Ranked(value, "royal_flush" if value == ROYAL_VALUE else category)


def rank_cards(cards: Sequence[str]) -> Ranked:
    """The best five of 5-7 cards."""
    return _ranked(native_eval.evaluate(list(cards)))


def rank_holdem(hole: Sequence[str], board: Sequence[str]) -> Ranked:
    """The best five of two hole cards and a 3-5 card board (any 2, 1 or 0 hole cards)."""
    return _ranked(native_eval.best_hand("holdem", list(hole), list(board)).value)


def hole_class(hole: Sequence[str]) -> str | None:
    """The class of two hole cards the hold'em bonuses pay on (002:L2212-2237, L610-622)."""
    high, low = sorted((rank_of(c) for c in hole), reverse=True)
    suited = hole[0][1] == hole[1][1]
    if high == low:
        if high == 14:
            return "aa"
        return "kk_qq_jj" if high >= 11 else "pair_2_10"
    if high == 14 and low == 13:
        return "ak_suited" if suited else "ak_offsuit"
    if high == 14 and low in (11, 12):
        return "aq_aj_suited" if suited else "aq_aj_offsuit"
    return None


def hand_row(rows: Sequence[Row], category: str, schedule: str | None = None) -> Row | None:
    """The row paying a hand; a royal flush without its own row pays as a straight flush."""
    for wanted in (category, "straight_flush") if category == "royal_flush" else (category,):
        for row in rows:
            if row.get("hand") == wanted and row.get("schedule") == schedule:
                return row
    return None


def hole_row(rows: Sequence[Row], hole_kind: str | None, schedule: str | None = None
             ) -> Row | None:
    for row in rows:
        if row.get("hole") == hole_kind and row.get("schedule") == schedule:
            return row
    return None


def schedules(rows: Sequence[Row]) -> list[str]:
    return sorted({row["schedule"] for row in rows if "schedule" in row})
