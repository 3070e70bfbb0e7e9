"""showdown: pot splitting, side pots, hi/lo halves, two boards and odd chips.

Citations: (000:Lx) poker room rules, (001:Lx) online rules. Decisions taken
where the rules are silent are documented in native_eval/src/showdown.rs.
"""

from __future__ import annotations

import native_eval


def test_side_pot_example_main_300_side_1800() -> None:
    """A bets 1,000, B calls, C is all-in for 100: main pot 300 (A, B, C),
    side pot 1,800 (A, B) (001:L80). C's best hand wins only the main pot."""
    a, b, c = 1, 2, 3
    result = native_eval.showdown(
        "holdem",
        "2c 7d 9h Js 4d",
        {a: "Ks Kd", b: "Qs Qd", c: "As Ad"},
        [(300, [a, b, c]), (1800, [a, b])],
        button=b,
    )
    assert result.awards == {c: 300, a: 1800}
    main, side = result.pots
    assert (main.amount, main.eligible, main.high_winners, main.awards) == (300, [1, 2, 3], [c], {c: 300})
    assert (side.amount, side.eligible, side.high_winners, side.awards) == (1800, [1, 2], [a], {a: 1800})
    assert main.low_winners == []
    assert side.low_shares == {}


def test_tied_hands_split_the_pot_equally() -> None:
    """Two equal best hands share the pot (000:L1640-1642); suits do not matter."""
    result = native_eval.showdown(
        "holdem", "2c 7d 9h Js Kd", {2: "Ac 3h", 7: "Ad 3s", 4: "Qc 5h"}, [(300, [2, 4, 7])], button=5
    )
    assert result.awards == {2: 150, 7: 150}
    assert result.pots[0].high_winners == [2, 7]


def test_odd_chip_goes_left_of_button() -> None:
    """Board games: the odd chip goes to the first sharing seat clockwise from
    the button (000:L1647-1649); clockwise is increasing seat number."""
    hands = {2: "Ac 3h", 7: "Ad 3s", 4: "Qc 5h"}
    after_five = native_eval.showdown("holdem", "2c 7d 9h Js Kd", hands, [(301, [2, 4, 7])], button=5)
    assert after_five.awards == {7: 151, 2: 150}
    after_one = native_eval.showdown("holdem", "2c 7d 9h Js Kd", hands, [(301, [2, 4, 7])], button=1)
    assert after_one.awards == {2: 151, 7: 150}


def test_several_odd_chips_go_one_each_clockwise_wrapping_past_the_last_seat() -> None:
    """A remainder of two chips: one each, clockwise from the button, wrapping
    from the highest seat to the lowest (001:L92: leftover cents one at a time)."""
    hands = {1: "2c 3c", 4: "2d 3d", 8: "2h 3h"}
    royal_board = "As Ks Qs Js Ts"
    result = native_eval.showdown("holdem", royal_board, hands, [(302, [1, 4, 8])], button=6)
    assert result.awards == {8: 101, 1: 101, 4: 100}


def test_button_seat_is_last_in_odd_chip_order() -> None:
    """When the button shares the pot it is the last seat clockwise from itself."""
    hands = {1: "2c 3c", 4: "2d 3d", 8: "2h 3h"}
    result = native_eval.showdown("holdem", "As Ks Qs Js Ts", hands, [(302, [1, 4, 8])], button=8)
    assert result.awards == {1: 101, 4: 101, 8: 100}


def test_each_pot_is_split_separately() -> None:
    """Main and side pots are never merged (000:L1666): odd chips per pot."""
    hands = {1: "2c 3c", 2: "2d 3d", 3: "2h 3h"}
    result = native_eval.showdown("holdem", "As Ks Qs Js Ts", hands, [(31, [1, 2, 3]), (11, [2, 3])], button=3)
    assert [p.awards for p in result.pots] == [{1: 11, 2: 10, 3: 10}, {2: 6, 3: 5}]
    assert result.awards == {1: 11, 2: 16, 3: 15}


