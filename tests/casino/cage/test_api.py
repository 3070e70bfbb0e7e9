"""The cage API: four writes and the float; bad input is a 4xx that writes nothing."""

import json

import pytest

from casino.cage.commands import buy_chips, deposit
from casino.roles import Role
from ledger.models import Account, Event
from tests.casino.conftest import make_player

from .conftest import event_count

CASINO = "casino-helsinki"
ENDPOINTS = {
    "deposits": ("method", "cash", "cage.cash_deposited"),
    "withdrawals": ("method", "cash", "cage.cash_withdrawn"),
    "chip-purchases": ("paid_with", "cash", "cage.chips_purchased"),
    "chip-redemptions": ("paid_to", "cash", "cage.chips_redeemed"),
}


def _body(endpoint: str, player_id: str, /, **changes) -> dict:
    method_field, method, _ = ENDPOINTS[endpoint]
    body = {"player_id": player_id, "venue": CASINO, "amount": "150.00", "currency": "EUR",
            method_field: method}
    body.update(changes)
    return {name: value for name, value in body.items() if value is not None}


def _post(client, endpoint: str, body, key: str | None = "key-1", raw: str | None = None):
    headers = {"HTTP_IDEMPOTENCY_KEY": key} if key is not None else {}
    data = raw if raw is not None else json.dumps(body)
    return client.post(f"/api/v1/cage/{endpoint}", data, content_type="application/json",
                       **headers)


def _message(body: dict) -> str:
    """The human sentence of a 4xx body (every one is {code, message, details})."""
    return body["message"]


@pytest.fixture
def funded_player(venues):
    """A player with EUR 500.00 in the account and EUR 300.00 of chips out."""
    player = make_player()
    deposit(player_id=player.id, venue=CASINO, amount_minor=50_000, currency="EUR",
            actor="cashier")
    buy_chips(player_id=player.id, venue=CASINO, amount_minor=30_000, currency="EUR",
              actor="cashier")
    return player


@pytest.mark.parametrize(
    "endpoint, account, cage_cash, chips",
    [
        ("deposits", "650.00", "950.00", "300.00"),
        ("withdrawals", "350.00", "650.00", "300.00"),
        ("chip-purchases", "500.00", "950.00", "450.00"),
        ("chip-redemptions", "500.00", "650.00", "150.00"),
    ],
)
def test_each_write_answers_201_with_positions_and_balances(
        cage_client, funded_player, endpoint, account, cage_cash, chips):
    """The answer names the event written and the balances it left."""
    response = _post(cage_client, endpoint, _body(endpoint, funded_player.id))
    assert response.status_code == 201, response.json()
    # The command's event (venue books: the newest event of the log may be its
    # companion in the venue's book, whose positions are far above main's).
    event = Event.objects.filter(type=ENDPOINTS[endpoint][2]).order_by("-position").first()
    assert response.json() == {
        "event_type": ENDPOINTS[endpoint][2],
        "position": event.position,
        "positions": [event.position],
        "player_id": funded_player.id,
        "venue": CASINO,
        "amount": "150.00",
        "amount_minor": 15_000,
        "currency": "EUR",
        "method": "cash",
        "gaming_day": event.gaming_day.isoformat(),
        "account_balance": account,
        "account_balance_minor": int(account.replace(".", "")),
        "cage_cash": cage_cash,
        "cage_cash_minor": int(cage_cash.replace(".", "")),
        "chips_outstanding": chips,
        "chips_outstanding_minor": int(chips.replace(".", "")),
        "alerts": [],
    }
    assert event.metadata["actor"].startswith("terminal-")
    # The client's key, scoped to its principal (venue books: the event's part
    # of a request across books is recorded under `<key>#<book>`).
    assert event.idempotency_key.split("#", 1)[0].endswith(":key-1")


@pytest.mark.parametrize("endpoint", ENDPOINTS)
def test_a_retry_with_the_same_key_answers_the_same_body_and_writes_nothing(
        cage_client, funded_player, endpoint):
    """201 again, the same body, and `Idempotent-Replayed: true`."""
    first = _post(cage_client, endpoint, _body(endpoint, funded_player.id), key="retry-1")
    before = event_count()
    again = _post(cage_client, endpoint, _body(endpoint, funded_player.id), key="retry-1")
    assert (first.status_code, again.status_code) == (201, 201)
    assert again.json() == first.json()
    assert again["Idempotent-Replayed"] == "true"
    assert not first.has_header("Idempotent-Replayed")
    assert event_count() == before


def test_a_key_reused_with_another_body_is_a_409(cage_client, funded_player):
    """The key identifies one request; another amount under it is refused."""
    _post(cage_client, "deposits", _body("deposits", funded_player.id), key="reuse")
    before = event_count()
    response = _post(cage_client, "deposits",
                     _body("deposits", funded_player.id, amount="150.01"), key="reuse")
    assert response.status_code == 409
    assert response.json()["code"] == "request.idempotency_key_reused"
    assert event_count() == before


