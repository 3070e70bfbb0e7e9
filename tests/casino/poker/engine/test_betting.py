"""The betting rules, one worked example of the digests per test.

Seats are numbered clockwise; the small blind is the first seat after the
button. Amounts are minor units and, as at the table, a bet or raise amount is
the player's total on the street (000:L1241-1243).
"""

from __future__ import annotations

import copy

import pytest

from casino.error_table import status_for
from casino.poker.engine import (
    Action,
    IllegalAction,
    Phase,
    Stakes,
    apply,
    bar_bet_and_raise,
    interpret_chips,
    interpret_raise,
    legal_actions,
    open_street,
    round_to_big_blind,
    settle_hand,
    start_hand,
)
from tests.casino.poker.engine.conftest import call_down, play

NL_50_100 = Stakes(small_blind_minor=50, big_blind_minor=100)


def refused(state, action) -> IllegalAction:
    """Apply an action that must be refused; the state must not change."""
    before = copy.deepcopy(state)
    with pytest.raises(IllegalAction) as caught:
        apply(state, action)
    assert state == before
    return caught.value


# ---------------------------------------------------------------------------
# Forced bets and turn order
# ---------------------------------------------------------------------------


def test_blinds_left_of_the_button_and_the_player_after_the_big_blind_opens():
    """SB left of the button, BB next; left of the BB acts first, then after the button
    (000:L920-928).
    """
    state = start_hand("holdem", "no_limit", NL_50_100, {1: 1000, 2: 1000, 3: 1000, 4: 1000}, 4)
    posts = [(r.seat, r.kind, r.added_minor) for r in state.log]
    assert posts == [(1, "small_blind", 50), (2, "big_blind", 100)]
    assert (state.to_act, state.high_bet_minor, state.pot_minor) == (3, 100, 150)
    state = call_down(state, 1)
    assert (state.street.name, state.to_act, state.pot_minor) == ("flop", 1, 400)


def test_heads_up_the_button_posts_the_small_blind_acts_first_then_last():
    """Heads-up: the button posts the SB and acts first preflop, the BB first after
    (000:L1226-1230; 001:L34).
    """
    state = start_hand("holdem", "no_limit", NL_50_100, {3: 1000, 7: 1000}, 7)
    assert [(r.seat, r.kind) for r in state.log] == [(7, "small_blind"), (3, "big_blind")]
    assert state.to_act == 7
    state = play(state, (7, "call"), (3, "check"))
    assert (state.street.name, state.to_act) == ("flop", 3)


def test_big_blind_may_check_its_option_when_nobody_raised():
    """The big blind may check pre-flop if nobody has raised (001:L56-58)."""
    state = start_hand("holdem", "no_limit", NL_50_100, {1: 1000, 2: 1000, 3: 1000}, 3)
    state = play(state, (3, "call"), (1, "call"))
    menu = legal_actions(state)
    assert (menu.seat, menu.check, menu.call_to_minor, menu.raise_min_minor) == (2, True, None, 200)
    state = play(state, (2, "check"))
    assert (state.street.name, state.pot_minor) == ("flop", 300)


def test_a_hand_may_have_no_small_blind_when_the_big_blind_moves_on():
    """Example 1: P3 quits after the BB; P2 keeps the button, P4 posts the BB, no SB;
    then P4 SB, P5 BB (000:L1045-1065).
    """
    seats = {1: 5000, 2: 5000, 4: 5000, 5: 5000}
    hand_2 = start_hand("holdem", "no_limit", NL_50_100, seats, 2, blind_seats=(None, 4))
    assert ([(r.seat, r.kind) for r in hand_2.log], hand_2.to_act) == ([(4, "big_blind")], 5)
    hand_3 = start_hand("holdem", "no_limit", NL_50_100, seats, 2, blind_seats=(4, 5))
    assert ([(r.seat, r.kind) for r in hand_3.log], hand_3.to_act) == (
        [(4, "small_blind"), (5, "big_blind")], 1)


def test_straddle_is_twice_the_big_blind_acts_last_and_sets_the_minimum_raise():
    """A live straddle of 2x BB acts last pre-flop; it counts as a blind, min raise to
    400 (000:L975-979; 003:L119).
    """
    seats = {1: 5000, 2: 5000, 3: 5000, 4: 5000, 5: 5000}
    state = start_hand("holdem", "no_limit", NL_50_100, seats, 5, straddles=1)
    assert [(r.seat, r.kind, r.added_minor) for r in state.log][-1] == (3, "straddle", 200)
    menu = legal_actions(state)
    assert (menu.seat, menu.call_to_minor, menu.raise_min_minor) == (4, 200, 400)
    state = play(state, (4, "call"), (5, "call"), (1, "call"), (2, "call"))
    menu = legal_actions(state)
    assert (menu.seat, menu.check, menu.raise_min_minor) == (3, True, 400)


