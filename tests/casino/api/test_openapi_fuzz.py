"""The whole REST API under fuzzing, from its own OpenAPI schema.

schemathesis reads `/api/schema/` from the WSGI application in process and
generates requests for every operation: valid bodies and parameters, and
invalid ones (wrong types, missing fields, odd strings, bad Idempotency-Key
headers). The client is a user in every role, so requests reach the
commands rather than stopping at the permission check. For each response:
never a 5xx, a status code the operation documents, the documented content
type, and a body that matches the documented schema (errors included: the
shared `Error` component).

The number of examples per operation is bounded (FUZZ_EXAMPLES, default 25)
so the suite stays quick; the CI profile derandomizes them (tests/conftest.py).
"""

from __future__ import annotations

import os

import pytest
import schemathesis
from django.contrib.auth.models import Group, User
from django.core import signals
from django.db import close_old_connections
from hypothesis import HealthCheck, settings
from rest_framework.authtoken.models import Token
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from casino.roles import Role, ensure_role_groups
from casino.wsgi import application

EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "25"))
CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance,
          response_schema_conformance]


@pytest.fixture(autouse=True)
def _requests_keep_the_test_connection():
    """As Django's test client does: a request must not close the test's
    database connection (it holds the test transaction)."""
    signals.request_started.disconnect(close_old_connections)
    signals.request_finished.disconnect(close_old_connections)
    yield
    signals.request_started.connect(close_old_connections)
    signals.request_finished.connect(close_old_connections)


@pytest.fixture
def every_role_token(venues) -> str:
    ensure_role_groups()
    user = User.objects.create_user("fuzzer")
    user.groups.add(*Group.objects.filter(name__in=[role.value for role in Role]))
    return Token.objects.create(user=user).key


# Read at collection: generating the schema touches no database.
schema = schemathesis.openapi.from_wsgi("/api/schema/", application)


@schema.parametrize()
@settings(max_examples=EXAMPLES, deadline=None,
          suppress_health_check=list(HealthCheck))
def test_no_operation_answers_5xx_or_off_its_schema(case, every_role_token, venues):
    case.call_and_validate(headers={"Authorization": f"Token {every_role_token}"},
                           checks=CHECKS)
