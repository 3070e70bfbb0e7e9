"""Fixtures for the API tests: token clients in a role, and a write helper."""

from __future__ import annotations

import itertools

import pytest
from django.contrib.auth.models import Group, User
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from casino.roles import Role, ensure_role_groups
from ledger.models import Event

_usernames = itertools.count(1)


def client_for(role: Role | None, username: str | None = None) -> APIClient:
    """Return a client authenticated by token as a new user in `role` (None: no role)."""
    ensure_role_groups()
    user = User.objects.create_user(username or f"{role or 'no-role'}-{next(_usernames)}")
    if role is not None:
        user.groups.add(Group.objects.get(name=role))
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=user).key}")
    client.username = user.username
    return client


def post(client: APIClient, url: str, body, key: str | None = "key-1"):
    """POST `body` as JSON, with an Idempotency-Key header unless `key` is None."""
    headers = {"Idempotency-Key": key} if key is not None else {}
    return client.post(url, body, format="json", headers=headers)


def post_raw(client: APIClient, url: str, text: str, key: str | None = "key-1"):
    """POST `text` as the JSON body, unparsed (for malformed JSON)."""
    headers = {"Idempotency-Key": key} if key is not None else {}
    return client.post(url, text, content_type="application/json", headers=headers)


def refusal_matches(body: dict, answer: dict) -> bool:
    """A 4xx body against an expected answer written as the whole Error, or,
    for a refused request body, as its per-field messages (`details` of an
    `invalid_request`)."""
    if "code" in answer:
        return body == answer
    return body["code"] == "request.invalid" and body["details"] == answer


def event_count() -> int:
    return Event.objects.count()


def last_event() -> Event:
    return Event.objects.order_by("-position").first()


@pytest.fixture
def api_client(venues):
    """A factory: `api_client(Role.CAGE)` or `api_client(Role.CAGE, "olli")`."""
    return client_for
