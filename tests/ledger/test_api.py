"""The ledger's read API: the catch-up feed and account balances."""

import pytest
from django.contrib.auth.models import User
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from .factories import transfer


@pytest.fixture
def client(db, settings):
    # The ledger's own feed, unnarrowed: the project's per-role filter
    # (settings.LEDGER_FEED_FILTER) is tested in tests/security/test_feed.py.
    settings.LEDGER_FEED_FILTER = None
    user = User.objects.create_user("cage-terminal")
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=user).key}")
    return api


@pytest.mark.parametrize("url", ["/api/v1/events", "/api/v1/accounts/cage/cash"])
def test_requests_without_a_token_get_401(db, url):
    """Every API endpoint requires authentication."""
    response = APIClient().get(url)
    assert response.status_code == 401
    assert response["WWW-Authenticate"] == "Token"


def test_feed_pages_through_every_event_in_order(client, accounts):
    """Reading after the last position seen returns each event exactly once."""
    for amount in (100, 200, 300):
        transfer("player/alice", "cage/cash", amount)
    seen, after = [], 0
    while True:
        page = client.get("/api/v1/events", {"after": after, "limit": 3}).json()
        if not page["events"]:
            break
        seen += [event["position"] for event in page["events"]]
        after = page["next_after"]
        assert page["head_position"] == 7
    assert seen == [1, 2, 3, 4, 5, 6, 7]


def test_feed_event_carries_postings_and_chain(client, accounts):
    """A feed entry has everything needed to re-verify it downstream."""
    result = transfer("player/alice", "cage/cash", 4_321, idempotency_key="dep-9")
    page = client.get("/api/v1/events", {"after": 4}).json()
    (event,) = page["events"]
    assert event["position"] == 5
    assert event["hash"] == result.events[0].hash
    assert event["prev_hash"] == result.events[0].prev_hash
    assert event["idempotency_key"] == "dep-9"
    assert event["postings"] == [
        {"account": "cage/cash", "amount_minor": 4_321, "currency": "EUR"},
        {"account": "player/alice", "amount_minor": -4_321, "currency": "EUR"},
    ]


@pytest.mark.parametrize(
    "params",
    [{"after": -1}, {"after": "x"}, {"limit": 0}, {"limit": 1001}, {"limit": "1.5"}],
)
def test_feed_rejects_bad_parameters_with_400(client, params):
    """Out-of-range or non-integer paging parameters give a 400 naming the field."""
    response = client.get("/api/v1/events", params)
    assert response.status_code == 400
    assert response.json()["code"] == "request.invalid"
    assert set(response.json()["details"]) <= {"after", "limit"}


def test_account_shows_balance_and_last_position(client, accounts):
    """The account endpoint returns the natural balance in minor units."""
    transfer("player/alice", "cage/cash", 2_500)
    body = client.get("/api/v1/accounts/player/alice").json()
    assert body["balance_minor"] == 2_500
    assert body["last_position"] == 5
    assert body["currency"] == "EUR"
    assert body["balance_max_minor"] == 500_000


def test_unknown_account_is_404(client, accounts):
    response = client.get("/api/v1/accounts/player/nobody")
    assert response.status_code == 404


def test_openapi_schema_and_docs_are_served(client):
    """The schema lists the ledger endpoints; Swagger UI renders."""
    schema = client.get("/api/schema/", {"format": "json"})
    assert schema.status_code == 200
    paths = schema.json()["paths"]
    assert "/api/v1/events" in paths
    assert "/api/v1/accounts/{code}" in paths
    assert client.get("/api/docs/").status_code == 200
