"""The games API's error paths over HTTP: 400, 401/403, 404, 409, 422 (recorded).

Every refusal is a coded JSON body, never a 500; a refusal by a game rule is
recorded as an event before the 422 and a retry with the same key answers
the same refusal without writing again.
"""

from __future__ import annotations

import pytest

from casino.games.events import BET_REJECTED, OUTCOME_REJECTED
from casino.games.models import Bet, GameTable, Round
from casino.roles import Role
from ledger.models import Event
from tests.casino.api.conftest import client_for, post, post_raw

from .conftest import funded_player, key

TABLES = "/api/v1/games/tables"


@pytest.fixture
def controller(venues):
    return client_for(Role.TABLE_CONTROLLER)


def open_table(client, game="roulette", config=None, **body):
    response = post(client, TABLES, {"venue": "casino-helsinki", "game": game,
                                     "config": config or {}, "stake_min": "1.00",
                                     "stake_max": "100.00", **body}, key=key("t"))
    assert response.status_code == 201, response.json()
    return response.json()["table_id"]


def open_round(client, table_id):
    response = post(client, f"{TABLES}/{table_id}/rounds", {}, key=key("r"))
    assert response.status_code == 201, response.json()
    return response.json()["round_id"]


def bets_url(round_id):
    return f"/api/v1/games/rounds/{round_id}/bets"


# 400 -----------------------------------------------------------------------


def test_malformed_json_and_missing_fields_are_400_and_write_nothing(controller):
    before = Event.objects.count()
    assert post_raw(controller, TABLES, "{not json", key=key()).status_code == 400
    missing = post(controller, TABLES, {"venue": "casino-helsinki"}, key=key())
    assert missing.status_code == 400 and "game" in missing.json()["details"]
    unknown = post(controller, TABLES, {"venue": "casino-helsinki", "game": "craps",
                                        "stake_min": "1.00", "stake_max": "2.00"}, key=key())
    assert unknown.status_code == 400
    money = post(controller, TABLES, {"venue": "casino-helsinki", "game": "roulette",
                                      "stake_min": "1.001", "stake_max": "2.00"}, key=key())
    assert money.status_code == 400
    assert Event.objects.count() == before


def test_a_write_without_an_idempotency_key_is_400(controller):
    response = post(controller, TABLES, {"venue": "casino-helsinki", "game": "roulette",
                                         "stake_min": "1.00", "stake_max": "2.00"}, key=None)
    assert response.status_code == 400 and "Idempotency-Key" in response.json()["details"]
    assert not GameTable.objects.exists()


def test_bad_table_options_and_bets_off_the_layout_are_400(controller):
    response = post(controller, TABLES, {"venue": "casino-helsinki",
                                         "game": "texas_holdem_bonus", "config": {},
                                         "stake_min": "1.00", "stake_max": "2.00"}, key=key())
    assert (response.status_code, response.json()["code"]) == (400, "games.invalid_request")
    round_id = open_round(controller, open_table(controller))
    player = funded_player()
    before = Event.objects.count()
    for body in ({"kind": "split", "spec": {"numbers": [1, 5]}},
                 {"kind": "five_numbers", "spec": {}},
                 {"kind": "dozen", "spec": {"which": 4}}):
        response = post(controller, bets_url(round_id), {"player_id": player.id,
                                                         "stake": "5.00", **body}, key=key())
        assert (response.status_code, response.json()["code"]) == (400, "games.invalid_bet")
    assert Event.objects.count() == before


# 401 / 403 -----------------------------------------------------------------


def test_roles_decide_who_reads_and_who_writes(venues):
    writer = client_for(Role.TABLE_CONTROLLER)
    table_id = open_table(writer)
    body = {"venue": "casino-helsinki", "game": "roulette", "stake_min": "1.00",
            "stake_max": "2.00"}
    for role in (Role.AUDITOR, Role.CAGE, Role.ACCOUNTANT, None):
        response = post(client_for(role), TABLES, body, key=key())
        assert response.status_code == 403, role
    for role in (Role.CAGE, Role.ACCOUNTANT, None):
        assert client_for(role).get(f"{TABLES}/{table_id}").status_code == 403, role
    for role in (Role.AUDITOR, Role.COMPLIANCE_OFFICER, Role.TABLE_CONTROLLER):
        assert client_for(role).get(f"{TABLES}/{table_id}").status_code == 200, role
    from rest_framework.test import APIClient
    assert APIClient().get(f"{TABLES}/{table_id}").status_code in (401, 403)
    assert GameTable.objects.count() == 1


# 404 -----------------------------------------------------------------------


