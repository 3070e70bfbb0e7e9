"""Two-person corrections over HTTP: propose, approve or reject, read.

The player's account holds EUR 100.00. Olli (compliance officer) or Anna
(accountant) proposes; Outi, a second compliance officer, decides.
"""

import pytest

from casino.compliance.commands import propose_correction
from casino.roles import Role
from ledger import open_account
from ledger.models import Account, Event
from tests.ledger.factories import transfer
from tests.casino.api.conftest import refusal_matches

from .conftest import event_count, last_event, post

PROPOSAL = {"account": "player/x/account", "counter_account": "house/test/adjustments",
            "amount": "25.00", "reason": "Goodwill for a machine fault, ticket 4411"}


@pytest.fixture
def books(venues):
    open_account(code="cage/test/cash", type="asset", currency="EUR")
    open_account(code="player/x/account", type="liability", currency="EUR",
                 must_not_go_negative=True)
    open_account(code="house/test/adjustments", type="expense", currency="EUR")
    open_account(code="house/test/sek", type="expense", currency="SEK")
    transfer("player/x/account", "cage/test/cash", 100_00)


@pytest.fixture
def olli(api_client, books):
    return api_client(Role.COMPLIANCE_OFFICER, "olli")


@pytest.fixture
def outi(api_client, books):
    return api_client(Role.COMPLIANCE_OFFICER, "outi")


@pytest.fixture
def proposed(books):
    return propose_correction(account="player/x/account",
                              counter_account="house/test/adjustments", amount_minor=25_00,
                              reason="Goodwill for a machine fault, ticket 4411", actor="olli")


def _balance(code: str) -> int:
    return Account.objects.get(code=code).balance_minor


def test_a_proposal_moves_nothing_and_is_shown_as_proposed(olli):
    """201 with the proposal; the balance is unchanged until someone approves."""
    response = post(olli, "/api/v1/corrections", PROPOSAL)
    assert response.status_code == 201
    body = response.json()
    event = Event.objects.get(stream=f"correction/{body['id']}")
    assert body == {
        "id": event.payload["correction_id"], "state": "proposed",
        "account": "player/x/account", "counter_account": "house/test/adjustments",
        "amount": "25.00", "currency": "EUR",
        "reason": "Goodwill for a machine fault, ticket 4411", "proposed_by": "olli",
        "proposed_at": body["proposed_at"], "balance_before": "100.00", "decided_by": "",
        "decided_at": None, "decision_note": "", "balance_after": None,
        "last_position": event.position,
    }
    assert _balance("player/x/account") == 100_00


def test_an_accountant_may_propose_and_a_negative_amount_lowers_the_balance(api_client, books):
    """A signed amount: "-40.00" proposes taking EUR 40.00 off the account."""
    response = post(api_client(Role.ACCOUNTANT, "anna"), "/api/v1/corrections",
                    {**PROPOSAL, "amount": "-40.00"})
    assert response.status_code == 201
    assert (response.json()["amount"], response.json()["proposed_by"]) == ("-40.00", "anna")


def test_the_proposer_cannot_approve_their_own_correction(olli):
    """403 approver_is_proposer; only the refusal is written (issue 16: the
    two-person rule is the command's, and its refusals are on the record)."""
    correction = post(olli, "/api/v1/corrections", PROPOSAL, key="p").json()
    before = event_count()
    response = post(olli, f"/api/v1/corrections/{correction['id']}/approve", {"note": "Mine"},
                    key="a")
    assert response.status_code == 403
    assert response.json() == {
        "code": "compliance.approver_is_proposer",
        "message": "a correction must be decided by someone other than its proposer",
        "details": {"correction_id": correction["id"], "proposed_by": "olli",
                    "rejection_position": before + 1}}
    assert event_count() == before + 1
    assert last_event().type == "compliance.four_eyes_refused"
    assert _balance("player/x/account") == 100_00


