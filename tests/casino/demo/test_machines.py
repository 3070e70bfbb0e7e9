"""The demo's gaming machines (issue 15): a hall with slots and a terminal roulette,
a partner premises with low-cap slots, an online slot session that reaches the loss
cap, a voucher cashed at the cage and a mystery jackpot hit."""

from __future__ import annotations

import pytest
from django.db import transaction

from casino.demo import machines as floor
from casino.demo.gaming_day import run_demo
from casino.machines.models import Machine, MachineDay, MachineJackpot, Voucher
from casino.machines.events import credit_account
from casino.rules.models import Venue
from ledger.models import Account, Event

SMALL = dict(seed=31, hands_per_day=2, rounds_per_day=1)


@pytest.fixture(scope="module")
def demo(django_db_setup, django_db_blocker, tmp_path_factory):
    out_dir = tmp_path_factory.mktemp("demo-machines")
    with django_db_blocker.unblock():
        with transaction.atomic():
            result = run_demo(**SMALL, out_dir=out_dir)
            yield result
            transaction.set_rollback(True)


def test_the_machine_floor(demo, db):
    facts = demo.facts["machines"]
    # A hall with slots and a terminal roulette; the caps refuse a cent above.
    assert set(Machine.objects.filter(venue=floor.HALL).values_list("kind", flat=True)) == {
        "slot", "terminal_roulette"}
    assert facts["hall_rounds"] == {"accepted": 4 * floor.ROUNDS + 20, "refused": 2}
    refused = Event.objects.filter(type="machines.round_rejected", payload__venue=floor.HALL)
    assert sorted(e.payload["cite"] for e in refused) == ["002:L3371", "002:L3379"]
    # A partner premises with open entry: EUR 1 a stake, EUR 2 a round (002:L3371-3373).
    assert Venue.objects.get(code=floor.KIOSK).venue_type == "partner_premises"
    for machine_id in floor.KIOSK_SLOTS:
        assert facts["kiosk_rounds"][machine_id] == [floor.ROUNDS // 2, 1]
    # The mystery jackpot hit, paid to the credit, and the voucher paid once at the cage.
    assert MachineJackpot.objects.get(id=floor.JACKPOT).hits == 1
    assert facts["jackpot_hit"] > 100_00
    voucher = Voucher.objects.get(id=facts["voucher"]["voucher_id"])
    assert (voucher.state, voucher.redeemed_at) == ("redeemed", "cage")
    assert Account.objects.get(code=credit_account(floor.HALL_SLOTS[2])).balance_minor == 0
    # The online slot session stops at the EUR 500 daily slot loss cap (002:L3082).
    assert facts["online_slot"] == {"rounds": 25, "refused_by": "compliance.loss_cap"}
    day = MachineDay.objects.get(machine_id=floor.WEB_SLOT)
    assert (day.coin_in_minor, day.rounds, day.rounds_rejected) == (500_00, 25, 1)