def test_straddle_chain_may_not_reach_the_seat_after_the_button():
    """Straddles run seat by seat from the first to act and cannot wrap to the SB
    (000:L981-985).
    """
    with pytest.raises(IllegalAction) as caught:
        start_hand("holdem", "no_limit", NL_50_100, {1: 5000, 2: 5000, 3: 5000}, 3, straddles=2)
    assert caught.value.code == "poker.invalid_forced_bet"


# ---------------------------------------------------------------------------
# Minimum bet and raise (pot and no limit)
# ---------------------------------------------------------------------------


def test_minimum_reraise_after_bet_200_and_raise_to_500_is_to_800():
    """Bet 200, raise to 500 (+300): the minimum re-raise is to 800 (000:L1305-1312)."""
    state = start_hand("holdem", "no_limit", NL_50_100, {1: 5000, 2: 5000, 3: 5000}, 3)
    state = play(call_down(state, 1), (1, "bet", 200), (2, "raise", 500))
    assert legal_actions(state).raise_min_minor == 800
    error = refused(state, Action.raise_to(3, 799))
    assert (error.code, error.details["limit_minor"]) == ("poker.raise_below_minimum", 800)
    assert play(state, (3, "raise", 800)).high_bet_minor == 800


def test_online_minimum_raise_after_bet_5_and_raise_to_15_is_to_25():
    """P1 bets 5, P2 raises to 15 (increment 10): the next raise is to at least 25
    (001:L70).
    """
    stakes = Stakes(small_blind_minor=1, big_blind_minor=2)
    state = start_hand("holdem", "no_limit", stakes, {1: 500, 2: 500, 3: 500}, 3)
    state = play(call_down(state, 1), (1, "bet", 5), (2, "raise", 15))
    assert legal_actions(state).raise_min_minor == 25


def test_first_raise_doubles_the_bet_and_a_reraise_adds_the_last_raise_step():
    """Tallinn: the first minimum raise doubles the bet; a re-raise adds the last step
    (003:L43-45).
    """
    stakes = Stakes(small_blind_minor=5, big_blind_minor=10)
    state = start_hand("holdem", "no_limit", stakes, {1: 500, 2: 500, 3: 500}, 3)
    state = play(call_down(state, 1), (1, "bet", 10))
    assert legal_actions(state).raise_min_minor == 20
    state = play(state, (2, "raise", 30))
    assert legal_actions(state).raise_min_minor == 50


def test_a_bet_below_one_big_blind_is_refused_unless_it_is_all_in():
    """Any bet is at least one big blind; only an all-in may be less (001:L71-72;
    000:L1293-1295).
    """
    state = start_hand("holdem", "no_limit", NL_50_100, {1: 150, 2: 5000, 3: 5000}, 3)
    state = call_down(state, 1)
    assert state.player(1).stack_minor == 50
    menu = legal_actions(state)
    assert (menu.bet_min_minor, menu.bet_max_minor) == (50, 50)
    error = refused(state, Action.bet(1, 40))
    assert (error.code, error.details["limit_minor"]) == ("poker.bet_below_minimum", 50)
    state = play(state, (1, "all_in"))
    assert [(r.kind, r.to_minor, r.all_in, r.full_raise) for r in state.log[-1:]] == [
        ("bet", 50, True, False)]
    assert legal_actions(state).raise_min_minor == 150  # 50 + the full big blind


def test_a_bet_of_one_big_blind_less_one_cent_is_refused():
    """With chips to cover it, a bet must be at least one big blind (001:L71)."""
    state = call_down(start_hand("holdem", "no_limit", NL_50_100, {1: 5000, 2: 5000}, 2), 1)
    error = refused(state, Action.bet(1, 99))
    assert (error.code, error.details["limit_minor"]) == ("poker.bet_below_minimum", 100)


@pytest.mark.parametrize(
    "blinds, script, seat, chips_to, declared, expected",
    [
        ((200, 400), (), 3, 600, False, (("raise", 800), 200, 0)),
        ((200, 400), (), 3, 800, False, (("raise", 800), 0, 0)),
        ((300, 600), (), 3, 800, False, (("call", None), 0, 200)),
        ((300, 600), (), 3, 800, True, (("raise", 1200), 400, 0)),
        ((200, 400), ((1, "bet", 2000), (2, "raise", 4500)), 3, 6000, False,
         (("raise", 7000), 1000, 0)),
    ],
    ids=["bb_400_puts_in_600_case", "bb_400_puts_in_800_case", "bb_600_puts_in_800_case",
         "bb_600_declares_raise_puts_in_800_case", "bet_2000_raise_4500_puts_in_6000_case"],
)
def test_fifty_percent_rule_completes_or_reduces_a_short_raise(
    blinds, script, seat, chips_to, declared, expected
):
    """The 50 % rule: at least half the minimum raise completes it, less is a call
    (000:L1320-1352, L1449-1451).
    """
    sb, bb = blinds
    stakes = Stakes(small_blind_minor=sb, big_blind_minor=bb)
    state = start_hand("holdem", "no_limit", stakes, {1: 20000, 2: 20000, 3: 20000}, 3)
    if script:
        state = play(call_down(state, 1), *script)
    reading = interpret_raise(state, chips_to, declared_raise=declared)
    (kind, to), added, returned = expected
    assert (reading.action.seat, reading.action.kind, reading.action.amount_minor) == (seat, kind, to)
    assert (reading.added_minor, reading.returned_minor) == (added, returned)
    apply(state, reading.action)


