"""Fixtures for the cage tests: API clients per role, the log's size."""

import itertools

import pytest
from django.contrib.auth.models import Group, User
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from casino.roles import Role
from ledger.models import Event

_users = itertools.count(1)


def event_count() -> int:
    return Event.objects.count()


@pytest.fixture
def client_for(venues):
    """Return an API client authenticated as a new user holding `role`."""

    def make(role: Role | None) -> APIClient:
        user = User.objects.create_user(f"terminal-{next(_users)}")
        if role is not None:
            user.groups.add(Group.objects.get(name=role))
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=user).key}")
        return client

    return make


@pytest.fixture
def cage_client(client_for):
    return client_for(Role.CAGE)
