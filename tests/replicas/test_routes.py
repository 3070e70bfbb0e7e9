"""The read-only routes read from the replica, through HTTP (issue 19 point 6).

The feed (`GET /api/v1/events`) and the admin's event list, served while
the standby's replay is paused one event behind the primary: within the
lag bound they answer the replica's data (the newest event absent), beyond
it the primary's. A write through the API meanwhile lands on the primary.
"""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.urls import resolve, reverse

from casino.replicas.middleware import API_ROUTES, serves_from_replica
from casino.replicas.router import forget_lag
from casino.roles import Role
from ledger.models import Event
from tests.casino.api.conftest import client_for

from .conftest import (REPLICA_DB, lag_beyond, pause_replay, wait_received, wait_replayed,
                       witness)

LAG_MAX_S_GENEROUS = 3600.0
LAG_MAX_S_SMALL = 0.2


def _feed(client) -> dict:
    answer = client.get("/api/v1/events", {"after": 0, "limit": 100})
    assert answer.status_code == 200, answer.content
    return answer.json()


@REPLICA_DB
def test_the_feed_is_served_from_the_replica_within_the_bound(replica, settings):
    """GET events answers the replica's events and head; beyond the bound, the primary's."""
    settings.LEDGER_FEED_FILTER = None
    auditor = client_for(Role.AUDITOR)
    replica_head, primary_head = witness(replica)
    settings.CASINO_REPLICA_LAG_MAX_S = LAG_MAX_S_GENEROUS
    forget_lag()
    body = _feed(auditor)
    assert body["head_position"] == replica_head
    assert [event["position"] for event in body["events"]] == list(range(1, replica_head + 1))

    settings.CASINO_REPLICA_LAG_MAX_S = LAG_MAX_S_SMALL
    lag_beyond(LAG_MAX_S_SMALL)
    forget_lag()
    body = _feed(auditor)
    assert body["head_position"] == primary_head
    assert [event["position"] for event in body["events"]] == list(range(1, primary_head + 1))


@REPLICA_DB
def test_a_feed_consumer_switched_between_replica_and_primary_sees_each_event_once(
        replica, settings):
    """Page by page, alternately served by the lagging replica and the primary: no gap, no repeat.

    The replica's positions are the primary's, only later: a page it
    serves past its head is empty and keeps the cursor where it was.
    """
    settings.LEDGER_FEED_FILTER = None
    auditor = client_for(Role.AUDITOR)
    _, primary_head = witness(replica)
    seen, after = [], 0
    for page in range(2 * primary_head + 2):
        settings.CASINO_REPLICA_LAG_MAX_S = LAG_MAX_S_GENEROUS if page % 2 == 0 else -1.0
        forget_lag()
        body = auditor.get("/api/v1/events", {"after": after, "limit": 1}).json()
        seen += [event["position"] for event in body["events"]]
        after = body["next_after"]
    assert seen == list(range(1, primary_head + 1))


@REPLICA_DB
def test_a_new_client_key_is_accepted_while_the_feed_reads_the_replica(replica, settings):
    """Authentication reads (and writes last use to) the primary, before the replica scope.

    The key below was created after replay paused: the standby has never
    seen it, yet the feed served from the standby accepts it.
    """
    settings.LEDGER_FEED_FILTER = None
    replica_head, _ = witness(replica)
    auditor = client_for(Role.AUDITOR)          # written on the primary only
    settings.CASINO_REPLICA_LAG_MAX_S = LAG_MAX_S_GENEROUS
    forget_lag()
    body = _feed(auditor)
    assert body["head_position"] == replica_head


@REPLICA_DB
def test_the_admin_event_list_is_served_from_the_replica_within_the_bound(
        replica, settings, client):
    """The admin's changelist counts the replica's events; beyond the bound, the primary's."""
    replica_head, primary_head = witness(replica)
    User.objects.create_superuser("officer", "officer@example.com", "pw-officer-replica")
    client.login(username="officer", password="pw-officer-replica")
    url = reverse("admin:ledger_event_changelist")
    settings.CASINO_REPLICA_LAG_MAX_S = LAG_MAX_S_GENEROUS
    forget_lag()
    answer = client.get(url)
    assert answer.status_code == 200
    assert answer.context_data["cl"].result_count == replica_head

    settings.CASINO_REPLICA_LAG_MAX_S = LAG_MAX_S_SMALL
    lag_beyond(LAG_MAX_S_SMALL)
    forget_lag()
    answer = client.get(url)
    assert answer.status_code == 200
    assert answer.context_data["cl"].result_count == primary_head
    assert Event.objects.count() == primary_head


@pytest.mark.parametrize("name", sorted(API_ROUTES))
def test_every_listed_route_exists_and_is_an_api_view(name):
    """A renamed route would silently fall back to the primary: each listed name resolves."""
    kwargs = {"venue": "casino-helsinki", "day": "2026-06-16"} if name == "reports-close" else {}
    match = resolve(reverse(name, kwargs=kwargs))
    assert match.url_name == name
    assert hasattr(match.func, "cls")