MALFORMED_JSON = '{"player_id": "x", "amount": '
# One row per kind of bad input: the changes to a good body, the status.
BAD_INPUT = [
    ("missing_player_id_case", {"player_id": None}, 400),
    ("missing_venue_case", {"venue": None}, 400),
    ("missing_amount_case", {"amount": None}, 400),
    ("missing_currency_case", {"currency": None}, 400),
    ("missing_method_case", {"__method__": None}, 400),
    ("negative_amount_case", {"amount": "-1.00"}, 400),
    ("zero_amount_case", {"amount": "0.00"}, 400),
    ("fraction_of_a_cent_case", {"amount": "1.005"}, 400),
    ("json_float_case", {"amount": 1.5}, 400),
    ("amount_not_a_number_case", {"amount": "ten"}, 400),
    ("unknown_player_case", {"player_id": "nobody"}, 404),
    ("unknown_venue_case", {"venue": "atlantis"}, 404),
    ("wrong_currency_case", {"currency": "USD"}, 400),
    ("currency_not_a_code_case", {"currency": "euro"}, 400),
    ("unknown_method_case", {"__method__": "cheque"}, 400),
    ("malformed_json_case", {"__raw__": MALFORMED_JSON}, 400),
    ("missing_idempotency_key_case", {"__key__": None}, 400),
]


@pytest.mark.parametrize("endpoint", ENDPOINTS)
def test_bad_input_is_a_4xx_with_a_message_that_writes_nothing(
        cage_client, funded_player, endpoint):
    """Every write endpoint refuses each row of BAD_INPUT, and the log stays as it was."""
    before = event_count()
    for case, changes, status in BAD_INPUT:
        changes = dict(changes)
        key = changes.pop("__key__", "bad-input")
        raw = changes.pop("__raw__", None)
        if "__method__" in changes:
            changes[ENDPOINTS[endpoint][0]] = changes.pop("__method__")
        response = _post(cage_client, endpoint, _body(endpoint, funded_player.id, **changes),
                         key=key, raw=raw)
        assert response.status_code == status, (case, response.json())
        assert _message(response.json()), case
        assert event_count() == before, case


def test_the_messages_say_what_is_wrong(cage_client, funded_player):
    """Spot checks of the sentences a cage terminal shows."""
    cases = [
        ({"amount": "1.005"}, "amount",
         'give the amount as a string with at most two decimals, e.g. "150.00"'),
        ({"amount": 1.5}, "amount",
         'give the amount as a string with at most two decimals, e.g. "150.00"'),
        ({"amount": "-1.00"}, "amount",
         'give the amount as a string with at most two decimals, e.g. "150.00"'),
        ({"amount": "0.00"}, "amount", "the amount must be greater than zero"),
        ({"venue": None}, "venue", "This field is required."),
        ({"player_id": "nobody"}, "message", "no player 'nobody'"),
        ({"currency": "USD"}, "message", "venue casino-helsinki plays in EUR, not USD"),
    ]
    for changes, field, message in cases:
        body = _post(cage_client, "deposits", _body("deposits", funded_player.id, **changes),
                     key="messages").json()
        assert (body[field] if field == "message" else body["details"][field][0]) == message, \
            changes
        if field != "message":  # the first field's sentence leads the message
            assert body["message"] == f"{field}: {message}"
    malformed = _post(cage_client, "deposits", None, raw=MALFORMED_JSON).json()
    assert malformed["code"] == "request.parse_error"
    assert malformed["message"].startswith("JSON parse error")
    no_key = _post(cage_client, "deposits", _body("deposits", funded_player.id), key=None)
    assert no_key.json()["details"] == {
        "Idempotency-Key": ["this header is required for every write"]}


def test_a_rule_refusal_is_a_422_naming_the_rule_and_is_recorded(cage_client, venues):
    """The pipeline's refusal: rule, limit, amount, rulebook, cite and message."""
    unverified = make_player(verified=False)
    before = event_count()
    response = _post(cage_client, "chip-purchases", _body("chip-purchases", unverified.id))
    assert response.status_code == 422
    body = response.json()
    assert body["code"] == "compliance.rejected"
    assert body["message"] == "the player's identity is not verified"
    assert {name: body["details"][name] for name in
            ("rule", "limit_minor", "amount_minor", "rulebook", "cite")} == {
        "rule": "compliance.identity_unverified", "limit_minor": None, "amount_minor": 15_000,
        "rulebook": "ray-casino@1", "cite": "002:L3031"}
    assert event_count() == before + 1
    assert Event.objects.last().type == "compliance.attempt_rejected"


