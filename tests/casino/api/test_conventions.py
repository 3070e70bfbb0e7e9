"""The API's conventions, asserted from the generated schema and over HTTP
(issue 18 item 1).

- Every list is paged by cursor: its operation takes `cursor` and `limit`
  (the ledger's feed and an account's history: `after` and `limit`), and its
  answer carries `next` and `has_more`; no GET answers a bare array.
- Every operation is tagged with its app, and the schema lists the tags.
- Every write documents the required Idempotency-Key header (and refuses a
  request without it), but for the one query that needs a body.
- Every write has a request example (when it takes a body) and an answer
  example; the main reads have answer examples.
- Every 201 declares `Location`, and the API sets it.
"""

from __future__ import annotations

import pytest
from drf_spectacular.generators import SchemaGenerator

from casino.compliance.models import Alert
from casino.roles import Role
from ledger.models import Event
from tests.casino.api.conftest import client_for, post
from tests.casino.api.walk_world import REGISTRATION
from tests.casino.conftest import make_player

WRITES = ("post", "put", "patch", "delete")
# Writes that take no Idempotency-Key, and why.
KEYLESS = {
    "v1_checks_stake_create": "a dry run: a query that needs a body, it writes nothing",
}
# Lists whose cursor is the ledger position (`after`), not an opaque cursor.
POSITION_LISTS = {"v1_events_retrieve", "v1_accounts_retrieve"}
RECORD = (" (a test of it that sends it through an APIClient, then"
          " scripts/record_api_examples.sh <that test>, records its examples)")
MAIN_READS = {
    "v1_events_retrieve", "v1_accounts_retrieve", "v1_alerts_list", "v1_venues_list",
    "v1_rulebooks_list", "v1_players_retrieve", "v1_corrections_list",
    "v1_compliance_cases_list", "v1_jackpots_pools_list", "v1_reports_closes_list",
}


@pytest.fixture(scope="module")
def schema() -> dict:
    return SchemaGenerator().get_schema(request=None, public=True)


def _operations(schema: dict):
    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            if method in ("get", *WRITES):
                yield path, method, operation


def _resolve(schema: dict, node: dict) -> dict:
    while "$ref" in node:
        node = schema["components"]["schemas"][node["$ref"].rsplit("/", 1)[1]]
    return node


def _json_answer(operation: dict, status: str) -> dict | None:
    content = operation["responses"].get(status, {}).get("content", {})
    return content.get("application/json")


def _lists(schema: dict):
    """GET operations whose answer is a page of rows."""
    for path, method, operation in _operations(schema):
        answer = _json_answer(operation, "200") if method == "get" else None
        if answer is None:
            continue
        body = _resolve(schema, answer["schema"])
        name = {"v1_events_retrieve": "events", "v1_accounts_retrieve": "history"}.get(
            operation["operationId"], "results")
        rows = body.get("properties", {}).get(name)
        if rows is not None and rows.get("type") == "array":
            yield path, operation, body


def _parameters(operation: dict, location: str) -> set[str]:
    return {p["name"] for p in operation.get("parameters", []) if p["in"] == location}


def test_no_read_answers_a_bare_array(schema):
    """A list that is not paged would answer an array: none does."""
    bare = [f"GET {path}" for path, method, operation in _operations(schema)
            if method == "get" and (answer := _json_answer(operation, "200")) is not None
            and _resolve(schema, answer["schema"]).get("type") == "array"]
    assert bare == []


def test_every_list_is_paged_by_cursor(schema):
    """Cursor and limit in, next and has_more out, on every list."""
    lists = list(_lists(schema))
    assert len(lists) >= 17        # 15 cursor lists, the feed and an account's history
    for path, operation, body in lists:
        query = _parameters(operation, "query")
        if operation["operationId"] in POSITION_LISTS:
            assert {"after", "limit"} <= query, path
        else:
            assert {"cursor", "limit"} <= query, path
            assert {"next", "previous", "has_more", "results"} <= set(body["required"]), path
        assert {"next", "has_more"} <= set(body["properties"]), path
        assert body["properties"]["has_more"]["type"] == "boolean", path


def test_the_lists_filters_are_declared(schema):
    """The filters the lists took before (and the FilterSets' new ones) are
    in the schema, as django-filter declares them."""
    expected = {
        "/api/v1/alerts": {"kind", "player_id", "venue"},
        "/api/v1/corrections": {"state", "account"},
        "/api/v1/compliance/cases": {"state", "player_id", "alert_id"},
        "/api/v1/cashier/shifts": {"venue", "state"},
        "/api/v1/reports/closes": {"venue", "from", "to"},
        "/api/v1/jackpots/hits": {"state", "pool"},
        "/api/v1/jackpots/pools": {"venue", "kind", "status"},
        "/api/v1/venues": {"rulebook_id", "venue_type"},
        "/api/v1/rulebooks": {"rulebook_id", "venue_type"},
    }
    for path, names in expected.items():
        assert names <= _parameters(schema["paths"][path]["get"], "query"), path


