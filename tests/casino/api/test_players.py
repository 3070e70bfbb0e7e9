"""The players API: registration, reading, verification, self-exclusion, limits.

Figures are ray-online's: a raise of the daily spending limit waits 24 hours
and one of the time limit 24 hours (002:L3078, L3080); a self-exclusion lasts
1 to 12 months (002:L3086). Casino-helsinki's rulebook has neither.
"""

import datetime as dt

import pytest

from casino.players.models import Player
from casino.roles import Role
from tests.casino.conftest import make_player
from tests.casino.api.conftest import refusal_matches

from .conftest import event_count, last_event, post

REGISTRATION = {"given_name": "Aino", "family_name": "Virtanen", "date_of_birth": "1990-05-01",
                "nationality": "FI", "document_type": "passport", "document_number": "XP1234567"}


@pytest.fixture
def cage(api_client):
    return api_client(Role.CAGE, "kassa")


@pytest.fixture
def unverified(venues):
    return make_player(verified=False, limits=False)


def _player_body(player: Player) -> dict:
    return {
        "id": player.id, "given_name": "Test", "family_name": "Player",
        "date_of_birth": "1990-05-01", "nationality": "FI",
        "document_hint": player.document_hint, "verification_status": "unverified",
        "verification_method": "", "verified_at": None, "self_excluded_from": None,
        "self_excluded_until": None, "registered_position": player.registered_position,
        "last_position": player.last_position,
    }


def _instant(text: str) -> dt.datetime:
    return dt.datetime.fromisoformat(text)


def test_registering_returns_the_player_without_the_document_number(cage):
    """201 with the new player; the number is only a three-character hint."""
    response = post(cage, "/api/v1/players", REGISTRATION)
    assert response.status_code == 201
    body = response.json()
    event = last_event()
    assert body == {
        "id": event.payload["player_id"], "given_name": "Aino", "family_name": "Virtanen",
        "date_of_birth": "1990-05-01", "nationality": "FI", "document_hint": "…567",
        "verification_status": "unverified", "verification_method": "", "verified_at": None,
        "self_excluded_from": None, "self_excluded_until": None,
        "registered_position": event.position, "last_position": event.position,
    }
    assert b"XP1234567" not in response.content


def test_registration_records_who_registered_and_no_document_number(cage):
    """The event names the cage user; the number is stored only as a hash."""
    post(cage, "/api/v1/players", REGISTRATION)
    event = last_event()
    assert (event.type, event.metadata["actor"]) == ("players.player_registered", "kassa")
    assert "XP1234567" not in str(event.payload)


def test_reading_a_player_returns_the_record(api_client, unverified):
    """An auditor reads the player as registered."""
    response = api_client(Role.AUDITOR).get(f"/api/v1/players/{unverified.id}")
    assert response.status_code == 200
    assert response.json() == _player_body(unverified)


def test_reading_an_unknown_player_is_404(api_client, venues):
    """The coded error names the player."""
    response = api_client(Role.CAGE).get("/api/v1/players/nobody")
    assert response.status_code == 404
    assert response.json() == {"code": "players.unknown_player", "message": "no player 'nobody'",
                               "details": {"player": "nobody"}}


@pytest.mark.parametrize("field", sorted(REGISTRATION))
def test_registration_without_a_field_is_refused(cage, field):
    """Each field is required; the answer names it and nothing is written."""
    before = event_count()
    body = {name: value for name, value in REGISTRATION.items() if name != field}
    response = post(cage, "/api/v1/players", body)
    assert response.status_code == 400
    assert response.json()["details"] == {field: ["This field is required."]}
    assert event_count() == before


@pytest.mark.parametrize(
    "change, status, answer",
    [
        ({"nationality": "fin"}, 400, {"code": "players.invalid_player",
                                       "message": "nationality must be an ISO 3166 two-letter"
                                                  " code", "details": {}}),
        ({"date_of_birth": "2099-01-01"}, 400, {"code": "players.invalid_player",
                                                "message": "date_of_birth is in the future",
                                                "details": {}}),
        ({"document_number": "X1"}, 400, {"code": "players.invalid_player",
                                          "message": "document_number must be 4-40 characters",
                                          "details": {}}),
        ({"date_of_birth": "1990-13-01"}, 400, {"date_of_birth": [
            "Date has wrong format. Use one of these formats instead: YYYY-MM-DD."]}),
        ({"document_type": "library_card"}, 400, {"document_type": [
            '"library_card" is not a valid choice.']}),
        ({"given_name": ""}, 400, {"given_name": ["This field may not be blank."]}),
        ({"given_name": "x" * 101}, 400, {"given_name": [
            "Ensure this field has no more than 100 characters."]}),
    ],
    ids=["nationality_case", "future_birth_case", "short_document_case", "bad_date_case",
         "unknown_document_type_case", "blank_name_case", "long_name_case"],
)
def test_registration_with_a_bad_field_is_refused(cage, change, status, answer):
    """Field errors and the command's coded errors are 400s; nothing is written."""
    before = event_count()
    response = post(cage, "/api/v1/players", {**REGISTRATION, **change})
    assert response.status_code == status
    assert refusal_matches(response.json(), answer), response.json()
    assert event_count() == before


