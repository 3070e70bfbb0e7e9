"""Cents: prices split into their parts, and exact allocation of a sum.

Every split in this package goes through `allocate`: it takes exact shares
(fractions of cents that add up to a whole number of cents) and gives back
whole cents that add up to exactly the same total, so no cent is created or
lost by rounding.

Rounding rule (decision `tournaments.rounding`, in every rulebook fragment):
each share is rounded down to the cent; the cents left over go one each to
the shares with the largest remainders; equal remainders go first to the
share with the larger tie key (the larger chip stack, or the higher place),
then to the earlier one in the order given (seat order, or place order).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Sequence

from .errors import EngineError


@dataclass(frozen=True, slots=True)
class Price:
    """What one purchase costs, split into where the money goes.

    `prize_minor` goes to the prize pool, `fee_minor` to the house and
    `bounty_minor` onto the buyer's bounty (000:L3212-3215, L3374-3377).
    """

    prize_minor: int
    fee_minor: int = 0
    bounty_minor: int = 0

    def __post_init__(self) -> None:
        for name in ("prize_minor", "fee_minor", "bounty_minor"):
            value = getattr(self, name)
            if type(value) is not int or value < 0:
                raise EngineError("invalid_price", f"{name} must be a whole number of"
                                  " cents, zero or more", field=name)
        # A freeroll's entry costs nothing (001:L330-332, L602); the
        # tournament's Config decides which prices may be free.

    @property
    def total_minor(self) -> int:
        return self.prize_minor + self.fee_minor + self.bounty_minor

    def as_dict(self) -> dict[str, int]:
        return {"prize_minor": self.prize_minor, "fee_minor": self.fee_minor,
                "bounty_minor": self.bounty_minor}

    @classmethod
    def from_dict(cls, data: dict | None) -> "Price | None":
        if data is None:
            return None
        return cls(data["prize_minor"], data.get("fee_minor", 0), data.get("bounty_minor", 0))


def allocate(total_minor: int, shares: Sequence[Fraction],
             tie_keys: Sequence[int] | None = None) -> list[int]:
    """Round exact shares to whole cents that sum to `total_minor`.

    `shares` must add up to `total_minor` exactly. `tie_keys` (larger wins)
    break equal remainders before the order given does.
    """
    if sum(shares, Fraction(0)) != total_minor:
        raise EngineError("rounding", "shares do not add up to the total",
                          total_minor=total_minor)
    floors = [math.floor(share) for share in shares]
    left = total_minor - sum(floors)
    keys = tie_keys if tie_keys is not None else [0] * len(shares)
    order = sorted(range(len(shares)),
                   key=lambda i: (-(shares[i] - floors[i]), -keys[i], i))
    for i in order[:left]:
        floors[i] += 1
    return floors


def split_equally(total_minor: int, count: int,
                  tie_keys: Sequence[int] | None = None) -> list[int]:
    """Split a sum equally among `count`, extra cents by the tie keys."""
    return allocate(total_minor, [Fraction(total_minor, count)] * count, tie_keys)


def split_tokens(total_minor: int, token_minor: int, count: int) -> list[int]:
    """Share a bounty among `count` sharers in whole tokens, in seat order.

    000:L3361-3364: the tokens are shared equally and never broken; the odd
    token goes to the first sharer after the button (the first given).
    Decision tournaments.bounty.shared_tokens: a part of the bounty that is
    not a whole token (a progressive bounty's added share) is not broken
    either and goes to that first sharer too.
    """
    if count < 1 or token_minor < 0:
        raise EngineError("rounding", "share a bounty among one sharer or more",
                          count=count)
    tokens, rest = divmod(total_minor, token_minor) if token_minor else (0, total_minor)
    each, odd = divmod(tokens, count)
    shares = [(each + (i < odd)) * token_minor for i in range(count)]
    shares[0] += rest
    return shares


def by_basis_points(total_minor: int, basis_points: Sequence[int]) -> list[int]:
    """Split a sum by shares in basis points (summing to 10,000), by place.

    Leftover cents go to the higher places first (equal remainders).
    """
    if sum(basis_points) != 10_000:
        raise EngineError("invalid_payout_structure", "shares must add up to 100 %",
                          basis_points=list(basis_points))
    shares = [Fraction(total_minor * bp, 10_000) for bp in basis_points]
    return allocate(total_minor, shares)