def test_every_operation_is_tagged_with_its_app(schema):
    tags = {tag["name"] for tag in schema["tags"]}
    assert {"cage", "compliance", "ledger", "players", "poker", "rules"} <= tags
    for path, method, operation in _operations(schema):
        assert len(operation["tags"]) == 1 and operation["tags"][0] in tags, (method, path)
        assert operation["tags"] != ["v1"], (method, path)
    assert schema["paths"]["/api/v1/cage/deposits"]["post"]["tags"] == ["cage"]
    assert schema["paths"]["/api/v1/events"]["get"]["tags"] == ["ledger"]
    assert schema["paths"]["/api/v1/compliance/cases"]["get"]["tags"] == ["compliance"]


def test_every_write_documents_the_idempotency_key(schema):
    writes = [(path, method, operation) for path, method, operation in _operations(schema)
              if method in WRITES]
    assert len(writes) >= 54
    for path, method, operation in writes:
        headers = {p["name"]: p for p in operation.get("parameters", []) if p["in"] == "header"}
        if operation["operationId"] in KEYLESS:
            assert "Idempotency-Key" not in headers, path
        else:
            assert headers.get("Idempotency-Key", {}).get("required") is True, (method, path)


def test_every_write_has_examples(schema):
    """A request example where a body is taken, and an example of the answer."""
    for path, method, operation in _operations(schema):
        if method not in WRITES:
            continue
        body = operation.get("requestBody", {}).get("content", {}).get("application/json")
        if body is not None:
            assert body.get("examples"), f"no request example: {method} {path}{RECORD}"
        answers = [_json_answer(operation, status) for status in operation["responses"]
                   if status.startswith("2")]
        assert any(answer and answer.get("examples") for answer in answers), (
            f"no answer example: {method} {path}{RECORD}")


def test_the_main_reads_have_examples(schema):
    operations = {operation["operationId"]: operation
                  for _, _, operation in _operations(schema)}
    for operation_id in MAIN_READS:
        assert _json_answer(operations[operation_id], "200").get("examples"), operation_id


def test_every_201_declares_location(schema):
    created = [(path, operation) for path, method, operation in _operations(schema)
               if "201" in operation["responses"]]
    assert len(created) >= 50
    for path, operation in created:
        assert "Location" in operation["responses"]["201"].get("headers", {}), path


# Over HTTP -------------------------------------------------------------------


def _follow(client, url: str, query: dict) -> tuple[list[dict], list[dict]]:
    """Every page of a list from its first: (pages, rows)."""
    pages = [client.get(url, query).json()]
    while pages[-1]["has_more"]:
        assert len(pages) <= 20, "the pages do not end"
        pages.append(client.get(pages[-1]["next"]).json())
    return pages, [row for page in pages for row in page["results"]]


def test_following_next_reads_every_venue_once(venues):
    reader = client_for(Role.AUDITOR)
    pages, rows = _follow(reader, "/api/v1/venues", {"limit": 2})
    codes = [row["code"] for row in rows]
    assert codes == sorted(venues.values()) and len(codes) == 6
    assert [len(page["results"]) for page in pages] == [2, 2, 2]
    assert [page["has_more"] for page in pages] == [True, True, False]
    assert pages[-1]["next"] is None and pages[0]["previous"] is None
    back = reader.get(pages[-1]["previous"]).json()
    assert [row["code"] for row in back["results"]] == codes[2:4]


def test_a_cursor_neither_skips_nor_repeats_when_rows_are_added(venues):
    """A venue registered between two pages, sorting before the cursor, moves
    nothing: offsets would repeat a venue on the next page; the cursor does not."""
    officer = client_for(Role.COMPLIANCE_OFFICER)
    first = officer.get("/api/v1/venues", {"limit": 3}).json()
    added = post(officer, "/api/v1/venues", {
        "code": "aaa-hall", "name": "A hall", "rulebook_id": "ray-gaming-hall",
        "venue_type": "gaming_hall"}, key="venue-aaa")
    assert added.status_code == 201, added.json()
    rest = officer.get(first["next"]).json()
    codes = [row["code"] for row in first["results"] + rest["results"]]
    assert codes == sorted(venues.values())


def test_filters_narrow_every_page(venues):
    reader = client_for(Role.AUDITOR)
    pages, rows = _follow(reader, "/api/v1/rulebooks", {"venue_type": "poker_room", "limit": 1})
    assert [row["key"] for row in rows] == ["olympic-tallinn@1", "veikkaus-poker-room@1"]
    assert len(pages) == 2 and "venue_type=poker_room" in pages[0]["next"]
    refused = reader.get("/api/v1/venues", {"venue_type": "circus"})
    assert refused.status_code == 400
    assert list(refused.json()["details"]) == ["venue_type"]