@pytest.mark.parametrize(
    "chips, expected",
    [
        ([500, 500], (("call", None), 0, 400)),
        ([5000], (("call", None), 0, 4400)),
        ([500, 500, 100], (("raise", 1300), 0, 0)),
    ],
    ids=["two_500s_make_only_a_call_case", "one_big_chip_is_a_call_case",
         "chips_cover_the_call_without_the_lowest_case"],
)
def test_chips_put_in_without_a_word_are_read_as_a_call_or_a_raise(chips, expected):
    """Blinds 200-400, A raises to 800, the SB adds two 500s: 1200 less a 500 is under
    800, a call; 400 back (000:L1483-1508).
    """
    stakes = Stakes(small_blind_minor=200, big_blind_minor=400)
    state = start_hand("holdem", "no_limit", stakes, {1: 20_000, 2: 20_000, 3: 20_000}, 3)
    state = play(state, (3, "raise", 800))
    reading = interpret_chips(state, chips)
    (kind, to), added, returned = expected
    assert (reading.action.seat, reading.action.kind, reading.action.amount_minor) == (1, kind, to)
    assert (reading.added_minor, reading.returned_minor) == (added, returned)


def test_chips_short_of_the_call_must_complete_it():
    """A bets 50, B raises to 200, C puts in 50 having missed the raise: C must complete
    the call (000:L1467-1478).
    """
    stakes = Stakes(small_blind_minor=10, big_blind_minor=25)
    state = start_hand("holdem", "no_limit", stakes, {1: 5000, 2: 5000, 3: 5000}, 3)
    state = play(call_down(state, 1), (1, "bet", 50), (2, "raise", 200))
    reading = interpret_chips(state, [50])
    assert (reading.action.kind, reading.added_minor, reading.returned_minor) == ("call", 150, 0)


@pytest.mark.parametrize(
    "chips, bet_to, added",
    [([500], 500, 0), ([100], 400, 300)],
    ids=["one_chip_bets_its_value_case", "under_the_minimum_is_completed_case"],
)
def test_chips_as_the_first_bet_are_a_bet_of_their_value_at_least_the_minimum(chips, bet_to, added):
    """One chip as a bet is its full value; the first bettor below the minimum completes
    it (000:L1434-1439).
    """
    stakes = Stakes(small_blind_minor=200, big_blind_minor=400)
    state = call_down(start_hand("holdem", "no_limit", stakes, {1: 9000, 2: 9000}, 2), 1)
    reading = interpret_chips(state, chips)
    assert (reading.action.kind, reading.action.amount_minor, reading.added_minor) == ("bet", bet_to, added)


@pytest.mark.parametrize(
    "amount_minor, rounded_minor",
    [(600, 500), (1950, 2000), (100, 250), (375, 500)],
    ids=["six_euros_to_five_case", "nineteen_fifty_to_twenty_case", "one_euro_to_the_minimum_case",
         "exact_half_up_case"],
)
def test_a_bet_is_rounded_to_the_nearest_multiple_of_the_big_blind(amount_minor, rounded_minor):
    """Blinds 2.5-2.5: 6 EUR is 5 EUR, 19.5 EUR is 20 EUR, 1 EUR is completed; decision:
    halves up (000:L1521-1541).
    """
    assert round_to_big_blind(amount_minor, 250) == rounded_minor


# ---------------------------------------------------------------------------
# Short all-ins: not reopening, and reopening together
# ---------------------------------------------------------------------------


def test_short_all_in_raise_does_not_reopen_the_raising_for_the_original_bettor():
    """P1 bets 500, P2 all-in 900: P3 raises to 1400 at least; if P3 calls, P1 may not
    raise (000:L1362-1369).
    """
    state = start_hand("holdem", "no_limit", NL_50_100, {1: 5000, 2: 1000, 3: 5000}, 3)
    state = play(call_down(state, 1), (1, "bet", 500), (2, "all_in"))
    assert state.log[-1].to_minor == 900 and not state.log[-1].full_raise
    menu = legal_actions(state)
    assert (menu.seat, menu.call_to_minor, menu.raise_min_minor) == (3, 900, 1400)
    state = play(state, (3, "call"))
    menu = legal_actions(state)
    assert (menu.seat, menu.call_to_minor, menu.raise_min_minor, menu.all_in_kind) == (1, 900, None, None)
    error = refused(state, Action.raise_to(1, 1400))
    assert error.code == "poker.action_not_reopened"
    state = play(state, (1, "call"))
    assert (state.street.name, state.pot_minor) == ("turn", 300 + 2700)


