"""Bad-beat payout shares: the closed forms of the category 1 and 2 tables.

Pure: no Django, no database. The printed tables of the Veikkaus poker room
(000:L2939-3182, category 1 at 000:L2939-3174, category 2 at 000:L3175-3182
and 000:L3224-3236) are reproduced by two closed forms, which the rulebook's
`decision = "jackpot.payout_formula"` adopts instead of the rounded cells:

Category 1 (80 % in total, 000:L2825-2829), n players dealt in, L tied
losers, W tied winners (L + W <= n):

    S            = others_total / (n - 2)          (20 % / (n - 2))
    each loser   = (loser_total + (L - 1) S) / L   (40 % + ...)
    each winner  = (winner_total + (W - 1) S) / W  (20 % + ...)
    each other   = S

Category 2 (13 % + 1 % per player, 000:L3181-3182):

    each loser   = (loser_total + (L - 1) o) / L   (10 % + ..., o = 1 %)
    each winner  = (winner_total + (W - 1) o) / W  (5 % + ...)
    each other   = o

Shares are exact fractions of the pool balance; the source's printed 11.439
(nine players, two winners, 000:L2980) is the typo of 11.429 that the
formula gives (decision `jackpots.cat1.typo_11_439`).

Rounding (decision `jackpot.payout_formula`): each player's amount is the
exact share of the balance rounded down to the cent; the amount paid is the
sum of those amounts, so shares always add up to it exactly, and the cents
rounded away stay in the pool (they are part of the new base).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Mapping

BASIS_POINTS = 10_000
PLAYERS_MIN = 3  # S divides by n - 2; the tables start at five (000:L2816-2819)
TIED_MAX = 4     # the printed tables stop at four tied losers or winners (000:L2849-2851)


@dataclass(frozen=True, slots=True)
class ShareRule:
    """One category's percentages, in basis points of the pool balance.

    Category 1 gives `others_total` (shared by n - 2 heads); category 2 gives
    `other_each` (one head's share) and no total.
    """

    category: int
    loser_total_bp: int
    winner_total_bp: int
    others_total_bp: int | None = None
    other_each_bp: int | None = None

    def other_each(self, players: int) -> Fraction:
        """The fraction of the balance one 'other' head gets (S, or 1 %)."""
        if self.others_total_bp is not None:
            return Fraction(self.others_total_bp, BASIS_POINTS * (players - 2))
        assert self.other_each_bp is not None, "a share rule needs the others' share"
        return Fraction(self.other_each_bp, BASIS_POINTS)


@dataclass(frozen=True, slots=True)
class Shares:
    """Exact fractions of the balance per player of each role."""

    loser_each: Fraction
    winner_each: Fraction
    other_each: Fraction
    losers: int
    winners: int
    others: int

    @property
    def total(self) -> Fraction:
        return (self.loser_each * self.losers + self.winner_each * self.winners
                + self.other_each * self.others)


def shares(rule: ShareRule, *, players: int, losers: int, winners: int) -> Shares:
    """Return each role's exact share for n players, L losers and W winners.

    Raises ValueError for an infeasible combination (L + W > n, fewer than
    three players, no loser or no winner).
    """
    if players < PLAYERS_MIN:
        raise ValueError(f"a bad beat needs at least {PLAYERS_MIN} players dealt in")
    if losers < 1 or winners < 1:
        raise ValueError("a bad beat needs at least one loser and one winner")
    if losers + winners > players:
        raise ValueError("more losers and winners than players dealt in")
    other = rule.other_each(players)
    loser_each = (Fraction(rule.loser_total_bp, BASIS_POINTS) + (losers - 1) * other) / losers
    winner_each = (Fraction(rule.winner_total_bp, BASIS_POINTS) + (winners - 1) * other) / winners
    return Shares(loser_each=loser_each, winner_each=winner_each, other_each=other,
                  losers=losers, winners=winners, others=players - losers - winners)


def amounts(rule: ShareRule, *, balance_minor: int, roles: Mapping[str, str]
            ) -> dict[str, int]:
    """Return each player's amount in cents: their exact share rounded down.

    `roles` maps a player (any key, e.g. the seat) to "loser", "winner" or
    "other"; n is the number of keys. The amounts sum to the amount paid by
    construction; what is rounded away stays in the pool.
    """
    if balance_minor < 0:
        raise ValueError("the pool balance cannot be negative")
    counts = {role: sum(1 for r in roles.values() if r == role)
              for role in ("loser", "winner", "other")}
    if set(roles.values()) - set(counts):
        raise ValueError("roles are loser, winner or other")
    exact = shares(rule, players=len(roles), losers=counts["loser"], winners=counts["winner"])
    each = {"loser": exact.loser_each, "winner": exact.winner_each, "other": exact.other_each}
    # Fraction floor division: exact integer arithmetic, no float anywhere.
    return {who: (balance_minor * each[role]).__floor__() for who, role in roles.items()}


def percent_text(fraction: Fraction, decimals: int) -> str:
    """A share as a percentage with `decimals` places, half up (as printed)."""
    scaled = fraction * 100 * 10**decimals
    rounded = (scaled + Fraction(1, 2)).__floor__()
    whole, part = divmod(rounded, 10**decimals)
    return f"{whole}.{part:0{decimals}d}" if decimals else str(whole)
