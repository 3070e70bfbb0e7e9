"""Two people: corrections and jackpot payouts are decided by a second officer."""

from __future__ import annotations

import pytest
from django.contrib.messages import get_messages
from django.urls import reverse

from casino.accounts import gaming_account
from casino.compliance.commands import propose_correction
from casino.compliance.models import Correction, CorrectionState
from casino.jackpots.models import HitState, JackpotHit
from ledger.models import Account, Event
from tests.casino.jackpots.conftest import play_hand
from tests.casino.jackpots.conftest import table  # noqa: F401 (fixture)

from .conftest import key


def _messages(response) -> list[str]:
    return [str(m) for m in get_messages(response.wsgi_request)]


def _propose(olli, player_id: str) -> Correction:
    answer = olli.post(reverse("admin:compliance_correction_propose"), {
        "account": gaming_account(player_id), "counter_account": "house/casino-helsinki/rake",
        "amount_minor": "1500", "reason": "Goodwill for a machine fault, ticket 88"})
    correction = Correction.objects.get()
    assert answer["Location"] == reverse("admin:compliance_correction_change",
                                         args=[correction.id])
    return correction


@pytest.fixture
def rake_account(venues):
    from ledger import open_account
    open_account(code="house/casino-helsinki/rake", type="revenue", currency="EUR")


def test_the_proposer_is_refused_and_a_second_officer_approves(officers, traffic,
                                                               rake_account):
    """The refusal is shown to the proposer; nothing moves until outi approves."""
    olli, outi = officers["olli"], officers["outi"]
    correction = _propose(olli, traffic.player_id)
    account = gaming_account(traffic.player_id)
    before = Account.objects.get(code=account).balance_minor
    page = olli.get(reverse("admin:compliance_correction_change", args=[correction.id]))
    assert b'id="approve-correction-form"' in page.content
    desk = olli.get(reverse("admin:officers_desk")).context["desk"]
    assert [c.id for c in desk.pending_corrections] == [correction.id]
    assert desk.pending_approvals_count == 1

    refused = olli.post(reverse("admin:compliance_correction_approve", args=[correction.id]),
                        {"note": "mine"})
    assert _messages(refused) == ["Refused (compliance.approver_is_proposer): a correction must be"
                                  " decided by someone other than its proposer"]
    assert Correction.objects.get().state == CorrectionState.PROPOSED
    assert Account.objects.get(code=account).balance_minor == before

    outi.post(reverse("admin:compliance_correction_approve", args=[correction.id]),
              {"note": "Checked the machine log"})
    posted = Correction.objects.get()
    assert (posted.state, posted.decided_by) == (CorrectionState.POSTED, "outi")
    assert Account.objects.get(code=account).balance_minor == before + 1500


def test_a_second_officer_rejects_from_the_admin(officers, traffic, rake_account):
    correction = _propose(officers["olli"], traffic.player_id)
    officers["outi"].post(reverse("admin:compliance_correction_reject", args=[correction.id]),
                          {"note": "No ticket on file"})
    rejected = Correction.objects.get()
    assert (rejected.state, rejected.decision_note) == (CorrectionState.REJECTED,
                                                        "No ticket on file")


def test_the_changelist_action_applies_the_same_rule(officers, traffic, rake_account):
    correction = propose_correction(account=gaming_account(traffic.player_id),
                                    counter_account="house/casino-helsinki/rake",
                                    amount_minor=700, reason="Rounding repair, ticket 90",
                                    actor="olli")
    url = reverse("admin:compliance_correction_changelist")
    refused = officers["olli"].post(url, {"action": "approve_selected",
                                          "_selected_action": [correction.id]})
    assert any("compliance.approver_is_proposer" in m for m in _messages(refused))
    officers["outi"].post(url, {"action": "approve_selected",
                                "_selected_action": [correction.id]})
    assert Correction.objects.get().state == CorrectionState.POSTED


def test_a_jackpot_hit_is_approved_by_one_officer_and_paid_by_another(officers, table):
    """The desk lists the hit; the approver may not pay it (second person)."""
    hand_id, _ = play_hand(table)
    olli, outi = officers["olli"], officers["outi"]
    desk = olli.get(reverse("admin:officers_desk"))
    assert [h.id for h in desk.context["desk"].pending_hits] == [hand_id]
    assert b'class="jackpot-approve"' in desk.content
    decide = "admin:officers_jackpot_decision"
    olli.post(reverse(decide, args=[hand_id, "approve"]), {"form_token": key()})
    assert JackpotHit.objects.get(id=hand_id).state == HitState.APPROVED
    paid_before = Event.objects.filter(type="jackpots.hit_paid").count()
    refused = olli.post(reverse(decide, args=[hand_id, "pay"]), {"form_token": key()})
    assert any("jackpots.payer_is_approver" in m for m in _messages(refused))
    assert Event.objects.filter(type="jackpots.hit_paid").count() == paid_before
    outi.post(reverse(decide, args=[hand_id, "pay"]), {"form_token": key()})
    hit = JackpotHit.objects.get(id=hand_id)
    assert (hit.state, hit.approved_by, hit.paid_by) == (HitState.PAID, "olli", "outi")
    assert officers["olli"].get(reverse("admin:officers_desk")).context["desk"].pending_hits == []


def test_a_cashier_cannot_decide_a_jackpot_hit(officers, table):
    hand_id, _ = play_hand(table)
    answer = officers["cashier"].post(
        reverse("admin:officers_jackpot_decision", args=[hand_id, "approve"]))
    assert answer.status_code == 403
    assert JackpotHit.objects.get(id=hand_id).state == HitState.HIT
