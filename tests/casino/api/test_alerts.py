"""Alerts over HTTP: newest first, filtered by kind, player and venue, paged.

Three refused attempts raise three alerts: a stake over the roulette maximum
at casino-helsinki (a limit hit), a stake by an unverified player there, and
a sic bo stake at the gaming hall, which offers no sic bo.
"""

import datetime as dt

import pytest

from casino.compliance.errors import AttemptRejected
from casino.compliance.pipeline import Attempt, authorize
from casino.roles import Role
from ledger.models import Event
from tests.casino.conftest import make_player


def _refuse(**attempt) -> int:
    with pytest.raises(AttemptRejected) as caught:
        authorize(Attempt(kind="stake", currency="EUR", **attempt), actor="table-7")
    return caught.value.details["rejection_position"]


@pytest.fixture
def alerts(venues):
    regular, newcomer = make_player(), make_player(verified=False)
    positions = [
        _refuse(venue="casino-helsinki", player_id=regular.id, game="roulette",
                bet_unit="numbers_1", amount_minor=600_01),
        _refuse(venue="casino-helsinki", player_id=newcomer.id, game="roulette",
                bet_unit="numbers_1", amount_minor=10_00),
        _refuse(venue="hall-helsinki", player_id=regular.id, game="sic_bo", bet_unit="bet",
                amount_minor=1_00),
    ]
    return regular, newcomer, positions


@pytest.fixture
def officer(api_client):
    return api_client(Role.COMPLIANCE_OFFICER)


def _ids(response) -> list[str]:
    return [alert["id"] for alert in response.json()["results"]]


def test_alerts_are_listed_newest_first(officer, alerts):
    """All three, by descending position, on one page: no next page."""
    _, _, (first, second, third) = alerts
    response = officer.get("/api/v1/alerts")
    assert response.status_code == 200
    assert (response.json()["has_more"], response.json()["next"]) == (False, None)
    assert _ids(response) == [f"alert/{third}", f"alert/{second}", f"alert/{first}"]


def test_alerts_are_paged_by_cursor(officer, alerts):
    """A page of one names the next page; following `next` reads the rest
    in the same order, each alert once (issue 18 item 1)."""
    _, _, (first, second, third) = alerts
    page = officer.get("/api/v1/alerts", {"limit": 1}).json()
    seen = _ids_of(page)
    while page["has_more"]:
        page = officer.get(page["next"]).json()
        seen += _ids_of(page)
    assert seen == [f"alert/{third}", f"alert/{second}", f"alert/{first}"]
    assert page["next"] is None


def _ids_of(page: dict) -> list[str]:
    return [alert["id"] for alert in page["results"]]


@pytest.mark.parametrize(
    "query, expected",
    [
        ({"kind": "limit_hit"}, [0]),
        ({"kind": "rejected_attempt"}, [2, 1]),
        ({"venue": "hall-helsinki"}, [2]),
        ({"kind": "rejected_attempt", "venue": "casino-helsinki"}, [1]),
        ({"limit": 1, "offset": 1}, [1]),
        ({"kind": "jackpot_hit"}, []),
    ],
    ids=["kind_case", "other_kind_case", "venue_case", "kind_and_venue_case", "page_case",
         "none_case"],
)
def test_alerts_are_filtered_and_paged(officer, alerts, query, expected):
    """Filters combine; limit and offset page through the newest-first order."""
    _, _, positions = alerts
    response = officer.get("/api/v1/alerts", query)
    assert response.status_code == 200
    assert _ids(response) == [f"alert/{positions[index]}" for index in expected]


def test_alerts_are_filtered_by_player(officer, alerts):
    regular, _, (first, _, third) = alerts
    response = officer.get("/api/v1/alerts", {"player_id": regular.id})
    assert _ids(response) == [f"alert/{third}", f"alert/{first}"]


@pytest.mark.parametrize(
    "query, answer",
    [
        ({"kind": "rumour"},
         {"kind": ["Select a valid choice. rumour is not one of the available choices."]}),
        ({"limit": 0}, {"limit": ["Ensure this value is greater than or equal to 1."]}),
        ({"limit": 501}, {"limit": ["Ensure this value is less than or equal to 500."]}),
        ({"offset": -1}, {"offset": ["Ensure this value is greater than or equal to 0."]}),
        ({"cursor": "not-a-cursor"},
         {"cursor": ["not a cursor this API gave out: follow `next` or `previous`"]}),
    ],
    ids=["unknown_kind_case", "zero_limit_case", "large_limit_case", "negative_offset_case",
         "bad_cursor_case"],
)
def test_bad_alert_filters_are_refused(officer, venues, query, answer):
    response = officer.get("/api/v1/alerts", query)
    assert response.status_code == 400
    assert response.json()["details"] == answer


def test_an_alert_shows_the_refusal_that_raised_it(api_client, alerts):
    """An auditor reads the alert: what was tried, which rule, limit and cite."""
    regular, _, (first, _, _) = alerts
    event = Event.objects.get(position=first)
    response = api_client(Role.AUDITOR).get(f"/api/v1/alerts/alert/{first}")
    assert response.status_code == 200
    assert response.json() == {
        "id": f"alert/{first}", "kind": "limit_hit", "player_id": regular.id,
        "venue": "casino-helsinki",
        "summary": "stake refused: compliance.max_stake (002:L3395)",
        "details": event.payload, "raised_position": first,
        "raised_at": response.json()["raised_at"],
    }
    assert dt.datetime.fromisoformat(response.json()["raised_at"]) == event.occurred_at
    assert event.payload["limit_minor"] == 600_00


def test_an_unknown_alert_is_404(officer, venues):
    """An unknown alert id answers a coded 404."""
    response = officer.get("/api/v1/alerts/alert/999999")
    assert response.status_code == 404
    assert response.json() == {"code": "compliance.unknown_alert", "message": "no alert 'alert/999999'",
                               "details": {"alert": "alert/999999"}}