def test_players_who_acted_may_only_call_or_fold_a_short_all_in():
    """A checks, B bets, C calls, D short all-in: A has all options, then B and C only
    call or fold (001:L82-84).
    """
    seats = {1: 5000, 2: 5000, 3: 5000, 4: 250}
    state = call_down(start_hand("holdem", "no_limit", NL_50_100, seats, 4), 1)
    state = play(state, (1, "check"), (2, "bet", 100), (3, "call"), (4, "all_in"))
    assert state.log[-1].to_minor == 150
    menu = legal_actions(state)
    assert (menu.seat, menu.call_to_minor, menu.raise_min_minor) == (1, 150, 250)
    state = play(state, (1, "call"))
    for seat in (2, 3):
        menu = legal_actions(state)
        assert (menu.seat, menu.fold, menu.call_to_minor, menu.raise_min_minor) == (seat, True, 150, None)
        assert refused(state, Action.raise_to(seat, 250)).code == "poker.action_not_reopened"
        state = play(state, (seat, "call"))
    assert state.street.name == "turn"


def test_consecutive_short_all_ins_that_add_up_to_a_full_raise_reopen_the_betting():
    """A bets 10, B calls, C all-in 18, D all-in 25: 8 + 7 >= 10, so A and B may
    re-raise (001:L86-88).
    """
    stakes = Stakes(small_blind_minor=1, big_blind_minor=2)
    seats = {1: 1000, 2: 1000, 3: 20, 4: 27}
    state = call_down(start_hand("holdem", "no_limit", stakes, seats, 4), 1)
    state = play(state, (1, "bet", 10), (2, "call"), (3, "all_in"), (4, "all_in"))
    c, d = state.log[-2], state.log[-1]
    assert (c.to_minor, c.full_raise, d.to_minor, d.full_raise, d.reopened_by_short_all_ins) == (
        18, False, 25, True, True)
    menu = legal_actions(state)
    # Decision: the minimum raise stays the largest full increment, 10.
    assert (menu.seat, menu.call_to_minor, menu.raise_min_minor) == (1, 25, 35)
    state = play(state, (1, "call"))
    assert legal_actions(state).raise_min_minor == 35


def test_short_all_ins_with_a_call_between_them_do_not_reopen_the_betting():
    """The short all-ins add up only with no call in between (001:L86-88): a call breaks
    the run.
    """
    stakes = Stakes(small_blind_minor=1, big_blind_minor=2)
    seats = {1: 1000, 2: 1000, 3: 20, 4: 1000, 5: 27}
    state = call_down(start_hand("holdem", "no_limit", stakes, seats, 5), 1)
    state = play(state, (1, "bet", 10), (2, "call"), (3, "all_in"), (4, "call"), (5, "all_in"))
    assert not state.log[-1].full_raise
    menu = legal_actions(state)
    assert (menu.seat, menu.call_to_minor, menu.raise_min_minor) == (1, 25, None)


# ---------------------------------------------------------------------------
# Pot limit
# ---------------------------------------------------------------------------


def test_pot_limit_maximum_after_a_bet_and_a_call_is_a_total_of_1700():
    """Pot 500, P1 bets 300, P2 calls: P3 may call 300 and raise 1400, 1700 in all
    (000:L1383-1393).
    """
    seats = {1: 9000, 2: 9000, 3: 9000, 4: 9000, 5: 9000}
    state = call_down(start_hand("omaha", "pot_limit", NL_50_100, seats, 5), 1)
    assert state.pot_minor == 500
    assert legal_actions(state).bet_max_minor == 500  # a bet is at most the pot (000:L1373)
    state = play(state, (1, "bet", 300), (2, "call"))
    assert legal_actions(state).raise_max_minor == 1700
    error = refused(state, Action.raise_to(3, 1701))
    assert (error.code, error.details["limit_minor"]) == ("poker.over_pot_limit", 1700)
    assert play(state, (3, "raise", 1700)).pot_minor == 500 + 300 + 300 + 1700


@pytest.mark.parametrize(
    "big_blind_stack, call_to, raise_min, raise_max",
    [(700, 700, 2000, 3200), (10_000, 1000, 2000, 3500)],
    ids=["big_blind_all_in_for_700_case", "big_blind_posted_in_full_case"],
)
def test_a_short_big_blind_is_counted_in_full_once_for_the_pot_raise(
    big_blind_stack, call_to, raise_min, raise_max
):
    """Blinds 500-1000, BB all-in 700: call 700, raise to 2000 at least, the pot 3200
    (000:L1402-1420).
    """
    stakes = Stakes(small_blind_minor=500, big_blind_minor=1000)
    state = start_hand("omaha", "pot_limit", stakes, {1: 10_000, 2: big_blind_stack, 3: 10_000}, 3)
    menu = legal_actions(state)
    assert (menu.seat, menu.call_to_minor, menu.raise_min_minor, menu.raise_max_minor) == (
        3, call_to, raise_min, raise_max)


