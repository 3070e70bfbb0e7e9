"""best_hand for every variant, from the rules digests' worked examples.

Citations: (000:Lx) poker room rules, (001:Lx) online rules, (002:Lx) RAY rules.
"""

from __future__ import annotations

import pytest

import native_eval


def test_holdem_may_play_the_board() -> None:
    """Hold'em uses 0, 1 or 2 hole cards: a royal flush on the board plays (000:L1716-1717)."""
    hand = native_eval.best_hand("holdem", "2c 3d", "As Ks Qs Js Ts")
    assert hand.value == 7462
    assert hand.category == "straight_flush"
    assert hand.cards == ["As", "Ks", "Qs", "Js", "Ts"]
    assert hand.low is None
    assert hand.low_cards is None


def test_holdem_uses_one_hole_card_when_best() -> None:
    """One hole card can complete the hand (002:L392)."""
    hand = native_eval.best_hand("holdem", "Ah 2c", "Kh Qh Jh 9h 3d")
    assert hand.category == "flush"
    assert hand.cards == ["Ah", "Kh", "Qh", "Jh", "9h"]


def test_holdem_best_hand_on_flop_and_turn() -> None:
    """A partial board (flop or turn) is accepted by best_hand."""
    flop = native_eval.best_hand("holdem", "Ah Ad", "As 7c 2d")
    assert flop.category == "three_of_a_kind"
    turn = native_eval.best_hand("holdem", "Ah Ad", "As 7c 2d 7h")
    assert turn.category == "full_house"
    assert turn.cards == ["As", "Ah", "Ad", "7h", "7c"]


@pytest.mark.parametrize("variant", ["pineapple", "crazy_pineapple", "helsinki_holdem"])
def test_discard_variants_show_down_two_hole_cards_like_holdem(variant: str) -> None:
    """Pineapple, Crazy Pineapple and Helsinki Hold'em play as Hold'em after
    the discards (000:L1974-2013): two hole cards, 0-2 of them used."""
    hand = native_eval.best_hand(variant, "Ah Kd", "Ac Kc 7c 7d 2s")
    assert hand == native_eval.best_hand("holdem", "Ah Kd", "Ac Kc 7c 7d 2s")
    assert hand.category == "two_pair"
    with pytest.raises(ValueError, match="expected 2 hole cards, got 3"):
        native_eval.best_hand(variant, "Ah Kd Qs", "Ac Kc 7c 7d 2s")


def test_omaha_one_suited_hole_card_is_no_flush() -> None:
    """Online rules example: A♣ K♦ T♦ 8♥ on K♣ 9♣ 6♣ 6♥ Q♣ is not a flush but
    kings and sixes with an ace (001:L191-194)."""
    hand = native_eval.best_hand("omaha", "Ac Kd Td 8h", "Kc 9c 6c 6h Qc")
    assert hand.category == "two_pair"
    assert hand.cards == ["Kd", "Kc", "6h", "6c", "Ac"]
    assert hand.value == native_eval.evaluate("Kd Kc 6h 6c Ac")


def test_omaha_paired_board_is_no_full_house() -> None:
    """Online rules example: T♥ 9♥ 7♣ 6♣ on a K-K-T-T-5 board is three tens,
    not a full house (001:L196-199; the source's duplicated K♣ is K♠ here)."""
    hand = native_eval.best_hand("omaha", "Th 9h 7c 6c", "Ks Kc Tc Td 5d")
    assert hand.category == "three_of_a_kind"
    assert hand.value == native_eval.evaluate("Th Td Tc Ks 9h")


@pytest.mark.parametrize("variant", ["omaha5", "courchevel"])
def test_five_card_omaha_still_uses_exactly_two_hole_cards(variant: str) -> None:
    """Omaha 5 and Courchevel: five hole cards, exactly 2 + 3 (000:L1865-1891).
    Five hearts in hand and two on board make no flush."""
    hand = native_eval.best_hand(variant, "Ah Kh Qh Jh Th", "2h 3h 4c 5d 9s")
    assert hand.category == "high_card"
    assert hand.value == native_eval.evaluate("Ah Kh 9s 5d 4c")


def test_omaha_hilo_low_example_seven_six_beats_eight_four() -> None:
    """7-6-5-3-2 beats 8-4-3-2-A (002:L418); both halves use exactly 2 + 3."""
    seven = native_eval.best_hand("omaha_hilo", "7s 6h Kd Kc", "5c 3d 2h Qs Ks")
    eight = native_eval.best_hand("omaha_hilo", "As 4h Ks Qd", "8c 3d 2h Qh Jc")
    assert seven.low_cards == ["7s", "6h", "5c", "3d", "2h"]
    assert eight.low_cards == ["8c", "4h", "3d", "2h", "As"]
    assert eight.low is not None and seven.low is not None
    assert seven.low > eight.low


