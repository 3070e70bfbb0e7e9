"""The role matrix: every endpoint under /api/v1/, every role, every method.

Endpoints are found by walking the URL resolver, not listed here, so one
added later (the cage's, say) is in the matrix the moment its urls.py is
mounted. Each casino view names its roles (`roles_read` for GET,
`roles_write` for the rest, casino.roles.HasRole); for every role and for a
user with none, a method the view implements answers 403 (HasRole's refusal,
nothing written) outside that set, and anything but 401, 403 or a 5xx
inside it. The requests carry an empty JSON object and ids that do not
exist, so a 400 or 404 inside the set still proves the role got through.
"""

from __future__ import annotations

import re
import uuid
from dataclasses import dataclass

import pytest
from django.urls import URLResolver, get_resolver, resolve
from django.urls.resolvers import RoutePattern
from rest_framework.test import APIClient

from casino.roles import HasRole, Role
from ledger.models import Event
from tests.casino.api.conftest import client_for

API_PREFIX = "api/v1/"
HTTP_METHODS = ("get", "post", "put", "patch", "delete")
PLACEHOLDERS = {"int": "999999", "path": "no/such/thing", "str": "no-such-thing",
                "slug": "no-such-thing", "uuid": str(uuid.UUID(int=0))}
ROLES = [*Role, None]
REFUSAL = {"code": "auth.permission_denied", "message": HasRole.message, "details": {}}
# Endpoints this suite knows exist; the walk must find at least these.
KNOWN_ROUTES = {
    "api/v1/events", "api/v1/accounts/<path:code>", "api/v1/players",
    "api/v1/players/<str:player_id>", "api/v1/players/<str:player_id>/verification",
    "api/v1/players/<str:player_id>/self-exclusion", "api/v1/players/<str:player_id>/limits",
    "api/v1/checks/stake", "api/v1/alerts", "api/v1/alerts/<path:alert_id>",
    "api/v1/corrections", "api/v1/corrections/<str:correction_id>",
    "api/v1/corrections/<str:correction_id>/approve",
    "api/v1/corrections/<str:correction_id>/reject", "api/v1/rulebooks",
    "api/v1/rulebooks/<str:rulebook_id>/<int:version>", "api/v1/venues",
    "api/v1/venues/<str:code>",
}


@dataclass(frozen=True)
class Endpoint:
    route: str
    url: str
    callback: object
    view_class: type
    methods: tuple[str, ...]

    @property
    def is_casino(self) -> bool:
        return self.view_class.__module__.startswith("casino.")

    def admits(self, role: Role | None, method: str) -> bool:
        if not self.is_casino:
            # The ledger's read endpoints predate roles: they declare none and
            # admit every authenticated user (IsAuthenticated only), so every
            # role, and a user without one, is expected to get through.
            return True
        allowed = self.view_class.roles_read if method == "get" else self.view_class.roles_write
        return role is not None and role in allowed


def _route(pattern) -> str:
    assert isinstance(pattern, RoutePattern), (
        f"{pattern!r} under /{API_PREFIX}: use path(), not re_path(), so the role matrix"
        " can fill in its parameters")
    return str(pattern)


def _methods(callback, view_class) -> tuple[str, ...]:
    actions = getattr(callback, "actions", None)  # a ViewSet routed by a router
    if actions:
        return tuple(method for method in HTTP_METHODS if method in actions)
    return tuple(method for method in HTTP_METHODS if hasattr(view_class, method))


def _walk(patterns, prefix: str = ""):
    for entry in patterns:
        if isinstance(entry, URLResolver):
            if not isinstance(entry.pattern, RoutePattern):
                continue  # nothing under /api/v1/ is mounted by a regex
            route = prefix + str(entry.pattern)
            if route.startswith(API_PREFIX) or API_PREFIX.startswith(route):
                yield from _walk(entry.url_patterns, route)
        elif (prefix + str(entry.pattern)).startswith(API_PREFIX):
            yield prefix + _route(entry.pattern), entry.callback


def _fill(route: str) -> str:
    return "/" + re.sub(r"<(?:(\w+):)?\w+>",
                        lambda match: PLACEHOLDERS.get(match.group(1) or "str", "no-such-thing"),
                        route)


def api_endpoints() -> list[Endpoint]:
    """Every URL pattern under /api/v1/, with its view and implemented methods."""
    endpoints = []
    for route, callback in _walk(get_resolver().url_patterns):
        view_class = getattr(callback, "cls", None) or callback.view_class
        endpoints.append(Endpoint(route, _fill(route), callback, view_class,
                                  _methods(callback, view_class)))
    return endpoints


ENDPOINTS = api_endpoints()
CASES = [(endpoint, method) for endpoint in ENDPOINTS for method in endpoint.methods]
CASE_IDS = [f"{method.upper()} /{endpoint.route}" for endpoint, method in CASES]


def test_the_walk_finds_every_known_endpoint():
    """A sanity check of the walk itself: nothing known is missed."""
    assert KNOWN_ROUTES <= {endpoint.route for endpoint in ENDPOINTS}


@pytest.mark.parametrize("endpoint", ENDPOINTS, ids=[e.route for e in ENDPOINTS])
def test_each_filled_url_reaches_its_own_view(endpoint):
    """The placeholder ids still resolve to the view under test."""
    assert resolve(endpoint.url).func is endpoint.callback
    assert endpoint.methods, f"/{endpoint.route} implements no HTTP method"


@pytest.mark.parametrize("endpoint", [e for e in ENDPOINTS if e.is_casino],
                         ids=[e.route for e in ENDPOINTS if e.is_casino])
def test_every_casino_view_declares_its_roles(endpoint):
    """roles_read and roles_write are tuples of Role, enforced by HasRole."""
    view = endpoint.view_class
    for name in ("roles_read", "roles_write"):
        assert hasattr(view, name), f"{view.__qualname__} must declare {name}"
        roles = getattr(view, name)
        assert isinstance(roles, tuple), f"{view.__qualname__}.{name} must be a tuple"
        assert all(isinstance(role, Role) for role in roles), f"{view.__qualname__}.{name}"
    assert HasRole in view.permission_classes, (
        f"{view.__qualname__} must use casino.api.PERMISSIONS")


def _send(client: APIClient, method: str, url: str):
    if method == "get":
        return client.get(url)
    return getattr(client, method)(url, {}, format="json",
                                   headers={"Idempotency-Key": f"role-matrix-{uuid.uuid4()}"})


@pytest.mark.parametrize("role", ROLES, ids=[str(role) if role else "no-role" for role in ROLES])
@pytest.mark.parametrize("endpoint, method", CASES, ids=CASE_IDS)
def test_role_matrix(db, endpoint, method, role):
    """Outside the view's roles: 403 and nothing written; inside: through."""
    client = client_for(role)
    before = Event.objects.count()
    response = _send(client, method, endpoint.url)
    if endpoint.admits(role, method):
        assert response.status_code not in (401, 403), response.content
        assert response.status_code < 500, response.content
    else:
        assert response.status_code == 403, response.content
        assert response.json() == REFUSAL
        assert Event.objects.count() == before


@pytest.mark.parametrize("endpoint, method", CASES, ids=CASE_IDS)
def test_every_endpoint_answers_401_without_a_token(db, endpoint, method):
    """No credentials, no answer: 401 naming the Token scheme; nothing written."""
    before = Event.objects.count()
    response = _send(APIClient(), method, endpoint.url)
    assert response.status_code == 401
    assert response["WWW-Authenticate"] == "Token"
    assert Event.objects.count() == before
