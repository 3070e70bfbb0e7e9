"""HexaPro: a three-handed Sit & Go with a randomly drawn prize pool.

The pool is drawn at 1.5x to 1,000x the buy-in with the probabilities of
the prize table (001:L480-487, figures `hexapro.prize.*` and
`hexapro.probability_per_100000.*`); up to 10x the winner takes it all,
above that it is split 80 / 12 / 8 (001:L493). Three buy-ins are collected,
so the house's share is 1 - E[multiplier] / 3 = 6.853 % (001:L489).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from fractions import Fraction
from typing import Sequence

from .errors import EngineError

DRAW_DENOMINATOR = 100_000


@dataclass(frozen=True, slots=True)
class PrizeRow:
    label: str                 # "x1_5", "x10", ...
    multiplier: Fraction
    probability_per_100000: int


def multiplier_of(label: str) -> Fraction:
    """"x1_5" -> 3/2, "x1000" -> 1000."""
    return Fraction(label.removeprefix("x").replace("_", "."))


def expected_multiplier(rows: Sequence[PrizeRow]) -> Fraction:
    if sum(r.probability_per_100000 for r in rows) != DRAW_DENOMINATOR:
        raise EngineError("invalid_prize_table", "the probabilities must add up to"
                          " 100,000 per 100,000 games")
    return sum((r.multiplier * r.probability_per_100000 for r in rows),
               Fraction(0)) / DRAW_DENOMINATOR


def house_share(rows: Sequence[PrizeRow], players: int = 3) -> Fraction:
    """The share of the buy-ins the house keeps over many games."""
    return 1 - expected_multiplier(rows) / players


def draw(rows: Sequence[PrizeRow], rng: random.Random) -> PrizeRow:
    """Draw a multiplier with the table's probabilities."""
    return row_for_ticket(rows, rng.randrange(DRAW_DENOMINATOR))


def row_for_ticket(rows: Sequence[PrizeRow], ticket: int) -> PrizeRow:
    """The prize row a ticket from 0 to 99,999 draws: each row takes as many
    tickets as its probability per 100,000, smallest multiplier first."""
    expected_multiplier(rows)  # checks the table
    if not 0 <= ticket < DRAW_DENOMINATOR:
        raise EngineError("invalid_ticket", "a ticket is 0 to 99,999", ticket=ticket)
    for row in sorted(rows, key=lambda r: r.multiplier):
        if ticket < row.probability_per_100000:
            return row
        ticket -= row.probability_per_100000
    raise AssertionError("unreachable: the probabilities add up to the denominator")


def shares_for(multiplier: Fraction, winner_takes_all_max: int,
               split_basis_points: Sequence[int]) -> tuple[int, ...]:
    """Winner takes all up to the threshold, else the split (001:L493)."""
    if multiplier <= winner_takes_all_max:
        return (10_000,)
    return tuple(split_basis_points)