def test_registering_the_same_document_twice_is_a_conflict(cage):
    """One player per document (002:L3064): a second registration under a new key is a
    409, and the refusal is on the record (players.registration_rejected)."""
    post(cage, "/api/v1/players", REGISTRATION, key="first")
    before = event_count()
    response = post(cage, "/api/v1/players", {**REGISTRATION, "document_number": "xp-1234567"},
                    key="second")
    assert response.status_code == 409
    body = response.json()
    assert (body["code"], body["message"]) == (
        "players.duplicate_identity", "a player with this identity document is already registered")
    assert event_count() == before + 1


def test_verifying_records_the_method_and_the_officer(api_client, unverified):
    """The player is verified by bank_id; the event names the officer."""
    officer = api_client(Role.COMPLIANCE_OFFICER, "olli")
    response = post(officer, f"/api/v1/players/{unverified.id}/verification",
                    {"method": "bank_id"})
    assert response.status_code == 200
    event = last_event()
    assert response.json() == {
        **_player_body(unverified), "verification_status": "verified",
        "verification_method": "bank_id", "verified_at": response.json()["verified_at"],
        "last_position": event.position,
    }
    assert _instant(response.json()["verified_at"]) == event.occurred_at
    assert (event.type, event.payload, event.metadata["actor"]) == (
        "players.identity_verified", {"player_id": unverified.id, "method": "bank_id"}, "olli")


def test_verifying_a_verified_player_again_is_a_conflict(cage, player):
    """A second verification under a new key is a 409 and writes nothing."""
    before = event_count()
    response = post(cage, f"/api/v1/players/{player.id}/verification", {"method": "passport"},
                    key="again")
    assert response.status_code == 409
    assert response.json()["code"] == "players.already_verified"
    assert event_count() == before


@pytest.mark.parametrize(
    "player_id, body, status, answer",
    [
        ("nobody", {"method": "bank_id"}, 404,
         {"code": "players.unknown_player", "message": "no player 'nobody'",
          "details": {"player": "nobody"}}),
        (None, {"method": "fax"}, 400, {"method": ['"fax" is not a valid choice.']}),
        (None, {}, 400, {"method": ["This field is required."]}),
    ],
    ids=["unknown_player_case", "unknown_method_case", "missing_method_case"],
)
def test_verification_with_bad_input_is_refused(cage, unverified, player_id, body, status,
                                                answer):
    """Unknown players are 404, unknown methods 400; nothing is written."""
    before = event_count()
    response = post(cage, f"/api/v1/players/{player_id or unverified.id}/verification", body)
    assert response.status_code == status
    assert refusal_matches(response.json(), answer), response.json()
    assert event_count() == before


def test_self_exclusion_excludes_the_player_for_the_months_asked(cage, unverified):
    """Six months from now, cited to 002:L3086; the event names the cashier."""
    response = post(cage, f"/api/v1/players/{unverified.id}/self-exclusion",
                    {"months": 6, "venue": "ray-online"})
    assert response.status_code == 200
    body = response.json()
    event = last_event()
    assert (event.type, event.metadata["actor"]) == ("players.self_excluded", "kassa")
    assert (event.payload["months"], event.payload["rulebook"], event.payload["cite"]) == (
        6, "ray-online@1", "002:L3086")
    assert _instant(body["self_excluded_from"]) == _instant(event.payload["from"])
    assert _instant(body["self_excluded_until"]) == _instant(event.payload["until"])
    start, end = _instant(event.payload["from"]), _instant(event.payload["until"])
    assert (end.year * 12 + end.month) - (start.year * 12 + start.month) == 6
    assert body["last_position"] == event.position


