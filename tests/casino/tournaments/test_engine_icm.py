"""ICM against an independent computation, to the cent after rounding.

The reference walks every finishing order of the paid places
(itertools.permutations) and multiplies Harville's chances as Fractions;
the engine instead recurses over subsets. Both are then rounded by the
stated rule (decision `tournaments.rounding`): round down, leftover cents
by largest remainder, ties to the larger stack, then the earlier seat.
"""

from __future__ import annotations

import math
from fractions import Fraction
from itertools import permutations

from hypothesis import given, settings
from hypothesis import strategies as st

from casino.tournaments.engine import icm_equities, icm_split


def reference_equities(stacks: list[int], prizes: list[int]) -> list[Fraction]:
    n = len(stacks)
    paid = prizes[:n]
    equity = [Fraction(0)] * n
    for order in permutations(range(n), len(paid)):
        chance = Fraction(1)
        left = sum(stacks)
        for player in order:
            chance *= Fraction(stacks[player], left)
            left -= stacks[player]
        for place, player in enumerate(order):
            equity[player] += chance * paid[place]
    return equity


def reference_round(total: int, shares: list[Fraction], stacks: list[int]) -> list[int]:
    cents = [math.floor(s) for s in shares]
    remainders = sorted(range(len(shares)),
                        key=lambda i: (shares[i] - cents[i], stacks[i], -i), reverse=True)
    for i in remainders[:total - sum(cents)]:
        cents[i] += 1
    return cents


@st.composite
def tables(draw):
    n = draw(st.integers(2, 9))
    stacks = draw(st.lists(st.integers(1, 50_000), min_size=n, max_size=n))
    places = draw(st.integers(1, n if n <= 6 else 4))
    prizes = sorted(draw(st.lists(st.integers(1, 1_000_000), min_size=places,
                                  max_size=places)), reverse=True)
    return stacks, prizes


@settings(max_examples=60, deadline=None)
@given(tables())
def test_icm_matches_brute_force_over_finishing_orders_2_to_9_players(case):
    """Malmuth-Harville (001:L433): equities equal the brute force exactly, and the
    cents equal the reference rounding and add up to the prize money."""
    stacks, prizes = case
    assert icm_equities(stacks, prizes) == reference_equities(stacks, prizes)
    total = sum(prizes)
    expected = reference_round(total, reference_equities(stacks, prizes), stacks)
    assert icm_split(total, stacks, prizes) == expected
    assert sum(expected) == total


def test_icm_nine_players_full_payout_table():
    """Nine players, nine prizes: exact against the brute force (9! orders)."""
    stacks = [9000, 8000, 7000, 6000, 5000, 4000, 3000, 2000, 1000]
    prizes = [30000, 20000, 13000, 10000, 8000, 6500, 5000, 4000, 3500]
    assert sum(icm_equities(stacks, prizes)) == sum(prizes)
    assert icm_equities(stacks, prizes[:3]) == reference_equities(stacks, prizes[:3])


def test_icm_equal_stacks_split_equally_with_the_odd_cent_to_the_first_seat():
    """Equal stacks, equal shares; 100 cents among 3: 34 to seat 1 (the rule's tie)."""
    assert icm_split(100, [10, 10, 10], [100]) == [34, 33, 33]


def test_icm_heads_up_is_proportional_to_chips_for_the_difference():
    """Two players: the leader's equity is p2 + (p1 - p2) * share of chips."""
    assert icm_equities([3000, 1000], [700, 300]) == [Fraction(700 * 3 + 300, 4),
                                                      Fraction(300 * 3 + 700, 4)]
