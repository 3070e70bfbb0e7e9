"""Pots and side pots from the contributions, and the uncalled bet."""

from __future__ import annotations

import native_eval
import pytest

from casino.poker.engine import (
    Pot,
    Stakes,
    award_without_showdown,
    net_pots,
    settle,
    settle_hand,
    start_hand,
)
from casino.poker.engine.errors import InvariantViolation
from tests.casino.poker.engine.conftest import call_down, play

NL_50_100 = Stakes(small_blind_minor=50, big_blind_minor=100)


def test_side_pot_example_main_pot_300_side_pot_1800():
    """A bets 1,000, B calls, C calls all-in for 100: main pot 300 (A, B, C), side pot
    1,800 (A, B) (001:L80).
    """
    settlement = settle({"A": 1000, "B": 1000, "C": 100}, {"A", "B", "C"})
    assert settlement.returned_minor == ()
    assert settlement.pots == (Pot(300, ("A", "B", "C")), Pot(1800, ("A", "B")))


def test_side_pot_example_played_through_the_betting():
    """The same hand played: C's call for less is all-in and the pots follow
    (001:L78-80, L82).
    """
    stakes = Stakes(small_blind_minor=50, big_blind_minor=100)
    state = start_hand("holdem", "no_limit", stakes, {1: 5000, 2: 5000, 3: 200}, 3)
    state = call_down(state, 1)
    state = play(state, (1, "bet", 1000), (2, "call"), (3, "call"))
    assert state.log[-1].all_in
    flop = settle_hand(call_down(state, 4))
    # Pre-flop each put in 100, on the flop A and B 1,000 and C 100.
    assert flop.pots == (Pot(300 + 300, (1, 2, 3)), Pot(1800, (1, 2)))


def test_folded_chips_stay_in_the_pots_but_the_folded_player_is_not_eligible():
    """A player who folds is out of every pot; the chips they put in stay (000:L1666;
    001:L52-54).
    """
    settlement = settle({1: 500, 2: 800, 3: 800, 4: 200}, live_seats={2, 3, 4})
    assert settlement.pots == (Pot(800, (2, 3, 4)), Pot(1500, (2, 3)))


def test_uncalled_part_of_the_largest_bet_goes_back_before_the_pots_are_built():
    """Only the called part of a bet is in the pot; the rest is returned first
    (000:L1824-1832).
    """
    settlement = settle({1: 3000, 2: 1200, 3: 400}, live_seats={1, 2, 3})
    assert settlement.returned_minor == ((1, 1800),)
    assert settlement.pots == (Pot(1200, (1, 2, 3)), Pot(1600, (1, 2)))


def test_several_all_ins_make_side_pots_in_the_order_they_formed():
    """Each all-in level closes a pot: main pot first, then side pots in formation order
    (000:L346-350, L1666).
    """
    settlement = settle({1: 100, 2: 250, 3: 600, 4: 600, 5: 50}, live_seats={1, 2, 3, 4, 5})
    assert settlement.pots == (
        Pot(250, (1, 2, 3, 4, 5)), Pot(200, (1, 2, 3, 4)), Pot(450, (2, 3, 4)), Pot(700, (3, 4)))


def test_a_pot_won_without_showdown_needs_no_cards():
    """The last player in wins every pot unseen (000:L192-195, L1824-1832)."""
    state = start_hand("holdem", "no_limit", NL_50_100, {1: 5000, 2: 5000, 3: 5000}, 3)
    state = play(call_down(state, 1), (1, "bet", 300), (2, "fold"), (3, "fold"))
    settlement = settle_hand(state)
    assert settlement.returned_minor == ((1, 300),)
    assert award_without_showdown(settlement.pots, state.winner_without_showdown) == 300


@pytest.mark.parametrize(
    "dead_minor, awards",
    [(1, {4: 101, 2: 100, 3: 100}), (2, {4: 101, 2: 101, 3: 100})],
    ids=["one_odd_chip_case", "two_odd_cents_case"],
)
def test_pots_are_the_shape_native_eval_showdown_takes_and_odd_chips_go_after_the_button(
    dead_minor, awards
):
    """Ties split each pot; odd chips go one at a time clockwise from the button
    (000:L1647-1649; 001:L92).
    """
    # Seat 5 folded after putting in a chip or two, so the pot does not divide.
    pots = settle({2: 100, 3: 100, 4: 100, 5: dead_minor}, {2, 3, 4}).pots
    assert pots == (Pot(300 + dead_minor, (2, 3, 4)),)
    # The board plays: every player has the same broadway straight.
    result = native_eval.showdown(
        "holdem", "Ah Kd Qc Js Tc", {2: "2c 3d", 3: "4h 5s", 4: "6h 7s"}, pots, 3)
    assert result.awards == awards


def test_net_pots_subtract_what_rake_and_drop_take_per_pot():
    """What is left in each pot after rake and drop is what the showdown awards."""
    pots = (Pot(2400, (1, 2, 3)), Pot(1600, (1, 2)))
    assert net_pots(pots, (200, 0), (100, 0)) == (Pot(2100, (1, 2, 3)), Pot(1600, (1, 2)))
    with pytest.raises(InvariantViolation):
        net_pots(pots, (2500, 0))
