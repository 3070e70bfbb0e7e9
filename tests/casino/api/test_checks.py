"""The dry-run check over HTTP: the verdict, the failure and its citation.

Roulette on one number at casino-helsinki is capped at EUR 600.00
(ray-casino, 002:L3395). The check writes nothing, allowed or not, and needs
no Idempotency-Key.
"""

import pytest

from casino.players.commands import self_exclude
from casino.roles import Role
from tests.casino.conftest import make_player
from tests.casino.api.conftest import refusal_matches

from .conftest import event_count, post_raw

ROULETTE = {"venue": "casino-helsinki", "game": "roulette", "bet_unit": "numbers_1",
            "currency": "EUR"}
EVERY_CHECK = [
    "compliance.identity_unverified", "compliance.underage", "compliance.self_excluded",
    "compliance.transfer_blackout", "compliance.account_ceiling", "compliance.game_not_offered",
    "compliance.max_stake", "compliance.limits_required", "compliance.daily_spend_limit",
    "compliance.monthly_spend_limit", "compliance.loss_cap", "compliance.max_win",
]


@pytest.fixture
def table(api_client):
    return api_client(Role.TABLE_CONTROLLER)


def _check(client, body):
    return client.post("/api/v1/checks/stake", body, format="json")


def test_a_stake_at_the_maximum_is_allowed(table, player):
    """EUR 600.00 on one number passes every check; nothing is written."""
    before = event_count()
    response = _check(table, {**ROULETTE, "player_id": player.id, "amount": "600.00"})
    assert response.status_code == 200
    assert response.json() == {"allowed": True, "checks_passed": EVERY_CHECK,
                               "rulebook": "ray-casino@1", "failure": None}
    assert event_count() == before


def test_a_stake_over_the_part_iv_maximum_names_the_rule(table, player):
    """EUR 600.01 is refused by compliance.max_stake, cited 002:L3395; nothing is written."""
    before = event_count()
    response = _check(table, {**ROULETTE, "player_id": player.id, "amount": "600.01"})
    assert response.status_code == 200
    assert response.json() == {
        "allowed": False,
        "checks_passed": EVERY_CHECK[:6],
        "rulebook": "ray-casino@1",
        "failure": {
            "code": "compliance.max_stake",
            "message": "EUR 600.01 is over the maximum stake EUR 600.00 for roulette/numbers_1",
            "limit": "600.00", "amount": "600.01", "cite": "002:L3395",
            "hint": "Lower the stake to the venue's maximum.",
        },
    }
    assert event_count() == before


def test_a_self_excluded_player_is_refused(api_client, player):
    """While the exclusion runs, the first check that fails is self_excluded."""
    excluded = self_exclude(player_id=player.id, months=3, venue_code="ray-online",
                            actor="test")
    before = event_count()
    response = _check(api_client(Role.CAGE), {**ROULETTE, "player_id": player.id,
                                              "amount": "10.00"})
    assert response.status_code == 200
    assert response.json() == {
        "allowed": False,
        "checks_passed": EVERY_CHECK[:2],
        "rulebook": "ray-casino@1",
        "failure": {
            "code": "compliance.self_excluded",
            "message": "the player is self-excluded until"
                       f" {excluded.self_excluded_until.isoformat()}",
            "limit": None, "amount": "10.00", "cite": "002:L3086",
            "hint": "A self-exclusion cannot be lifted before it ends.",
        },
    }
    assert event_count() == before


def test_an_unverified_player_is_refused(api_client, venues):
    """Verification comes first in the precedence order (002:L3031)."""
    player = make_player(verified=False)
    before = event_count()
    response = _check(api_client(Role.COMPLIANCE_OFFICER),
                      {**ROULETTE, "player_id": player.id, "amount": "10.00"})
    assert response.status_code == 200
    assert response.json() == {
        "allowed": False,
        "checks_passed": [],
        "rulebook": "ray-casino@1",
        "failure": {
            "code": "compliance.identity_unverified",
            "message": "the player's identity is not verified",
            "limit": None, "amount": "10.00", "cite": "002:L3031",
            "hint": "Verify the player's identity before play or deposits.",
        },
    }
    assert event_count() == before


def test_without_a_player_only_the_venue_rules_apply(table, venues):
    """An anonymous stake at the maximum is allowed; the player checks pass vacuously."""
    response = _check(table, {**ROULETTE, "amount": "600.00"})
    assert response.status_code == 200
    assert response.json()["allowed"] is True


def test_a_win_over_the_venue_maximum_is_refused(api_client, player):
    """kind=win is checked against the venue's maximum win, without a game."""
    response = _check(api_client(Role.AUDITOR),
                      {"kind": "win", "venue": "casino-helsinki", "currency": "EUR",
                       "player_id": player.id, "amount": "99999999.99"})
    assert response.status_code == 200
    assert response.json()["failure"]["code"] == "compliance.max_win"


MONEY_MESSAGE = 'give the amount as a string with at most two decimals, e.g. "150.00"'


@pytest.mark.parametrize(
    "change, status, answer",
    [
        ({"currency": "SEK"}, 400,
         {"code": "compliance.invalid_attempt", "message": "venue casino-helsinki plays in EUR, not SEK",
          "details": {}}),
        ({"player_id": "nobody"}, 404,
         {"code": "players.unknown_player", "message": "no player 'nobody'",
          "details": {"player": "nobody"}}),
        ({"venue": "nowhere"}, 404,
         {"code": "rules.unknown_venue", "message": "no venue 'nowhere'",
          "details": {"venue": "nowhere"}}),
        ({"amount": "1.005"}, 400, {"amount": [MONEY_MESSAGE]}),
        ({"amount": 1.5}, 400, {"amount": [MONEY_MESSAGE]}),
        ({"amount": "-1.00"}, 400, {"amount": [MONEY_MESSAGE]}),
        ({"amount": "0.00"}, 400, {"amount": ["the amount must be greater than zero"]}),
        ({"amount": None}, 400, {"amount": ["This field may not be null."]}),
        ({"kind": "bribe"}, 400, {"kind": ['"bribe" is not a valid choice.']}),
        ({"game": None}, 400, {"game": ["a stake names its game and bet unit"]}),
        ({"category": "lottery"}, 400, {"category": ['"lottery" is not a valid choice.']}),
    ],
    ids=["wrong_currency_case", "unknown_player_case", "unknown_venue_case",
         "fraction_of_a_cent_case", "json_float_case", "negative_case", "zero_case",
         "null_amount_case", "unknown_kind_case", "stake_without_game_case",
         "unknown_category_case"],
)
def test_a_check_with_bad_input_is_refused(table, player, change, status, answer):
    """Bad input is a 4xx with a message, and nothing is written."""
    before = event_count()
    response = _check(table, {**ROULETTE, "player_id": player.id, "amount": "10.00", **change})
    assert response.status_code == status
    assert refusal_matches(response.json(), answer), response.json()
    assert event_count() == before


@pytest.mark.parametrize("field", ["venue", "amount", "currency"])
def test_a_check_without_a_required_field_is_refused(table, venues, field):
    body = {**ROULETTE, "amount": "10.00"}
    del body[field]
    response = _check(table, body)
    assert response.status_code == 400
    assert response.json()["details"] == {field: ["This field is required."]}


def test_a_check_with_malformed_json_is_refused(table, venues):
    before = event_count()
    response = post_raw(table, "/api/v1/checks/stake", '{"venue": ', key=None)
    assert response.status_code == 400
    assert response.json()["message"].startswith("JSON parse error")
    assert event_count() == before
