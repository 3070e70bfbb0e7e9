"""Webhooks sent by a real Celery worker to a real local receiver (issue 18 item 2).

A worker (`celery -A casino worker`) runs as a subprocess against this
test's database and an embedded Redis; the test process appends deposits
(their outbox rows commit with them) and sends the sweep task as beat
would. The worker is killed (SIGKILL, its pool included) while the
receiver holds its first request open: the delivery was received but never
marked, so a second worker sends it again (at least once), and the
receiver, deduplicating by position, sees every stream in order, each
delivery signed. After a secret's rotation the worker signs with both.
"""

from __future__ import annotations

import threading
import time

import pytest

from casino.roles import Role
from casino.webhooks import signing
from casino.webhooks.models import Delivery
from tests.casino.conftest import NOON, make_player
from tests.casino.webhooks.conftest import cash_deposit, client_in, receiver, subscribe  # noqa: F401
from tests.integration.conftest import wait_for

pytestmark = [pytest.mark.slow]

WORKER = ("worker", "-c", "2", "--pool", "prefork", "-l", "info", "--without-gossip",
          "--without-mingle", "--without-heartbeat")
SWEEP = "casino.webhooks.tasks.sweep"


@pytest.fixture(autouse=True)
def no_kicks(settings):
    """The test process sends nothing itself: the worker does, on the sweep."""
    settings.WEBHOOKS_KICK = False
    settings.WEBHOOKS_SUBSCRIPTIONS_CACHE_SECONDS = 0
    from casino.webhooks.projections import invalidate

    invalidate()
    yield
    invalidate()


def _statuses(subscription_id: str) -> list[str]:
    return list(Delivery.objects.filter(subscription__public_id=subscription_id)
                .order_by("position").values_list("status", flat=True))


def test_a_worker_killed_mid_delivery_loses_nothing_and_streams_stay_in_order(
        venues, celery_processes, celery_client, receiver):  # noqa: F811
    procs = celery_processes
    owner = client_in(Role.CAGE)
    created = subscribe(owner, receiver.url, event_types=["cage."])
    assert created.status_code == 201, created.content
    subscription = created.json()
    players = [make_player(), make_player()]
    for player in (players[0], players[1], players[0], players[1], players[0]):
        cash_deposit(player.id, at=NOON)
    expected = list(Delivery.objects.filter(subscription__public_id=subscription["id"])
                    .order_by("position").values_list("position", flat=True))
    assert len(expected) >= 5

    # 1. The first worker takes the first delivery; the receiver holds it open.
    release = receiver.hold = threading.Event()
    procs.start("worker-a", *WORKER, "-n", "a@%h")
    sweeps = [0.0]

    def holding() -> bool:
        # Beat's sweep, once a second: a sweep that finds the subscription
        # younger than the worker's backfill wait sends nothing, and a single
        # sweep then left the test waiting for ever (it failed once in CI).
        if time.monotonic() - sweeps[0] > 1:
            celery_client.send_task(SWEEP)
            sweeps[0] = time.monotonic()
        return receiver.holding.is_set()

    wait_for(holding, timeout=90, what="the first delivery", logs=[procs.log("worker-a")])
    held = receiver.positions()[0]
    assert held == expected[0]
    procs.kill("worker-a")                  # SIGKILL while the POST is open
    release.set()                           # the receiver answers 200 to no one
    assert _statuses(subscription["id"])[0] == "pending"

    # 2. Another worker, beat's sweep every second: everything arrives.
    procs.start("worker-b", *WORKER, "-n", "b@%h")
    last_sweep = [0.0]

    def all_delivered() -> bool:
        if time.monotonic() - last_sweep[0] > 1:
            celery_client.send_task(SWEEP)
            last_sweep[0] = time.monotonic()
        return set(_statuses(subscription["id"])) == {"delivered"}

    wait_for(all_delivered, timeout=120, what="every delivery", logs=[procs.log("worker-b")])

    positions = receiver.positions()
    assert positions.count(held) >= 2                    # sent again: at least once
    first = receiver.first_receipts()
    assert [r.position for r in first] == expected      # each, and in order
    last: dict[str, int] = {}
    for receipt in first:
        assert receipt.position > last.get(receipt.stream, 0)
        last[receipt.stream] = receipt.position
        assert signing.verify(receipt.body, receipt.headers, subscription["secret"])
    assert len(last) == 2                                # two players' streams

    # 3. A rotated secret: the worker signs with the old and the new one.
    rotated = owner.post(f"/api/v1/webhooks/subscriptions/{subscription['id']}/secrets",
                         {"previous_valid_seconds": 3600}, format="json",
                         headers={"Idempotency-Key": "rotate-1"})
    assert rotated.status_code == 201, rotated.content
    new_secret = rotated.json()["secret"]
    cash_deposit(players[1].id, at=NOON)
    wait_for(all_delivered, timeout=120, what="the delivery after the rotation",
             logs=[procs.log("worker-b")])
    after = receiver.first_receipts()[-1]
    assert after.position > expected[-1]
    assert len(after.headers[signing.SIGNATURE_HEADER].split()) == 2
    assert signing.verify(after.body, after.headers, subscription["secret"])
    assert signing.verify(after.body, after.headers, new_secret)