@pytest.mark.parametrize(("method", "path", "expected"), [
    ("GET", "/api/v1/events", "api"),
    ("HEAD", "/api/v1/events", "api"),
    ("GET", "/api/v1/reports/closes", "api"),
    ("GET", "/api/v1/reports/closes/casino-helsinki/2026-06-16", "api"),
    ("POST", "/api/v1/reports/closes/casino-helsinki/2026-06-16", None),
    ("GET", "/api/v1/reports/journal", None),
    ("GET", "/api/v1/accounts/cage/cash", None),
    ("GET", "/admin/ledger/event/", "admin"),
    ("GET", "/admin/auth/user/", None),
    ("POST", "/admin/ledger/event/", None),
], ids=lambda value: str(value))
def test_which_requests_read_from_the_replica(rf, method, path, expected):
    """Reads of the listed routes only; writes, the journal export, balances and users never."""
    request = rf.generic(method, path)
    request.resolver_match = resolve(path)
    assert serves_from_replica(request, request.resolver_match.func) == expected


def _reports(client, paths) -> dict:
    answers = {}
    for path in paths:
        answer = client.get(path)
        assert answer.status_code == 200, (path, answer.content)
        answers[path] = answer.json()
    return answers


def _closed_days(client) -> list[str]:
    body = client.get("/api/v1/reports/closes").json()
    rows = body["results"] if isinstance(body, dict) else body    # a page, or a list
    return sorted(row["gaming_day"] for row in rows)


@REPLICA_DB
def test_the_reports_lists_are_served_from_the_replica_unchanged(replica, settings):
    """Closes, a computed close, exports and seals: the replica's rows, the primary's shape.

    The day closed after replay paused is missing from the list the replica
    serves; beyond the bound the primary's list has it; and a caught-up
    replica answers exactly what the primary answers.
    """
    from casino.roles import ensure_role_groups
    from casino.rules.commands import load_shipped_rulebooks, register_venue

    load_shipped_rulebooks()
    ensure_role_groups()
    register_venue(code="casino-helsinki", name="Casino Helsinki", rulebook_id="ray-casino")
    accountant = client_for(Role.ACCOUNTANT)
    first = accountant.post("/api/v1/reports/closes/casino-helsinki/2026-06-15",
                            headers={"Idempotency-Key": "close-1"})
    assert first.status_code == 201, first.content
    paths = ["/api/v1/reports/closes", "/api/v1/reports/closes/casino-helsinki/2026-06-16",
             "/api/v1/reports/exports", "/api/v1/reports/seals"]
    wait_replayed(replica)
    settings.CASINO_REPLICA_LAG_MAX_S = -1.0
    forget_lag()
    from_primary = _reports(accountant, paths)
    settings.CASINO_REPLICA_LAG_MAX_S = LAG_MAX_S_GENEROUS
    forget_lag()
    assert _reports(accountant, paths) == from_primary

    pause_replay(replica)
    second = accountant.post("/api/v1/reports/closes/casino-helsinki/2026-06-16",
                             headers={"Idempotency-Key": "close-2"})
    assert second.status_code == 201, second.content
    wait_received(replica)
    forget_lag()
    assert _closed_days(accountant) == ["2026-06-15"]
    settings.CASINO_REPLICA_LAG_MAX_S = LAG_MAX_S_SMALL
    lag_beyond(LAG_MAX_S_SMALL)
    forget_lag()
    assert _closed_days(accountant) == ["2026-06-15", "2026-06-16"]


def _journal(client, format: str, **query):
    answer = client.get("/api/v1/reports/journal",
                        {"from": "2026-06-16", "to": "2026-06-16", "format": format, **query})
    assert answer.status_code == 200, answer.content
    body = b"".join(answer.streaming_content)
    return int(answer["X-Ledger-Head-Position"]), body


@REPLICA_DB
@pytest.mark.parametrize("format", ["csv", "xlsx"])
def test_the_journal_export_reads_the_replica_and_records_on_the_primary(
        replica, settings, format):
    """Within the bound the export is read at the replica's head; its record is the primary's.

    Beyond the bound, or for a head only the primary has, it is read on
    the primary.
    """
    from casino.reports.models import JournalExport

    accountant = client_for(Role.ACCOUNTANT)
    replica_head, primary_head = witness(replica)
    settings.CASINO_REPLICA_LAG_MAX_S = LAG_MAX_S_GENEROUS
    forget_lag()
    position, body = _journal(accountant, format)
    assert position == replica_head
    assert body
    # Recorded on the primary while replay is paused: the replica cannot have it.
    recorded = JournalExport.objects.get()
    assert recorded.head_position == replica_head
    assert recorded.position == primary_head + 1

    position, _ = _journal(accountant, format, head=primary_head + 1)
    assert position == primary_head + 1     # a head the replica lacks: the primary's

    settings.CASINO_REPLICA_LAG_MAX_S = LAG_MAX_S_SMALL
    lag_beyond(LAG_MAX_S_SMALL)
    forget_lag()
    position, _ = _journal(accountant, format)
    assert position == primary_head + 2
    assert JournalExport.objects.count() == 3
