"""Venues registered and changed by role (API and manage.py), and the meters reconciled."""

from __future__ import annotations

import datetime as dt
import io

import pytest
from django.core.management import CommandError, call_command

from casino.compliance.models import Alert
from casino.machines import commands
from casino.machines.errors import PlacementRejected, RoundRejected
from casino.machines.meters import reconcile_meters
from casino.machines.models import Machine, MeterReconciliation
from casino.roles import Role
from casino.rules.commands import change_venue, register_venue
from casino.rules.errors import RulesError
from casino.rules.models import Venue
from tests.casino.api.conftest import client_for
from tests.casino.conftest import NOON

from .conftest import HALL, key, machine, slot_round

pytestmark = pytest.mark.django_db


def test_a_venue_is_registered_with_its_type_over_http(venues):
    officer = client_for(Role.COMPLIANCE_OFFICER)
    body = {"code": "kiosk-2", "name": "Kiosk 2", "rulebook_id": "ray-partner-premises",
            "venue_type": "partner_premises", "adults_only": True}
    response = officer.post("/api/v1/venues", body, format="json",
                            headers={"Idempotency-Key": "v-1"})
    assert response.status_code == 201, response.json()
    assert (response.json()["venue_type"], response.json()["adults_only"]) == (
        "partner_premises", True)
    again = officer.post("/api/v1/venues", body, format="json",
                         headers={"Idempotency-Key": "v-1"})
    assert again.status_code == 201 and again["Idempotent-Replayed"] == "true"
    # 002:L1401: posted 18+ premises take a special machine.
    assert Machine.objects.get(id=machine("kiosk-2", "terminal_roulette")).venue == "kiosk-2"
    cage = client_for(Role.CAGE)
    refused = cage.post("/api/v1/venues", {**body, "code": "kiosk-3"}, format="json",
                        headers={"Idempotency-Key": "v-2"})
    assert refused.status_code == 403


def test_a_venue_type_must_be_its_rulebooks(venues):
    with pytest.raises(RulesError) as refused:
        register_venue(code="hall-2", name="Hall 2", rulebook_id="ray-gaming-hall",
                       venue_type="casino")
    assert refused.value.code == "rules.venue_type_mismatch"
    with pytest.raises(RulesError) as entry:
        register_venue(code="hall-3", name="Hall 3", rulebook_id="ray-gaming-hall",
                       venue_type="gaming_hall", adults_only=True)
    assert entry.value.code == "rules.invalid_venue"


def test_changing_the_entry_rule_moves_the_special_machine_rule(venues):
    """002:L1401 and L3371: open-entry premises get EUR 1 / EUR 2 and no special machine."""
    register_venue(code="kiosk-4", name="Kiosk 4", rulebook_id="ray-partner-premises",
                   venue_type="partner_premises")
    with pytest.raises(PlacementRejected):
        machine("kiosk-4", "blackjack_machine")
    officer = client_for(Role.COMPLIANCE_OFFICER)
    response = officer.post("/api/v1/venues/kiosk-4/changes", {"adults_only": True},
                            format="json",
                             headers={"Idempotency-Key": "c-1"})
    assert response.status_code == 201, response.json()
    assert Venue.objects.get(code="kiosk-4").adults_only
    slot = machine("kiosk-4", credit_minor=10_00)
    slot_round(slot, stakes=(200,))         # the hall's EUR 2 now
    change_venue(code="kiosk-4", adults_only=False)
    with pytest.raises(RoundRejected):
        slot_round(slot, stakes=(200,))     # back to EUR 1


def test_manage_py_register_venue(venues):
    out = io.StringIO()
    call_command("register_venue", "online-2", "--name", "Online 2", "--rulebook",
                 "ray-online", "--type", "online", stdout=out)
    assert "registered as online" in out.getvalue()
    call_command("register_venue", "online-2", "--name", "Online 2", "--rulebook",
                 "ray-online", "--type", "online", stdout=io.StringIO())  # once
    call_command("register_venue", "online-2", "--change", "--name", "Online two",
                 stdout=io.StringIO())
    assert Venue.objects.get(code="online-2").name == "Online two"
    with pytest.raises(CommandError):
        call_command("register_venue", "x-1", "--name", "X", "--rulebook", "ray-online",
                     "--type", "casino", stdout=io.StringIO())


def test_meters_reconcile_and_a_differing_machine_raises_an_alert(venues):
    a, b = machine(HALL, credit_minor=20_00), machine(HALL, credit_minor=20_00)
    slot_round(a, stakes=(200, 100), win=150)
    slot_round(b, stakes=(100,))
    out = commands.cash_out(machine_id=b, actor="ctl", idempotency_key=key())
    day = NOON.date()
    agree = reconcile_meters(venue=HALL, gaming_day=day, actor="accountant",
                             reported={a: {"coin_in_minor": 300, "coin_out_minor": 150},
                                       b: {"vouchers_issued_minor": out.amount_minor}})
    assert agree.reconciled and agree.alerts == 0
    assert agree.machines[a]["ledger"]["coin_in_minor"] == 300
    differs = reconcile_meters(venue=HALL, gaming_day=day, actor="accountant",
                               reported={a: {"coin_in_minor": 301}})
    assert not differs.reconciled and differs.alerts == 1
    assert differs.differences == ({"machine_id": a, "meter": "coin_in_minor",
                                    "against": "reported", "record_minor": 300,
                                    "other_minor": 301},)
    alert = Alert.objects.get(kind="meters_mismatch")
    assert alert.details["machine_id"] == a
    assert not MeterReconciliation.objects.get(key=f"{HALL}/{day}").reconciled
