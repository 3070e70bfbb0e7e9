"""The rules read API: rulebook versions with their cited rows, and venues."""

import pytest

from casino.roles import Role
from casino.rules.models import RulebookVersion, Venue

SHIPPED = ["olympic-tallinn@1", "pslive-tournaments@1", "ray-casino@1", "ray-gaming-hall@1",
           "ray-online@1", "ray-partner-premises@1", "veikkaus-online-poker@1",
           "veikkaus-poker-room@1"]


@pytest.fixture
def table(api_client):
    return api_client(Role.TABLE_CONTROLLER)


def test_rulebook_versions_are_listed(table, venues):
    """Every shipped rulebook, by id and version, with its header."""
    response = table.get("/api/v1/rulebooks")
    assert response.status_code == 200
    assert [row["key"] for row in response.json()["results"]] == SHIPPED
    casino = RulebookVersion.objects.get(key="ray-casino@1")
    assert response.json()["results"][2] == {
        "key": "ray-casino@1", "rulebook_id": "ray-casino", "version": 1,
        "effective_from": "2026-01-01", "effective_from_cite": "",
        "seed": "002", "title": casino.title, "venue_type": "casino", "currency": "EUR",
        "time_zone": "Europe/Helsinki", "content_sha256": casino.content_sha256,
        "source_name": "ray-casino.v1.toml", "loaded_position": casino.loaded_position,
    }


def test_a_rulebook_version_shows_its_rows_with_citations(table, venues):
    """Stake and win limits, figures and decisions, each with its seed line."""
    casino = RulebookVersion.objects.get(key="ray-casino@1")
    response = table.get("/api/v1/rulebooks/ray-casino/1")
    assert response.status_code == 200
    body = response.json()
    assert body["key"] == "ray-casino@1"
    assert len(body["stake_limits"]) == casino.stake_limits.count()
    assert {"limit_id": "roulette.numbers_1", "game": "roulette", "bet_unit": "numbers_1",
            "stake_minor_max": 600_00, "raise_rule": "per_game_rules", "cite": "002:L3395",
            "note": "A bet covering one number."} in body["stake_limits"]
    assert body["win_limits"] == [
        {"limit_id": "max_win", "scope": "single_win", "win_minor_max": 10_000_000_00,
         "cite": "002:L3499", "note": "EUR 10,000,000 for casino games."}]
    assert {"figure_key": "age.min", "value": 18, "unit": "years", "cite": "002:L153",
            "note": "", "decision": "age.casino", "effective_from": None} in body["figures"]
    assert len(body["decisions"]) == casino.decisions.count()
    assert body["decisions"][0]["topic"] == "rulebook.effective_from"
    assert body["decisions"][0]["cite"] == "002:L3-5"


@pytest.mark.parametrize("url", ["/api/v1/rulebooks/ray-casino/2",
                                 "/api/v1/rulebooks/no-such-book/1"])
def test_an_unknown_rulebook_version_is_404(table, venues, url):
    response = table.get(url)
    assert response.status_code == 404
    assert response.json()["code"] == "rules.unknown_rulebook"


def test_venues_are_listed(table, venues):
    """The six registered venues, by code."""
    response = table.get("/api/v1/venues")
    assert response.status_code == 200
    assert [row["code"] for row in response.json()["results"]] == [
        "casino-helsinki", "hall-helsinki", "olympic-tallinn", "partner-kioski",
        "poker-helsinki", "ray-online"]


def test_a_venue_shows_its_rulebook_and_day(api_client, venues):
    """An accountant reads a venue: rulebook, currency, zone, gaming-day start."""
    venue = Venue.objects.get(code="casino-helsinki")
    response = api_client(Role.ACCOUNTANT).get("/api/v1/venues/casino-helsinki")
    assert response.status_code == 200
    assert response.json() == {
        "code": "casino-helsinki", "name": "casino-helsinki", "rulebook_id": "ray-casino",
        "currency": "EUR", "time_zone": "Europe/Helsinki",
        "gaming_day_start": "00:00", "venue_type": "casino", "adults_only": False,
        "registered_position": venue.registered_position,
    }


def test_an_unknown_venue_is_404(table, venues):
    response = table.get("/api/v1/venues/nowhere")
    assert response.status_code == 404
    assert response.json() == {"code": "rules.unknown_venue", "message": "no venue 'nowhere'",
                               "details": {"venue": "nowhere"}}
