"""Fixtures for the officers' screens: staff users in roles, and real traffic.

Traffic goes through the product's commands only: a cash deposit over the
AML threshold (an aml_threshold alert), a stake over the table cap (a limit
hit), a deposit by a self-excluded player (a refusal), a disputed poker
showdown (a showdown_mismatch alert).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import pytest
from django.contrib.auth.models import Group, User
from django.test import Client

from casino.cage.commands import deposit
from casino.compliance.errors import AttemptRejected
from casino.compliance.models import Alert, AlertKind
from casino.compliance.pipeline import Attempt, authorize
from casino.players.commands import self_exclude
from casino.roles import Role, ensure_role_groups
from tests.casino.conftest import NOON, make_player

PASSWORD = "officer-pw-1"
_keys = itertools.count(1)


def key(prefix: str = "officers") -> str:
    return f"{prefix}-{next(_keys)}"


def staff(username: str, *roles: Role, superuser: bool = False) -> User:
    """A staff user (may sign in to the admin) in the given role groups."""
    ensure_role_groups()
    if superuser:
        user = User.objects.create_superuser(username, f"{username}@example.invalid", PASSWORD)
    else:
        user = User.objects.create_user(username, password=PASSWORD, is_staff=True)
    for role in roles:
        user.groups.add(Group.objects.get(name=role))
    return user


def signed_in(username: str) -> Client:
    client = Client()
    assert client.login(username=username, password=PASSWORD)
    return client


@pytest.fixture
def officers(venues):
    """Two compliance officers (olli, outi), an auditor and a cashier, all staff."""
    staff("olli", Role.COMPLIANCE_OFFICER)
    staff("outi", Role.COMPLIANCE_OFFICER)
    staff("aude", Role.AUDITOR)
    staff("cashier", Role.CAGE)
    return {name: signed_in(name) for name in ("olli", "outi", "aude", "cashier")}


@dataclass(frozen=True)
class Traffic:
    player_id: str
    aml_alert: Alert
    limit_hit: Alert
    refusal: Alert


@pytest.fixture
def traffic(venues) -> Traffic:
    """An AML alert, a limit hit and a refusal, all today (2026-06-16)."""
    player = make_player()
    deposit(player_id=player.id, venue="casino-helsinki", amount_minor=2_500_00,
            currency="EUR", method="cash", actor="cashier", idempotency_key=key(), at=NOON)
    with pytest.raises(AttemptRejected):
        authorize(Attempt(kind="stake", venue="hall-helsinki", currency="EUR",
                          player_id=player.id, game="roulette", bet_unit="number_field",
                          amount_minor=4_01, at=NOON), actor="dealer", idempotency_key=key())
    excluded = make_player()
    self_exclude(player_id=excluded.id, months=2, venue_code="ray-online", actor="test",
                 at=NOON)
    with pytest.raises(AttemptRejected):
        authorize(Attempt(kind="stake", venue="ray-online", currency="EUR",
                          player_id=excluded.id, game="slot_game", bet_unit="round_total",
                          amount_minor=1_00, at=NOON), actor="test", idempotency_key=key())
    return Traffic(
        player_id=player.id,
        aml_alert=Alert.objects.get(kind=AlertKind.AML_THRESHOLD),
        limit_hit=Alert.objects.get(kind=AlertKind.LIMIT_HIT),
        refusal=Alert.objects.get(kind=AlertKind.REJECTED_ATTEMPT),
    )
