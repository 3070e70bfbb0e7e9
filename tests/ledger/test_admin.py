"""The admin shows the log and balances and can change none of it."""

import pytest
from django.contrib.auth.models import User
from django.urls import reverse

from ledger.models import Account, Event, Posting

from .factories import transfer


@pytest.fixture
def superuser_client(client, accounts):
    User.objects.create_superuser("officer", "officer@example.com", "pw")
    client.login(username="officer", password="pw")
    transfer("player/alice", "cage/cash", 1_000, stream="player/alice")
    return client


@pytest.mark.parametrize("model", [Event, Posting, Account])
def test_superuser_cannot_add_change_or_delete(superuser_client, model):
    """Add, change and delete are refused even for a superuser."""
    opts = model._meta
    obj = model.objects.first()
    add = superuser_client.get(reverse(f"admin:{opts.app_label}_{opts.model_name}_add"))
    delete = superuser_client.post(
        reverse(f"admin:{opts.app_label}_{opts.model_name}_delete", args=[obj.pk]), {"post": "yes"}
    )
    change = superuser_client.post(
        reverse(f"admin:{opts.app_label}_{opts.model_name}_change", args=[obj.pk]), {}
    )
    assert add.status_code == 403
    assert delete.status_code == 403
    assert change.status_code == 403
    assert model.objects.filter(pk=obj.pk).exists()


def test_event_list_filters_by_stream_type_and_day(superuser_client):
    """The event list can be narrowed by stream, type and gaming day."""
    url = reverse("admin:ledger_event_changelist")
    event = Event.objects.get(stream="player/alice")
    by_stream = superuser_client.get(url, {"stream": "player/alice"})
    by_type = superuser_client.get(url, {"type": "ledger.account_opened"})
    by_day = superuser_client.get(url, {"gaming_day": event.gaming_day.isoformat()})
    assert list(by_stream.context["cl"].result_list) == [event]
    assert len(by_type.context["cl"].result_list) == 4
    # The transfer is dated by its own gaming day; the openings (no money)
    # by the calendar day they were recorded on.
    assert list(by_day.context["cl"].result_list) == list(
        Event.objects.filter(gaming_day=event.gaming_day).order_by("-position"))
    assert event in by_day.context["cl"].result_list


def test_posting_list_filters_by_account(superuser_client):
    """Postings can be narrowed to one account."""
    response = superuser_client.get(reverse("admin:ledger_posting_changelist"),
                                    {"account": "player/alice"})
    rows = list(response.context["cl"].result_list)
    assert [(p.account_id, p.amount_minor) for p in rows] == [("player/alice", -1_000)]


def test_event_detail_shows_its_postings(superuser_client):
    """An event's page lists its postings, read-only."""
    event = Event.objects.get(stream="player/alice")
    response = superuser_client.get(reverse("admin:ledger_event_change", args=[event.pk]))
    assert response.status_code == 200
    assert b"player/alice" in response.content
    assert b"-1000" in response.content
