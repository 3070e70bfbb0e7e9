"""What every write endpoint shares: the Idempotency-Key and a JSON object body.

Each endpoint is one row of `world`: the client that may call it, its URL, a
valid body, and another valid body for the key-reuse case. A refused request
writes no event; a retry under the same key returns the same answer and
writes nothing more; the same key with another body is a 409.
"""

import pytest

from casino.compliance.commands import propose_correction
from casino.roles import Role
from ledger import open_account
from tests.casino.conftest import make_player

from .conftest import event_count, post, post_raw

REGISTRATION = {"given_name": "Aino", "family_name": "Virtanen", "date_of_birth": "1990-05-01",
                "nationality": "FI", "document_type": "passport", "document_number": "XP1234567"}
PROPOSAL = {"account": "player/x/account", "counter_account": "house/test/adjustments",
            "amount": "25.00", "reason": "Goodwill for a machine fault, ticket 4411"}

# name: (status of a first success, events it writes)
WRITES = {
    "register": (201, 1),
    "verify": (200, 1),
    "self_exclude": (200, 1),
    "set_limit": (200, 1),
    "propose_correction": (201, 1),
    "approve_correction": (200, 2),
    "reject_correction": (200, 1),
}
RETRIES = list(WRITES)


@pytest.fixture
def world(api_client):
    """Each write endpoint with its caller, URL, a body and another body."""
    cage = api_client(Role.CAGE)
    officer = api_client(Role.COMPLIANCE_OFFICER, "olli")
    second_officer = api_client(Role.COMPLIANCE_OFFICER, "outi")
    player = make_player(verified=False, limits=False)
    open_account(code="player/x/account", type="liability", currency="EUR",
                 must_not_go_negative=True)
    open_account(code="house/test/adjustments", type="expense", currency="EUR")
    correction = propose_correction(account="player/x/account",
                                    counter_account="house/test/adjustments",
                                    amount_minor=25_00, reason="Goodwill, ticket 4412",
                                    actor="olli")
    players = f"/api/v1/players/{player.id}"
    corrections = f"/api/v1/corrections/{correction.id}"
    return {
        "register": (cage, "/api/v1/players", REGISTRATION,
                     {**REGISTRATION, "document_number": "XP7654321"}),
        "verify": (officer, f"{players}/verification", {"method": "bank_id"},
                   {"method": "passport"}),
        "self_exclude": (cage, f"{players}/self-exclusion", {"months": 6, "venue": "ray-online"},
                         {"months": 3, "venue": "ray-online"}),
        "set_limit": (cage, f"{players}/limits",
                      {"kind": "daily_spend", "value": "150.00", "venue": "ray-online"},
                      {"kind": "daily_spend", "value": "100.00", "venue": "ray-online"}),
        "propose_correction": (officer, "/api/v1/corrections", PROPOSAL,
                               {**PROPOSAL, "reason": "Another reason, ticket 4413"}),
        "approve_correction": (second_officer, f"{corrections}/approve", {"note": "Checked"},
                               {"note": "Checked the log again"}),
        "reject_correction": (second_officer, f"{corrections}/reject", {"note": "Duplicate"},
                              {"note": "Duplicate of 4411"}),
    }


@pytest.mark.parametrize("name", WRITES)
def test_a_write_without_an_idempotency_key_is_refused(world, name):
    """Every write needs the header: 400 naming it, and nothing written."""
    client, url, body, _ = world[name]
    before = event_count()
    response = post(client, url, body, key=None)
    assert response.status_code == 400
    assert response.json()["details"] == {"Idempotency-Key": ["this header is required for every write"]}
    assert event_count() == before


@pytest.mark.parametrize("name", WRITES)
def test_a_write_with_an_unprintable_idempotency_key_is_refused(world, name):
    """A key longer than 200 characters is refused before anything runs."""
    client, url, body, _ = world[name]
    before = event_count()
    response = post(client, url, body, key="k" * 201)
    assert response.status_code == 400
    assert response.json()["details"] == {"Idempotency-Key": ["1 to 200 printable ASCII characters"]}
    assert event_count() == before


@pytest.mark.parametrize("name", WRITES)
def test_a_write_with_malformed_json_is_refused(world, name):
    """A body that is not JSON is a 400 with the parser's message."""
    client, url, _, _ = world[name]
    before = event_count()
    response = post_raw(client, url, '{"months": 6,')
    assert response.status_code == 400
    assert response.json()["message"].startswith("JSON parse error")
    assert event_count() == before


@pytest.mark.parametrize("name", WRITES)
def test_a_write_whose_body_is_not_an_object_is_refused(world, name):
    """A JSON list where an object belongs is a 400, not a 500."""
    client, url, _, _ = world[name]
    before = event_count()
    response = post(client, url, [])
    assert response.status_code == 400
    assert response.json() == {
        "code": "request.invalid",
        "message": "Invalid data. Expected a dictionary, but got list.",
        "details": {"non_field_errors": ["Invalid data. Expected a dictionary, but got list."]}}
    assert event_count() == before


@pytest.mark.parametrize("name", RETRIES)
def test_a_retry_with_the_same_key_and_body_returns_the_same_answer_once(world, name):
    """The second request answers exactly as the first and writes no event."""
    client, url, body, _ = world[name]
    status, events = WRITES[name]
    before = event_count()
    first = post(client, url, body, key="retry-1")
    assert first.status_code == status, first.json()
    assert event_count() == before + events
    second = post(client, url, body, key="retry-1")
    assert second.status_code == status
    assert second.json() == first.json()
    assert event_count() == before + events


@pytest.mark.parametrize("name", RETRIES)
def test_the_same_key_with_a_different_body_is_a_conflict(world, name):
    """Reusing a key for another request is a 409 and writes nothing."""
    client, url, body, other_body = world[name]
    status, events = WRITES[name]
    before = event_count()
    assert post(client, url, body, key="reuse-1").status_code == status
    response = post(client, url, other_body, key="reuse-1")
    assert response.status_code == 409
    assert response.json()["code"] == "request.idempotency_key_reused"
    assert event_count() == before + events
