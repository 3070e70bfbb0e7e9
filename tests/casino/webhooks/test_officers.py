"""Officers see deliveries and failures in the admin; the backlog is a metric (issue 18)."""

from __future__ import annotations

from django.test import Client

from casino.roles import Role
from casino.webhooks.models import Delivery, SigningSecret
from casino.webhooks.sending import deliver_due
from tests.casino.officers.conftest import signed_in, staff

from .conftest import _pk, cash_deposit, client_in, subscribe


def test_an_officer_reads_the_failed_deliveries_and_never_a_secret(players, settings):
    settings.WEBHOOKS_TIMEOUT_SECONDS = 1
    subscription = subscribe(client_in(Role.CAGE), "http://127.0.0.1:9/closed",
                             event_types=["cage."]).json()
    cash_deposit(players[0].id)
    deliver_due(_pk(subscription))
    failed = Delivery.objects.filter(subscription__public_id=subscription["id"], attempts=1).get()
    staff("olli", Role.COMPLIANCE_OFFICER)
    officer = signed_in("olli")
    listing = officer.get("/admin/webhooks/delivery/?status__exact=pending")
    assert listing.status_code == 200
    page = listing.content.decode()
    assert "ConnectionError" in page
    assert "cage.cash_deposited" in page
    detail = officer.get(f"/admin/webhooks/delivery/{failed.pk}/change/")
    assert detail.status_code == 200
    assert f"event #{failed.position}</a>" in detail.content.decode()   # linked to the event
    subscription_page = officer.get(
        f"/admin/webhooks/subscription/{_pk(subscription)}/change/").content.decode()
    secret = SigningSecret.objects.get(subscription__public_id=subscription["id"]).secret
    assert "http://127.0.0.1:9/closed" in subscription_page
    assert secret not in subscription_page
    assert officer.post(f"/admin/webhooks/delivery/{failed.pk}/delete/").status_code == 403


def test_the_backlog_is_a_metric(players):
    subscribe(client_in(Role.CAGE), "http://127.0.0.1:9/closed", event_types=["cage."])
    cash_deposit(players[0].id)
    pending = Delivery.objects.filter(status="pending").count()
    assert pending >= 1
    scraped = Client().get("/metrics").content.decode()
    assert f"webhook_backlog {float(pending)}" in scraped