def test_antes_count_in_the_pot_limit_pot():
    """Antes go straight into the pot and count toward its size (000:L932-934)."""
    stakes = Stakes(small_blind_minor=50, big_blind_minor=100, ante_minor=10)
    state = start_hand("omaha", "pot_limit", stakes, {1: 5000, 2: 5000, 3: 5000}, 3)
    assert (state.pot_minor, legal_actions(state).raise_max_minor) == (180, 100 + 180 + 100)


def test_big_blind_ante_counts_in_the_pot_only_after_the_first_round():
    """The BB-ante stays out of the pot-limit pot until the first round is over
    (000:L939-944).
    """
    stakes = Stakes(small_blind_minor=50, big_blind_minor=100, big_blind_ante_minor=30)
    state = start_hand("omaha", "pot_limit", stakes, {1: 5000, 2: 5000, 3: 5000}, 3)
    assert [(r.seat, r.kind, r.added_minor) for r in state.log] == [
        (1, "small_blind", 50), (2, "big_blind", 100), (2, "big_blind_ante", 30)]
    assert legal_actions(state).raise_max_minor == 100 + 150 + 100
    state = call_down(state, 1)
    assert (state.pot_minor, legal_actions(state).bet_max_minor) == (330, 330)


def test_a_big_blind_short_of_the_blind_and_the_ante_pays_the_blind_first():
    """A BB who cannot cover both pays the big blind first, the rest to the BB-ante
    (000:L1423-1425).
    """
    stakes = Stakes(small_blind_minor=50, big_blind_minor=100, big_blind_ante_minor=30)
    state = start_hand("holdem", "no_limit", stakes, {1: 5000, 2: 120, 3: 5000}, 3)
    assert [(r.kind, r.added_minor) for r in state.log[1:]] == [("big_blind", 100), ("big_blind_ante", 20)]


# ---------------------------------------------------------------------------
# Fixed limit
# ---------------------------------------------------------------------------

FL_100_200 = Stakes(small_blind_minor=50, big_blind_minor=100, small_bet_minor=100, big_bet_minor=200)


def test_fixed_limit_bets_one_unit_100_on_the_first_two_rounds_and_200_after():
    """100/200 limit: units of 100 pre-flop and on the flop, 200 on the turn and river
    (000:L1250-1253).
    """
    state = start_hand("holdem", "fixed_limit", FL_100_200, {1: 5000, 2: 5000, 3: 5000}, 3)
    menu = legal_actions(state)
    assert (menu.raise_min_minor, menu.raise_max_minor) == (200, 200)
    error = refused(state, Action.raise_to(3, 250))
    assert (error.code, error.details["limit_minor"]) == ("poker.not_limit_amount", 200)
    for street, unit in ((1, 100), (2, 200), (3, 200)):
        state = call_down(state, street)
        menu = legal_actions(state)
        assert (state.street.name, menu.bet_min_minor, menu.bet_max_minor) == (
            state.streets[street].name, unit, unit)


def test_fixed_limit_caps_a_round_at_a_bet_and_three_raises():
    """Bet 100, raises to 200, 300 and the cap 400; no fourth raise (000:L1253-1255)."""
    seats = {1: 5000, 2: 5000, 3: 5000, 4: 5000}
    state = call_down(start_hand("holdem", "fixed_limit", FL_100_200, seats, 4), 1)
    state = play(state, (1, "bet", 100), (2, "raise", 200), (3, "raise", 300), (4, "raise", 400))
    menu = legal_actions(state)
    assert (menu.seat, menu.call_to_minor, menu.raise_min_minor) == (1, 400, None)
    assert refused(state, Action.raise_to(1, 500)).code == "poker.raise_cap_reached"


def test_fixed_limit_has_no_cap_when_two_players_with_chips_start_the_round():
    """Heads-up at the start of the round the raises are unlimited (000:L1258-1260)."""
    state = call_down(start_hand("holdem", "fixed_limit", FL_100_200, {1: 5000, 2: 5000}, 2), 1)
    state = play(state, (1, "bet", 100), (2, "raise", 200), (1, "raise", 300), (2, "raise", 400),
                 (1, "raise", 500))
    assert state.high_bet_minor == 500


def test_limit_all_in_of_half_a_unit_or_less_is_not_a_raise():
    """P1 bets 100, P2 all-in 130: P3 raises only to 200, three raises remain (cap 400);
    a call keeps P1 from raising (000:L1264-1272).
    """
    seats = {1: 5000, 2: 230, 3: 5000}
    state = call_down(start_hand("holdem", "fixed_limit", FL_100_200, seats, 3), 1)
    state = play(state, (1, "bet", 100), (2, "all_in"))
    assert (state.log[-1].to_minor, state.log[-1].full_raise) == (130, False)
    menu = legal_actions(state)
    assert (menu.seat, menu.call_to_minor, menu.raise_min_minor, menu.raise_max_minor) == (3, 130, 200, 200)

    called = play(state, (3, "call"))
    assert (legal_actions(called).call_to_minor, legal_actions(called).raise_min_minor) == (130, None)
    assert refused(called, Action.raise_to(1, 200)).code == "poker.action_not_reopened"

    capped = play(state, (3, "raise", 200), (1, "raise", 300), (3, "raise", 400))
    assert refused(capped, Action.raise_to(1, 500)).code == "poker.raise_cap_reached"