def test_the_event_feed_follows_next_to_the_head(venues):
    reader = client_for(Role.AUDITOR)
    make_player()
    head = Event.objects.order_by("-position").values_list("position", flat=True).first()
    page = reader.get("/api/v1/events", {"limit": 7}).json()
    positions = [event["position"] for event in page["events"]]
    while page["has_more"]:
        page = reader.get(page["next"]).json()
        positions += [event["position"] for event in page["events"]]
    assert positions == list(range(1, head + 1))
    assert (page["next"], page["next_after"], page["head_position"]) == (None, head, head)


def test_a_201_names_what_it_created(venues):
    """Registering a player: Location is the player; a deposit: the event
    feed at the deposit's events; a retry answers the same Location."""
    cage = client_for(Role.CAGE)
    created = post(cage, "/api/v1/players", REGISTRATION, key="reg-1")
    assert created.status_code == 201, created.json()
    player_id = created.json()["id"]
    assert created["Location"] == f"http://testserver/api/v1/players/{player_id}"
    assert cage.get(created["Location"]).json()["id"] == player_id
    again = post(cage, "/api/v1/players", REGISTRATION, key="reg-1")
    assert (again.status_code, again["Location"]) == (201, created["Location"])

    player = make_player()
    deposit = post(cage, "/api/v1/cage/deposits", {
        "player_id": player.id, "venue": "casino-helsinki", "amount": "150.00",
        "currency": "EUR", "method": "cash"}, key="dep-1")
    assert deposit.status_code == 201, deposit.json()
    position = deposit.json()["position"]
    assert deposit["Location"] == (
        f"http://testserver/api/v1/events?after={position - 1}&limit=1")
    auditor = client_for(Role.AUDITOR)
    named = auditor.get(deposit["Location"]).json()["events"]
    assert [(e["position"], e["type"]) for e in named] == [(position, "cage.cash_deposited")]


def test_a_200_has_no_location(venues):
    player = make_player(verified=False, limits=False)
    answer = post(client_for(Role.CAGE), f"/api/v1/players/{player.id}/self-exclusion",
                  {"months": 6, "venue": "ray-online"}, key="se-1")
    assert answer.status_code == 200, answer.json()
    assert "Location" not in answer


@pytest.mark.parametrize("url, body", [
    ("/api/v1/corrections", {"account": "player/x/account",
                             "counter_account": "house/test/adjustments", "amount": "1.00",
                             "reason": "Rounding repair, ticket 12"}),
    ("/api/v1/compliance/chain-verifications", {}),
    ("/api/v1/compliance/alert-dismissals", {"alert_id": "alert/1",
                                             "reason": "Known regular, no case"}),
], ids=["corrections", "chain_verifications", "alert_dismissals"])
def test_a_write_the_schema_now_keys_refuses_a_request_without_the_key(venues, url, body):
    """The header the schema documents on these writes is required indeed."""
    answer = post(client_for(Role.COMPLIANCE_OFFICER), url, body, key=None)
    assert answer.status_code == 400
    assert "Idempotency-Key" in answer.json()["details"]


def test_the_keyless_query_answers_without_a_key(venues):
    player = make_player()
    answer = post(client_for(Role.CAGE), "/api/v1/checks/stake", {
        "kind": "deposit", "venue": "casino-helsinki", "amount": "10.00", "currency": "EUR",
        "player_id": player.id}, key=None)
    assert answer.status_code == 200, answer.json()
    assert Alert.objects.count() == 0


@pytest.mark.parametrize("url", [
    "/api/v1/venues", "/api/v1/alerts", "/api/v1/corrections", "/api/v1/cashier/shifts",
    "/api/v1/jackpots/pools/casino-helsinki/bad_beat/rollups", "/api/v1/players/nobody/limits",
])
def test_a_list_answers_options_and_head(venues, url):
    """The list views are generic views now: OPTIONS and HEAD still answer."""
    client = client_for(Role.COMPLIANCE_OFFICER)
    assert client.options(url).status_code < 500
    assert client.head(url).status_code < 500


def test_a_shift_without_a_read_of_its_own_is_located_in_the_feed(venues):
    """A cashier's shift has no GET of its own: its Location is its event."""
    cage = client_for(Role.CAGE)
    opened = post(cage, "/api/v1/cashier/shifts", {
        "venue": "casino-helsinki", "window": "w1", "bank": {"5000": 20}}, key="open-1")
    assert opened.status_code == 201, opened.json()
    named = client_for(Role.AUDITOR).get(opened["Location"]).json()["events"]
    assert len(named) == 1 and named[0]["type"].startswith("cashier.")
    assert named[0]["payload"]["window"] == "w1"


def test_a_table_session_write_is_located_at_its_event(venues):
    table = client_for(Role.TABLE_CONTROLLER, "dora")
    opened = post(table, "/api/v1/tablegames/bj-1/openings", {
        "venue": "casino-helsinki", "inventory": {"10000": 20},
        "signed_by": ["dora", "pia"]}, key="open-bj-1")
    assert opened.status_code == 201, opened.json()
    named = client_for(Role.AUDITOR).get(opened["Location"]).json()["events"]
    assert len(named) == 1 and named[0]["type"].startswith("tablegames.")
