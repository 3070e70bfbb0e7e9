"""Random hands: legal actions accepted, illegal ones refused, money conserved.

Hypothesis deals random tables (2-6 players, random stacks, seats, button,
antes, big-blind antes and straddles) of hold'em in no, pot, fixed and spread
limit, pot-limit omaha, no-limit draw, limit and pot-limit stud and Sökö, and
plays them to the end; each step is an action picked from `legal_actions`
or a random one, and now and then the floor bars a player from betting or a
stud street opens on a pair. The test keeps its own model: an action is
accepted exactly when the menu allows it, a refused action changes nothing,
and an accepted one moves exactly its `added_minor` from the actor's stack
into the pot. At the end the hand is settled, raked and dropped under each
rulebook's rule and shown down with `native_eval`, and not a cent is made or
lost (issue 5: stacks + pots + rake + drop before = after).
"""

from __future__ import annotations

import copy

import native_eval
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from casino.poker.engine import (
    Action,
    ActionKind,
    IllegalAction,
    Phase,
    Stakes,
    apply,
    bar_bet_and_raise,
    drop_for,
    legal_actions,
    net_pots,
    online_rake,
    open_street,
    rake_for,
    ray_house_fee,
    settle_hand,
    start_hand,
    tallinn_jackpot_drop,
    tallinn_rake,
    veikkaus_bad_beat_drop,
    veikkaus_room_rake,
)
from tests.casino.poker.engine.conftest import rulebook_figures

ACTIONS_PER_HAND_MAX = 600
"""No generated hand needs more actions; reaching it means the betting never ended."""
RANDOM_ACTIONS_PER_HAND_MAX = 30
"""Random (mostly illegal) attempts per hand, on top of the legal actions."""

DECK = [rank + suit for rank in "23456789TJQKA" for suit in "shdc"]

VEIKKAUS = rulebook_figures("veikkaus-poker-room")
ONLINE = rulebook_figures("veikkaus-online-poker")
TALLINN = rulebook_figures("olympic-tallinn")
RAY = rulebook_figures("ray-casino")
RAKE_RULES = (
    (veikkaus_room_rake(VEIKKAUS, cap_minor=300), veikkaus_bad_beat_drop(VEIKKAUS)),
    (online_rake(ONLINE, game="nl_holdem", stake="nl100"), None),
    (tallinn_rake(TALLINN), tallinn_jackpot_drop(TALLINN)),
    (ray_house_fee(RAY, percent_basis_points=500, cap_minor=400), None),
)

GAMES = (
    ("holdem", "no_limit"),
    ("holdem", "pot_limit"),
    ("holdem", "fixed_limit"),
    ("holdem", "spread_limit"),
    ("omaha", "pot_limit"),
    ("five_card_draw", "no_limit"),
    ("stud", "fixed_limit"),
    ("stud", "pot_limit"),
    ("soko", "pot_limit"),
)
HOLE_CARDS = {"holdem": 2, "omaha": 4, "five_card_draw": 5, "stud": 7, "soko": 5}


def allowed(menu, action: Action) -> bool:
    """Whether the menu from legal_actions permits the action (the test's model)."""
    if menu is None or action.seat != menu.seat:
        return False
    kind, amount = action.kind, action.amount_minor
    if kind == ActionKind.FOLD:
        return menu.fold
    if kind == ActionKind.CHECK:
        return menu.check
    if kind == ActionKind.CALL:
        return menu.call_to_minor is not None and amount in (None, menu.call_to_minor)
    if kind == ActionKind.BRING_IN:
        return menu.bring_in_to_minor is not None and amount in (None, menu.bring_in_to_minor)
    if kind == ActionKind.ALL_IN:
        return menu.all_in_kind is not None
    if kind == ActionKind.BET:
        low, high, choices = menu.bet_min_minor, menu.bet_max_minor, menu.bet_choices_minor
    elif kind == ActionKind.RAISE:
        low, high, choices = (menu.raise_min_minor, menu.raise_max_minor,
                              menu.raise_choices_minor)
    else:
        return False
    if low is None or not isinstance(amount, int) or isinstance(amount, bool):
        return False
    if choices is not None:
        return amount in choices
    return low <= amount <= high