@pytest.mark.parametrize(
    "player_id, body, status, answer",
    [
        ("nobody", {"months": 6, "venue": "ray-online"}, 404,
         {"code": "players.unknown_player", "message": "no player 'nobody'",
          "details": {"player": "nobody"}}),
        (None, {"months": 13, "venue": "ray-online"}, 400,
         {"code": "players.invalid_self_exclusion", "message": "months must be 1 to 12 (002:L3086)",
          "details": {"months_max": 12, "cite": "002:L3086"}}),
        (None, {"months": 0, "venue": "ray-online"}, 400,
         {"code": "players.invalid_self_exclusion", "message": "months must be 1 to 12 (002:L3086)",
          "details": {"months_max": 12, "cite": "002:L3086"}}),
        (None, {"months": 1.5, "venue": "ray-online"}, 400,
         {"months": ["A valid integer is required."]}),
        (None, {"months": 6, "venue": "nowhere"}, 404,
         {"code": "rules.unknown_venue", "message": "no venue 'nowhere'",
          "details": {"venue": "nowhere"}}),
        (None, {"months": 6, "venue": "casino-helsinki"}, 400,
         {"code": "players.invalid_self_exclusion",
          "message": "rulebook ray-casino@1 has no self-exclusion rule", "details": {}}),
        (None, {"venue": "ray-online"}, 400, {"months": ["This field is required."]}),
    ],
    ids=["unknown_player_case", "too_long_case", "zero_case", "fraction_case",
         "unknown_venue_case", "venue_without_rule_case", "missing_months_case"],
)
def test_self_exclusion_with_bad_input_is_refused(cage, unverified, player_id, body, status,
                                                  answer):
    """Out-of-range terms, unknown venues and players are refused; nothing is written."""
    before = event_count()
    response = post(cage, f"/api/v1/players/{player_id or unverified.id}/self-exclusion", body)
    assert response.status_code == status
    assert refusal_matches(response.json(), answer), response.json()
    assert event_count() == before


def test_a_running_self_exclusion_can_be_lengthened_never_shortened(cage, unverified):
    """While one runs, a shorter term is a recorded 409; a longer one within the
    12 continuous months is accepted (002:L3086)."""
    url = f"/api/v1/players/{unverified.id}/self-exclusion"
    post(cage, url, {"months": 6, "venue": "ray-online"}, key="first")
    before = event_count()
    shorter = post(cage, url, {"months": 3, "venue": "ray-online"}, key="second")
    assert shorter.status_code == 409
    assert shorter.json()["code"] == "players.self_exclusion_active"
    assert event_count() == before + 1
    assert last_event().type == "players.self_exclusion_rejected"
    longer = post(cage, url, {"months": 12, "venue": "ray-online"}, key="third")
    assert longer.status_code == 200, longer.json()
    assert last_event().type != "players.self_exclusion_rejected"


def test_setting_a_first_limit_applies_it_at_once(cage, unverified):
    """A first daily spending limit is in force at once, in money."""
    response = post(cage, f"/api/v1/players/{unverified.id}/limits",
                    {"kind": "daily_spend", "value": "150.00", "venue": "ray-online"})
    assert response.status_code == 200
    assert response.json() == {"kind": "daily_spend", "unit": "money", "value": "150.00",
                               "pending_value": None, "pending_effective_at": None,
                               "cite": "002:L3078"}
    event = last_event()
    assert (event.type, event.payload["value"], event.metadata["actor"]) == (
        "players.limit_set", 150_00, "kassa")


def test_raising_a_limit_waits_out_the_cooling_off(cage, unverified):
    """The raise shows as pending for 24 hours; the old value stays in force."""
    url = f"/api/v1/players/{unverified.id}/limits"
    post(cage, url, {"kind": "daily_spend", "value": "150.00", "venue": "ray-online"}, key="a")
    response = post(cage, url, {"kind": "daily_spend", "value": "200.50", "venue": "ray-online"},
                    key="b")
    assert response.status_code == 200
    body = response.json()
    event = last_event()
    assert body == {"kind": "daily_spend", "unit": "money", "value": "150.00",
                    "pending_value": "200.50",
                    "pending_effective_at": body["pending_effective_at"],
                    "cite": "002:L3078"}
    assert _instant(body["pending_effective_at"]) == event.occurred_at + dt.timedelta(hours=24)


