"""The Independent Chip Model (Malmuth-Harville), exact, then to the cent.

Harville: the chance that a player takes the best place still open is their
share of the chips still in play; the places below follow the same rule
among the players left. A player's equity is the sum over places of the
chance of finishing there times the prize. The interrupted online
tournament at its final table (001:L429-434) and a cancelled HexaPro game
(001:L436-442) split the prize money this way.

Exact: chances are `Fraction`s, computed once per subset of players (2^n
subsets, n at most a table's seats), so the result is exact and rounding
happens once, in `icm_split`, by the rule of `money.allocate`: round down,
left-over cents by largest remainder, equal remainders to the larger stack,
then to the earlier seat.
"""

from __future__ import annotations

from fractions import Fraction
from functools import lru_cache
from typing import Sequence

from .errors import EngineError
from .money import allocate

PLAYERS_MAX = 12  # a table's seats (000:L495); 2^12 subsets stay cheap


def icm_equities(stacks: Sequence[int], prizes: Sequence[int]) -> list[Fraction]:
    """Return each player's exact expected prize (Malmuth-Harville)."""
    n = len(stacks)
    if not 1 <= n <= PLAYERS_MAX:
        raise EngineError("icm_players", f"ICM takes 1 to {PLAYERS_MAX} players", players=n)
    if any(type(s) is not int or s <= 0 for s in stacks):
        raise EngineError("icm_stacks", "every stack must be a positive chip count")
    paid = [Fraction(p) for p in prizes[:n]]
    places = len(paid)

    @lru_cache(maxsize=None)
    def equity(mask: int) -> tuple[Fraction, ...]:
        members = [i for i in range(n) if mask >> i & 1]
        place = n - len(members)
        result = [Fraction(0)] * n
        if place >= places or not members:
            return tuple(result)
        total = sum(stacks[i] for i in members)
        for i in members:
            chance = Fraction(stacks[i], total)
            result[i] += chance * paid[place]
            below = equity(mask & ~(1 << i))
            for j in members:
                if j != i:
                    result[j] += chance * below[j]
        return tuple(result)

    return list(equity((1 << n) - 1))


def icm_split(total_minor: int, stacks: Sequence[int], prizes: Sequence[int]) -> list[int]:
    """Split `total_minor` (the sum of the prizes used) by ICM, to the cent."""
    used = list(prizes[:len(stacks)])
    if sum(used) != total_minor:
        raise EngineError("icm_prizes", "the prizes must add up to the sum split",
                          total_minor=total_minor, prizes_minor=sum(used))
    return allocate(total_minor, icm_equities(stacks, used), tie_keys=list(stacks))
