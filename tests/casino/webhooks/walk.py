"""Rows of the Idempotency-Key walk (tests/casino/api/test_idempotency_walk.py) for webhooks."""

from __future__ import annotations

from casino.roles import Role
from tests.casino.api.walk_world import Row, pair

URL = "http://127.0.0.1:9/hook"


def subscribe() -> Row:
    client, other = pair(Role.CAGE)
    body = {"url": URL, "event_types": ["cage."]}
    return Row(client, "/api/v1/webhooks/subscriptions", body,
               "/api/v1/webhooks/subscriptions", {**body, "event_types": ["players."]}, other)


def rotate_secret() -> Row:
    """Another client's identical request names a subscription not its own: 404."""
    client, other = pair(Role.CAGE)
    created = client.post("/api/v1/webhooks/subscriptions", {"url": URL}, format="json",
                          headers={"Idempotency-Key": "walk-subscription"}).json()
    url = f"/api/v1/webhooks/subscriptions/{created['id']}/secrets"
    return Row(client, url, {"previous_valid_seconds": 3600}, url,
               {"previous_valid_seconds": 60}, other)
