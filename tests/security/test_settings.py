"""People and transport (issue 16, item 4/5 of the issue's list): password
validators, throttling per client, session expiry, security headers, and the
production settings (`check --deploy` clean, no start without a SECRET_KEY)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.test import Client

from casino.roles import Role
from tests.casino.api.conftest import client_for

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("password", ["12345678", "password123", "short-1", "999999999999"])
def test_weak_passwords_are_refused(password):
    with pytest.raises(ValidationError):
        validate_password(password)


def test_a_long_uncommon_password_is_accepted():
    validate_password("violet-harbour-lantern-42")


def test_one_client_beyond_its_rate_gets_429(db, settings):
    settings.CASINO_API_RATE = "5/min"
    from django.core.cache import cache

    cache.clear()
    greedy, other = client_for(Role.AUDITOR), client_for(Role.AUDITOR)
    answers = [greedy.get("/api/v1/rulebooks").status_code for _ in range(7)]
    assert answers == [200] * 5 + [429] * 2
    refused = greedy.get("/api/v1/rulebooks")
    assert refused.json()["code"] == "request.throttled"
    assert other.get("/api/v1/rulebooks").status_code == 200     # per client
    cache.clear()


def test_sessions_expire_and_pages_carry_security_headers(db):
    assert settings.SESSION_COOKIE_AGE <= 12 * 60 * 60
    assert settings.SESSION_EXPIRE_AT_BROWSER_CLOSE
    page = Client().get("/admin/login/")
    assert "default-src 'self'" in page["Content-Security-Policy"]
    assert page["X-Frame-Options"] == "DENY"
    assert page["X-Content-Type-Options"] == "nosniff"


def _manage(*args: str, **env: str) -> subprocess.CompletedProcess:
    environment = {key: value for key, value in os.environ.items()
                   if key not in ("SECRET_KEY", "DEBUG", "CASINO_PRODUCTION")}
    environment.update(env)
    return subprocess.run([sys.executable, "manage.py", *args], cwd=ROOT, env=environment,
                          capture_output=True, text=True, timeout=300)


PRODUCTION = {"CASINO_PRODUCTION": "1", "ALLOWED_HOSTS": "casino.example",
              "SECRET_KEY": "k7#Qz-production-test-key-" + "x9Lm2Vb8Nc4Hs6Jd1Fg3" * 2}


def test_check_deploy_in_production_gives_no_warning():
    """Django's deployment checks (tagged security) in the production environment."""
    done = _manage("check", "--deploy", "--tag", "security", "--fail-level", "WARNING",
                   **PRODUCTION)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "System check identified no issues" in done.stdout


def test_production_refuses_to_start_without_a_secret_key():
    environment = {key: value for key, value in PRODUCTION.items() if key != "SECRET_KEY"}
    done = _manage("check", **environment)
    assert done.returncode != 0
    assert "SECRET_KEY must be set" in done.stderr


def test_without_a_key_outside_production_the_key_is_local_not_public():
    assert settings.SECRET_KEY != "casino-ledger-development-key-not-for-production"
    assert len(settings.SECRET_KEY) >= 50


def test_chain_verifications_over_the_api_are_rate_limited_per_client(db, settings):
    """Each POST re-reads the whole log: beyond CASINO_VERIFY_RATE a client gets 429,
    nothing recorded; reads are not limited by it, and another client still runs one."""
    from django.core.cache import cache

    from ledger.models import Event

    settings.CASINO_VERIFY_RATE = "2/min"
    cache.clear()
    officer, other = client_for(Role.COMPLIANCE_OFFICER), client_for(Role.COMPLIANCE_OFFICER)
    url = "/api/v1/compliance/chain-verifications"
    ran = [officer.post(url, {}, format="json", headers={"Idempotency-Key": f"v{i}"})
           for i in range(3)]
    assert [answer.status_code for answer in ran] == [201, 201, 429]
    assert Event.objects.filter(type="compliance.chain_verified").count() == 2
    assert all(officer.get(url).status_code == 200 for _ in range(3))
    assert other.post(url, {}, format="json",
                      headers={"Idempotency-Key": "o1"}).status_code == 201
    cache.clear()
