"""A small, obviously-correct poker ranker used as an independent oracle.

It follows the rules text directly and favours clarity over speed: a five-card
hand becomes a tuple (category, tie-break ranks) that Python compares
lexicographically, and bigger hands take the maximum over their five-card
subsets. Nothing here shares code or tables with the Rust engine.

Sources: standard ranking (001:L616-674; 002:L334-380), Sökö four-card hands
(000:L2069-2079), ace-to-five lows (000:L2441-2444, L2475-2502), three-card
ranking (002:L502-519, L2663-2687).
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Iterable, Sequence

RANKS = "23456789TJQKA"
SUITS = "shdc"
DECK = [r + s for r in RANKS for s in SUITS]

HIGH_CATEGORIES = [
    "high_card",
    "pair",
    "two_pair",
    "three_of_a_kind",
    "straight",
    "flush",
    "full_house",
    "four_of_a_kind",
    "straight_flush",
]


def rank_of(card: str) -> int:
    """Rank index, 0 for a deuce up to 12 for an ace."""
    return RANKS.index(card[0])


def code_of(card: str) -> int:
    """Batch code 4 * rank + suit."""
    return 4 * rank_of(card) + SUITS.index(card[1])


def _groups(ranks: Iterable[int]) -> list[tuple[int, int]]:
    """(count, rank) pairs, biggest count first, then highest rank first."""
    return sorted(((n, r) for r, n in Counter(ranks).items()), reverse=True)


def _straight_top(ranks: Sequence[int]) -> int | None:
    distinct = sorted(set(ranks), reverse=True)
    if len(distinct) != 5:
        return None
    if distinct[0] - distinct[4] == 4:
        return distinct[0]
    if distinct == [12, 3, 2, 1, 0]:
        return 3  # A-2-3-4-5: the five is the top card
    return None


def rank5(cards: Sequence[str]) -> tuple[int, tuple[int, ...]]:
    """Standard high ranking of exactly five cards; bigger is better."""
    ranks = [rank_of(c) for c in cards]
    groups = _groups(ranks)
    shape = [n for n, _ in groups]
    order = tuple(r for _, r in groups)
    flush = len({c[1] for c in cards}) == 1
    top = _straight_top(ranks)
    if top is not None and flush:
        return 8, (top,)
    if shape == [4, 1]:
        return 7, order
    if shape == [3, 2]:
        return 6, order
    if flush:
        return 5, order
    if top is not None:
        return 4, (top,)
    if shape == [3, 1, 1]:
        return 3, order
    if shape == [2, 2, 1]:
        return 2, order
    if shape == [2, 1, 1, 1]:
        return 1, order
    return 0, order


def best_high(cards: Sequence[str]) -> tuple[int, tuple[int, ...]]:
    """Best five-card high hand of any number of cards (five or more)."""
    return max(rank5(f) for f in itertools.combinations(cards, 5))


def best_omaha(hole: Sequence[str], board: Sequence[str]) -> tuple[int, tuple[int, ...]]:
    """Best high hand using exactly two hole cards and three board cards."""
    return max(
        rank5(h + b) for h in itertools.combinations(hole, 2) for b in itertools.combinations(board, 3)
    )


def low5(cards: Sequence[str]) -> tuple[int, tuple[int, ...]]:
    """Ace-to-five low of five cards; SMALLER is better. Pair structure first,
    then ranks from the highest down, ace as one; straights/flushes ignored."""
    ranks = [(rank_of(c) + 1) % 13 for c in cards]  # ace 0, deuce 1, ... king 12
    groups = _groups(ranks)
    shape = [n for n, _ in groups]
    structure = [[1, 1, 1, 1, 1], [2, 1, 1, 1], [2, 2, 1], [3, 1, 1], [3, 2], [4, 1]].index(shape)
    return structure, tuple(r for _, r in groups)


def qualifies8(low: tuple[int, tuple[int, ...]]) -> bool:
    """Eight-or-better: five distinct ranks, the highest an eight or lower."""
    return low[0] == 0 and low[1][0] <= 7


def best_razz(cards: Sequence[str]) -> tuple[int, tuple[int, ...]]:
    """Best (smallest) ace-to-five low of five or more cards."""
    return min(low5(f) for f in itertools.combinations(cards, 5))


def best_low8(combos: Iterable[Sequence[str]]) -> tuple[int, tuple[int, ...]] | None:
    """Best qualifying eight-or-better low among five-card combinations."""
    lows = [low for low in (low5(f) for f in combos) if qualifies8(low)]
    return min(lows) if lows else None


def soko5(cards: Sequence[str]) -> tuple[int, tuple[int, ...]]:
    """Sökö ranking of five cards: four-straight and four-flush between pair
    and two pair (pair < four-straight < four-flush < two pair)."""
    category, ties = rank5(cards)
    # Shift the standard categories from two pair up by two places.
    if category >= 2:
        return category + 2, ties
    suits = Counter(c[1] for c in cards)
    suit, count = suits.most_common(1)[0]
    if count == 4:
        suited = sorted((rank_of(c) for c in cards if c[1] == suit), reverse=True)
        fifth = next(rank_of(c) for c in cards if c[1] != suit)
        return 3, (*suited, fifth)
    ranks = {rank_of(c) for c in cards}
    for top in range(12, 2, -1):
        if {top, top - 1, top - 2, top - 3} <= ranks:
            rest = [rank_of(c) for c in cards]
            for r in (top, top - 1, top - 2, top - 3):
                rest.remove(r)
            return 2, (top, rest[0])
    if {12, 0, 1, 2} <= ranks:
        rest = [rank_of(c) for c in cards]
        for r in (12, 0, 1, 2):
            rest.remove(r)
        return 2, (2, rest[0])
    return category, ties


def three3(cards: Sequence[str]) -> tuple[int, tuple[int, ...]]:
    """Three-card ranking: high < pair < flush < straight < trips < straight flush."""
    ranks = sorted((rank_of(c) for c in cards), reverse=True)
    flush = len({c[1] for c in cards}) == 1
    straight = None
    if len(set(ranks)) == 3 and ranks[0] - ranks[2] == 2:
        straight = ranks[0]
    elif ranks == [12, 1, 0]:
        straight = 1  # A-2-3
    if ranks[0] == ranks[2]:
        return 4, (ranks[0],)
    if straight is not None and flush:
        return 5, (straight,)
    if straight is not None:
        return 3, (straight,)
    if flush:
        return 2, tuple(ranks)
    groups = _groups(ranks)
    if groups[0][0] == 2:
        return 1, tuple(r for _, r in groups)
    return 0, tuple(ranks)