@st.composite
def tables(draw, games=GAMES):
    variant, structure = draw(st.sampled_from(games))
    n = draw(st.integers(2, 6))
    seats = draw(st.lists(st.integers(0, 9), min_size=n, max_size=n, unique=True))
    stacks = {seat: draw(st.integers(1, 4000)) for seat in seats}
    button = draw(st.integers(0, 9))
    if variant in ("stud", "soko"):
        stakes = Stakes(ante_minor=draw(st.sampled_from([5, 10])),
                        bring_in_minor=draw(st.sampled_from([0, 25])),
                        small_bet_minor=50, big_bet_minor=100)
        first_seat = draw(st.sampled_from(sorted(seats)))
        return start_hand(variant, structure, stakes, stacks, button, first_seat=first_seat)
    stakes = Stakes(small_blind_minor=25, big_blind_minor=50,
                    ante_minor=draw(st.sampled_from([0, 0, 5])),
                    big_blind_ante_minor=draw(st.sampled_from([0, 0, 20])),
                    small_bet_minor=100, big_bet_minor=200)
    straddles = 0
    if structure in ("no_limit", "pot_limit") and n >= 4:
        straddles = draw(st.integers(0, 2))
    try:
        return start_hand(variant, structure, stakes, stacks, button, straddles=straddles)
    except IllegalAction:  # a straddler short of the straddle
        return start_hand(variant, structure, stakes, stacks, button)


def legal_choice(data, state, menu) -> Action:
    options = []
    seat = menu.seat
    if menu.fold:
        options.append(Action.fold(seat))
    if menu.check:
        options.append(Action.check(seat))
    if menu.call_to_minor is not None:
        options.append(Action.call(seat))
    if menu.bring_in_to_minor is not None:
        options.append(Action.bring_in(seat))
    if menu.all_in_kind is not None:
        options.append(Action.all_in(seat))
    if menu.bet_min_minor is not None:
        if menu.bet_choices_minor is not None:
            to = data.draw(st.sampled_from(menu.bet_choices_minor))
        else:
            to = data.draw(st.integers(menu.bet_min_minor, menu.bet_max_minor))
        options.append(Action.bet(seat, to))
    if menu.raise_min_minor is not None:
        if menu.raise_choices_minor is not None:
            to = data.draw(st.sampled_from(menu.raise_choices_minor))
        else:
            to = data.draw(st.integers(menu.raise_min_minor, menu.raise_max_minor))
        options.append(Action.raise_to(seat, to))
    return data.draw(st.sampled_from(options))


def random_action(data, state) -> Action:
    seat = data.draw(st.sampled_from([p.seat for p in state.players]))
    kind = data.draw(st.sampled_from(list(ActionKind)))
    p = state.player(seat)
    near = [0, 1, state.high_bet_minor, state.high_bet_minor + 1, p.bet_minor + p.stack_minor,
            p.bet_minor + p.stack_minor + 1, state.pot_minor, state.pot_minor + 1]
    amount = data.draw(st.one_of(st.none(), st.sampled_from(near), st.integers(-5, 10_000)))
    return Action(seat, kind, amount)