def test_limit_all_in_of_more_than_half_a_unit_is_a_raise():
    """P1 bets 100, P2 all-in 170: P3 raises to 270; if P3 calls, P1 may raise to 270;
    the cap is 370 (000:L1273-1278).
    """
    seats = {1: 5000, 2: 270, 3: 5000}
    state = call_down(start_hand("holdem", "fixed_limit", FL_100_200, seats, 3), 1)
    state = play(state, (1, "bet", 100), (2, "all_in"))
    assert (state.log[-1].to_minor, state.log[-1].full_raise) == (170, True)
    menu = legal_actions(state)
    assert (menu.call_to_minor, menu.raise_min_minor, menu.raise_max_minor) == (170, 270, 270)
    state = play(state, (3, "call"))
    assert legal_actions(state).raise_min_minor == 270
    state = play(state, (1, "raise", 270), (3, "raise", 370))
    assert refused(state, Action.raise_to(1, 470)).code == "poker.raise_cap_reached"


def test_spread_limit_bets_between_the_big_blind_and_the_street_maximum():
    """Decision: spread limit bets from one big blind up to the street's maximum; a
    raise adds at least the last increment and at most the maximum (002:L1748-1760).
    """
    stakes = Stakes(small_blind_minor=50, big_blind_minor=100, small_bet_minor=300, big_bet_minor=600)
    state = call_down(start_hand("holdem", "spread_limit", stakes, {1: 5000, 2: 5000, 3: 5000}, 3), 1)
    menu = legal_actions(state)
    assert (menu.bet_min_minor, menu.bet_max_minor) == (100, 300)
    state = play(state, (1, "bet", 200))
    menu = legal_actions(state)
    assert (menu.raise_min_minor, menu.raise_max_minor) == (400, 500)
    error = refused(state, Action.raise_to(2, 501))
    assert (error.code, error.details["limit_minor"]) == ("poker.over_spread_limit", 500)


# ---------------------------------------------------------------------------
# Stud and Sökö
# ---------------------------------------------------------------------------

STUD_50_100 = Stakes(ante_minor=10, bring_in_minor=50, small_bet_minor=100, big_bet_minor=200)


def test_stud_first_round_cap_is_bring_in_completion_and_three_raises():
    """Force 50, complete 100, raise 200, 300, 400 = cap (000:L2177-2181)."""
    seats = {1: 5000, 2: 5000, 3: 5000, 4: 5000, 5: 5000}
    state = start_hand("stud", "fixed_limit", STUD_50_100, seats, 5, first_seat=3)
    assert (state.pot_minor, state.to_act, legal_actions(state).bring_in_to_minor) == (50, 3, 50)
    state = play(state, (3, "bring_in"), (4, "raise", 100), (5, "raise", 200), (1, "raise", 300),
                 (2, "raise", 400))
    assert refused(state, Action.raise_to(3, 500)).code == "poker.raise_cap_reached"
    assert play(state, (3, "call")).player(3).total_minor == 410


def test_stud_bring_in_must_bring_in_or_complete():
    """The lowest upcard must post at least the bring-in or complete; no fold, no check
    (000:L2170-2174).
    """
    seats = {1: 5000, 2: 5000, 3: 5000}
    state = start_hand("stud", "fixed_limit", STUD_50_100, seats, 3, first_seat=2)
    assert refused(state, Action.fold(2)).code == "poker.bring_in_required"
    assert refused(state, Action.check(2)).code == "poker.bring_in_required"
    menu = legal_actions(state)
    assert (menu.bring_in_to_minor, menu.bet_min_minor, menu.bet_max_minor) == (50, 100, 100)
    completed = play(state, (2, "bet", 100))
    assert refused(completed, Action.bring_in(3)).code == "poker.bring_in_not_allowed"


def test_stud_streets_wait_for_the_first_player_and_double_the_unit_from_fifth_street():
    """Later streets open with the best upcards (given by the caller); the big unit from
    fifth street (000:L2201-2213, L2406-2417).
    """
    seats = {1: 5000, 2: 5000, 3: 5000}
    state = start_hand("stud", "fixed_limit", STUD_50_100, seats, 3, first_seat=1)
    state = play(state, (1, "bring_in"), (2, "call"), (3, "call"))
    assert (state.phase, state.street.name, state.to_act) == (Phase.AWAITING_STREET, "fourth_street", None)
    assert refused(state, Action.check(2)).code == "poker.street_not_open"
    state = open_street(state, first_seat=3)
    assert (state.to_act, legal_actions(state).bet_max_minor) == (3, 100)
    state = open_street(play(state, (3, "check"), (1, "check"), (2, "check")), first_seat=2)
    assert (state.street.name, legal_actions(state).bet_min_minor) == ("fifth_street", 200)


