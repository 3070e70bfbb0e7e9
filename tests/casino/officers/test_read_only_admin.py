"""L1 in the admin: nothing registered for the log or its projections can be
added, changed or deleted, by any user, superusers included."""

from __future__ import annotations

from django.contrib import admin
from django.contrib.auth.models import User
from django.test import RequestFactory
from django.urls import reverse

from ledger.models import Event
from tests.casino.conftest import make_player

from .conftest import signed_in, staff

# Django's own users, groups and API tokens are not event-backed.
FRAMEWORK_APPS = {"auth", "authtoken"}


def _event_backed():
    return [(model, model_admin) for model, model_admin in admin.site._registry.items()
            if model._meta.app_label not in FRAMEWORK_APPS]


def test_every_event_backed_admin_refuses_add_change_and_delete_to_a_superuser(venues):
    root = User.objects.create_superuser("root", "root@example.invalid", "pw")
    request = RequestFactory().get("/admin/")
    request.user = root
    registered = _event_backed()
    labels = {model._meta.label for model, _ in registered}
    assert {"ledger.Event", "ledger.Posting", "ledger.Account", "compliance.Alert",
            "compliance.Case", "compliance.Correction"} <= labels
    for model, model_admin in registered:
        allowed = (model_admin.has_add_permission(request),
                   model_admin.has_change_permission(request),
                   model_admin.has_delete_permission(request))
        assert allowed == (False, False, False), model._meta.label
        assert "delete_selected" not in model_admin.get_actions(request), model._meta.label


def test_posting_a_change_form_as_a_superuser_changes_no_event(venues):
    make_player()
    staff("root", superuser=True)
    client = signed_in("root")
    event = Event.objects.order_by("position").first()
    change = client.post(reverse("admin:ledger_event_change", args=[event.position]),
                         {"type": "tampered", "stream": "x", "payload": "{}"})
    delete = client.post(reverse("admin:ledger_event_delete", args=[event.position]),
                         {"post": "yes"})
    add = client.post(reverse("admin:ledger_event_add"), {"type": "forged"})
    assert (change.status_code, delete.status_code, add.status_code) == (403, 403, 403)
    fresh = Event.objects.get(position=event.position)
    assert (fresh.type, fresh.hash) == (event.type, event.hash)
