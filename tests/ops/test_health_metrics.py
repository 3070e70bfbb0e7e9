"""Liveness, readiness and Prometheus metrics (casino/ops, issue 18 item 5)."""

from __future__ import annotations

import datetime as dt
import re

import pytest

from casino.compliance.verification import verify_and_record
from casino.roles import Role
from tests.casino.api.conftest import client_for, post
from tests.casino.conftest import NOON

REGISTRATION = {"given_name": "Aino", "family_name": "Virtanen", "date_of_birth": "1990-05-01",
                "nationality": "FI", "document_type": "passport", "document_number": "XP7654321"}


def _sample(text: str, name: str, **labels: str) -> float:
    """The value of one sample of the exposition text (0 when absent)."""
    for line in text.splitlines():
        if not line.startswith(name):
            continue
        match = re.match(r"^(\w+)(?:\{(.*)\})? (\S+)$", line)
        if not match or match.group(1) != name:
            continue
        found = dict(re.findall(r'(\w+)="([^"]*)"', match.group(2) or ""))
        if all(found.get(key) == value for key, value in labels.items()):
            return float(match.group(3))
    return 0.0


def test_liveness_needs_nothing(client):
    response = client.get("/health/live")
    assert response.status_code == 200 and response.json() == {"status": "ok"}


@pytest.mark.django_db
def test_readiness_checks_database_broker_migrations_and_ledger(client, venues):
    verify_and_record(actor="test")
    response = client.get("/health/ready")
    assert response.status_code == 200, response.json()
    checks = response.json()["checks"]
    assert set(checks) == {"database", "broker", "migrations", "ledger"}
    assert all(check["ok"] for check in checks.values())
    assert checks["broker"]["detail"] == "eager"      # no broker configured here


@pytest.mark.django_db
def test_readiness_fails_when_the_chain_was_verified_too_long_ago(client, venues, monkeypatch,
                                                                  settings):
    settings.LEDGER_VERIFY_WINDOW_SECONDS = 26 * 3600
    verify_and_record(actor="test")                     # at NOON (the pinned clock)
    monkeypatch.setattr("casino.clock.now", lambda: NOON + dt.timedelta(hours=25))
    assert client.get("/health/ready").status_code == 200
    monkeypatch.setattr("casino.clock.now", lambda: NOON + dt.timedelta(hours=27))
    response = client.get("/health/ready")
    assert response.status_code == 503
    body = response.json()
    assert body["status"] == "unavailable"
    assert not body["checks"]["ledger"]["ok"] and body["checks"]["database"]["ok"]
    assert "window 93600 s" in body["checks"]["ledger"]["detail"]


@pytest.mark.django_db
def test_readiness_fails_without_the_broker(client, venues, settings):
    verify_and_record(actor="test")
    settings.CELERY_BROKER_URL = "redis://127.0.0.1:9/0"   # the discard port: nothing listens
    response = client.get("/health/ready")
    assert response.status_code == 503
    assert not response.json()["checks"]["broker"]["ok"]


@pytest.mark.django_db
def test_metrics_count_requests_per_route_appends_refusals_and_verification_lag(
        client, venues, monkeypatch):
    before = client.get("/metrics").content.decode()
    cage = client_for(Role.CAGE)
    assert post(cage, "/api/v1/players", REGISTRATION, key="m-1").status_code == 201
    refused = post(cage, "/api/v1/players", {**REGISTRATION, "nationality": "FI"}, key="m-1")
    # The same key with the same body is a replay; another body is refused.
    other = post(cage, "/api/v1/players", {**REGISTRATION, "given_name": "Eino"}, key="m-1")
    assert refused.status_code == 201 and other.status_code == 409
    code = other.json()["code"]
    verify_and_record(actor="test")
    monkeypatch.setattr("casino.clock.now", lambda: NOON + dt.timedelta(minutes=90))
    response = client.get("/metrics")
    assert response.status_code == 200
    after = response.content.decode()
    route = {"method": "POST", "route": "/api/v1/players"}
    assert (_sample(after, "http_request_duration_seconds_count", status="201", **route)
            - _sample(before, "http_request_duration_seconds_count", status="201", **route)) == 2
    assert (_sample(after, "api_refusals_total", code=code)
            - _sample(before, "api_refusals_total", code=code)) == 1
    assert _sample(after, "ledger_append_seconds_count") > _sample(before,
                                                                   "ledger_append_seconds_count")
    assert _sample(after, "ledger_group_size_count") >= _sample(before, "ledger_group_size_count")
    assert "ledger_writer_queue_depth" in after
    assert _sample(after, "ledger_verification_lag_seconds") == 90 * 60


@pytest.mark.django_db(transaction=True)
def test_the_group_writer_reports_group_sizes_and_append_latency(client, venues):
    """Outside a transaction appends go through the group writer thread."""
    from tests.casino.conftest import make_player

    before = client.get("/metrics").content.decode()
    make_player()
    after = client.get("/metrics").content.decode()
    groups = (_sample(after, "ledger_group_size_count")
              - _sample(before, "ledger_group_size_count"))
    appends = (_sample(after, "ledger_append_seconds_count")
               - _sample(before, "ledger_append_seconds_count"))
    assert groups >= 1 and appends >= groups
    assert _sample(after, "ledger_group_size_sum") - _sample(before, "ledger_group_size_sum") \
        == appends


def test_celery_logs_through_the_structured_handler(settings):
    from casino.celery import app

    assert app.conf.worker_hijack_root_logger is False
    assert settings.LOGGING["handlers"]["console"]["formatter"] == "structured"


def test_metrics_need_the_scrapers_token_when_one_is_set(client, settings):
    settings.METRICS_TOKEN = "scrape-secret"
    assert client.get("/metrics").status_code == 401
    wrong = client.get("/metrics", headers={"Authorization": "Bearer nope"})
    assert wrong.status_code == 401
    right = client.get("/metrics", headers={"Authorization": "Bearer scrape-secret"})
    assert right.status_code == 200 and b"http_request_duration_seconds" in right.content
