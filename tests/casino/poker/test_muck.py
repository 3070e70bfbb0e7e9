"""Mucking at the showdown: a recorded action, and a dead hand (issue 21).

The decision (casino/poker/engine/pots.py, `claimants`): a player who mucks
at the showdown forfeits every pot, even one their cards would have won; each
pot goes to the best hand shown among the players still holding cards (a hand
thrown face down is dead, 000:L245-248; to win a player must show all their
cards, 000:L192). If everyone in a pot mucked, the last to muck, who held
cards last, wins it unshown (000:L192-195).
"""

from __future__ import annotations

import pytest

from casino.poker import commands
from casino.poker.errors import PokerError
from casino.poker.models import Hand, HandStatus
from casino.roles import Role
from ledger.models import Event
from tests.casino.api.conftest import client_for, post
from tests.casino.poker.conftest import (
    assert_table_balanced,
    key,
    open_helsinki_table,
    seat_players,
    seat_stacks,
)

BOARD = "2c 7d 9h Js 4c"
# Button 1: seat 2 small blind 1.00, seat 3 big blind 2.00. Seat 3 has 10.00
# and goes all-in on the flop; seats 1 and 2 carry on: a side pot.
SIDE_POT_TO_RIVER = [
    {"seat": 1, "kind": "call"}, {"seat": 2, "kind": "call"}, {"seat": 3, "kind": "check"},
    {"seat": 2, "kind": "check"}, {"seat": 3, "kind": "all_in"}, {"seat": 1, "kind": "call"},
    {"seat": 2, "kind": "call"},
    {"seat": 2, "kind": "bet", "amount": "20.00"}, {"seat": 1, "kind": "call"},
    {"seat": 2, "kind": "check"}, {"seat": 1, "kind": "check"},
]
# Main pot 3 x 10.00 = 30.00 (1, 2, 3); side pot 2 x 20.00 = 40.00 (1, 2). Rake
# EUR 1 per full EUR 20 of 70.00: 3.00, taken from the pots in the order they
# formed (000:L434-448): 1.00 per block beginning in the main pot (two), one
# in the side pot. Net: main 28.00, side 39.00.


def _table():
    table = open_helsinki_table(jackpot=False, buy_in_minor_min=1_000)
    seat_players(table.table_id, {1: 20_000, 2: 20_000, 3: 1_000})
    return table.table_id


def _history(table_id, actions, **extra):
    client = client_for(Role.TABLE_CONTROLLER)
    return post(client, f"/api/v1/poker/tables/{table_id}/hand-histories",
                {"button": 1, "actions": actions, **extra}, key=key())


def test_a_mucked_winning_hand_is_dead_and_the_best_shown_hand_takes_the_pots(venues):
    """Seat 2 holds the best cards (aces) but mucks: the main pot goes to the best
    hand shown, seat 3's kings over seat 1's queens, the side pot to seat 1, the
    only player in it still holding cards. The controller's claim says so, and
    the hand settles; the muck is on the hand's record."""
    table_id = _table()
    response = _history(table_id, [*SIDE_POT_TO_RIVER, {"seat": 2, "kind": "muck"}],
                        showdown={"board": BOARD, "hands": {"1": "Qd Qc", "3": "Kd Kc"},
                                  "claimed_awards": [{"seat": 3, "amount": "28.00"},
                                                     {"seat": 1, "amount": "39.00"}]})
    assert response.status_code == 201, response.content
    hand = response.json()
    assert (hand["state"], hand["rake_minor"]) == ("settled", 300)
    assert hand["awards_verified"] == {"1": 3_900, "3": 2_800}
    assert seat_stacks(table_id) == {1: 20_000 - 3_000 + 3_900, 2: 17_000, 3: 2_800}
    stream = f"hand/{table_id}/1"
    mucks = [e.payload for e in Event.objects.filter(stream=stream, type="poker.action_taken")
             if e.payload["kind"] == "muck"]
    assert [(m["seat"], m["record"]["added_minor"], m["phase"]) for m in mucks] == [
        (2, 0, "showdown")]
    settled = Event.objects.get(stream=stream, type="poker.hand_settled").payload
    assert settled["mucked"] == [2]
    assert settled["hands"] == {"1": "Qd Qc", "3": "Kd Kc"}
    assert Hand.objects.get(id=f"{table_id}.1").state == HandStatus.SETTLED
    assert_table_balanced(table_id)


