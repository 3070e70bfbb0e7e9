"""The poker API: one hand end to end, and a refused action."""

from __future__ import annotations

from casino.poker.events import table_stacks
from casino.roles import Role
from ledger.models import Event
from tests.casino.api.conftest import client_for, post
from tests.casino.poker.conftest import balance, funded_player, key


def _open_and_seat(client, seats: int = 2):
    response = post(client, "/api/v1/poker/tables", {
        "venue": "poker-helsinki", "variant": "holdem", "structure": "no_limit",
        "small_blind": "1.00", "big_blind": "2.00", "seats_max": 9,
        "buy_in_min": "100.00", "buy_in_max": "400.00", "jackpot": True,
    }, key=key())
    assert response.status_code == 201, response.content
    table_id = response.json()["table_id"]
    for seat in range(1, seats + 1):
        player = funded_player()
        response = post(client, f"/api/v1/poker/tables/{table_id}/buy-ins",
                        {"seat": seat, "player_id": player.id, "amount": "200.00"}, key=key())
        assert response.status_code == 201, response.content
        assert response.json()["stack_minor"] == 20_000
    return table_id


def test_api_plays_one_hand_to_a_win_without_showdown(venues):
    client = client_for(Role.TABLE_CONTROLLER)
    table_id = _open_and_seat(client)
    response = post(client, f"/api/v1/poker/tables/{table_id}/hands", {"button": 1}, key=key())
    assert response.status_code == 201, response.content
    hand = response.json()
    # Heads-up the button posts the small blind and acts first (000:L1226-1230).
    assert (hand["state"], hand["to_act"], hand["pot_minor"]) == ("betting", 1, 300)
    hand_id = hand["hand_id"]
    response = post(client, f"/api/v1/poker/hands/{hand_id}/actions",
                    {"seat": 1, "kind": "raise", "amount": "6.00"}, key=key())
    assert response.status_code == 201, response.content
    response = post(client, f"/api/v1/poker/hands/{hand_id}/actions",
                    {"seat": 2, "kind": "fold"}, key=key())
    assert response.status_code == 201, response.content
    settled = response.json()
    # No flop: the Veikkaus room's flat EUR 1 (000:L459-461); no drop.
    assert settled["state"] == "settled"
    assert (settled["rake_minor"], settled["drop_minor"]) == (100, 0)
    assert settled["stacks_minor"] == {"1": 20_100, "2": 19_800}

    reader = client_for(Role.AUDITOR)
    details = reader.get(f"/api/v1/poker/hands/{hand_id}").json()
    assert details["state"] == "settled"
    table = reader.get(f"/api/v1/poker/tables/{table_id}").json()
    assert table["table_stacks_minor"] == 39_900 == balance(table_stacks(table_id))
    assert [s["stack_minor"] for s in table["seats"][:2]] == [20_100, 19_800]


def test_api_refuses_an_illegal_action_with_422_and_records_it(venues):
    client = client_for(Role.TABLE_CONTROLLER)
    table_id = _open_and_seat(client)
    hand_id = post(client, f"/api/v1/poker/tables/{table_id}/hands", {"button": 1},
                   key=key()).json()["hand_id"]
    before = Event.objects.count()
    response = post(client, f"/api/v1/poker/hands/{hand_id}/actions",
                    {"seat": 1, "kind": "check"}, key=key())
    assert response.status_code == 422
    assert response.json()["code"] == "poker.cannot_check"
    assert Event.objects.count() == before + 1
    assert Event.objects.order_by("-position").first().type == "poker.action_rejected"
    assert client_for(Role.AUDITOR).get(f"/api/v1/poker/hands/{hand_id}").json()["to_act"] == 1


def test_api_refuses_a_buy_in_during_a_hand_with_409(venues):
    client = client_for(Role.TABLE_CONTROLLER)
    table_id = _open_and_seat(client)
    post(client, f"/api/v1/poker/tables/{table_id}/hands", {"button": 1}, key=key())
    player = funded_player()
    response = post(client, f"/api/v1/poker/tables/{table_id}/buy-ins",
                    {"seat": 3, "player_id": player.id, "amount": "200.00"}, key=key())
    assert response.status_code == 409
    assert response.json()["code"] == "poker.hand_in_progress"


def test_api_refuses_a_reused_key_with_another_request_with_409(venues):
    """The runner compares the request's fingerprint: never the first answer replayed."""
    client = client_for(Role.TABLE_CONTROLLER)
    table_id = _open_and_seat(client, seats=1)
    player = funded_player()
    reused = key()
    first = post(client, f"/api/v1/poker/tables/{table_id}/buy-ins",
                 {"seat": 2, "player_id": player.id, "amount": "200.00"}, key=reused)
    assert first.status_code == 201, first.content
    replay = post(client, f"/api/v1/poker/tables/{table_id}/buy-ins",
                  {"seat": 2, "player_id": player.id, "amount": "200.00"}, key=reused)
    assert replay.status_code == 201
    assert replay.headers["Idempotent-Replayed"] == "true"
    before = Event.objects.count()
    response = post(client, f"/api/v1/poker/tables/{table_id}/buy-ins",
                    {"seat": 2, "player_id": player.id, "amount": "300.00"}, key=reused)
    assert response.status_code == 409, response.content
    assert response.json()["code"] == "request.idempotency_key_reused"
    assert Event.objects.count() == before
    response = post(client, f"/api/v1/poker/tables/{table_id}/cash-outs",
                    {"seat": 2, "player_id": player.id}, key=reused)
    assert response.status_code == 409
    assert response.json()["code"] == "request.idempotency_key_reused"
    assert Event.objects.count() == before
    assert balance(table_stacks(table_id)) == 40_000