def test_stud_open_pair_on_fourth_street_lets_the_big_unit_into_play():
    """100/200 with an open pair: P1 bets 100, P2 raises to 300, P3 calls 300 or raises
    to 500 (000:L2216-2230).
    """
    seats = {1: 5000, 2: 5000, 3: 5000, 4: 5000}
    state = start_hand("stud", "fixed_limit", STUD_50_100, seats, 4, first_seat=4)
    state = play(state, (4, "bring_in"), (1, "call"), (2, "call"), (3, "call"))
    state = open_street(state, first_seat=1, open_pair=True)
    assert legal_actions(state).bet_choices_minor == (100, 200)
    state = play(state, (1, "bet", 100))
    assert legal_actions(state).raise_choices_minor == (200, 300)
    state = play(state, (2, "raise", 300))
    menu = legal_actions(state)
    assert (menu.seat, menu.call_to_minor, menu.raise_choices_minor) == (3, 300, (500,))
    error = refused(state, Action.raise_to(3, 400))
    assert (error.code, error.details["limit_minor"]) == ("poker.not_limit_amount", 500)


@pytest.mark.parametrize("variant", ["stud_hilo", "razz"], ids=["stud_hilo_case", "razz_case"])
def test_stud_hi_lo_and_razz_do_not_use_the_big_unit_on_an_open_pair(variant):
    """In hi-lo and razz the larger unit cannot be used on fourth street
    (000:L2458-2465, L2523-2527).
    """
    seats = {1: 5000, 2: 5000, 3: 5000}
    state = start_hand(variant, "fixed_limit", STUD_50_100, seats, 3, first_seat=3)
    state = play(state, (3, "bring_in"), (1, "call"), (2, "call"))
    with pytest.raises(IllegalAction) as caught:
        open_street(state, first_seat=1, open_pair=True)
    assert caught.value.code == "poker.big_unit_not_allowed"


def test_soko_minimum_bet_is_the_ante_and_the_maximum_the_pot():
    """Sökö is pot limit: the antes make the pot and the minimum bet is one ante
    (000:L2045-2048).
    """
    stakes = Stakes(ante_minor=100)
    seats = {1: 10_000, 2: 10_000, 3: 10_000, 4: 10_000}
    state = start_hand("soko", "pot_limit", stakes, seats, 4, first_seat=2)
    menu = legal_actions(state)
    assert (state.pot_minor, menu.seat, menu.check, menu.bet_min_minor, menu.bet_max_minor) == (
        400, 2, True, 100, 400)
    assert refused(state, Action.bet(2, 99)).code == "poker.bet_below_minimum"
    assert refused(state, Action.bet(2, 401)).code == "poker.over_pot_limit"


def test_antes_only_board_game_opens_after_the_button_with_a_bring_in():
    """Antes only: the first player after the button folds, brings in or raises; the
    button acts last (000:L1768-1783).
    """
    stakes = Stakes(ante_minor=25, bring_in_minor=100)
    state = start_hand("holdem", "no_limit", stakes, {1: 5000, 2: 5000, 3: 5000}, 3)
    menu = legal_actions(state)
    assert (menu.seat, menu.fold, menu.check, menu.bring_in_to_minor) == (1, True, False, 100)
    state = play(state, (1, "fold"), (2, "bring_in"))
    assert (state.to_act, legal_actions(state).raise_min_minor) == (3, 200)


# ---------------------------------------------------------------------------
# Refusals, the hand's end
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "action, code",
    [
        (Action.call(1), "poker.not_your_turn"),
        (Action.check(3), "poker.cannot_check"),
        (Action.bet(3, 300), "poker.cannot_bet"),
        (Action.raise_to(3, 10_001), "poker.more_than_stack"),
        (Action.raise_to(3, 150), "poker.raise_below_minimum"),
        (Action(3, "raise"), "poker.invalid_amount"),
        (Action(3, "call", 50), "poker.invalid_amount"),
        (Action(3, "muck"), "poker.unknown_action"),
        (Action.bring_in(3), "poker.bring_in_not_allowed"),
    ],
    ids=["out_of_turn_case", "check_facing_bet_case", "bet_facing_bet_case", "over_stack_case",
         "raise_short_case", "raise_without_amount_case", "call_wrong_amount_case",
         "unknown_action_case", "bring_in_with_blinds_case"],
)
def test_an_illegal_action_is_refused_with_its_code_and_changes_nothing(action, code):
    """An illegal action names the rule it breaks and leaves the hand as it was (issue
    5).
    """
    state = start_hand("holdem", "no_limit", NL_50_100, {1: 10_000, 2: 10_000, 3: 10_000}, 3)
    error = refused(state, action)
    assert error.code == code
    assert status_for(error.code) == 422  # a recorded refusal (casino.error_table)


