"""Pots and side pots from the contributions, and the uncalled bet; dead money
apart from the live bets; the pots a muck at the showdown gives up."""

from __future__ import annotations

import native_eval
import pytest

from casino.poker.engine import (
    IllegalAction,
    Phase,
    Pot,
    Stakes,
    award_uncontested,
    award_without_showdown,
    claimants,
    muck,
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


# --- dead money (issue 21) -------------------------------------------------------------


def test_dead_money_is_never_returned_as_an_uncalled_bet():
    """The big blind bet 3,350 and posted a dead 225 ante; the caller matched his
    3,350. Nothing was left uncalled: the ante is no part of his bet
    (000:L939-941), so the whole 7,000 is one pot."""
    settlement = settle({1: 3350, 2: 75, 3: 3350}, {1, 3}, dead_minor={3: 225})
    assert settlement.returned_minor == ()
    assert settlement.pots == (Pot(7000, (1, 3)),)


def test_only_the_live_bet_is_returned_above_the_next_largest_bet():
    """A raise nobody called comes back without the raiser's ante (000:L1824-1832,
    L932-933)."""
    settlement = settle({1: 800, 2: 100, 3: 200}, {1}, dead_minor={1: 25, 2: 25, 3: 25})
    assert settlement.returned_minor == ((1, 600),)
    assert settlement.pots == (Pot(575, (1,)),)


def test_a_short_all_in_big_blind_with_an_ante_contests_his_live_bet_and_the_dead_money():
    """Big blind 100 live and a 50 ante, all-in; two players bet 800 each. Main pot:
    100 from each bettor, the small blind's 50 and the dead 50 (000:L932-933,
    L346-350)."""
    settlement = settle({1: 800, 2: 50, 3: 100, 4: 800}, {1, 3, 4}, dead_minor={3: 50})
    assert settlement.pots == (Pot(400, (1, 3, 4)), Pot(1400, (1, 4)))


def test_a_player_all_in_on_a_short_ante_contests_only_antes_he_matched():
    """Everyone antes 25; seat 4 had 10. Decision (pots.settle): he contests 10 of
    each ante; the rest of the antes and the bets go to the others."""
    settlement = settle({1: 300, 2: 300, 3: 0, 4: 0}, {1, 2, 4},
                        dead_minor={1: 25, 2: 25, 3: 25, 4: 10})
    assert settlement.pots == (Pot(40, (1, 2, 4)), Pot(645, (1, 2)))


def test_the_engine_keeps_the_big_blind_ante_apart_from_the_bet():
    """Played: blinds 75/150 and a 225 big-blind ante; the big blind shoves for
    3,350 live and is called."""
    stakes = Stakes(small_blind_minor=75, big_blind_minor=150, big_blind_ante_minor=225)
    state = start_hand("holdem", "no_limit", stakes, {1: 10_000, 2: 10_000, 3: 3575}, 1)
    state = play(state, (1, "call"), (2, "fold"), (3, "all_in"), (1, "call"))
    assert state.bets_minor == {1: 3350, 2: 75, 3: 3350}
    assert state.dead_minor == {1: 0, 2: 0, 3: 225}
    assert state.contributions_minor[3] == 3575
    settlement = settle_hand(state)
    assert (settlement.returned_minor, settlement.pots) == ((), (Pot(7000, (1, 3)),))


def test_a_returning_player_posts_the_big_blind_live_and_the_small_blind_dead():
    """000:L1152-1155: both missed blinds; the big one is his bet, with the option
    to check, the small one goes straight into the pot."""
    state = start_hand("holdem", "no_limit", NL_50_100, {1: 5000, 2: 5000, 3: 5000, 4: 5000},
                       1, missed_blinds={4: "big"})
    assert [(r.seat, r.kind, r.added_minor) for r in state.log] == [
        (2, "small_blind", 50), (3, "big_blind", 100), (4, "missed_big_blind", 100),
        (4, "dead_small_blind", 50)]
    assert (state.bets_minor[4], state.dead_minor[4]) == (100, 50)
    state = play(state, (4, "check"), (1, "call"), (2, "call"), (3, "check"))
    assert state.street_index == 1 and state.pot_minor == 450
    small = start_hand("holdem", "no_limit", NL_50_100, {1: 5000, 2: 5000, 3: 5000, 4: 5000},
                       1, missed_blinds={4: "small"})
    # 000:L1165-1167: a small blind missed alone is part of his bet.
    assert (small.bets_minor[4], small.dead_minor[4]) == (50, 0)
    with pytest.raises(ValueError):
        start_hand("holdem", "no_limit", NL_50_100, {1: 5000, 2: 5000, 3: 5000}, 1,
                   missed_blinds={3: "big"})  # seat 3 is the big blind


# --- mucking at the showdown -----------------------------------------------------------


def test_claimants_drop_a_mucked_hand_and_give_a_pot_all_mucked_to_the_last_to_muck():
    """A hand thrown away is dead (000:L245-248); if all in a pot gave up, the one
    who held cards last wins it (000:L192-195)."""
    pots = (Pot(300, (1, 2, 3)), Pot(800, (2, 3)))
    assert claimants(pots, [2]) == (Pot(300, (1, 3)), Pot(800, (3,)))
    assert claimants(pots, [3, 2]) == (Pot(300, (1,)), Pot(800, (2,)))
    assert award_uncontested(claimants(pots, [3, 2])) == {1: 300, 2: 800}
    with pytest.raises(InvariantViolation):
        award_uncontested(pots)


def test_a_muck_is_recorded_only_at_the_showdown_and_the_last_holder_wins():
    state = start_hand("holdem", "no_limit", NL_50_100, {1: 5000, 2: 5000, 3: 5000}, 3)
    with pytest.raises(IllegalAction) as caught:
        muck(state, 1)
    assert caught.value.code == "poker.muck_before_showdown"
    state = call_down(state, 4)
    assert state.phase is Phase.SHOWDOWN
    state = muck(state, 2)
    assert (state.phase, state.mucked, state.holding_seats) == (Phase.SHOWDOWN, (2,), (1, 3))
    assert state.log[-1].kind == "muck" and state.log[-1].added_minor == 0
    with pytest.raises(IllegalAction) as caught:
        muck(state, 2)
    assert caught.value.code == "poker.not_in_hand"
    state = muck(state, 1)
    assert (state.phase, state.winner_without_showdown) == (Phase.COMPLETE, 3)
    with pytest.raises(IllegalAction) as caught:
        muck(state, 3)
    assert caught.value.code == "poker.hand_over"