def test_a_claim_that_awards_a_mucked_hand_is_disputed(venues):
    """Awards follow the shown cards: a claim giving the pot to the player who
    mucked differs from the verified result."""
    table_id = _table()
    response = _history(table_id, [*SIDE_POT_TO_RIVER, {"seat": 2, "kind": "muck"}],
                        showdown={"board": BOARD, "hands": {"1": "Qd Qc", "3": "Kd Kc"},
                                  "claimed_awards": [{"seat": 2, "amount": "67.00"}]})
    assert response.status_code == 201, response.content
    assert response.json()["state"] == "disputed"
    assert response.json()["awards_verified"] == {"1": 3_900, "3": 2_800}


def test_a_mucked_hands_cards_are_not_read_and_every_holder_must_show(venues):
    """A dead hand's cards are refused; a holder's missing cards too (400, nothing
    written)."""
    table_id = _table()
    before = Event.objects.count()
    dead = _history(table_id, [*SIDE_POT_TO_RIVER, {"seat": 2, "kind": "muck"}],
                    showdown={"board": BOARD,
                              "hands": {"1": "Qd Qc", "2": "As Ah", "3": "Kd Kc"},
                              "claimed_awards": [{"seat": 3, "amount": "67.00"}]})
    assert dead.status_code == 400
    assert dead.json()["code"] == "poker.invalid_showdown"
    assert dead.json()["details"]["cite"] == "000:L245-248"
    missing = _history(table_id, [*SIDE_POT_TO_RIVER, {"seat": 2, "kind": "muck"}],
                       showdown={"board": BOARD, "hands": {"1": "Qd Qc"},
                                 "claimed_awards": [{"seat": 1, "amount": "67.00"}]})
    assert missing.status_code == 400
    assert missing.json()["details"]["holding_seats"] == [1, 3]
    assert Event.objects.count() == before


def test_the_last_holder_wins_unshown_and_a_pot_all_mucked_goes_to_the_last_to_muck(venues):
    """Seat 1 mucks, then seat 2: seat 3, all-in, holds cards last and wins the
    main pot without showing (000:L192-195); nobody in the side pot holds cards,
    so seat 2, the last of them to muck, wins it. No showdown is given."""
    table_id = _table()
    response = _history(table_id, [*SIDE_POT_TO_RIVER, {"seat": 1, "kind": "muck"},
                                   {"seat": 2, "kind": "muck"}])
    assert response.status_code == 201, response.content
    hand = response.json()
    assert hand["state"] == "settled"
    assert hand["awards_verified"] == {"3": 2_800, "2": 3_900}
    settled = Event.objects.get(stream=f"hand/{table_id}/1", type="poker.hand_settled")
    assert (settled.payload["showdown"], settled.payload["mucked"]) == (False, [1, 2])
    assert_table_balanced(table_id)


def test_a_muck_by_action_then_the_showdown_and_a_rebuilt_hand_agree(venues):
    """The single-action endpoint records the muck; the hand replays from its
    events with the muck in it; a muck before the betting ends is refused and
    recorded (422)."""
    table_id = _table()
    hand = commands.start_hand(table_id=table_id, button=1, actor="t", idempotency_key=key())
    client = client_for(Role.TABLE_CONTROLLER)
    url = f"/api/v1/poker/hands/{hand.hand_id}/actions"
    early = post(client, url, {"seat": 1, "kind": "muck"}, key=key())
    assert early.status_code == 422
    assert early.json()["code"] == "poker.muck_before_showdown"
    assert Event.objects.filter(stream=f"hand/{table_id}/1",
                                type="poker.action_rejected").count() == 1
    for step in SIDE_POT_TO_RIVER:
        amount = int(float(step["amount"]) * 100) if "amount" in step else None
        commands.act(hand_id=hand.hand_id, seat=step["seat"], kind=step["kind"],
                     amount_minor=amount, actor="t", idempotency_key=key())
    mucked = post(client, url, {"seat": 2, "kind": "muck"}, key=key())
    assert mucked.status_code == 201, mucked.content
    assert (mucked.json()["state"], mucked.json()["phase"]) == ("showdown", "showdown")
    assert Hand.objects.get(id=hand.hand_id).state == HandStatus.SHOWDOWN
    assert commands.load_hand(hand.hand_id).state.mucked == (2,)
    again = post(client, url, {"seat": 2, "kind": "muck"}, key=key())
    assert again.json()["code"] == "poker.not_in_hand"
    result = commands.showdown(hand_id=hand.hand_id, board=BOARD,
                               hands={1: "Qd Qc", 3: "Kd Kc"},
                               claimed_awards={3: 2_800, 1: 3_900}, actor="t",
                               idempotency_key=key())
    assert result.state == "settled"
    with pytest.raises(PokerError) as caught:
        commands.act(hand_id=hand.hand_id, seat=1, kind="muck", actor="t",
                     idempotency_key=key())
    assert caught.value.code == "poker.hand_finished"
