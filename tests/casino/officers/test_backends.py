"""Officers and auditors read every event-backed screen by role alone."""

from __future__ import annotations

import pytest
from django.urls import reverse

BACKENDS = ["django.contrib.auth.backends.ModelBackend",
            "casino.officers.backends.RoleViewBackend"]


@pytest.fixture
def role_backend(settings):
    settings.AUTHENTICATION_BACKENDS = BACKENDS


def test_an_officer_reads_the_log_but_a_cashier_does_not(role_backend, officers):
    url = reverse("admin:ledger_event_changelist")
    assert officers["olli"].get(url).status_code == 200
    assert officers["aude"].get(url).status_code == 200
    assert officers["cashier"].get(url).status_code == 403


def test_the_backend_grants_viewing_only(role_backend, officers):
    from django.contrib.auth.models import User

    olli = User.objects.get(username="olli")
    assert olli.has_perm("ledger.view_event")
    assert not olli.has_perm("ledger.change_event")
    assert not olli.has_perm("ledger.delete_event")
    assert not olli.has_perm("auth.view_user")
    assert officers["olli"].get(reverse("admin:auth_user_changelist")).status_code == 403
