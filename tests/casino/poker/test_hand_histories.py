"""A complete hand history in one request: validated exactly like the actions.

The history goes through the engine step by step in memory; only a history
legal to the end is appended (all its events in one append). One illegal
step and nothing is written but the refusal on the table's stream.
"""

from __future__ import annotations

import pytest

from casino.poker import commands
from casino.poker.errors import PokerError
from casino.poker.events import table_stacks, table_stream
from casino.roles import Role
from ledger import verify_chain
from ledger.models import Event, Posting
from tests.casino.api.conftest import client_for, post
from tests.casino.poker.conftest import (
    assert_table_balanced,
    balance,
    key,
    open_helsinki_table,
    seat_players,
    seat_stacks,
)

THREE_WAY_TO_SHOWDOWN = [
    # Button 1: seat 2 small blind 1.00, seat 3 big blind 2.00; seat 1 acts first.
    {"seat": 1, "kind": "call"}, {"seat": 2, "kind": "call"}, {"seat": 3, "kind": "check"},
    {"seat": 2, "kind": "check"}, {"seat": 3, "kind": "check"}, {"seat": 1, "kind": "check"},
    {"seat": 2, "kind": "bet", "amount": "10.00"}, {"seat": 3, "kind": "fold"},
    {"seat": 1, "kind": "call"},
    {"seat": 2, "kind": "check"}, {"seat": 1, "kind": "check"},
]
BOARD = "2c 7d 9h Js 4c"
HANDS = {"1": "As Ah", "2": "Kd Kc"}


def _table(stacks=None):
    table = open_helsinki_table()
    seat_players(table.table_id, stacks or {1: 20_000, 2: 20_000, 3: 20_000})
    return table.table_id


def _history(table_id, actions, **extra):
    client = client_for(Role.TABLE_CONTROLLER)
    body = {"button": 1, "actions": actions, **extra}
    return post(client, f"/api/v1/poker/tables/{table_id}/hand-histories", body, key=key())


def test_a_legal_history_settles_in_one_append_as_the_actions_would(venues):
    """Pot 6.00 + 2 x 10.00 = 26.00; rake EUR 1 per full EUR 20 (000:L430-437) is
    1.00; 3 players dealt, so no bad-beat drop (5+ needed, 000:L2823-2826)."""
    table_id = _table()
    response = _history(table_id, THREE_WAY_TO_SHOWDOWN, showdown={
        "board": BOARD, "hands": HANDS,
        "claimed_awards": [{"seat": 1, "amount": "25.00"}]})
    assert response.status_code == 201, response.content
    hand = response.json()
    assert (hand["state"], hand["rake_minor"], hand["drop_minor"]) == ("settled", 100, 0)
    assert hand["awards_verified"] == {"1": 2_500}
    assert seat_stacks(table_id) == {1: 21_300, 2: 18_800, 3: 19_800}
    # One append: the hand's events are contiguous, started to settled.
    events = list(Event.objects.filter(stream=f"hand/{table_id}/1").order_by("position"))
    assert [e.type for e in events][0::len(events) - 1] == ["poker.hand_started",
                                                           "poker.hand_settled"]
    assert len(events) == 1 + len(THREE_WAY_TO_SHOWDOWN) + 1
    assert events[-1].position - events[0].position == len(events) - 1
    assert_table_balanced(table_id)


def test_the_same_hand_played_action_by_action_records_the_same_settlement(venues):
    """The history and the single actions share one engine and one event builder."""
    by_history = _table()
    _history(by_history, THREE_WAY_TO_SHOWDOWN, showdown={
        "board": BOARD, "hands": HANDS, "claimed_awards": [{"seat": 1, "amount": "25.00"}]})
    by_actions = _table()
    hand = commands.start_hand(table_id=by_actions, button=1, actor="t",
                               idempotency_key=key())
    for action in THREE_WAY_TO_SHOWDOWN:
        amount = int(float(action["amount"]) * 100) if "amount" in action else None
        commands.act(hand_id=hand.hand_id, seat=action["seat"], kind=action["kind"],
                     amount_minor=amount, actor="t", idempotency_key=key())
    commands.showdown(hand_id=hand.hand_id, board=BOARD, hands={1: "As Ah", 2: "Kd Kc"},
                      claimed_awards={1: 2_500}, actor="t", idempotency_key=key())

    def settled(table_id):
        payload = Event.objects.get(stream=f"hand/{table_id}/1",
                                    type="poker.hand_settled").payload
        return {k: v for k, v in payload.items() if k not in ("hand_id", "table_id")}

    assert settled(by_history) == settled(by_actions)


