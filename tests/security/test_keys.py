"""API keys for machines (issue 16): hashed at rest, expiring, revocable,
rotated, last use recorded, scoped to venues; old plaintext tokens migrated."""

from __future__ import annotations

import datetime as dt

import pytest
from django.contrib.auth.models import Group, User
from django.core.management import call_command
from django.utils import timezone
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from casino.keys.models import ClientKey
from casino.roles import Role, ensure_role_groups
from tests.casino.conftest import make_player


def machine(username: str, role: Role) -> User:
    ensure_role_groups()
    user = User.objects.create_user(username)
    user.groups.add(Group.objects.get(name=role))
    return user


def client(key: str) -> APIClient:
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return api


def test_a_key_is_hashed_at_rest_and_its_last_use_recorded(venues):
    row, key = ClientKey.objects.issue(user=machine("cage-hki-1", Role.CAGE),
                                       name="Helsinki cage 1")
    stored = ClientKey.objects.get(pk=row.pk)
    assert key not in (stored.hashed_key, stored.id) and stored.hashed_key.startswith("sha512$$")
    assert stored.prefix == key.split(".")[0] and stored.last_used_at is None
    assert client(key).get("/api/v1/venues").status_code == 200
    assert ClientKey.objects.get(pk=row.pk).last_used_at is not None
    assert client(key[:-1] + ("x" if key[-1] != "x" else "y")).get(
        "/api/v1/venues").status_code == 401


def test_expired_and_revoked_keys_are_refused_and_a_rotated_key_replaces_the_old(venues):
    user = machine("table-1", Role.TABLE_CONTROLLER)
    expired, expired_key = ClientKey.objects.issue(user=user, name="old",
                                                   lifetime=dt.timedelta(seconds=-1))
    assert client(expired_key).get("/api/v1/venues").status_code == 401
    current, key = ClientKey.objects.issue(user=user, name="table 1")
    new, new_key = ClientKey.objects.rotate(current)
    assert client(key).get("/api/v1/venues").status_code == 401          # revoked
    assert client(new_key).get("/api/v1/venues").status_code == 200
    assert (new.name, new.user_id) == ("table 1", user.pk)
    assert new.expiry_date > timezone.now() + dt.timedelta(days=100)


def test_a_helsinki_cage_key_cannot_write_for_tallinn(venues):
    user = machine("cage-hki-2", Role.CAGE)
    _, key = ClientKey.objects.issue(user=user, name="Helsinki cage 2",
                                     venues=["casino-helsinki"])
    player = make_player()
    body = {"player_id": player.id, "amount": "50.00", "currency": "EUR", "method": "cash"}
    headers = {"Idempotency-Key": "d-1"}
    refused = client(key).post("/api/v1/cage/deposits", {**body, "venue": "olympic-tallinn"},
                               format="json", headers=headers)
    assert refused.status_code == 403
    assert "does not serve olympic-tallinn" in refused.json()["message"]
    ok = client(key).post("/api/v1/cage/deposits", {**body, "venue": "casino-helsinki"},
                          format="json", headers={"Idempotency-Key": "d-2"})
    assert ok.status_code == 201, ok.content
    assert client(key).get("/api/v1/cage/venues/olympic-tallinn/float").status_code == 403
    assert client(key).get("/api/v1/cage/venues/casino-helsinki/float").status_code == 200
    # Its feed shows its venue's events only.
    feed = client(key).get("/api/v1/events?limit=1000").json()["events"]
    venues_seen = {e["payload"].get("venue") for e in feed} - {None}
    assert venues_seen <= {"casino-helsinki"}


def test_a_plaintext_token_is_migrated_to_a_hashed_key_that_keeps_working(venues):
    user = machine("old-terminal", Role.AUDITOR)
    token = Token.objects.create(user=user)
    assert not Token.objects.filter(key=token.key).exists()      # no plaintext kept
    migrated = ClientKey.objects.get(user=user)
    assert token.key not in migrated.hashed_key
    assert client(token.key).get("/api/v1/venues").status_code == 200


def test_the_command_issues_and_revokes(venues, capsys):
    machine("cage-tll-1", Role.CAGE)
    call_command("client_key", "issue", "--user", "cage-tll-1", "--name", "Tallinn cage",
                 "--venue", "olympic-tallinn")
    prefix, *_ = capsys.readouterr().out.split()
    key = ClientKey.objects.get(prefix=prefix)
    assert key.venues == ["olympic-tallinn"]
    call_command("client_key", "revoke", "--prefix", prefix)
    assert ClientKey.objects.get(prefix=prefix).revoked
