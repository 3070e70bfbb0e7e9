"""Sending to a real local receiver: signed, in order per stream, retried, dead-lettered."""

from __future__ import annotations

import datetime as dt
import time

from django.utils import timezone
from rest_framework.test import APIClient

from casino.roles import Role
from casino.keys.models import ClientKey
from casino.webhooks import signing
from casino.webhooks.models import Delivery, SigningSecret, Subscription
from casino.webhooks.sending import backoff_seconds, deliver_due

from .conftest import _pk, cash_deposit, client_in, subscribe


def _subscribe(receiver, **body) -> dict:
    answer = subscribe(client_in(Role.CAGE), receiver.url, event_types=["cage."], **body)
    assert answer.status_code == 201, answer.content
    return answer.json()


def _in_order_per_stream(receipts) -> bool:
    last: dict[str, int] = {}
    for receipt in receipts:
        if receipt.position <= last.get(receipt.stream, 0):
            return False
        last[receipt.stream] = receipt.position
    return True


def test_every_delivery_is_signed_and_carries_its_position(players, receiver):
    subscription = _subscribe(receiver)
    cash_deposit(players[0].id)
    assert deliver_due(_pk(subscription)).sent >= 1
    pending = Delivery.objects.filter(subscription__public_id=subscription["id"])
    assert set(pending.values_list("status", flat=True)) == {"delivered"}
    for receipt in receiver.received:
        assert receipt.event["position"] == receipt.position
        assert receipt.event["type"].startswith("cage.")
        assert signing.verify(receipt.body, receipt.headers, subscription["secret"])
        assert not signing.verify(receipt.body, receipt.headers, "whsec_another")
        assert not signing.verify(receipt.body + b" ", receipt.headers, subscription["secret"])
        stale = time.time() + signing.TOLERANCE_SECONDS + 60
        assert not signing.verify(receipt.body, receipt.headers, subscription["secret"],
                                  now=stale)


def test_a_rotated_secret_signs_beside_the_old_until_it_retires(players, receiver):
    subscription = _subscribe(receiver)
    client_path = f"/api/v1/webhooks/subscriptions/{subscription['id']}/secrets"
    stranger = client_in(Role.CAGE)
    assert stranger.post(client_path, {}, format="json",
                      headers={"Idempotency-Key": "r"}).status_code == 404  # not its own
    # Rotate as the owner (through the API, as a client would).
    sub = Subscription.objects.get(public_id=subscription["id"])
    _, key = ClientKey.objects.issue(user=sub.owner, name="rotate")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    rotated = client.post(client_path, {"previous_valid_seconds": 3600}, format="json",
                          headers={"Idempotency-Key": "rotate-1"}).json()
    old_secret, new_secret = subscription["secret"], rotated["secret"]
    cash_deposit(players[0].id)
    deliver_due(_pk(subscription))
    during = receiver.received[-1]
    assert len(during.headers[signing.SIGNATURE_HEADER].split()) == 2
    assert signing.verify(during.body, during.headers, old_secret)
    assert signing.verify(during.body, during.headers, new_secret)
    # The overlap ends: only the new secret signs.
    SigningSecret.objects.filter(secret=old_secret).update(
        retires_at=timezone.now() - dt.timedelta(seconds=1))
    cash_deposit(players[0].id)
    deliver_due(_pk(subscription))
    after = receiver.received[-1]
    assert after.position > during.position
    assert len(after.headers[signing.SIGNATURE_HEADER].split()) == 1
    assert signing.verify(after.body, after.headers, new_secret)
    assert not signing.verify(after.body, after.headers, old_secret)


def test_a_failing_event_holds_its_stream_back_and_not_the_others(players, receiver, settings):
    settings.WEBHOOKS_BACKOFF_BASE_SECONDS = 3600
    subscription = _subscribe(receiver)
    first = cash_deposit(players[0].id)
    cash_deposit(players[1].id)
    cash_deposit(players[0].id)
    rows = list(Delivery.objects.filter(subscription__public_id=subscription["id"]).order_by("position"))
    streams = {row.stream for row in rows}
    assert len(streams) == 2
    failing = rows[0]
    receiver.fail[failing.position] = 1
    deliver_due(_pk(subscription))
    failing.refresh_from_db()
    assert failing.status == "pending" and failing.attempts == 1
    assert failing.last_status_code == 500
    assert failing.next_attempt_at > timezone.now() + dt.timedelta(minutes=59)
    sent = [r.position for r in receiver.received if r.position != failing.position]
    held = [row.position for row in rows if row.stream == failing.stream
            and row.position != failing.position]
    assert sent and not set(held) & set(sent)            # its stream waits
    assert {row.stream for row in rows if row.position in sent} == streams - {failing.stream}
    # The backoff passes: the stream goes on, in order.
    Delivery.objects.filter(pk=failing.pk).update(next_attempt_at=timezone.now())
    deliver_due(_pk(subscription))
    assert set(Delivery.objects.filter(subscription__public_id=subscription["id"])
               .values_list("status", flat=True)) == {"delivered"}
    assert _in_order_per_stream(receiver.first_receipts())
    assert first is not None


def test_after_its_last_attempt_a_delivery_is_dead_and_its_stream_moves_on(
        players, receiver, settings):
    settings.WEBHOOKS_ATTEMPTS_MAX = 3
    subscription = _subscribe(receiver)
    cash_deposit(players[0].id)
    cash_deposit(players[0].id)
    rows = list(Delivery.objects.filter(subscription__public_id=subscription["id"]).order_by("position"))
    receiver.fail[rows[0].position] = 99
    for _ in range(3):
        deliver_due(_pk(subscription))
    dead = Delivery.objects.get(pk=rows[0].pk)
    assert dead.status == "dead" and dead.attempts == 3
    assert dead.last_error == "answered 500"
    assert Delivery.objects.get(pk=rows[-1].pk).status == "delivered"


def test_the_backoff_doubles_up_to_its_cap(settings):
    settings.WEBHOOKS_BACKOFF_BASE_SECONDS = 10
    settings.WEBHOOKS_BACKOFF_CAP_SECONDS = 3600
    assert [backoff_seconds(n) for n in (1, 2, 3, 4)] == [10, 20, 40, 80]
    assert backoff_seconds(20) == 3600


def test_an_unreachable_receiver_is_a_failure_not_an_error(players, settings):
    settings.WEBHOOKS_TIMEOUT_SECONDS = 1
    answer = subscribe(client_in(Role.CAGE), "http://127.0.0.1:9/closed", event_types=["cage."])
    cash_deposit(players[0].id)
    result = deliver_due(_pk(answer.json()))
    assert result.sent == 0 and result.failed == 1
    row = Delivery.objects.filter(subscription__public_id=answer.json()["id"]).order_by("position")[0]
    assert row.status == "pending" and row.attempts == 1
    assert "ConnectionError" in row.last_error
