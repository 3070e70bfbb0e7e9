"""The demo's hand histories and coups (pure: no database).

A history is legal when the engine, replaying its steps, reaches the end
the history claims; the claimed awards are native_eval's unless a dispute
was asked for.
"""

from __future__ import annotations

import random

import native_eval
import pytest

from casino.demo import coups, hands
from casino.poker import engine

def rules(variant: str, structure: str, **stakes) -> hands.TableRules:
    """The poker room's 5 % rake by full EUR 20 with a EUR 10 cap (000:L430-461)."""
    rake = engine.BlockRake("veikkaus_room_5_percent", block_minor=20_00, per_block_minor=1_00,
                            cap_minor=10_00, no_flop_flat_minor=1_00, no_flop_no_drop=False,
                            cite="000:L430-461")
    return hands.TableRules(variant, structure, engine.Stakes(**stakes), rake, None)


HOLDEM = rules("holdem", "no_limit", small_blind_minor=100, big_blind_minor=200)
OMAHA = rules("omaha", "pot_limit", small_blind_minor=50, big_blind_minor=100)
STUD = rules("stud", "fixed_limit", ante_minor=10, bring_in_minor=50, small_bet_minor=100,
             big_bet_minor=200)


def replay(table: hands.TableRules, stacks: dict[int, int], history: hands.History):
    deal = history.deal
    state = engine.start_hand(table.variant, table.structure, table.stakes, stacks,
                              deal.button, first_seat=deal.first_seat)
    for step in history.steps:
        if step.kind == "open_street":
            state = engine.open_street(state, first_seat=step.seat)
        else:
            state = engine.apply(state, engine.Action(step.seat, step.kind, step.amount_minor))
    return state


@pytest.mark.parametrize("table", [HOLDEM, OMAHA, STUD], ids=["holdem", "omaha", "stud"])
def test_random_histories_are_legal_and_claim_the_verified_awards(table):
    rng = random.Random(5)
    showdowns = 0
    for number in range(60):
        stacks = {seat: rng.randrange(2_000, 40_000) for seat in range(1, 7)}
        history = hands.random_hand(rng, table, stacks, button=number % 6 + 1)
        state = replay(table, stacks, history)
        assert state.is_over
        if history.showdown is None:
            assert state.phase is engine.Phase.COMPLETE
            continue
        showdowns += 1
        assert not history.disputed
        assert set(history.showdown.hands) == set(state.live_seats)
        assert sum(history.awards_verified.values()) <= state.pot_minor
    assert showdowns > 5


def test_a_stud_hand_is_brought_in_by_the_lowest_door_card():
    """000:L2170-2186: the lowest upcard brings in (suits break ties, clubs lowest)."""
    cards = {1: ["Ah", "Kd", "7s"], 2: ["2d", "3d", "2c"], 3: ["4h", "5h", "2h"]}
    assert hands._bring_in_seat(cards) == 2


def test_the_best_stud_upcards_open_the_later_streets():
    assert hands._showing(["9s", "9d"]) > hands._showing(["As", "Kd"])
    assert hands._showing(["As", "Kd"]) > hands._showing(["Ks", "Qd"])


def test_the_crafted_bad_beat_pays_four_kings_over_aces_full():
    stacks = {seat: 20_000 for seat in range(1, 10)}
    history = hands.scripted_showdown(HOLDEM, stacks, 1, cards={4: "As Ah", 7: "Kd Kh"},
                                      board="Ad Kc Ks 7h 2d")
    assert set(history.awards_verified) == {7}
    assert set(history.showdown.hands) == {4, 7}
    value = {seat: native_eval.evaluate(f"{cards} Ad Kc Ks 7h 2d")
             for seat, cards in history.showdown.hands.items()}
    assert native_eval.category(value[4]) == "full_house"
    assert native_eval.category(value[7]) == "four_of_a_kind"
    state = replay(HOLDEM, stacks, history)
    assert state.phase is engine.Phase.SHOWDOWN and len(state.players) == 9


def test_a_disputed_claim_differs_from_the_verified_awards():
    stacks = {seat: 10_000 for seat in range(1, 7)}
    history = hands.scripted_showdown(OMAHA, stacks, 1, cards={1: "As Ad Kc Kd",
                                                               3: "2c 3d 4h 5s"},
                                      board="Ah Ks 9c 8d 7h", dispute=True)
    assert history.disputed
    assert sum(history.showdown.claimed_awards.values()) == sum(
        history.awards_verified.values())


def test_coups_follow_the_drawing_rules():
    """002:L2775-2797: naturals stand; punto draws on 0-5; banco by its table."""
    shoe = coups.shoe(random.Random(3))
    for _ in range(60):
        coup = coups.punto_banco_coup(shoe)
        punto, banco = coup["punto"], coup["banco"]
        natural = max(coups.baccarat_points(punto[:2]), coups.baccarat_points(banco[:2])) >= 8
        if natural:
            assert len(punto) == len(banco) == 2
        else:
            assert len(punto) == (3 if coups.baccarat_points(punto[:2]) <= 5 else 2)
