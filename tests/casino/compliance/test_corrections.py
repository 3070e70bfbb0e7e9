"""Manual corrections need two people (DESIGN section 3)."""

import pytest
from django.contrib.auth.models import Group, User

from casino.compliance.commands import approve_correction, propose_correction, reject_correction
from casino.compliance.errors import ComplianceError, ComplianceErrorCode
from casino.compliance.models import CorrectionState
from ledger import open_account
from ledger.models import Account, Event

from tests.ledger.factories import transfer


@pytest.fixture
def books(venues):
    officers = Group.objects.get(name="compliance_officer")
    for name in ("olli", "outi"):
        User.objects.create_user(name).groups.add(officers)
    User.objects.create_user("cashier").groups.add(Group.objects.get(name="cage"))
    open_account(code="cage/test/cash", type="asset", currency="EUR")
    open_account(code="player/x/account", type="liability", currency="EUR",
                 must_not_go_negative=True)
    open_account(code="house/test/adjustments", type="expense", currency="EUR")
    transfer("player/x/account", "cage/test/cash", 10_000)


def test_proposal_moves_nothing_until_a_second_officer_approves(books):
    """Proposed: no money moves. Approved by another officer: posted, with before/after."""
    correction = propose_correction(account="player/x/account",
                                    counter_account="house/test/adjustments", amount_minor=2_500,
                                    reason="Goodwill for a machine fault, ticket 4411",
                                    actor="olli")
    assert correction.state == CorrectionState.PROPOSED
    assert Account.objects.get(code="player/x/account").balance_minor == 10_000
    posted = approve_correction(correction_id=correction.id, actor="outi", note="Checked the log")
    assert posted.state == CorrectionState.POSTED
    assert (posted.balance_before_minor, posted.balance_after_minor) == (10_000, 12_500)
    assert Account.objects.get(code="player/x/account").balance_minor == 12_500
    assert Account.objects.get(code="house/test/adjustments").balance_minor == 2_500
    events = Event.objects.filter(stream=f"correction/{correction.id}").order_by("position")
    assert [(e.type, e.metadata["actor"]) for e in events] == [
        ("compliance.correction_proposed", "olli"),
        ("compliance.correction_approved", "outi"),
        ("compliance.correction_posted", "outi"),
    ]
    assert events[0].payload["reason"] == "Goodwill for a machine fault, ticket 4411"


def test_the_proposer_cannot_approve_their_own_correction(books):
    """Four eyes: the same person may not both propose and approve."""
    correction = propose_correction(account="player/x/account",
                                    counter_account="house/test/adjustments", amount_minor=100,
                                    reason="Rounding repair, ticket 12", actor="olli")
    before = Event.objects.count()
    with pytest.raises(ComplianceError) as caught:
        approve_correction(correction_id=correction.id, actor="olli")
    assert caught.value.code == ComplianceErrorCode.SAME_PERSON
    # Only the refusal is written (issue 16: recorded by the command).
    assert list(Event.objects.filter(position__gt=before).values_list("type", flat=True)) == [
        "compliance.four_eyes_refused"]


def test_only_a_compliance_officer_may_decide(books):
    """A cashier cannot approve, even though they did not propose."""
    correction = propose_correction(account="player/x/account",
                                    counter_account="house/test/adjustments", amount_minor=100,
                                    reason="Rounding repair, ticket 13", actor="olli")
    with pytest.raises(ComplianceError) as caught:
        approve_correction(correction_id=correction.id, actor="cashier")
    assert caught.value.code == ComplianceErrorCode.NOT_APPROVER


def test_a_rejected_correction_cannot_be_approved_later(books):
    """Rejected is final: the state machine refuses approval afterwards."""
    correction = propose_correction(account="player/x/account",
                                    counter_account="house/test/adjustments", amount_minor=100,
                                    reason="Duplicate request, ticket 14", actor="olli")
    rejected = reject_correction(correction_id=correction.id, actor="outi", note="Duplicate")
    assert rejected.state == CorrectionState.REJECTED
    with pytest.raises(ComplianceError) as caught:
        approve_correction(correction_id=correction.id, actor="outi")
    assert caught.value.code == ComplianceErrorCode.WRONG_STATE
    assert Account.objects.get(code="player/x/account").balance_minor == 10_000


def test_a_correction_cannot_overdraw_a_guarded_account(books):
    """Approval that would take a player below zero is refused; nothing posts."""
    correction = propose_correction(account="player/x/account",
                                    counter_account="house/test/adjustments",
                                    amount_minor=-10_001, reason="Reverse a double credit",
                                    actor="olli")
    with pytest.raises(ComplianceError) as caught:
        approve_correction(correction_id=correction.id, actor="outi")
    assert caught.value.code == ComplianceErrorCode.WRONG_STATE
    assert Account.objects.get(code="player/x/account").balance_minor == 10_000