def test_omaha_hilo_without_qualifying_low() -> None:
    """With fewer than three board cards of eight or below there is no low."""
    hand = native_eval.best_hand("omaha_hilo", "As 2h 3d 4c", "Ks Qh 9d 8c 8h")
    assert hand.low is None
    assert hand.low_cards is None
    assert hand.category == "pair"


def test_omaha5_hilo_wheel_is_the_best_low() -> None:
    """The wheel A-2-3-4-5 is the best low (000:L2441-2444) and also a straight."""
    hand = native_eval.best_hand("omaha5_hilo", "As 2h Kd Kc Qs", "3c 4d 5h Jh 9c")
    assert hand.low_cards == ["5h", "4d", "3c", "2h", "As"]
    assert hand.low == 6175
    assert hand.category == "straight"


def test_stud_best_five_of_seven() -> None:
    """Seven Card Stud plays the best five of seven cards (000:L2276-2278)."""
    hand = native_eval.best_hand("stud", "9s 9h 9d 2c 2d Kh Qs")
    assert hand.category == "full_house"
    assert hand.cards == ["9s", "9h", "9d", "2d", "2c"]


def test_stud_with_a_shortage_community_card() -> None:
    """When the deck runs short a community card replaces the seventh card (000:L2318-2322)."""
    hand = native_eval.best_hand("stud", "9s 9h 2c 2d Kh Qs", "9d")
    assert hand.category == "full_house"


def test_stud_hilo_high_and_low_from_different_cards() -> None:
    """High and low may use different cards and one player may hold both (000:L2447-2449)."""
    hand = native_eval.best_hand("stud_hilo", "As 2s 3s 4s 5d Ks Kd")
    assert hand.category == "flush"
    assert hand.cards == ["As", "Ks", "4s", "3s", "2s"]
    assert hand.low_cards == ["5d", "4s", "3s", "2s", "As"]


def test_razz_order_of_the_rulebook_example() -> None:
    """Razz example, worst to best (000:L2488-2502): pairs lose to no pair,
    the ace is low, straights and flushes do not count."""
    # Razz hands hold seven cards: each example gets two extra cards of ranks
    # it already holds, chosen so that the best low stays the example hand.
    order = [
        ("3s 3h 3d 5c 5s", "3c 5d"),
        ("Ks Kh 4d 3c 2s", "Kd Kc"),
        ("2s 2h 7d 6c 5s", "2d 2c"),
        ("As Ah Td 9c 8s", "Ad Ac"),
        ("Ks Qh Jd Tc 9s", "Kd Qd"),
        ("Ks Qh Jd Tc 7s", "Kd Qd"),
        ("9s 8h 7d 6c 5s", "9d 8d"),
        ("9s 8h 3d 2c As", "9d 8d"),
        ("9s 7h 6d 5c 4s", "9d 7d"),
        ("6s 5h 4d 3c 2s", "6d 5d"),
        ("6s 4h 3d 2c As", "6d 4d"),
        ("5s 4h 3d 2c As", "5d 4d"),
    ]
    values = []
    for five, extra in order:
        hand = native_eval.best_hand("razz", f"{five} {extra}")
        assert sorted(c[0] for c in hand.cards) == sorted(c[0] for c in five.split())
        values.append(hand.value)
    assert values == sorted(values)
    assert len(set(values)) == len(values)


def test_razz_j6_beats_j7() -> None:
    """J-6-5-4-3 beats J-7-3-2-A: compare from the highest card down (000:L2482-2484)."""
    j6 = native_eval.best_hand("razz", "Js 6h 5d 4c 3s Kd Kh")
    j7 = native_eval.best_hand("razz", "Js 7h 3d 2c As Kc Ks")
    assert j6.value > j7.value
    assert j6.low == j6.value
    assert j6.low_cards == ["Js", "6h", "5d", "4c", "3s"]
    assert j6.category == "high_card"


def test_razz_has_no_qualifier() -> None:
    """Hands above eight or with pairs still have a low in Razz (000:L2481-2482)."""
    hand = native_eval.best_hand("razz", "Ks Kh Qd Qc Js Jh Td")
    assert hand.low is not None
    assert hand.category == "pair"
    assert [c[0] for c in hand.low_cards or []] == ["J", "J", "K", "Q", "T"]


