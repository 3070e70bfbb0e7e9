"""Differential tests against independent implementations.

- 100,000 random seven-card hands (plus 100,000 five- and six-card hands)
  against ``treys``, a published pure-Python evaluator: treys numbers the 7,462
  hand classes 1 (royal flush) .. 7462, ours 7462 .. 1, so ours == 7463 - treys.
- 100,000 random five-card hands against the obviously-correct reference
  ranker in ``reference.py``: our values must order the hands exactly as the
  reference's (category, ranks) tuples do.
- Every variant's ``best_hand`` and random showdowns against the reference.

All draws come from fixed seeds, so a failure reproduces.
"""

from __future__ import annotations

import itertools
import random

from treys import Card, Evaluator  # type: ignore[import-untyped]

import native_eval
from tests.native_eval import reference as ref

HANDS = 100_000


def _deals(seed: int, count: int, size: int) -> list[list[str]]:
    rng = random.Random(seed)
    return [rng.sample(ref.DECK, size) for _ in range(count)]


def _codes(hands: list[list[str]]) -> bytes:
    return bytes(ref.code_of(c) for hand in hands for c in hand)


def test_seven_card_values_equal_treys_on_100000_random_hands() -> None:
    """Batch and per-call values equal 7463 - treys for 100,000 seven-card hands."""
    hands = _deals(1, HANDS, 7)
    treys = Evaluator()
    ints = {c: Card.new(c) for c in ref.DECK}
    expected = [7463 - treys.evaluate([ints[c] for c in h[:2]], [ints[c] for c in h[2:]]) for h in hands]
    assert list(native_eval.evaluate_batch(_codes(hands), 7)) == expected
    assert [native_eval.evaluate(h) for h in hands[:20_000]] == expected[:20_000]


