"""The role matrix (casino.roles.MATRIX): every operation, every role.

Operations are read from the OpenAPI schema, and endpoints are found by
walking the URL resolver, neither listed here, so one added later is held
to the matrix the moment it is mounted: it must have a row. For every
operation, every role and a user with none, a request answers 403
(HasRole's refusal, nothing written) outside the matrix's set, and anything
but 401, 403 or a 5xx inside it. The requests carry an empty JSON object
and ids that do not exist, so a 400 or 404 inside the set still proves the
role got through. The README's table is generated from the matrix, and the
views' own declarations agree with it.
"""

from __future__ import annotations

import datetime as dt
import re
import uuid
from dataclasses import dataclass
from pathlib import Path

import pytest
from django.urls import URLResolver, get_resolver, resolve
from django.urls.resolvers import RoutePattern
from rest_framework.test import APIClient

from casino.roles import (ANY_CLIENT, FEED_READS, MATRIX, HasRole, Role, feed_operation,
                          may_read_event, operation, readme_table)
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


def _schema_operations() -> list[tuple[str, str]]:
    """Every operation of the OpenAPI schema, as (METHOD, path)."""
    from drf_spectacular.generators import SchemaGenerator

    schema = SchemaGenerator().get_schema(request=None, public=True)
    return sorted((method.upper(), path) for path, item in schema["paths"].items()
                  for method in item if method in HTTP_METHODS)


OPERATIONS = _schema_operations()
OPERATION_IDS = [f"{method} {path}" for method, path in OPERATIONS]


def _operation_url(path: str) -> str:
    return re.sub(r"\{\w+\}", "999999", path)


def _expected(method: str, path: str, role: Role | None) -> bool:
    allowed = MATRIX[f"{method} {path}"]
    if allowed == ANY_CLIENT:
        return True
    return role is not None and role in allowed


def test_every_operation_of_the_schema_is_in_the_matrix_and_nothing_else():
    """One row per operation: a new endpoint is refused a row-less pass."""
    keys = {f"{method} {path}" for method, path in OPERATIONS}
    assert sorted(keys - set(MATRIX)) == [], "add these operations to casino.roles.MATRIX"
    assert sorted(set(MATRIX) - keys) == [], "these matrix rows name no operation"


def test_the_readme_table_is_the_matrix():
    """The README's role table is generated from the matrix (python -m casino.roles)."""
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    begin, end = "<!-- roles:begin -->\n", "<!-- roles:end -->"
    assert begin in readme and end in readme
    table = readme.split(begin, 1)[1].split(end, 1)[0]
    assert table == readme_table()


@pytest.mark.parametrize("endpoint", [e for e in ENDPOINTS if e.is_casino],
                         ids=[e.route for e in ENDPOINTS if e.is_casino])
def test_view_declarations_agree_with_the_matrix(endpoint):
    """A view's own roles_read/roles_write (a fallback while a row is missing) say what
    the matrix says, so a reader of the view is not misled."""
    view = endpoint.view_class
    for method in endpoint.methods:
        key = operation(method, endpoint.route)
        if key not in MATRIX:
            continue
        declared = view.roles_read if method == "get" else view.roles_write
        assert frozenset(declared) == MATRIX[key], key


@pytest.mark.parametrize("role", ROLES, ids=[str(role) if role else "no-role" for role in ROLES])
@pytest.mark.parametrize("method, path", OPERATIONS, ids=OPERATION_IDS)
def test_role_matrix(db, method, path, role):
    """Every operation of the schema x every role and none, against the matrix:
    outside it 403 (HasRole's refusal, nothing written); inside it through."""
    client = client_for(role)
    before = Event.objects.count()
    response = _send(client, method.lower(), _operation_url(path))
    if _expected(method, path, role):
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


def test_the_matrix_not_the_view_decides(db, monkeypatch):
    """HasRole reads the matrix: a row changed there changes the answer even
    where the view declares otherwise."""
    url, key = "/api/v1/rulebooks", "GET /api/v1/rulebooks"
    assert client_for(Role.CAGE).get(url).status_code == 200
    monkeypatch.setitem(MATRIX, key, frozenset({Role.AUDITOR}))
    assert client_for(Role.CAGE).get(url).status_code == 403
    assert client_for(Role.AUDITOR).get(url).status_code == 200