def test_unknown_venue_table_and_round_are_404(controller):
    response = post(controller, TABLES, {"venue": "nowhere", "game": "roulette",
                                         "stake_min": "1.00", "stake_max": "2.00"}, key=key())
    assert response.status_code == 404
    assert controller.get(f"{TABLES}/gt-missing").json()["code"] == "games.unknown_table"
    assert controller.get(f"{TABLES}/gt-missing").status_code == 404
    assert controller.get("/api/v1/games/rounds/gt-missing.1").status_code == 404
    for url in (f"{TABLES}/gt-missing/rounds", bets_url("gt-missing.1"),
                "/api/v1/games/rounds/gt-missing.1/close"):
        response = post(controller, url, {"player_id": "x", "kind": "red", "stake": "1.00"},
                        key=key())
        assert response.status_code == 404, url
        assert response.json()["code"] in ("games.unknown_table", "games.unknown_round")


# 409 -----------------------------------------------------------------------


def test_state_conflicts_are_409(controller):
    table_id = open_table(controller)
    round_id = open_round(controller, table_id)
    running = post(controller, f"{TABLES}/{table_id}/rounds", {}, key=key())
    assert (running.status_code, running.json()["code"]) == (409, "games.round_running")
    early = post(controller, f"/api/v1/games/rounds/{round_id}/settle", {}, key=key())
    assert (early.status_code, early.json()["code"]) == (409, "games.wrong_state")
    assert post(controller, f"/api/v1/games/rounds/{round_id}/close", {},
                key=key()).status_code == 201
    player = funded_player()
    late = post(controller, bets_url(round_id), {"player_id": player.id, "kind": "red",
                                                 "stake": "5.00"}, key=key())
    assert (late.status_code, late.json()["code"]) == (409, "games.betting_closed")
    again = post(controller, f"/api/v1/games/rounds/{round_id}/close", {}, key=key())
    assert again.status_code == 409


def test_a_reused_key_for_another_request_is_409(controller):
    round_id = open_round(controller, open_table(controller))
    player = funded_player()
    k = key("reuse")
    first = post(controller, bets_url(round_id), {"player_id": player.id, "kind": "red",
                                                  "stake": "5.00"}, key=k)
    assert first.status_code == 201
    replay = post(controller, bets_url(round_id), {"player_id": player.id, "kind": "red",
                                                   "stake": "5.00"}, key=k)
    assert (replay.status_code, replay.headers.get("Idempotent-Replayed")) == (201, "true")
    other = post(controller, bets_url(round_id), {"player_id": player.id, "kind": "black",
                                                  "stake": "5.00"}, key=k)
    assert other.status_code == 409
    assert Bet.objects.count() == 1


# 422 -----------------------------------------------------------------------


def test_rule_refusals_are_422_recorded_and_replayed(controller):
    table_id = open_table(controller, game="ultimate_texas_holdem",
                          config={"trips_table": "i"})
    round_id = open_round(controller, table_id)
    player = funded_player()
    k = key("alone")
    alone = post(controller, bets_url(round_id), {"player_id": player.id, "kind": "trips",
                                                  "spec": {"box": 1}, "stake": "5.00"}, key=k)
    assert (alone.status_code, alone.json()["code"]) == (422, "games.side_bet_alone")
    assert alone.json()["details"]["cite"] == "002:L2319"
    rejected = Event.objects.filter(type=BET_REJECTED).count()
    assert rejected == 1
    replay = post(controller, bets_url(round_id), {"player_id": player.id, "kind": "trips",
                                                   "spec": {"box": 1}, "stake": "5.00"}, key=k)
    assert (replay.status_code, replay.json()) == (422, alone.json())
    assert Event.objects.filter(type=BET_REJECTED).count() == 1
    low = post(controller, bets_url(round_id), {"player_id": player.id, "kind": "ante",
                                                "spec": {"box": 1}, "stake": "0.50"}, key=key())
    assert (low.status_code, low.json()["code"]) == (422, "games.stake_below_minimum")
    assert Event.objects.filter(type=BET_REJECTED).count() == 2


def test_an_impossible_outcome_is_422_and_recorded(controller):
    table_id = open_table(controller, game="pai_gow_poker")
    round_id = open_round(controller, table_id)
    player = funded_player()
    assert post(controller, bets_url(round_id), {"player_id": player.id, "kind": "bet",
                                                 "spec": {"box": 1}, "stake": "5.00"},
                key=key()).status_code == 201
    post(controller, f"/api/v1/games/rounds/{round_id}/close", {}, key=key())
    # The dealer's front is not the house way's (8-8 goes in front).
    response = post(controller, f"/api/v1/games/rounds/{round_id}/outcome", {"outcome": {
        "dealer": "Ks Kd 8c 8h Ac 5d 2s", "dealer_front": "Ks Kd",
        "boxes": {"1": {"front": "Qc Qd", "back": "As Ah 9s 9d 3c"}}}}, key=key())
    assert (response.status_code, response.json()["code"]) == (422, "games.invalid_outcome")
    assert Event.objects.filter(type=OUTCOME_REJECTED).count() == 1
    assert Round.objects.get(id=round_id).state == "closed"
    malformed = post(controller, f"/api/v1/games/rounds/{round_id}/outcome",
                     {"outcome": "7"}, key=key())
    assert malformed.status_code == 400
