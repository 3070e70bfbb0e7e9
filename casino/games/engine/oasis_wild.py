"""Five-card hands with deuces wild, for Oasis Stud Poker version C (pure).

In version C every two is a joker (002:L2116): it stands for any card,
also one the hand already holds, so five of a kind exists. The classes,
from high to low, follow the version's pay table (002:L2118-2128): a
natural royal flush (no deuce), a royal flush with a deuce, five of a kind,
straight flush, four of a kind, full house, flush, straight, three of a
kind, two pair, pair, high card. The value of a hand is the best over every
choice the deuces can make; within a class hands compare by their ranks,
as in the standard ranking (002:L2054-2094), suits never count.

native_eval ranks only distinct cards without wild ones, so the few
hundred choices of a wild hand are ranked here (at most 1,820 rank choices
for four deuces).
"""

from __future__ import annotations

from collections import Counter
from itertools import combinations_with_replacement
from typing import Sequence

from .common import rank_of

CLASSES_C = ("high_card", "pair", "two_pair", "three_of_a_kind", "straight", "flush",
             "full_house", "four_of_a_kind", "straight_flush", "five_of_a_kind",
             "royal_flush_wild", "royal_flush_natural")
WILD = "2"


def _straight_top(ranks: Sequence[int]) -> int | None:
    distinct = sorted(set(ranks), reverse=True)
    if len(distinct) != 5:
        return None
    if distinct[0] - distinct[4] == 4:
        return distinct[0]
    if distinct == [14, 5, 4, 3, 2]:
        return 5
    return None


def _value(ranks: Sequence[int], flush: bool, natural: bool) -> tuple:
    """The (class index, tie-break) of five ranks, duplicates allowed."""
    counts = Counter(ranks)
    groups = sorted(counts.items(), key=lambda rc: (rc[1], rc[0]), reverse=True)
    shape = [c for _, c in groups]
    order = tuple(r for r, _ in groups)
    top = _straight_top(ranks)
    if shape[0] == 5:
        return (CLASSES_C.index("five_of_a_kind"), order)
    if top is not None and flush:
        if top == 14:
            name = "royal_flush_natural" if natural else "royal_flush_wild"
            return (CLASSES_C.index(name), (14,))
        return (CLASSES_C.index("straight_flush"), (top,))
    if shape[0] == 4:
        return (CLASSES_C.index("four_of_a_kind"), order)
    if shape[:2] == [3, 2]:
        return (CLASSES_C.index("full_house"), order)
    if flush:
        return (CLASSES_C.index("flush"), tuple(sorted(ranks, reverse=True)))
    if top is not None:
        return (CLASSES_C.index("straight"), (top,))
    if shape[0] == 3:
        return (CLASSES_C.index("three_of_a_kind"), order)
    if shape[:2] == [2, 2]:
        return (CLASSES_C.index("two_pair"), order)
    if shape[0] == 2:
        return (CLASSES_C.index("pair"), order)
    return (CLASSES_C.index("high_card"), order)


def wild_value(cards: Sequence[str]) -> tuple:
    """The best (class index, tie-break) of five cards with every two wild."""
    naturals = [c for c in cards if c[0] != WILD]
    wilds = len(cards) - len(naturals)
    ranks = [rank_of(c) for c in naturals]
    suited = len({c[1] for c in naturals}) <= 1
    if not wilds:
        return _value(ranks, suited, natural=True)
    best = None
    for chosen in combinations_with_replacement(range(2, 15), wilds):
        value = _value(ranks + list(chosen), suited, natural=False)
        if best is None or value > best:
            best = value
    return best


def wild_class(value: tuple) -> str:
    return CLASSES_C[value[0]]


def pair_rank(value: tuple) -> int | None:
    """The rank of a pair (the higher pair of two pair, trips and up: any), or None."""
    if CLASSES_C[value[0]] == "high_card":
        return None
    return value[1][0]