# ---------------------------------------------------------------------------
# Money between books in the feed (issue 19: ledger.transfers' events).

TRANSFER_TYPES = ("ledger.transfer_sent", "ledger.transfer_pending",
                  "ledger.transfer_received", "ledger.transfer_refused",
                  "ledger.transfer_posted", "ledger.transfer_voided")
# Who reads them: whoever reads the journal's postings (casino.roles' decision).
TRANSFER_READERS = {Role.ACCOUNTANT, Role.AUDITOR, Role.COMPLIANCE_OFFICER}


def test_transfer_events_are_read_by_the_journals_readers():
    """Each transfer event type is declared in FEED_READS, read through the
    journal's operation: accountants, auditors and officers, nobody else."""
    assert FEED_READS["ledger.transfer_"] == "GET /api/v1/reports/journal"
    for kind in TRANSFER_TYPES:
        assert feed_operation(kind) == "GET /api/v1/reports/journal", kind
        readers = {role for role in Role if may_read_event(frozenset({role}), kind)}
        assert readers == TRANSFER_READERS == MATRIX["GET /api/v1/reports/journal"], kind
        assert not may_read_event(frozenset(), kind)


@pytest.fixture
def transfers_between_books(db):
    """Every transfer event type in the log: an atomic transfer, a two-phase
    one posted and a two-phase one refused and voided, between `main` and a
    second book of the same database."""
    from ledger import (append, begin, open_account, refuse, resolve, transfer_atomic,
                        transfer_two_phase)
    from ledger.books import open_book
    from tests.ledger.factories import GAMING_DAY, transfer_event

    open_book("roles-north")
    open_account(code="roles/main/cage", type="asset", currency="EUR")
    open_account(code="roles/main/player", type="liability", currency="EUR")
    open_account(code="roles/north/player", type="liability", currency="EUR",
                 book="roles-north")
    append([transfer_event("roles/main/player", "roles/main/cage", 10_000)])
    move = dict(source_book="main", source_account="roles/main/player",
                target_book="roles-north", target_account="roles/north/player",
                currency="EUR", gaming_day=GAMING_DAY)
    at = dt.datetime(2026, 6, 16, 12, 0, tzinfo=dt.timezone.utc)
    transfer_atomic("roles-t1", amount_minor=1_000, **move)
    transfer_two_phase("roles-t2", amount_minor=2_000, now=at, **move)
    begin("roles-t3", amount_minor=3_000, now=at, **move)
    refuse("roles-t3")
    resolve("roles-t3", at)
    kinds = set(Event.objects.filter(type__startswith="ledger.transfer_")
                .values_list("type", flat=True))
    assert kinds == set(TRANSFER_TYPES)


def _feed_types(client) -> list[str]:
    """The event types one client reads over every book (the vector cursor)."""
    types, cursor = [], ""
    for _ in range(20):
        answer = client.get("/api/v1/events", {"cursor": cursor, "limit": 50})
        assert answer.status_code == 200, answer.content
        body = answer.json()
        types += [event["type"] for event in body["events"]]
        if not body["has_more"]:
            return types
        cursor = body["next_cursor"]
    raise AssertionError("the feed did not end in 20 pages")


@pytest.mark.parametrize("role", ROLES, ids=[str(role) if role else "no-role" for role in ROLES])
def test_the_feed_shows_transfers_between_books_to_the_journals_readers(
        transfers_between_books, role):
    """Through GET events?cursor=, the journal's readers see every transfer
    event of both books; the cage, table controllers and a user in no role
    see none (they still see the clearing accounts' openings, as any client
    reads accounts)."""
    types = _feed_types(client_for(role))
    shown = sorted(kind for kind in types if kind.startswith("ledger.transfer_"))
    if role in TRANSFER_READERS:
        # sent, received (t1); pending, received, posted (t2); pending, refused, voided (t3)
        assert shown == sorted(["ledger.transfer_sent", "ledger.transfer_received",
                                "ledger.transfer_pending", "ledger.transfer_received",
                                "ledger.transfer_posted", "ledger.transfer_pending",
                                "ledger.transfer_refused", "ledger.transfer_voided"])
    else:
        assert shown == []
    assert "ledger.account_opened" in types