def test_a_player_who_checked_out_of_turn_may_only_check_or_call_that_round():
    """Checking out of turn bars betting and raising for the rest of the round
    (000:L1574-1575).
    """
    state = call_down(start_hand("holdem", "no_limit", NL_50_100, {1: 5000, 2: 5000, 3: 5000}, 3), 1)
    state = bar_bet_and_raise(state, 3, for_hand=False)
    state = play(state, (1, "check"), (2, "bet", 200))
    menu = legal_actions(state)
    assert (menu.seat, menu.call_to_minor, menu.raise_min_minor) == (3, 200, None)
    assert refused(state, Action.raise_to(3, 400)).code == "poker.bet_or_raise_barred"
    state = call_down(play(state, (3, "call"), (1, "call")), 2)
    assert legal_actions(state).seat == 1
    state = play(state, (1, "check"), (2, "check"))
    assert legal_actions(state).bet_min_minor == 100  # free again on the turn


def test_a_player_who_showed_cards_early_may_not_bet_or_raise_for_the_hand():
    """Showing hole cards before the last round bars betting and raising in that hand
    (000:L212-217; 003:L55).
    """
    state = start_hand("holdem", "no_limit", NL_50_100, {1: 5000, 2: 5000, 3: 5000}, 3)
    state = call_down(bar_bet_and_raise(state, 1, for_hand=True), 2)
    menu = legal_actions(state)
    assert (menu.seat, menu.check, menu.bet_min_minor) == (1, True, None)
    assert refused(state, Action.bet(1, 100)).code == "poker.bet_or_raise_barred"


def test_nothing_to_call_and_nothing_to_raise_when_no_bet_is_open():
    """A call or raise needs a bet; with none, check or bet (001:L56-66)."""
    state = call_down(start_hand("holdem", "no_limit", NL_50_100, {1: 5000, 2: 5000}, 2), 1)
    assert refused(state, Action.call(1)).code == "poker.nothing_to_call"
    assert refused(state, Action.raise_to(1, 200)).code == "poker.nothing_to_raise"


def test_a_player_facing_the_last_all_in_may_only_call_or_fold():
    """Everyone else is all-in, so a raise could be called by no one (000:L346-350)."""
    state = start_hand("holdem", "no_limit", NL_50_100, {1: 5000, 2: 300}, 2)
    state = play(state, (2, "all_in"))
    menu = legal_actions(state)
    assert (menu.seat, menu.call_to_minor, menu.raise_min_minor) == (1, 300, None)
    assert refused(state, Action.raise_to(1, 600)).code == "poker.no_one_to_raise"


def test_the_hand_ends_when_one_player_is_left_and_the_uncalled_bet_goes_back():
    """A bet nobody calls wins without a showdown; its uncalled part is returned
    (000:L1824-1832).
    """
    state = start_hand("holdem", "no_limit", NL_50_100, {1: 5000, 2: 5000, 3: 5000}, 3)
    state = play(state, (3, "raise", 300), (1, "fold"), (2, "fold"))
    assert (state.phase, state.winner_without_showdown, state.reached_flop) == (Phase.COMPLETE, 3, False)
    settlement = settle_hand(state)
    assert settlement.returned_minor == ((3, 200),)
    assert [tuple(p) for p in settlement.pots] == [(250, (3,))]
    assert refused(state, Action.check(3)).code == "poker.hand_over"


def test_all_in_before_the_flop_runs_the_board_out_to_showdown():
    """An all-in player takes no further part in the betting; the cards are dealt out
    (000:L346-350).
    """
    state = start_hand("holdem", "no_limit", NL_50_100, {1: 5000, 2: 800}, 2)
    state = play(state, (2, "all_in"), (1, "call"))
    assert (state.phase, state.street.name, state.reached_flop, state.betting_rounds_reached) == (
        Phase.SHOWDOWN, "river", True, 4)
    assert state.player(1).by_street_minor == (800, 0, 0, 0)


def test_contributions_are_recorded_per_street_and_in_total():
    """The state records each player's chips per street and in total (issue 5)."""
    state = start_hand("holdem", "no_limit", NL_50_100, {1: 5000, 2: 5000, 3: 5000}, 3)
    state = play(call_down(state, 1), (1, "bet", 200), (2, "call"), (3, "call"))
    state = play(state, (1, "bet", 400), (2, "fold"), (3, "call"))
    assert [state.player(s).by_street_minor for s in (1, 2, 3)] == [
        (100, 200, 400, 0), (100, 200, 0, 0), (100, 200, 400, 0)]
    assert state.contributions_minor == {1: 700, 2: 300, 3: 700}
    assert state.stacks_minor == {1: 4300, 2: 4700, 3: 4300}