def test_soko_four_flush_beats_four_straight_beats_pair() -> None:
    """Sökö: two pair > four-flush > four-straight > one pair (000:L2069-2072)."""
    pair = native_eval.best_hand("soko", "As Ad Kh 7c 2s")
    four_straight = native_eval.best_hand("soko", "5s 6h 7d 8c Ks")
    four_flush = native_eval.best_hand("soko", "2h 5h 9h Jh Ks")
    two_pair = native_eval.best_hand("soko", "3s 3d 2h 2c 4s")
    assert four_straight.category == "four_straight"
    assert four_flush.category == "four_flush"
    assert pair.value < four_straight.value < four_flush.value < two_pair.value


def test_soko_fifth_card_decides_equal_four_card_hands() -> None:
    """Equal four-straights or four-flushes: the fifth card decides, else a split (000:L2075-2079)."""
    king = native_eval.best_hand("soko", "5s 6h 7d 8c Ks")
    queen = native_eval.best_hand("soko", "5h 6d 7c 8s Qs")
    king_again = native_eval.best_hand("soko", "5d 6c 7s 8h Kh")
    assert king.value > queen.value
    assert king.value == king_again.value
    flush_king = native_eval.best_hand("soko", "2h 5h 9h Jh Ks")
    flush_queen = native_eval.best_hand("soko", "2d 5d 9d Jd Qs")
    assert flush_king.value > flush_queen.value


def test_soko_no_four_card_straight_flush() -> None:
    """There is no four-card straight flush: four suited cards in sequence are a four-flush."""
    hand = native_eval.best_hand("soko", "5h 6h 7h 8h Ks")
    assert hand.category == "four_flush"
    assert hand.value < native_eval.best_hand("soko", "3s 3d 2h 2c 4s").value


def test_soko_standard_hands_keep_their_order() -> None:
    """From two pair up, Sökö ranks as standard poker."""
    straight = native_eval.best_hand("soko", "5s 6h 7d 8c 9s")
    flush = native_eval.best_hand("soko", "2h 5h 9h Jh Kh")
    assert straight.category == "straight"
    assert flush.category == "flush"
    assert straight.value < flush.value


def test_five_card_draw_ranks_the_five_cards_held() -> None:
    """Five Card Draw: the best five-card hand wins (002:L1979)."""
    hand = native_eval.best_hand("five_card_draw", "Js Jh 4d 4c 2s")
    assert hand.category == "two_pair"
    assert hand.value == native_eval.evaluate("Js Jh 4d 4c 2s")


def test_double_flop_evaluates_one_board_at_a_time() -> None:
    """Double Flop: each board is judged on its own with hold'em formation (000:L2017-2034)."""
    upper = native_eval.best_hand("double_flop", "Ah Ad", "As 7c 2d 9h 4s")
    lower = native_eval.best_hand("double_flop", "Ah Ad", "Kc Qc Jc Tc 3d")
    assert upper.category == "three_of_a_kind"
    assert lower.category == "straight"


def test_sviten_own_five_and_two_plus_three_hands() -> None:
    """Sviten: one half plays the five own cards, the other exactly 2 own + 3 board (000:L1924-1928)."""
    own = native_eval.best_hand("sviten", "Ah Kh Qh Jh 9h")
    assert own.category == "flush"
    mixed = native_eval.best_hand("sviten", "Ah Kh Qh Jh 9h", "2c 2d 2s 7c 8c")
    assert mixed.category == "three_of_a_kind"
    assert mixed.cards == ["2s", "2d", "2c", "Ah", "Kh"]


def test_three_card_straight_beats_flush() -> None:
    """Three-card ranking: high < pair < flush < straight < trips < straight flush (002:L502-519)."""
    order = ["As Kd 9c", "2s 2h 3d", "As Ks 9s", "4s 5h 6d", "2s 2h 2d", "As 2s 3s"]
    hands = [native_eval.best_hand("three_card", h) for h in order]
    assert [h.category for h in hands] == [
        "high_card",
        "pair",
        "flush",
        "straight",
        "three_of_a_kind",
        "straight_flush",
    ]
    assert [h.value for h in hands] == sorted(h.value for h in hands)


def test_three_card_ace_two_three_is_the_lowest_straight() -> None:
    """Decision: A-2-3 is the lowest straight and A-K-Q the highest (002:L458)."""
    wheel = native_eval.best_hand("three_card", "As 2h 3d")
    assert wheel.category == "straight"
    assert wheel.value < native_eval.best_hand("three_card", "2s 3h 4d").value
    assert native_eval.best_hand("three_card", "As Kh Qd").value > native_eval.best_hand("three_card", "Ks Qh Jd").value
    assert native_eval.best_hand("three_card", "Ks Ah 2d").category == "high_card"