def play_out(data, state):
    """Play a hand to its end, checking each step against the model."""
    start_total = sum(stack for _, stack in state.starting_stacks_minor)
    random_left = RANDOM_ACTIONS_PER_HAND_MAX
    for _ in range(ACTIONS_PER_HAND_MAX + RANDOM_ACTIONS_PER_HAND_MAX):
        if state.is_over:
            return state
        if state.phase is Phase.AWAITING_STREET:
            open_pair = (state.variant == "stud" and state.structure == "fixed_limit"
                         and state.street.name == "fourth_street" and data.draw(st.booleans()))
            first_seat = data.draw(st.sampled_from(state.live_seats))
            state = open_street(state, first_seat=first_seat, open_pair=open_pair)
            continue
        if data.draw(st.integers(0, 30)) == 0:
            # The floor bars a player from betting (checked out of turn, showed cards).
            seat = data.draw(st.sampled_from(state.live_seats))
            state = bar_bet_and_raise(state, seat, for_hand=data.draw(st.booleans()))
        menu = legal_actions(state)
        assert menu is not None and menu.seat == state.to_act
        if random_left and data.draw(st.integers(0, 3)) == 0:
            random_left -= 1
            action = random_action(data, state)
        else:
            action = legal_choice(data, state, menu)
        before = copy.deepcopy(state)
        try:
            after = apply(state, action)
        except IllegalAction as error:
            assert not allowed(menu, action), (action, menu, error)
            assert state == before  # a refused action changes nothing
            continue
        assert allowed(menu, action), (action, menu)
        record = after.log[-1]
        assert after.log[:-1] == state.log
        assert record.seat == action.seat
        for p in state.players:
            moved = after.player(p.seat).total_minor - p.total_minor
            assert moved == (record.added_minor if p.seat == action.seat else 0)
        assert sum(p.stack_minor + p.total_minor for p in after.players) == start_total
        state = after
    raise AssertionError(f"the hand did not end in {ACTIONS_PER_HAND_MAX} actions")


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(table=tables(), data=st.data(), deck=st.permutations(DECK))
def test_random_legal_hands_conserve_money_exactly(table, data, deck):
    """Every legal action is accepted, illegal ones refused unchanged; nothing is made
    or lost.
    """
    state = play_out(data, table)
    start_total = sum(stack for _, stack in state.starting_stacks_minor)
    contributed = sum(state.contributions_minor.values())
    settlement = settle_hand(state)
    assert settlement.returned_total_minor + settlement.pots_total_minor == contributed
    assert sum(state.stacks_minor.values()) + contributed == start_total
    for pot in settlement.pots:
        assert pot.amount_minor > 0
        assert set(pot.eligible_seats) <= set(state.live_seats)

    players_dealt = len(state.players)
    for rule, drop_rule in RAKE_RULES:
        rake = rake_for(rule, settlement.pots, reached_flop=state.reached_flop,
                        players_dealt=players_dealt)
        drop_total = 0
        drop_per_pot = (0,) * len(settlement.pots)
        if drop_rule is not None:
            drop = drop_for(drop_rule, settlement.pots, players_dealt=players_dealt,
                            betting_rounds_reached=state.betting_rounds_reached, rake=rake)
            drop_total, drop_per_pot = drop.total_minor, drop.per_pot_minor
        left = net_pots(settlement.pots, rake.per_pot_minor, drop_per_pot)
        assert sum(p.amount_minor for p in left) + rake.total_minor + drop_total == (
            settlement.pots_total_minor)

        if state.phase is Phase.COMPLETE:
            awarded = sum(p.amount_minor for p in left)
        else:
            awarded = sum(showdown(state, left, deck).values())
        stacks_after = sum(state.stacks_minor.values()) + settlement.returned_total_minor + awarded
        assert stacks_after + rake.total_minor + drop_total == start_total


def showdown(state, pots, deck):
    """Show the live hands down with native_eval, dealing from the shuffled deck."""
    cards = iter(deck)
    board = [next(cards) for _ in range(5)] if state.variant in ("holdem", "omaha") else ""
    hole = HOLE_CARDS[state.variant]
    hands = {seat: [next(cards) for _ in range(hole)] for seat in state.live_seats}
    # The net pots go in as they are, a pot the rake and drop emptied too.
    return native_eval.showdown(state.variant, board, hands, pots, state.button).awards
