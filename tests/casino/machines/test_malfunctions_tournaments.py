"""Malfunction credits (002:L1383-1385, L3039-3041) and slot tournaments (L3317, L3375,
L3445, L3487)."""

from __future__ import annotations

import pytest

from casino.cage.commands import deposit
from casino.machines import malfunctions, tournaments
from casino.machines.errors import MachinesError
from casino.machines.events import credit_account, slot_tournament_pool
from casino.machines.models import MachineDay, MalfunctionCredit
from tests.casino.conftest import make_player

from .conftest import CASINO, HALL, ONLINE, PARTNER, balance, key, machine

pytestmark = pytest.mark.django_db

DEVICE = {"wins_minor": 12_50, "credits_minor": 3_00, "free_games": 5,
          "device": "cabinet-7 board 2", "draw": "interrupted after reel 3"}


def _propose(machine_id, **extra):
    return malfunctions.propose_malfunction_credit(
        machine_id=machine_id, device_record=DEVICE,
        displayed={"wins_minor": 1_250_00, "credits_minor": 3_00, "free_games": 5},
        reason="power cut during the draw", actor="olli", idempotency_key=key(), **extra)


def test_the_device_record_is_credited_by_a_second_person(venues):
    """002:L1383-1385: the wins, free games and credits the device recorded, not the display."""
    machine_id = machine(HALL, credit_minor=5_00)
    proposed = _propose(machine_id)
    assert (proposed.state, proposed.amount_minor, proposed.free_games) == (
        "proposed", 15_50, 5)
    assert proposed.differences == {"wins_minor": {"device": 12_50, "displayed": 1_250_00}}
    assert balance(credit_account(machine_id)) == 5_00          # nothing moves yet
    with pytest.raises(MachinesError) as same:
        malfunctions.approve_malfunction_credit(credit_id=proposed.credit_id, actor="olli")
    assert same.value.code == "machines.approver_is_proposer"
    approved = malfunctions.approve_malfunction_credit(credit_id=proposed.credit_id,
                                                       actor="outi", idempotency_key=key())
    assert approved.state == "approved"
    assert balance(credit_account(machine_id)) == 5_00 + 15_50
    assert MachineDay.objects.get(machine_id=machine_id).malfunction_credits_minor == 15_50
    credit = MalfunctionCredit.objects.get(id=proposed.credit_id)
    assert credit.device_record == DEVICE and credit.decided_by == "outi"
    with pytest.raises(MachinesError) as twice:
        malfunctions.reject_malfunction_credit(credit_id=proposed.credit_id, actor="anna",
                                               note="late")
    assert twice.value.code == "machines.malfunction_credit_decided"


def test_a_rejected_credit_moves_nothing(venues):
    machine_id = machine(HALL, credit_minor=5_00)
    proposed = _propose(machine_id)
    malfunctions.reject_malfunction_credit(credit_id=proposed.credit_id, actor="outi",
                                           note="the device log shows no win")
    assert balance(credit_account(machine_id)) == 5_00


def test_online_credit_goes_to_the_players_account(venues):
    """002:L3039-3041: what RAY's system recorded, to the gaming account."""
    player = make_player()
    deposit(player_id=player.id, venue=ONLINE, amount_minor=1_00, currency="EUR",
            method="bank", actor="cage", idempotency_key=key())
    machine_id = machine(ONLINE, "online_slot")
    with pytest.raises(MachinesError):
        _propose(machine_id)        # online names the player
    proposed = _propose(machine_id, player_id=player.id)
    malfunctions.approve_malfunction_credit(credit_id=proposed.credit_id, actor="outi")
    assert balance(f"player/{player.id}/account") == 1_00 + 15_50


def test_a_device_record_is_required(venues):
    with pytest.raises(MachinesError):
        malfunctions.propose_malfunction_credit(machine_id=machine(HALL), device_record={},
                                                reason="x", actor="olli")


# Slot tournaments -------------------------------------------------------------

