"""Stud and draw tables through the commands and the API.

Stud opens with antes and a bring-in; the dealer names the first player of
each street from the upcards (the engine reads no cards), 000:L2170-2213.
"""

from __future__ import annotations

from casino.poker import commands
from casino.roles import Role
from tests.casino.api.conftest import client_for, post
from tests.casino.poker.conftest import assert_table_balanced, key, seat_players, seat_stacks


def _stud_table():
    return commands.open_table(
        venue="poker-helsinki", variant="stud", structure="fixed_limit",
        small_blind_minor=0, big_blind_minor=0, ante_minor=10, bring_in_minor=50,
        small_bet_minor=100, big_bet_minor=200, seats_max=8, buy_in_minor_min=2_000,
        buy_in_minor_max=20_000, actor="floor", idempotency_key=key())


def test_a_seven_card_stud_hand_plays_street_by_street_and_settles_verified(venues):
    """Antes 3 x 0.10, bring-in 0.50 completed by calls; 4th street checked; a bet of
    2.00 on 5th street (the big unit from 5th, 000:L2406-2417) takes it down."""
    table = _stud_table()
    seat_players(table.table_id, {1: 10_000, 2: 10_000, 3: 10_000})
    hand = commands.start_hand(table_id=table.table_id, button=3, first_seat=2, actor="d",
                               idempotency_key=key())
    assert (hand.pot_minor, hand.to_act) == (30, 2)

    def step(seat, kind, amount=None):
        return commands.act(hand_id=hand.hand_id, seat=seat, kind=kind, amount_minor=amount,
                            actor="d", idempotency_key=key())

    step(2, "bring_in")
    step(3, "call")
    after = step(1, "call")
    assert after.phase == "awaiting_street"
    assert step(3, "open_street").to_act == 3
    for seat in (3, 1, 2):
        after = step(seat, "check")
    step(1, "open_street")
    step(1, "bet", 200)
    step(2, "fold")
    settled = step(3, "fold")
    # Pot 0.30 + 3 x 0.50 = 1.80 after the uncalled 2.00 goes back: under one full
    # EUR 20, so no rake (000:L430-437); past the first street, so no flat fee.
    assert (settled.state, settled.rake_minor) == ("settled", 0)
    assert seat_stacks(table.table_id) == {1: 10_120, 2: 9_940, 3: 9_940}
    assert_table_balanced(table.table_id)


def test_a_stud_showdown_is_verified_from_seven_cards_each(venues):
    table = _stud_table()
    seat_players(table.table_id, {1: 10_000, 2: 10_000})
    history = {"button": 2, "first_seat": 1, "actions": [
        {"seat": 1, "kind": "bring_in"}, {"seat": 2, "kind": "call"},
        *[item for _ in range(4) for item in (
            {"seat": 1, "kind": "open_street"}, {"seat": 1, "kind": "check"},
            {"seat": 2, "kind": "check"})],
    ], "showdown": {"board": "", "hands": {"1": "As Ad Ah 2c 3d 9s Kd",
                                           "2": "Ks Kh Kc 4c 5d 8s 7h"},
                    "claimed_awards": [{"seat": 1, "amount": "1.20"}]}}
    response = post(client_for(Role.TABLE_CONTROLLER),
                    f"/api/v1/poker/tables/{table.table_id}/hand-histories", history, key=key())
    assert response.status_code == 201, response.content
    assert response.json()["state"] == "settled"
    assert response.json()["awards_verified"] == {"1": 120}


def test_a_five_card_draw_table_deals_with_blinds(venues):
    table = commands.open_table(
        venue="poker-helsinki", variant="five_card_draw", structure="pot_limit",
        small_blind_minor=100, big_blind_minor=200, seats_max=6, buy_in_minor_min=5_000,
        buy_in_minor_max=20_000, actor="floor", idempotency_key=key())
    seat_players(table.table_id, {1: 10_000, 2: 10_000})
    hand = commands.start_hand(table_id=table.table_id, button=1, actor="d",
                               idempotency_key=key())
    assert hand.pot_minor == 300
    settled = commands.act(hand_id=hand.hand_id, seat=1, kind="fold", actor="d",
                           idempotency_key=key())
    assert settled.state == "settled"


def test_a_stud_table_without_a_bring_in_or_blinds_is_a_400(venues):
    client = client_for(Role.TABLE_CONTROLLER)
    response = post(client, "/api/v1/poker/tables", {
        "venue": "poker-helsinki", "variant": "stud", "structure": "fixed_limit",
        "ante": "0.10", "seats_max": 8, "buy_in_min": "20.00", "buy_in_max": "200.00"},
        key=key())
    assert response.status_code == 400
    assert response.json()["code"] == "poker.invalid_request"
