"""The subscriptions API: within the client's reach, keyed, own, rotatable (issue 18 item 2)."""

from __future__ import annotations

from casino.roles import Role
from casino.webhooks.models import SigningSecret, Subscription
from ledger.models import Event

from .conftest import client_in, subscribe

URL = "http://127.0.0.1:9/hook"


def test_a_subscription_answers_its_secret_once_and_a_retry_the_same(venues):
    client = client_in(Role.CAGE)
    first = subscribe(client, URL, event_types=["cage."], venues=["casino-helsinki"])
    assert first.status_code == 201, first.content
    body = first.json()
    assert body["secret"].startswith("whsec_")
    assert body["event_types"] == ["cage."] and body["venues"] == ["casino-helsinki"]
    assert len(body["secrets"]) == 1 and body["secrets"][0]["retires_at"] is None
    again = subscribe(client, URL, event_types=["cage."], venues=["casino-helsinki"])
    assert again.status_code == 201
    assert again["Idempotent-Replayed"] == "true"
    assert again.json() == body
    assert Subscription.objects.count() == 1
    recorded = Event.objects.get(type="webhooks.subscribed")
    assert recorded.stream == f"webhook/{body['id']}"
    assert recorded.payload["url"] == URL and "whsec_" not in str(recorded.payload)
    other = subscribe(client, URL, event_types=["players."])
    assert other.status_code == 409
    assert other.json()["code"] == "request.idempotency_key_reused"


def test_types_outside_the_roles_reach_are_refused(venues):
    """The cage reads no alerts in the feed (casino.roles.FEED_READS), so it may not subscribe."""
    answer = subscribe(client_in(Role.CAGE), URL, event_types=["cage.", "compliance."])
    assert answer.status_code == 422
    assert answer.json()["code"] == "webhooks.event_type_out_of_reach"
    assert answer.json()["details"]["event_types"] == ["compliance."]
    officer = subscribe(client_in(Role.COMPLIANCE_OFFICER), URL, event_types=["compliance."])
    assert officer.status_code == 201
    assert Subscription.objects.count() == 1


def test_venues_outside_the_keys_scope_are_refused(venues):
    client = client_in(Role.CAGE, venues=["casino-helsinki"])
    answer = subscribe(client, URL, venues=["olympic-tallinn"])
    assert answer.status_code == 422
    assert answer.json()["code"] == "webhooks.venue_out_of_reach"
    assert subscribe(client, URL, key="in-scope", venues=["casino-helsinki"]).status_code == 201


def test_a_client_reads_and_rotates_only_its_own(venues):
    owner, stranger = client_in(Role.CAGE), client_in(Role.CAGE)
    created = subscribe(owner, URL).json()
    path = f"/api/v1/webhooks/subscriptions/{created['id']}"
    assert owner.get(path).status_code == 200
    assert "secret" not in owner.get(path).json()
    assert stranger.get(path).json()["code"] == "webhooks.unknown_subscription"
    refused = stranger.post(f"{path}/secrets", {}, format="json",
                            headers={"Idempotency-Key": "rot-1"})
    assert refused.status_code == 404
    assert owner.get("/api/v1/webhooks/subscriptions/" + "x" * 300).status_code == 404


def test_a_rotation_keeps_the_old_secret_valid_for_the_overlap(venues):
    client = client_in(Role.CAGE)
    created = subscribe(client, URL).json()
    rotated = client.post(f"/api/v1/webhooks/subscriptions/{created['id']}/secrets",
                          {"previous_valid_seconds": 3600}, format="json",
                          headers={"Idempotency-Key": "rot-1"})
    assert rotated.status_code == 201, rotated.content
    new = rotated.json()
    assert new["secret"] != created["secret"]
    assert len(new["secrets"]) == 2
    old = SigningSecret.objects.get(secret=created["secret"])
    assert old.retires_at is not None
    assert SigningSecret.objects.get(secret=new["secret"]).retires_at is None
    replay = client.post(f"/api/v1/webhooks/subscriptions/{created['id']}/secrets",
                         {"previous_valid_seconds": 3600}, format="json",
                         headers={"Idempotency-Key": "rot-1"})
    assert replay.json()["secret"] == new["secret"]
    assert SigningSecret.objects.count() == 2
    assert Event.objects.filter(type="webhooks.secret_rotated").count() == 1
