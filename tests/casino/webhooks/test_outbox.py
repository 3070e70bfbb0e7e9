"""The outbox: written in the append's transaction, within the owner's reach (issue 18 item 2)."""

from __future__ import annotations

import datetime as dt

import pytest
from django.db import transaction

from casino.roles import Role
from casino.webhooks.models import Delivery, Subscription
from casino.webhooks.sending import backfill
from ledger import rebuild_projections, verify_ledger
from ledger.models import Event

from .conftest import cash_deposit, client_in, subscribe

URL = "http://127.0.0.1:9/hook"


def _positions(subscription_id: str) -> list[int]:
    return list(Delivery.objects.filter(subscription__public_id=subscription_id)
                .order_by("position").values_list("position", flat=True))


def test_each_matching_event_gets_one_delivery_in_the_same_transaction(players):
    subscription = subscribe(client_in(Role.CAGE), URL, event_types=["cage."]).json()
    before = Event.objects.order_by("-position").first().position
    cash_deposit(players[0].id)
    cage_events = list(Event.objects.filter(position__gt=before, type__startswith="cage.")
                       .values_list("position", flat=True))
    assert cage_events
    assert _positions(subscription["id"]) == cage_events
    assert set(Delivery.objects.values_list("status", flat=True)) == {"pending"}


def test_an_append_rolled_back_leaves_no_delivery(players):
    subscription = subscribe(client_in(Role.CAGE), URL, event_types=["cage."]).json()
    events = Event.objects.count()
    with pytest.raises(RuntimeError), transaction.atomic():
        cash_deposit(players[0].id)
        assert _positions(subscription["id"])        # written with the events...
        raise RuntimeError("the caller's transaction fails after the append")
    assert Event.objects.count() == events
    assert _positions(subscription["id"]) == []      # ...and gone with them


def test_the_feeds_rules_decide_what_each_owner_receives(players):
    """A cage client subscribed to everything gets no compliance events (the feed
    hides them from it); an officer subscribed to everything gets them."""
    cage = subscribe(client_in(Role.CAGE), URL).json()
    officer = subscribe(client_in(Role.COMPLIANCE_OFFICER), URL).json()
    before = Event.objects.order_by("-position").first().position
    cash_deposit(players[0].id, amount_minor=3_000_00)     # over EUR 2,000: an AML alert
    types = dict(Event.objects.filter(position__gt=before).values_list("position", "type"))
    assert any(t.startswith("compliance.") for t in types.values()), types
    cage_types = {types[p] for p in _positions(cage["id"])}
    officer_types = {types[p] for p in _positions(officer["id"])}
    assert not any(t.startswith("compliance.") for t in cage_types)
    assert any(t.startswith("compliance.") for t in officer_types)


def test_a_venue_choice_narrows_the_events(players):
    tallinn = subscribe(client_in(Role.CAGE), URL, event_types=["cage."],
                        venues=["olympic-tallinn"]).json()
    helsinki = subscribe(client_in(Role.CAGE), URL, key="sub-2", event_types=["cage."],
                         venues=["casino-helsinki"]).json()
    cash_deposit(players[0].id, venue="casino-helsinki")
    assert _positions(tallinn["id"]) == []
    assert _positions(helsinki["id"])


def test_a_deactivated_subscription_gets_nothing_even_from_a_stale_cache(players, settings):
    settings.WEBHOOKS_SUBSCRIPTIONS_CACHE_SECONDS = 3600
    from casino.webhooks.models import Subscription
    from casino.webhooks.projections import active_reaches

    subscription = subscribe(client_in(Role.CAGE), URL, event_types=["cage."]).json()
    assert active_reaches()                         # cached while active
    Subscription.objects.filter(public_id=subscription["id"]).update(active=False)
    cash_deposit(players[0].id)
    assert _positions(subscription["id"]) == []


def test_the_outbox_is_not_rebuilt_and_the_ledger_still_verifies(players):
    subscription = subscribe(client_in(Role.CAGE), URL, event_types=["cage."]).json()
    cash_deposit(players[0].id)
    positions = _positions(subscription["id"])
    rebuild_projections()
    assert _positions(subscription["id"]) == positions
    assert verify_ledger().ok


def test_the_backfill_fills_in_every_books_events_after_the_heads_it_recorded(players, settings):
    """Events the writers committed before they saw a subscription are filled in from every
    book, each after the head recorded for it: the deposits on the main book (the player's
    stream) and the cashier's shift on the venue's own book."""
    settings.CASINO_VENUE_BOOKS = {"casino-helsinki": "helsinki"}
    cage = client_in(Role.CAGE)

    def shift(window: str) -> None:
        answer = cage.post("/api/v1/cashier/shifts", {
            "venue": "casino-helsinki", "window": window, "bank": {"5000": 20}}, format="json",
            headers={"Idempotency-Key": f"shift-{window}"})
        assert answer.status_code == 201, answer.json()

    cash_deposit(players[0].id)
    shift("w1")                                   # before: not delivered
    subscription = subscribe(cage, URL, event_types=["cage.", "cashier."]).json()
    assert {"main", "helsinki"} <= set(subscription["starts_after_heads"])
    cash_deposit(players[1].id)
    shift("w2")
    made = _positions(subscription["id"])          # what the writers put in the outbox
    books = set(Event.objects.filter(position__in=made).values_list("book", flat=True))
    assert len(made) == 2 and len(books) == 2
    # As if no writer had seen the subscription yet: the backfill finds the same events.
    row = Subscription.objects.get(public_id=subscription["id"])
    Delivery.objects.filter(subscription=row).delete()
    Subscription.objects.filter(pk=row.pk).update(
        created_at=row.created_at - dt.timedelta(hours=1))
    assert backfill(Subscription.objects.get(pk=row.pk))
    assert _positions(subscription["id"]) == made