def test_five_and_six_card_values_equal_treys() -> None:
    """Five- and six-card batches agree with treys on 50,000 hands each."""
    treys = Evaluator()
    ints = {c: Card.new(c) for c in ref.DECK}
    for size, seed in ((5, 2), (6, 3)):
        hands = _deals(seed, HANDS // 2, size)
        expected = [7463 - treys.evaluate([ints[c] for c in h[:2]], [ints[c] for c in h[2:]]) for h in hands]
        assert list(native_eval.evaluate_batch(_codes(hands), size)) == expected


def test_values_order_100000_five_card_hands_as_the_reference_ranker() -> None:
    """Sorting by the reference (category, ranks) sorts our values; equal
    reference ranks and only those give equal values."""
    hands = _deals(4, HANDS, 5)
    ours = native_eval.evaluate_batch(_codes(hands), 5)
    pairs = sorted(zip((ref.rank5(h) for h in hands), ours))
    for (ref_a, val_a), (ref_b, val_b) in itertools.pairwise(pairs):
        assert (ref_a < ref_b) == (val_a < val_b)
        assert (ref_a == ref_b) == (val_a == val_b)
    for (category, _), value in pairs:
        assert native_eval.category(value) == ref.HIGH_CATEGORIES[category]


Rank = tuple[int, tuple[int, ...]]


def _same_order(refs: list[Rank], values: list[int]) -> None:
    """refs (comparable) and values must induce the same ordering."""
    pairs = sorted(zip(refs, values))
    for (ref_a, val_a), (ref_b, val_b) in itertools.pairwise(pairs):
        assert (ref_a < ref_b) == (val_a < val_b), (ref_a, ref_b, val_a, val_b)
        assert (ref_a == ref_b) == (val_a == val_b), (ref_a, ref_b, val_a, val_b)


def test_omaha_high_and_low_match_the_reference() -> None:
    """Omaha and Omaha hi/lo: exactly 2 + 3 for both halves, on 3,000 deals."""
    rng = random.Random(5)
    highs: list[Rank] = []
    high_values: list[int] = []
    lows: list[Rank] = []
    low_values: list[int] = []
    for _ in range(3000):
        cards = rng.sample(ref.DECK, 9)
        hole, board = cards[:4], cards[4:]
        hand = native_eval.best_hand("omaha_hilo", hole, board)
        assert hand.value == native_eval.best_hand("omaha", hole, board).value
        highs.append(ref.best_omaha(hole, board))
        high_values.append(hand.value)
        low = ref.best_low8(h + b for h in itertools.combinations(hole, 2) for b in itertools.combinations(board, 3))
        assert (low is None) == (hand.low is None)
        if low is not None and hand.low is not None:
            lows.append((-low[0], tuple(-r for r in low[1])))  # bigger is better, like ours
            low_values.append(hand.low)
    _same_order(highs, high_values)
    _same_order(lows, low_values)


def test_omaha5_and_courchevel_match_the_reference() -> None:
    """Five hole cards, exactly 2 + 3, on 2,000 deals."""
    rng = random.Random(6)
    refs: list[Rank] = []
    values: list[int] = []
    for _ in range(2000):
        cards = rng.sample(ref.DECK, 10)
        hole, board = cards[:5], cards[5:]
        value = native_eval.best_hand("omaha5", hole, board).value
        assert native_eval.best_hand("courchevel", hole, board).value == value
        refs.append(ref.best_omaha(hole, board))
        values.append(value)
    _same_order(refs, values)


def test_stud_hilo_and_razz_lows_match_the_reference() -> None:
    """Eight-or-better and Razz lows of seven cards, on 5,000 deals."""
    rng = random.Random(7)
    razz_refs: list[Rank] = []
    razz_values: list[int] = []
    eight_refs: list[Rank] = []
    eight_values: list[int] = []
    for _ in range(5000):
        cards = rng.sample(ref.DECK, 7)
        razz = native_eval.best_hand("razz", cards)
        best = ref.best_razz(cards)
        razz_refs.append((-best[0], tuple(-r for r in best[1])))
        razz_values.append(razz.value)
        stud = native_eval.best_hand("stud_hilo", cards)
        assert stud.value == native_eval.evaluate(cards)
        eight = ref.best_low8(itertools.combinations(cards, 5))
        assert (eight is None) == (stud.low is None)
        if eight is not None and stud.low is not None:
            eight_refs.append((-eight[0], tuple(-r for r in eight[1])))
            eight_values.append(stud.low)
            # A qualifying low has the same value as the same cards in Razz.
            assert stud.low == razz.value
    _same_order(razz_refs, razz_values)
    _same_order(eight_refs, eight_values)


def test_soko_matches_the_reference() -> None:
    """Sökö ranking with four-card hands, on 20,000 five-card hands."""
    hands = _deals(8, 20_000, 5)
    _same_order([ref.soko5(h) for h in hands], [native_eval.best_hand("soko", h).value for h in hands])


def test_three_card_matches_the_reference_on_every_hand() -> None:
    """All 22,100 three-card hands order as the reference ranks them."""
    hands = [list(h) for h in itertools.combinations(ref.DECK, 3)]
    _same_order([ref.three3(h) for h in hands], [native_eval.best_hand("three_card", h).value for h in hands])


def test_random_showdowns_award_every_chip_to_reference_winners() -> None:
    """1,000 random six-handed hold'em showdowns with side pots: each pot goes
    to the reference's best eligible hands and the awards sum exactly."""
    rng = random.Random(9)
    for _ in range(1000):
        cards = rng.sample(ref.DECK, 17)
        board = cards[:5]
        seats = rng.sample(range(1, 10), 6)
        hands = {seat: cards[5 + 2 * i : 7 + 2 * i] for i, seat in enumerate(seats)}
        pots = []
        eligible = list(seats)
        for _ in range(rng.randint(1, 4)):
            pots.append((rng.randint(0, 10_000), list(eligible)))
            if len(eligible) > 1:
                eligible.remove(rng.choice(eligible))
        result = native_eval.showdown("holdem", board, hands, pots, rng.choice(range(1, 10)))
        assert sum(result.awards.values()) == sum(amount for amount, _ in pots)
        for (amount, elig), pot in zip(pots, result.pots, strict=True):
            strength = {seat: ref.best_high(hands[seat] + board) for seat in elig}
            top = max(strength.values())
            assert pot.high_winners == sorted(seat for seat in elig if strength[seat] == top)
            assert sum(pot.awards.values()) == amount
            shares = [pot.high_shares[s] for s in pot.high_winners]
            assert max(shares) - min(shares) <= 1