FEE_CAPS = [(HALL, 20_00, "002:L3375"), (CASINO, 2_000_00, "002:L3445"),
            (ONLINE, 500_00, "002:L3487")]


@pytest.mark.parametrize("venue, cap, cite", FEE_CAPS, ids=["hall", "casino", "online"])
def test_entry_fee_caps(venues, venue, cap, cite):
    tournaments.announce_slot_tournament(tournament_id=key("t"), venue=venue, name="Cup",
                                         entry_fee_minor=cap, prizes={"share_bp": [10_000]},
                                         actor="officer", idempotency_key=key())
    with pytest.raises(MachinesError) as refused:
        tournaments.announce_slot_tournament(tournament_id=key("t"), venue=venue, name="Cup",
                                             entry_fee_minor=cap + 1,
                                             prizes={"share_bp": [10_000]}, actor="officer",
                                             idempotency_key=key())
    assert refused.value.code == "machines.slot_tournament_rejected"
    assert (refused.value.details["rule"], refused.value.details["cite"]) == (
        "compliance.max_stake", cite)


def test_prizes_are_published_before_the_start_and_paid_from_the_fees(venues):
    """002:L3317: the prize is the fees, a part of them or a fixed amount; L3375:
    announced separately, so published before the start and fixed from then."""
    tid = key("t")
    tournaments.announce_slot_tournament(tournament_id=tid, venue=HALL, name="Cup",
                                         entry_fee_minor=20_00,
                                         prizes={"share_bp": [6_000, 3_000]},
                                         actor="officer", idempotency_key=key())
    players = [make_player() for _ in range(3)]
    for player in players:
        tournaments.enter_slot_tournament(tournament_id=tid, player_id=player.id,
                                          actor="cage", idempotency_key=key())
    assert balance(slot_tournament_pool(tid)) == 60_00
    tournaments.publish_prizes(tournament_id=tid, prizes={"share_bp": [7_000, 3_000]},
                               actor="officer")
    tournaments.start_slot_tournament(tournament_id=tid, actor="officer")
    with pytest.raises(MachinesError) as late:
        tournaments.publish_prizes(tournament_id=tid, prizes={"fixed_minor": [1]},
                                   actor="officer")
    assert late.value.code == "machines.slot_tournament_state"
    with pytest.raises(MachinesError):
        tournaments.enter_slot_tournament(tournament_id=tid, player_id=players[0].id,
                                          actor="cage")
    done = tournaments.finish_slot_tournament(
        tournament_id=tid, ranking=[players[2].id, players[0].id], actor="officer")
    assert done.paid == {players[2].id: 42_00, players[0].id: 18_00}
    assert balance(slot_tournament_pool(tid)) == 0


def test_online_entry_and_prize_through_the_gaming_account(venues):
    player = make_player()
    deposit(player_id=player.id, venue=ONLINE, amount_minor=100_00, currency="EUR",
            method="bank", actor="cage", idempotency_key=key())
    tid = key("t")
    tournaments.announce_slot_tournament(tournament_id=tid, venue=ONLINE, name="Web cup",
                                         entry_fee_minor=50_00,
                                         prizes={"fixed_minor": [80_00]}, actor="officer")
    tournaments.enter_slot_tournament(tournament_id=tid, player_id=player.id, actor="web")
    assert balance(f"player/{player.id}/account") == 50_00
    tournaments.start_slot_tournament(tournament_id=tid, actor="officer")
    tournaments.finish_slot_tournament(tournament_id=tid, ranking=[player.id], actor="officer")
    # The fixed prize beyond the fees is the house's overlay.
    assert balance(f"player/{player.id}/account") == 130_00
    assert balance(f"house/{ONLINE}/tournament_prizes") == 30_00


def test_partner_premises_fee_cap(venues):
    with pytest.raises(MachinesError) as refused:
        tournaments.announce_slot_tournament(tournament_id=key("t"), venue=PARTNER,
                                             name="Cup", entry_fee_minor=20_01,
                                             prizes={"fixed_minor": [10_00]}, actor="officer")
    assert refused.value.details["rule"] == "compliance.max_stake"