def test_a_second_officer_approves_and_the_correction_is_posted(olli, outi):
    """Posted, with the balance before and after; the events say who and why."""
    correction = post(olli, "/api/v1/corrections", PROPOSAL, key="p").json()
    response = post(outi, f"/api/v1/corrections/{correction['id']}/approve",
                    {"note": "Checked the machine log"}, key="a")
    assert response.status_code == 200
    body = response.json()
    events = list(Event.objects.filter(stream=f"correction/{correction['id']}")
                  .order_by("position"))
    assert body == {
        **correction, "state": "posted", "decided_by": "outi", "decided_at": body["decided_at"],
        "decision_note": "Checked the machine log", "balance_before": "100.00",
        "balance_after": "125.00", "last_position": events[-1].position,
    }
    assert [(e.type, e.metadata["actor"]) for e in events] == [
        ("compliance.correction_proposed", "olli"),
        ("compliance.correction_approved", "outi"),
        ("compliance.correction_posted", "outi"),
    ]
    assert events[0].payload["reason"] == "Goodwill for a machine fault, ticket 4411"
    assert events[1].payload["note"] == "Checked the machine log"
    assert (events[2].payload["balance_before_minor"],
            events[2].payload["balance_after_minor"]) == (100_00, 125_00)
    assert (_balance("player/x/account"), _balance("house/test/adjustments")) == (125_00, 25_00)


def test_a_rejected_correction_moves_nothing_and_cannot_be_approved(outi, proposed):
    """Rejected with a note; a later approval is a 409 and writes nothing."""
    url = f"/api/v1/corrections/{proposed.id}"
    response = post(outi, f"{url}/reject", {"note": "Duplicate of ticket 4410"}, key="r")
    assert response.status_code == 200
    assert (response.json()["state"], response.json()["decided_by"],
            response.json()["decision_note"]) == ("rejected", "outi", "Duplicate of ticket 4410")
    before = event_count()
    again = post(outi, f"{url}/approve", {"note": "Changed my mind"}, key="a")
    assert again.status_code == 409
    assert again.json() == {"code": "compliance.correction_not_pending",
                            "message": "correction is rejected, not proposed", "details": {}}
    assert event_count() == before
    assert _balance("player/x/account") == 100_00


def test_an_approval_that_would_overdraw_the_account_is_a_conflict(olli, outi):
    """Taking EUR 100.01 from EUR 100.00 is refused at posting; nothing moves."""
    correction = post(olli, "/api/v1/corrections", {**PROPOSAL, "amount": "-100.01"},
                      key="p").json()
    before = event_count()
    response = post(outi, f"/api/v1/corrections/{correction['id']}/approve", {}, key="a")
    assert response.status_code == 409
    assert response.json()["code"] == "compliance.correction_not_pending"
    assert response.json()["details"] == {"ledger": "ledger.insufficient_funds"}
    assert event_count() == before


def test_corrections_are_listed_and_filtered(api_client, proposed, outi):
    """An auditor lists them newest first and filters by state."""
    auditor = api_client(Role.AUDITOR)
    other = propose_correction(account="player/x/account",
                               counter_account="house/test/adjustments", amount_minor=1_00,
                               reason="Rounding repair, ticket 12", actor="olli")
    post(outi, f"/api/v1/corrections/{proposed.id}/reject", {"note": "Duplicate"})
    listed = auditor.get("/api/v1/corrections").json()
    # Both were proposed at the test clock's one time: a tie is ordered by id,
    # so the cursor pages the same way every time (casino.pagination).
    assert [c["id"] for c in listed["results"]] == sorted([other.id, proposed.id], reverse=True)
    rejected = auditor.get("/api/v1/corrections", {"state": "rejected"}).json()
    assert [c["id"] for c in rejected["results"]] == [proposed.id]
    assert auditor.get("/api/v1/corrections", {"account": "cage/test/cash"}).json() == {
        "next": None, "previous": None, "has_more": False, "results": []}


def test_a_correction_is_read_by_id(api_client, proposed):
    """An accountant reads one correction."""
    response = api_client(Role.ACCOUNTANT).get(f"/api/v1/corrections/{proposed.id}")
    assert response.status_code == 200
    assert (response.json()["id"], response.json()["amount"], response.json()["state"]) == (
        proposed.id, "25.00", "proposed")


