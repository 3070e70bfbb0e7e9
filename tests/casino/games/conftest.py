"""Fixtures for the games' tests: funded players and open tables."""

from __future__ import annotations

import itertools

from casino.cage.commands import deposit
from ledger.models import Account
from tests.casino.conftest import make_player

_keys = itertools.count(1)


def key(prefix: str = "k") -> str:
    """A fresh idempotency key."""
    return f"{prefix}-{next(_keys)}"


def funded_player(amount_minor: int = 1_000_00, venue: str = "casino-helsinki", **kwargs):
    """A verified player with `amount_minor` in the gaming account (cash at the cage)."""
    player = make_player(**kwargs)
    deposit(player_id=player.id, venue=venue, amount_minor=amount_minor, currency="EUR",
            method="cash", actor="cage", idempotency_key=key("deposit"))
    return player


def balance(code: str) -> int:
    account = Account.objects.filter(code=code).first()
    return account.balance_minor if account else 0


def officer() -> str:
    from django.contrib.auth.models import Group, User

    from casino.roles import Role, ensure_role_groups

    ensure_role_groups()
    user = User.objects.create_user(key("officer"))
    user.groups.add(Group.objects.get(name=Role.COMPLIANCE_OFFICER))
    return user.username
