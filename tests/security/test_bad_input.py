"""Bad input (issue 16, point 8): no body makes the API answer 5xx.

Every write operation of the schema is sent a corpus of hostile bodies by
a client in a role the matrix allows (so the body is read, not refused at
the door): broken JSON, JSON nested past the limit and past Python's own,
wrong types, huge numbers, NUL and surrogate characters, unknown fields.
Each answer is below 500, a refusal in the API's error shape. A body over the size limit
is a 413 before anything reads it.
"""

from __future__ import annotations

import json

import pytest
from django.conf import settings
from drf_spectacular.generators import SchemaGenerator

from casino.error_table import status_for
from casino.parsers import JSON_DEPTH_MAX, depth_of
from casino.roles import MATRIX, Role
from tests.casino.api.conftest import client_for

CORPUS: dict[str, str] = {
    "broken": '{"venue": ',
    "not_an_object": "[1, 2, 3]",
    "null": "null",
    "wrong_types": json.dumps({"venue": 7, "player_id": [], "amount": {"a": 1},
                               "stake": "x", "seat": "nine", "positions": "all"}),
    "huge_numbers": json.dumps({"amount": "9" * 400, "amount_minor": 10**40,
                                "seat": -10**30, "stake_minor": 1e308}),
    "nan": '{"amount": NaN, "seat": Infinity}',
    "nul_and_surrogates": '{"venue": "\\u0000", "player_id": "\\ud800", "name": "\\udfff"}',
    "unknown_fields": json.dumps({"currency": "USD", "isAdmin": True}),
    "just_past_the_depth": "[" * (JSON_DEPTH_MAX + 1) + "]" * (JSON_DEPTH_MAX + 1),
    "past_pythons_depth": "[" * 100_000 + "]" * 100_000,
}


@pytest.fixture(scope="module")
def writes() -> list[str]:
    schema = SchemaGenerator().get_schema(request=None, public=True)
    return sorted(path for path, operations in schema["paths"].items() if "post" in operations)


def _role_for(path: str) -> Role:
    allowed = MATRIX.get(f"POST {path}")
    if isinstance(allowed, frozenset) and allowed:
        return sorted(allowed)[0]
    return Role.COMPLIANCE_OFFICER


def test_no_body_makes_any_write_answer_5xx(venues, writes):
    clients: dict[Role, object] = {}
    answers: dict[tuple[str, str], int] = {}
    for path in writes:
        role = _role_for(path)
        client = clients.setdefault(role, client_for(role))
        url = path.replace("{", "").replace("}", "")   # unknown ids: the body is still read
        for name, body in CORPUS.items():
            response = client.generic("POST", url, body, content_type="application/json",
                                      HTTP_IDEMPOTENCY_KEY=f"bad-{name}-{len(answers)}")
            answers[(path, name)] = response.status_code
            assert response.status_code < 500, (path, name, response.content[:300])
            if response.status_code >= 400:     # a write without a body may take none
                assert "code" in response.json(), (path, name)
    assert len(writes) >= 80 and len(answers) == len(writes) * len(CORPUS)


def test_json_nested_past_the_limit_is_a_400(venues):
    client = client_for(Role.CAGE)
    for body in (CORPUS["just_past_the_depth"], CORPUS["past_pythons_depth"]):
        response = client.generic("POST", "/api/v1/cage/deposits", body,
                                  content_type="application/json", HTTP_IDEMPOTENCY_KEY="deep")
        assert (response.status_code, response.json()["code"]) == (400, "request.parse_error")
    assert depth_of(json.loads(CORPUS["just_past_the_depth"])) == JSON_DEPTH_MAX + 1
    assert depth_of({"a": [{"b": 1}]}) == 3 and depth_of(7) == 0


def test_a_body_over_the_limit_is_a_413_before_it_is_read(venues):
    client = client_for(Role.CAGE)
    body = '{"venue": "' + "x" * settings.CASINO_BODY_BYTES_MAX + '"}'
    response = client.generic("POST", "/api/v1/cage/deposits", body,
                              content_type="application/json", HTTP_IDEMPOTENCY_KEY="big")
    assert response.status_code == 413 == status_for("request.body_too_large")
    assert response.json()["code"] == "request.body_too_large"
    at_the_limit = client.generic("POST", "/api/v1/cage/deposits", "{}",
                                  content_type="application/json", HTTP_IDEMPOTENCY_KEY="ok")
    assert at_the_limit.status_code == 400      # read, and refused for its content