def test_a_time_limit_is_whole_minutes(cage, unverified):
    """daily_time takes and shows an integer number of minutes."""
    response = post(cage, f"/api/v1/players/{unverified.id}/limits",
                    {"kind": "daily_time", "value": 90, "venue": "ray-online"})
    assert response.status_code == 200
    assert response.json() == {"kind": "daily_time", "unit": "minutes", "value": 90,
                               "pending_value": None, "pending_effective_at": None,
                               "cite": "002:L3080"}


def test_listing_limits_shows_each_as_it_stands_now(api_client, venues):
    """The spending limits set 30 days ago are in force; nothing is pending."""
    player = make_player(daily=100_00, monthly=1_000_00)
    response = api_client(Role.COMPLIANCE_OFFICER).get(f"/api/v1/players/{player.id}/limits")
    assert response.status_code == 200
    assert response.json()["has_more"] is False
    assert response.json()["results"] == [
        {"kind": "daily_spend", "unit": "money", "value": "100.00", "pending_value": None,
         "pending_effective_at": None, "cite": "002:L3078"},
        {"kind": "monthly_spend", "unit": "money", "value": "1000.00", "pending_value": None,
         "pending_effective_at": None, "cite": "002:L3078"},
    ]


def test_listing_limits_of_an_unknown_player_is_404(api_client, venues):
    response = api_client(Role.CAGE).get("/api/v1/players/nobody/limits")
    assert response.status_code == 404
    assert response.json()["code"] == "players.unknown_player"


MONEY_MESSAGE = 'give the amount as a string with at most two decimals, e.g. "150.00"'


@pytest.mark.parametrize(
    "player_id, body, status, answer",
    [
        ("nobody", {"kind": "daily_spend", "value": "150.00", "venue": "ray-online"}, 404,
         {"code": "players.unknown_player", "message": "no player 'nobody'",
          "details": {"player": "nobody"}}),
        (None, {"kind": "daily_spend", "value": "1.005", "venue": "ray-online"}, 400,
         {"value": [MONEY_MESSAGE]}),
        (None, {"kind": "daily_spend", "value": 1.5, "venue": "ray-online"}, 400,
         {"value": [MONEY_MESSAGE]}),
        (None, {"kind": "monthly_spend", "value": "-5.00", "venue": "ray-online"}, 400,
         {"value": [MONEY_MESSAGE]}),
        (None, {"kind": "daily_spend", "value": "0.00", "venue": "ray-online"}, 400,
         {"value": ["the amount must be greater than zero"]}),
        (None, {"kind": "daily_time", "value": "90", "venue": "ray-online"}, 400,
         {"value": ["daily_time is a whole number of minutes greater than zero"]}),
        (None, {"kind": "daily_time", "value": 1.5, "venue": "ray-online"}, 400,
         {"value": ["daily_time is a whole number of minutes greater than zero"]}),
        (None, {"kind": "daily_time", "value": 0, "venue": "ray-online"}, 400,
         {"value": ["daily_time is a whole number of minutes greater than zero"]}),
        (None, {"kind": "weekly_spend", "value": "1.00", "venue": "ray-online"}, 400,
         {"kind": ['"weekly_spend" is not a valid choice.']}),
        (None, {"kind": "daily_spend", "value": "150.00", "venue": "nowhere"}, 404,
         {"code": "rules.unknown_venue", "message": "no venue 'nowhere'",
          "details": {"venue": "nowhere"}}),
        (None, {"kind": "daily_spend", "value": "150.00", "venue": "casino-helsinki"}, 400,
         {"code": "players.invalid_limit", "message": "rulebook ray-casino@1 has no player-set limits",
          "details": {}}),
        (None, {"kind": "daily_spend", "venue": "ray-online"}, 400,
         {"value": ["This field is required."]}),
    ],
    ids=["unknown_player_case", "fraction_of_a_cent_case", "json_float_case", "negative_case",
         "zero_case", "minutes_as_string_case", "fractional_minutes_case", "zero_minutes_case",
         "unknown_kind_case", "unknown_venue_case", "venue_without_limits_case",
         "missing_value_case"],
)
def test_setting_a_limit_with_bad_input_is_refused(cage, unverified, player_id, body, status,
                                                   answer):
    """Money as a two-decimal string, minutes as an integer; nothing else is written."""
    before = event_count()
    response = post(cage, f"/api/v1/players/{player_id or unverified.id}/limits", body)
    assert response.status_code == status
    assert refusal_matches(response.json(), answer), response.json()
    assert event_count() == before

