"""Verify from the admin: the result shown, and recorded as an event."""

from __future__ import annotations

from django.contrib.messages import get_messages
from django.db import connection
from django.urls import reverse

from casino.compliance.models import ChainVerification
from ledger.models import Event


def test_an_officer_verifies_the_chain_and_sees_ok(officers, traffic):
    olli = officers["olli"]
    page = olli.get(reverse("admin:officers_verify"))
    assert b'id="verify-chain-submit"' in page.content
    answer = olli.post(reverse("admin:officers_verify"), {"form_token": "v1"})
    verification = ChainVerification.objects.get()
    assert verification.ok and verification.verified_by == "olli"
    messages = [str(m) for m in get_messages(answer.wsgi_request)]
    assert messages == [f"The hash chain is intact: {verification.events:,} events verified"
                        f" up to position {verification.head_position}."]
    assert Event.objects.get(type="compliance.chain_verified").metadata["actor"] == "olli"
    listed = olli.get(reverse("admin:officers_verify"))
    assert b'class="verification-row verification-ok"' in listed.content


def test_a_broken_chain_shows_the_first_bad_position_and_why(officers, traffic):
    target = traffic.limit_hit.raised_position
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL session_replication_role = replica")
        cursor.execute("UPDATE ledger_event SET payload = '{}' WHERE position = %s", [target])
        cursor.execute("SET LOCAL session_replication_role = origin")
    answer = officers["aude"].post(reverse("admin:officers_verify"))
    messages = [str(m) for m in get_messages(answer.wsgi_request)]
    assert messages == [f"The hash chain is broken at position {target}: content does not"
                        " match its hash (the event was altered)"]
    assert ChainVerification.objects.get().bad_position == target


def test_a_cashier_cannot_run_it(officers):
    assert officers["cashier"].post(reverse("admin:officers_verify")).status_code == 403
    assert not ChainVerification.objects.exists()