def test_a_history_with_an_illegal_action_is_refused_whole_and_writes_nothing(venues):
    """Step 5 checks facing no bet... legal; step 7 `check` facing a bet is not.
    No hand, no posting, no stack moves: only the refusal is recorded."""
    table_id = _table()
    illegal = [*THREE_WAY_TO_SHOWDOWN[:7], {"seat": 3, "kind": "check"}]
    stacks, chips = seat_stacks(table_id), balance(table_stacks(table_id))
    before = Event.objects.order_by("-position").first().position
    response = _history(table_id, illegal, showdown={
        "board": BOARD, "hands": HANDS, "claimed_awards": [{"seat": 1, "amount": "25.00"}]})
    assert response.status_code == 422, response.content
    body = response.json()
    assert body["code"] == "poker.cannot_check"
    assert body["details"]["step"] == 7 and body["message"].startswith("step 7:")
    written = list(Event.objects.filter(position__gt=before))
    assert [(e.type, e.stream) for e in written] == [
        ("poker.hand_history_rejected", table_stream(table_id))]
    assert not Posting.objects.filter(event_id__gt=before).exists()
    assert not Event.objects.filter(stream__startswith=f"hand/{table_id}/").exists()
    assert seat_stacks(table_id) == stacks and balance(table_stacks(table_id)) == chips
    # The table is free: the next hand is number 1.
    hand = commands.start_hand(table_id=table_id, button=1, actor="t", idempotency_key=key())
    assert hand.number == 1


def test_a_history_that_does_not_end_the_hand_is_a_400_and_writes_nothing(venues):
    table_id = _table()
    before = Event.objects.count()
    response = _history(table_id, THREE_WAY_TO_SHOWDOWN[:4])
    assert response.status_code == 400
    assert response.json()["code"] == "poker.incomplete_history"
    response = _history(table_id, THREE_WAY_TO_SHOWDOWN)  # showdown missing
    assert response.status_code == 400
    assert Event.objects.count() == before


def test_a_history_won_without_showdown_needs_no_cards(venues):
    """Everyone else folds: no cards, the uncalled bet returns (000:L192-195)."""
    table_id = _table()
    response = _history(table_id, [{"seat": 1, "kind": "raise", "amount": "6.00"},
                                   {"seat": 2, "kind": "fold"}, {"seat": 3, "kind": "fold"}])
    assert response.status_code == 201, response.content
    hand = response.json()
    # Pot before the flop: 6.00 + 1.00 + 2.00; the 4.00 not called goes back to seat 1.
    # No flop: the flat EUR 1 (000:L459-461).
    assert (hand["state"], hand["rake_minor"]) == ("settled", 100)
    assert seat_stacks(table_id) == {1: 20_200, 2: 19_900, 3: 19_800}


def test_a_misdeal_history_is_voided_with_every_bet_returned(venues):
    """A misdeal voids the hand: the stacks as at the start (000:L1093-1110)."""
    table_id = _table()
    response = _history(table_id, THREE_WAY_TO_SHOWDOWN[:2], void_reason="misdeal: a card"
                        " exposed in the deal")
    assert response.status_code == 201, response.content
    assert response.json()["state"] == "voided"
    assert seat_stacks(table_id) == {1: 20_000, 2: 20_000, 3: 20_000}


def test_a_claimed_result_that_differs_is_disputed_and_moves_no_money(venues):
    table_id = _table()
    chips = balance(table_stacks(table_id))
    response = _history(table_id, THREE_WAY_TO_SHOWDOWN, showdown={
        "board": BOARD, "hands": HANDS, "claimed_awards": [{"seat": 2, "amount": "25.00"}]})
    assert response.status_code == 201, response.content
    assert response.json()["state"] == "disputed"
    assert balance(table_stacks(table_id)) == chips
    assert Event.objects.filter(type="compliance.alert_raised",
                                stream=f"hand/{table_id}/1").count() == 1


def test_a_repeated_history_under_its_key_writes_once(venues):
    table_id = _table()
    client = client_for(Role.TABLE_CONTROLLER)
    body = {"button": 1, "actions": [{"seat": 1, "kind": "fold"}, {"seat": 2, "kind": "fold"}]}
    same = key()
    first = post(client, f"/api/v1/poker/tables/{table_id}/hand-histories", body, key=same)
    again = post(client, f"/api/v1/poker/tables/{table_id}/hand-histories", body, key=same)
    assert first.status_code == again.status_code == 201
    assert again.headers["Idempotent-Replayed"] == "true"
    assert first.json() == again.json()
    assert Event.objects.filter(type="poker.hand_started",
                                stream__startswith=f"hand/{table_id}/").count() == 1
    assert verify_chain().ok


def test_a_straddle_is_dealt_and_acts_last_before_the_flop(venues):
    """A live straddle (000:L975-985): seat 1 posts 4.00; seat 2 opens the action."""
    table_id = _table({1: 20_000, 2: 20_000, 3: 20_000, 4: 20_000})
    hand = commands.start_hand(table_id=table_id, button=2, straddles=1, actor="t",
                               idempotency_key=key())
    assert hand.pot_minor == 100 + 200 + 400
    assert hand.to_act == 2


def test_a_replay_of_an_illegal_history_answers_the_same_refusal(venues):
    table_id = _table()
    steps = [commands.Step(1, "check")]
    k = key()
    for _ in range(2):
        with pytest.raises(PokerError) as caught:
            commands.record_hand(table_id=table_id, deal=commands.Deal(1), steps=steps,
                                 actor="t", idempotency_key=k)
        assert caught.value.code == "poker.cannot_check"
    assert Event.objects.filter(type="poker.hand_history_rejected").count() == 1
