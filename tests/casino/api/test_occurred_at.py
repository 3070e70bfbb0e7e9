"""Business time from the client: `occurred_at` on every write.

A table or cage system that lost its connection sends its buffered actions
later with the time they happened. The write is dated and given its gaming
day by that time; a time more than 30 s ahead of the server's clock, or on
a gaming day the venue has already closed, is refused with its own code and
writes nothing.
"""

import datetime as dt
import json

from casino.reports.commands import close_day
from casino.roles import Role
from ledger.models import Event
from tests.casino.api.conftest import client_for
from tests.casino.conftest import HELSINKI, NOON, make_player

CASINO = "casino-helsinki"


def _buy(client, player_id: str, key: str, **extra):
    body = {"player_id": player_id, "venue": CASINO, "amount": "20.00", "currency": "EUR",
            "paid_with": "cash", **extra}
    return client.post("/api/v1/cage/chip-purchases", json.dumps(body),
                       content_type="application/json", HTTP_IDEMPOTENCY_KEY=key)


def test_a_buffered_write_is_dated_by_its_occurred_at(venues):
    """An earlier occurred_at dates the event and picks its gaming day."""
    cage = client_for(Role.CAGE)
    player = make_player()
    earlier = dt.datetime(2026, 6, 15, 23, 30, tzinfo=HELSINKI)
    response = _buy(cage, player.id, "late-1", occurred_at=earlier.isoformat())
    assert response.status_code == 201, response.json()
    event = Event.objects.get(position=response.json()["position"])
    assert event.occurred_at == earlier
    assert event.gaming_day == dt.date(2026, 6, 15)


def test_occurred_at_in_the_future_is_refused(venues):
    """More than 30 s ahead of the server's clock: 400 occurred_at_in_future."""
    cage = client_for(Role.CAGE)
    player = make_player()
    before = Event.objects.count()
    ahead = NOON + dt.timedelta(seconds=31)
    response = _buy(cage, player.id, "ahead-1", occurred_at=ahead.isoformat())
    assert response.status_code == 400
    assert response.json()["code"] == "request.occurred_at_in_future"
    assert Event.objects.count() == before
    within = _buy(cage, player.id, "ahead-2",
                  occurred_at=(NOON + dt.timedelta(seconds=30)).isoformat())
    assert within.status_code == 201, within.json()


def test_occurred_at_on_a_closed_gaming_day_is_refused(venues):
    """A gaming day the venue has closed takes no more late writes."""
    cage = client_for(Role.CAGE)
    player = make_player()
    close_day(venue=CASINO, gaming_day=dt.date(2026, 6, 15), actor="accountant")
    before = Event.objects.count()
    late = dt.datetime(2026, 6, 15, 22, 0, tzinfo=HELSINKI)
    response = _buy(cage, player.id, "closed-1", occurred_at=late.isoformat())
    assert response.status_code == 409
    assert response.json()["code"] == "request.occurred_at_in_closed_day"
    assert response.json()["details"]["last_closed_day"] == "2026-06-15"
    assert Event.objects.count() == before


def test_the_next_request_does_not_inherit_a_business_time(venues):
    """occurred_at belongs to its request: the next one without it is dated now."""
    cage = client_for(Role.CAGE)
    player = make_player()
    earlier = dt.datetime(2026, 6, 15, 23, 30, tzinfo=HELSINKI)
    assert _buy(cage, player.id, "one", occurred_at=earlier.isoformat()).status_code == 201
    response = _buy(cage, player.id, "two")
    assert response.status_code == 201
    event = Event.objects.get(position=response.json()["position"])
    assert event.occurred_at == NOON