def test_hilo_splits_high_and_low_halves_odd_chip_to_high() -> None:
    """Hi/lo: half to the best high, half to the best qualifying low; the odd
    chip between the halves goes to high (000:L1655-1659, 000:L2438-2439)."""
    result = native_eval.showdown(
        "omaha_hilo",
        "2c 5d 8h Ks Kd",
        {1: "Kh Kc Qs Qd", 2: "As 3h Jc Jd"},
        [(1001, [1, 2])],
        button=2,
    )
    assert result.awards == {1: 501, 2: 500}
    pot = result.pots[0]
    assert pot.high_winners == [1]
    assert pot.low_winners == [2]
    assert pot.high_shares == {1: 501}
    assert pot.low_shares == {2: 500}


def test_hilo_without_qualifying_low_high_takes_the_pot() -> None:
    """No qualifying low: the high hand wins the whole pot (000:L2451-2452)."""
    result = native_eval.showdown(
        "omaha_hilo",
        "Ts Jd Qh Ks 9d",
        {1: "As Ac 7h 7d", 2: "2c 3d 4s 5h"},
        [(1001, [1, 2])],
        button=2,
    )
    assert result.awards == {1: 1001}
    assert result.pots[0].low_winners == []


def test_one_player_may_scoop_high_and_low() -> None:
    """The same player can win both halves (000:L2447-2449)."""
    result = native_eval.showdown(
        "stud_hilo",
        "",
        {1: "As 2s 3s 4s 5s Kd Kh", 2: "8c 7c 6d 5d 4d Qh Jh"},
        [(500, [1, 2])],
        button=0,
    )
    assert result.awards == {1: 500}
    assert result.pots[0].high_winners == [1]
    assert result.pots[0].low_winners == [1]


def test_quartered_pot() -> None:
    """A tie for low only: one player gets the high half plus a quarter
    (000:L2452-2454: a pot can be divided into more than two parts)."""
    hands = {1: "Kh Kc As 3h", 2: "Ad 3c Jc Jd"}
    even = native_eval.showdown("omaha_hilo", "2c 5d 8h Ks Kd", hands, [(400, [1, 2])], button=9)
    assert even.awards == {1: 300, 2: 100}
    assert even.pots[0].low_winners == [1, 2]
    # 403: high half 202; low half 201 splits 101/100, the odd chip to the
    # first low winner clockwise from the button.
    odd_after_nine = native_eval.showdown("omaha_hilo", "2c 5d 8h Ks Kd", hands, [(403, [1, 2])], button=9)
    assert odd_after_nine.awards == {1: 303, 2: 100}
    odd_after_one = native_eval.showdown("omaha_hilo", "2c 5d 8h Ks Kd", hands, [(403, [1, 2])], button=1)
    assert odd_after_one.awards == {1: 302, 2: 101}


def test_players_with_identical_high_and_low_split_as_evenly_as_possible() -> None:
    """Identical high and low hands split the pot as evenly as possible
    (000:L1662-1663): 10 chips give 5 and 5, not 3+3 and 2+2."""
    hands = {1: "As 5d Kc 9h", 2: "Ah 5c Kh 9s", 3: "Tc Td Jh Jd"}
    ten = native_eval.showdown("omaha_hilo", "2c 3d 4h Ks Qd", hands, [(10, [1, 2, 3])], button=3)
    assert ten.awards == {1: 5, 2: 5}
    assert ten.pots[0].high_shares == {1: 3, 2: 2}
    assert ten.pots[0].low_shares == {1: 2, 2: 3}
    eleven = native_eval.showdown("omaha_hilo", "2c 3d 4h Ks Qd", hands, [(11, [1, 2, 3])], button=3)
    assert eleven.awards == {1: 6, 2: 5}


def test_stud_odd_chip_goes_to_the_highest_card_by_suit() -> None:
    """Stud: the odd chip goes to the highest card, ties broken by Bridge Rank
    Order, spades > hearts > diamonds > clubs (000:L1650-1652, L2053-2054)."""
    hands = {1: "Ah Kd Qc Jh 9s 3c 2d", 2: "As Ks Qd Jc 9h 4c 2h"}
    result = native_eval.showdown("stud", "", hands, [(101, [1, 2])], button=2)
    assert result.pots[0].high_winners == [1, 2]
    assert result.awards == {2: 51, 1: 50}


