"""The cashier windows and table-games accounting over the REST API (issue 17)."""

from __future__ import annotations

from casino.roles import Role
from ledger.models import Event
from tests.casino.api.conftest import client_for

VENUE = "casino-helsinki"
BANK = {"5000": 20, "2000": 25, "1000": 50}


def test_a_shift_over_the_api_with_a_transfer_and_a_short(venues):
    cage = client_for(Role.CAGE, "cara")
    opened = cage.post("/api/v1/cashier/shifts", {"venue": VENUE, "window": "w1",
                                                  "bank": BANK}, format="json",
                       HTTP_IDEMPOTENCY_KEY="open-1")
    assert (opened.status_code, opened.json()["bank_minor"]) == (201, 2_000_00)
    again = cage.post("/api/v1/cashier/shifts", {"venue": VENUE, "window": "w1",
                                                 "bank": BANK}, format="json",
                      HTTP_IDEMPOTENCY_KEY="open-1")
    assert (again.status_code, again.json()["id"]) == (201, opened.json()["id"])
    moved = cage.post("/api/v1/cashier/transfers", {
        "venue": VENUE, "source": "vault", "target": "window:w1", "count": {"5000": 10},
        "signed_by": ["vera", "cara"]}, format="json", HTTP_IDEMPOTENCY_KEY="t-1")
    assert (moved.status_code, moved.json()["amount_minor"]) == (201, 500_00)
    no_reason = cage.post("/api/v1/cashier/shift-closes", {
        "venue": VENUE, "window": "w1", "count": BANK}, format="json",
        HTTP_IDEMPOTENCY_KEY="c-1")
    assert (no_reason.status_code, no_reason.json()["code"]) == (400, "cashier.reason_required")
    closed = cage.post("/api/v1/cashier/shift-closes", {
        "venue": VENUE, "window": "w1", "count": BANK, "reason": "transfer not counted"},
        format="json", HTTP_IDEMPOTENCY_KEY="c-2")
    assert (closed.status_code, closed.json()["over_short_minor"]) == (201, -500_00)
    listed = client_for(Role.ACCOUNTANT).get("/api/v1/cashier/shifts", {"venue": VENUE})
    assert [s["state"] for s in listed.json()["results"]] == ["closed"]


def test_unknown_fields_are_refused(venues):
    answer = client_for(Role.CAGE).post("/api/v1/cashier/shifts", {
        "venue": VENUE, "window": "w1", "bank": BANK, "currency": "USD"}, format="json",
        HTTP_IDEMPOTENCY_KEY="x")
    assert answer.status_code == 400
    assert not Event.objects.filter(type="cashier.shift_opened").exists()


def test_a_table_session_over_the_api(venues):
    table = client_for(Role.TABLE_CONTROLLER, "dora")
    cage = client_for(Role.CAGE, "carl")
    base = "/api/v1/tablegames/bj-1"
    steps = [
        (table, "openings", {"venue": VENUE, "inventory": {"10000": 20},
                             "signed_by": ["dora", "pia"]}),
        (cage, "fills", {"venue": VENUE, "chips": {"10000": 10},
                         "signed_by": ["carl", "dora"]}),
        (table, "credits", {"venue": VENUE, "chips": {"10000": 5},
                            "signed_by": ["carl", "dora"]}),
        (table, "closes", {"venue": VENUE, "inventory": {"10000": 15},
                           "signed_by": ["dora", "pia"]}),
    ]
    for number, (client, path, body) in enumerate(steps):
        answer = client.post(f"{base}/{path}", body, format="json",
                             HTTP_IDEMPOTENCY_KEY=f"s-{number}")
        assert answer.status_code == 201, answer.json()
    counted = client_for(Role.CAGE, "kim").post(f"{base}/soft-counts", {
        "venue": VENUE, "first_count": {"5000": 40}, "second_count": {"5000": 40},
        "counted_by": ["kim", "kai"]}, format="json", HTTP_IDEMPOTENCY_KEY="count")
    session = counted.json()
    assert (counted.status_code, session["fills_minor"], session["credits_minor"],
            session["drop_minor"], session["win_minor"], session["hold_basis_points"]) == (
        201, 1_000_00, 500_00, 2_000_00, 2_000_00 - 1_000_00 + 500_00 - 500_00, 5000)