@pytest.mark.parametrize(
    "endpoint, amount, code",
    [
        ("withdrawals", "500.01", "cage.insufficient_funds"),
        ("chip-purchases", "500.01", "cage.insufficient_funds"),
        ("chip-redemptions", "300.01", "cage.chips_not_outstanding"),
    ],
)
def test_more_than_the_balance_is_a_422_that_writes_nothing(
        cage_client, funded_player, endpoint, amount, code):
    """One cent over the account or the chip float: coded 422, the log unchanged."""
    field = {"chip-purchases": {"paid_with": "account"}}.get(endpoint, {})
    before = event_count()
    response = _post(cage_client, endpoint,
                     _body(endpoint, funded_player.id, amount=amount, **field))
    assert response.status_code == 422
    assert response.json()["code"] == code
    assert response.json()["message"]
    assert event_count() == before


@pytest.mark.parametrize("endpoint", ENDPOINTS)
def test_only_the_cage_role_may_write(client_for, funded_player, endpoint):
    """Writes are for the cage; the reading roles and no role get 403."""
    before = event_count()
    for role in (Role.TABLE_CONTROLLER, Role.COMPLIANCE_OFFICER, Role.ACCOUNTANT, Role.AUDITOR,
                 None):
        response = _post(client_for(role), endpoint, _body(endpoint, funded_player.id))
        assert response.status_code == 403, role
    assert event_count() == before


def test_a_write_without_a_token_is_a_401(funded_player):
    """Writes need an authenticated client before anything else is looked at."""
    from rest_framework.test import APIClient

    response = _post(APIClient(), "deposits", _body("deposits", funded_player.id))
    assert response.status_code == 401


def test_the_float_shows_cage_cash_and_chips_outstanding(cage_client, funded_player):
    """GET .../float: the chip float and the cage's cash, in both units, as of the last
    event of the cage's book (the venue's own, or main)."""
    _post(cage_client, "chip-redemptions", _body("chip-redemptions", funded_player.id,
                                                 amount="100.00", paid_to="account"))
    response = cage_client.get(f"/api/v1/cage/venues/{CASINO}/float")
    assert response.status_code == 200
    assert response.json() == {
        "venue": CASINO, "currency": "EUR",
        "cage_cash": "800.00", "cage_cash_minor": 80_000,
        "chips_outstanding": "200.00", "chips_outstanding_minor": 20_000,
        "as_of_position": Event.objects.filter(
            book=Account.objects.get(code=f"cage/{CASINO}/cash").book).last().position,
    }


def test_the_float_of_a_cage_never_used_is_zero(cage_client, venues):
    """A venue whose cage accounts were never opened shows zeros, not a 404."""
    body = cage_client.get("/api/v1/cage/venues/poker-helsinki/float").json()
    assert (body["cage_cash"], body["chips_outstanding"]) == ("0.00", "0.00")


def test_the_float_of_an_unknown_venue_is_a_404(cage_client, venues):
    """The venue is looked up in the rules app's registry."""
    response = cage_client.get("/api/v1/cage/venues/atlantis/float")
    assert response.status_code == 404
    assert response.json()["code"] == "rules.unknown_venue"


@pytest.mark.parametrize("role, status", [
    (Role.CAGE, 200), (Role.COMPLIANCE_OFFICER, 200), (Role.ACCOUNTANT, 200),
    (Role.AUDITOR, 200), (Role.TABLE_CONTROLLER, 403), (None, 403),
])
def test_the_float_is_read_by_cage_compliance_accounting_and_audit(client_for, role, status):
    """The chip float is visible to every reading role, not to table controllers."""
    response = client_for(role).get(f"/api/v1/cage/venues/{CASINO}/float")
    assert response.status_code == status


def test_the_schema_describes_each_write_and_the_float(cage_client):
    """/api/schema/ names the request body, 201 body, errors and the key header."""
    schema = cage_client.get("/api/schema/", {"format": "json"}).json()
    components = schema["components"]["schemas"]
    for endpoint, request_component in [
        ("deposits", "DepositRequest"), ("withdrawals", "WithdrawalRequest"),
        ("chip-purchases", "ChipPurchaseRequest"),
        ("chip-redemptions", "ChipRedemptionRequest"),
    ]:
        post = schema["paths"][f"/api/v1/cage/{endpoint}"]["post"]
        body = post["requestBody"]["content"]["application/json"]["schema"]
        assert body == {"$ref": f"#/components/schemas/{request_component}"}
        assert post["responses"]["201"]["content"]["application/json"]["schema"] == {
            "$ref": "#/components/schemas/CageTransaction"}
        assert set(post["responses"]) == {"201", "400", "401", "403", "404", "409", "413", "415",
                                         "422", "429"}
        (key,) = post["parameters"]
        assert (key["in"], key["name"], key["required"]) == ("header", "Idempotency-Key", True)
        method_field = ENDPOINTS[endpoint][0]
        assert set(components[request_component]["required"]) == {
            "player_id", "venue", "amount", "currency", method_field}
    assert components["DepositRequest"]["properties"]["amount"]["type"] == "string"
    float_get = schema["paths"]["/api/v1/cage/venues/{venue}/float"]["get"]
    assert float_get["responses"]["200"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/VenueFloat"}