def test_razz_odd_chip_goes_to_the_lowest_card_clubs_lowest() -> None:
    """Low games give the odd chip to the lowest card (000:L1650-1652).
    Decision: the ace is the lowest rank and, between equal ranks, the club
    (the lowest suit in Bridge Rank Order) is the lowest card."""
    hands = {1: "Ad 2c 3h 4s 5c Kd Kh", 2: "Ac 2d 3s 4h 5d Qd Qh"}
    result = native_eval.showdown("razz", "", hands, [(101, [1, 2])], button=1)
    assert result.pots[0].low_winners == [1, 2]
    assert result.pots[0].high_winners == []
    assert result.awards == {2: 51, 1: 50}


def test_stud_hilo_high_half_by_highest_card_low_half_by_lowest_card() -> None:
    """Hi/lo stud: each split half follows the high-only or low-only stud rule (000:L1655-1659)."""
    hands = {
        1: "Ah Kd Qc Jh 9s 8c 7d",
        2: "As Ks Qd Jc 9h 8h 7h",
        3: "2c 3d 4h 5s 7c 9d 8d",
    }
    # High: seats 1 and 2 tie with A-K-Q-J-9; low: seat 3 alone (7-5-4-3-2).
    result = native_eval.showdown("stud_hilo", "", hands, [(202, [1, 2, 3])], button=3)
    pot = result.pots[0]
    assert pot.high_winners == [1, 2]
    assert pot.low_winners == [3]
    assert pot.high_shares == {2: 51, 1: 50}
    assert pot.low_shares == {3: 101}


def test_stud_with_shortage_community_card() -> None:
    """Stud accepts the community cards dealt when the deck runs out (000:L2318-2322)."""
    result = native_eval.showdown(
        "stud", "9d", {1: "9s 9h 2c 2d Kh Qs", 2: "As Ah Ad 3c 4c 5h"}, [(50, [1, 2])], button=1
    )
    assert result.awards == {1: 50}


def test_soko_odd_chip_follows_the_stud_rule() -> None:
    """Decision: Sökö is five-card stud, so its odd chip goes to the highest card."""
    hands = {1: "Ah Kd Qc Jh 9s", 2: "As Ks Qd Jc 9h"}
    result = native_eval.showdown("soko", "", hands, [(7, [1, 2])], button=2)
    assert result.awards == {2: 4, 1: 3}


def test_split_of_two_boards() -> None:
    """Double Flop: half the pot per board (000:L2017-2034)."""
    boards = ("Ah Kd 7c 2s 3h", "Qs Jd 9c 5h 4d")
    hands = {1: "As Ad", 2: "Qh Qd", 3: "8c 6c"}
    result = native_eval.showdown("double_flop", boards, hands, [(1000, [1, 2, 3])], button=3)
    assert result.awards == {1: 500, 2: 500}
    pot = result.pots[0]
    assert (pot.high_winners, pot.low_winners) == ([1], [2])


def test_two_boards_odd_chip_to_the_first_winner_left_of_button() -> None:
    """000:L1647-1649: an odd pot's extra chip goes to the first winner
    clockwise from the button."""
    boards = ("Ah Kd 7c 2s 3h", "Qs Jd 9c 5h 4d")
    hands = {1: "As Ad", 2: "Qh Qd", 3: "8c 6c"}
    after_one = native_eval.showdown("double_flop", boards, hands, [(1001, [1, 2, 3])], button=1)
    assert after_one.awards == {2: 501, 1: 500}
    after_two = native_eval.showdown("double_flop", boards, hands, [(1001, [1, 2, 3])], button=2)
    assert after_two.awards == {1: 501, 2: 500}