def test_an_unknown_correction_is_404(api_client, books):
    response = api_client(Role.AUDITOR).get("/api/v1/corrections/nope")
    assert response.status_code == 404
    assert response.json() == {"code": "compliance.unknown_correction", "message": "no correction 'nope'",
                               "details": {"correction": "nope"}}


SIGNED_MESSAGE = 'give the amount as a string with at most two decimals, e.g. "-25.00"'


@pytest.mark.parametrize(
    "change, status, answer",
    [
        ({"amount": "1.005"}, 400, {"amount": [SIGNED_MESSAGE]}),
        ({"amount": "-1.005"}, 400, {"amount": [SIGNED_MESSAGE]}),
        ({"amount": 1.5}, 400, {"amount": [SIGNED_MESSAGE]}),
        ({"amount": "0.00"}, 400, {"amount": ["the amount must not be zero"]}),
        ({"amount": "--1"}, 400, {"amount": [SIGNED_MESSAGE]}),
        ({"amount": True}, 400, {"amount": [SIGNED_MESSAGE]}),
        ({"account": "player/nobody"}, 404,
         {"code": "compliance.unknown_account", "message": "no account 'player/nobody'",
          "details": {"account": "player/nobody"}}),
        ({"counter_account": "house/test/sek"}, 400,
         {"code": "compliance.invalid_correction",
          "message": "the two accounts must differ and share a currency", "details": {}}),
        ({"counter_account": "player/x/account"}, 400,
         {"code": "compliance.invalid_correction",
          "message": "the two accounts must differ and share a currency", "details": {}}),
        ({"reason": "oops"}, 400,
         {"code": "compliance.invalid_correction", "message": "give a reason of at least 10 characters",
          "details": {}}),
        ({"reason": ""}, 400, {"reason": ["This field may not be blank."]}),
    ],
    ids=["fraction_of_a_cent_case", "negative_fraction_case", "json_float_case", "zero_case",
         "double_sign_case", "boolean_case", "unknown_account_case", "wrong_currency_case",
         "same_account_case", "short_reason_case", "blank_reason_case"],
)
def test_a_bad_proposal_is_refused(olli, change, status, answer):
    """Amounts to the cent, known accounts in one currency, a real reason; nothing is written."""
    before = event_count()
    response = post(olli, "/api/v1/corrections", {**PROPOSAL, **change})
    assert response.status_code == status
    assert refusal_matches(response.json(), answer), response.json()
    assert event_count() == before


@pytest.mark.parametrize("field", sorted(PROPOSAL))
def test_a_proposal_without_a_field_is_refused(olli, field):
    before = event_count()
    body = {name: value for name, value in PROPOSAL.items() if name != field}
    response = post(olli, "/api/v1/corrections", body)
    assert response.status_code == 400
    assert response.json()["details"] == {field: ["This field is required."]}
    assert event_count() == before


@pytest.mark.parametrize(
    "action, correction_id, body, status, answer",
    [
        ("approve", "nope", {}, 404,
         {"code": "compliance.unknown_correction", "message": "no correction 'nope'", "details": {}}),
        ("reject", "nope", {"note": "Duplicate"}, 404,
         {"code": "compliance.unknown_correction", "message": "no correction 'nope'", "details": {}}),
        ("reject", None, {}, 400, {"note": ["This field is required."]}),
        ("reject", None, {"note": ""}, 400, {"note": ["This field may not be blank."]}),
        ("approve", None, {"note": ["a", "list"]}, 400, {"note": ["Not a valid string."]}),
    ],
    ids=["approve_unknown_case", "reject_unknown_case", "reject_without_note_case",
         "reject_blank_note_case", "approve_note_not_text_case"],
)
def test_a_bad_decision_is_refused(outi, proposed, action, correction_id, body, status, answer):
    """Unknown corrections are 404; a rejection needs a note; nothing is written."""
    before = event_count()
    response = post(outi, f"/api/v1/corrections/{correction_id or proposed.id}/{action}", body)
    assert response.status_code == status
    assert refusal_matches(response.json(), answer), response.json()
    assert event_count() == before
