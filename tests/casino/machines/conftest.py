"""Fixtures for the machines' tests: machines at the shipped venues."""

from __future__ import annotations

import itertools

from casino.machines import commands
from ledger.models import Account

HALL = "hall-helsinki"
PARTNER = "partner-kioski"
CASINO = "casino-helsinki"
ONLINE = "ray-online"
_keys = itertools.count(1)


def key(prefix: str = "k") -> str:
    return f"{prefix}-{next(_keys)}"


def machine(venue: str = HALL, kind: str = "slot", machine_id: str | None = None,
            credit_minor: int = 0) -> str:
    """A registered machine, with `credit_minor` of cash in it."""
    machine_id = machine_id or key("m")
    commands.register_machine(machine_id=machine_id, venue=venue, kind=kind,
                              games=["fruits"], actor="officer", idempotency_key=key())
    if credit_minor:
        commands.insert_cash(machine_id=machine_id, amount_minor=credit_minor, actor="ctl",
                             idempotency_key=key())
    return machine_id


def balance(code: str) -> int:
    account = Account.objects.filter(code=code).first()
    return account.balance_minor if account else 0


def slot_round(machine_id: str, round_id: str | None = None, stakes=(100,), win: int = 0,
               reused: int = 0, **kwargs):
    return commands.play_round(
        machine_id=machine_id, round_id=round_id or key("r"),
        stakes=[{"option": f"line-{i}", "amount_minor": s} for i, s in enumerate(stakes)],
        total_minor=sum(stakes), reused_minor=reused, win_minor=win, actor="ctl", **kwargs)