def test_two_boards_odd_chip_goes_to_the_player_not_to_a_half_split_again() -> None:
    """000:L1647-1649: the odd chip of an odd pot goes to the first player
    clockwise from the button who takes part in the division, not to a half
    that is then divided again: pot 7, board 1 tied by seats 1 and 2, board 2
    to seat 3, button 3 gives 3, 1, 3 (a half of 4 re-split would give 2, 2, 3)."""
    boards = ("Ah Kd 7c 2s 3h", "Qs Jd 9c 5h 4d")
    hands = {1: "As 8h", 2: "Ac 8d", 3: "Qh Qd"}
    result = native_eval.showdown("double_flop", boards, hands, [(7, [1, 2, 3])], button=3)
    assert result.awards == {1: 3, 2: 1, 3: 3}
    pot = result.pots[0]
    assert (pot.high_winners, pot.low_winners) == ([1, 2], [3])
    assert pot.high_shares == {1: 3, 2: 1}
    assert pot.low_shares == {3: 3}


def test_best_on_both_boards_takes_the_whole_pot() -> None:
    """The same player best on both boards wins the whole pot (000:L2031-2032)."""
    boards = ["Ah Kd 7c 2s 3h", "Ac Jd 9c 5h 4d"]
    result = native_eval.showdown("double_flop", boards, {1: "As Ad", 2: "Qh Qd"}, [(1001, [1, 2])], button=1)
    assert result.awards == {1: 1001}


def test_sviten_halves_and_odd_chip_to_the_better_own_hand() -> None:
    """Sviten: half to the best own five cards, half to the best 2 + 3 hand;
    the odd chip goes to the better own-five-card hand, before button order
    (000:L1669-1672, L1924-1928)."""
    board = "2c 2d 2s 7c 8c"
    hands = {1: "Ah Kh Qh Jh 9h", 2: "As Ks Qs Jd 9d"}
    # Own half 502 to seat 1 (flush); the 2 + 3 half (501) is a tie of trip
    # deuces with A-K: its odd chip goes to seat 1's better own hand even
    # though seat 2 is first after the button.
    result = native_eval.showdown("sviten", board, hands, [(1003, [1, 2])], button=1)
    pot = result.pots[0]
    assert pot.high_winners == [1]
    assert pot.low_winners == [1, 2]
    assert pot.high_shares == {1: 502}
    assert pot.low_shares == {1: 251, 2: 250}
    assert result.awards == {1: 753, 2: 250}


def test_sviten_equal_own_hands_fall_back_to_button_order() -> None:
    """If the own hands are equal, the odd chip goes to the first player after the button (000:L1671-1672)."""
    board = "2c 2d 2s 7c 8c"
    hands = {1: "Ah Kh Qh Jh 9h", 2: "As Ks Qs Jd 9d", 3: "Ad Kd Qd Js 9s"}
    result = native_eval.showdown("sviten", board, hands, [(1007, [1, 2, 3])], button=2)
    pot = result.pots[0]
    assert pot.high_shares == {1: 504}
    assert pot.low_shares == {1: 168, 3: 168, 2: 167}
    assert result.awards == {1: 672, 3: 168, 2: 167}


def test_five_card_draw_and_three_card_use_the_button_rule() -> None:
    """Decision: draw and three-card games have a button and no upcards, so
    their odd chips go clockwise from the button."""
    draw = native_eval.showdown("five_card_draw", "", {3: "As Kd Qc Jh 9s", 5: "Ah Ks Qd Jc 9h"}, [(5, [3, 5])], button=3)
    assert draw.awards == {5: 3, 3: 2}
    three = native_eval.showdown("three_card", "", {3: "As Kd 9c", 5: "Ah Ks 9h"}, [(5, [3, 5])], button=5)
    assert three.awards == {3: 3, 5: 2}


def test_dead_button_seat_without_a_hand() -> None:
    """The button may be a seat that holds no hand (a dead button)."""
    result = native_eval.showdown("holdem", "As Ks Qs Js Ts", {2: "2c 3c", 6: "2d 3d"}, [(3, [2, 6])], button=4)
    assert result.awards == {6: 2, 2: 1}


def test_hands_may_be_lists_and_any_mapping() -> None:
    """Hands accept lists of card strings; pots accept tuples or lists."""

    class Seats(dict[int, list[str]]):
        pass

    result = native_eval.showdown(
        "holdem",
        ["2c", "7d", "9h", "Js", "4d"],
        Seats({1: ["Ks", "Kd"], 2: ["Qs", "Qd"]}),
        [[100, (1, 2)]],  # type: ignore[list-item]
        1,
    )
    assert result.awards == {1: 100}
