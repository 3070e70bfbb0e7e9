"""Fixtures for the tournament tests: funded players, a helper for keys."""

from __future__ import annotations

import itertools

from casino.cage.commands import deposit
from ledger.models import Account
from tests.casino.conftest import make_player

_keys = itertools.count(1)


def key(prefix: str = "t") -> str:
    return f"{prefix}-{next(_keys)}"


def funded_player(amount_minor: int = 1_000_00, venue: str = "poker-helsinki"):
    """A verified player with `amount_minor` in the gaming account."""
    player = make_player()
    deposit(player_id=player.id, venue=venue, amount_minor=amount_minor, currency="EUR",
            method="cash", actor="cage", idempotency_key=key("deposit"))
    return player


def balance(code: str) -> int:
    account = Account.objects.filter(code=code).first()
    return account.balance_minor if account else 0
