"""Preconditions of the cashier windows' and table-games writes, for the
idempotency walk (test_idempotency_walk.py; issue 17)."""

from __future__ import annotations

import itertools

from casino.cashier.commands import open_shift
from casino.roles import Role
from casino.tablegames.commands import close_table, open_table

from .walk_world import Row, pair

VENUE = "casino-helsinki"
BANK = {"5000": 20, "2000": 25, "1000": 50}
INVENTORY = {"10000": 20, "2500": 40}
_numbers = itertools.count(1)


def _window() -> str:
    return f"walk-w{next(_numbers)}"


def _table() -> str:
    return f"walk-bj{next(_numbers)}"


def open_window() -> Row:
    window = _window()
    client, other = pair(Role.CAGE)
    body = {"venue": VENUE, "window": window, "bank": BANK}
    return Row(client, "/api/v1/cashier/shifts", body, "/api/v1/cashier/shifts",
               {**body, "bank": {"5000": 21}}, other)


def close_window() -> Row:
    window = _window()
    open_shift(venue=VENUE, window=window, bank=BANK, actor="walk")
    client, other = pair(Role.CAGE)
    body = {"venue": VENUE, "window": window, "count": BANK}
    return Row(client, "/api/v1/cashier/shift-closes", body, "/api/v1/cashier/shift-closes",
               {**body, "count": {"5000": 19}, "reason": "a EUR 50 note short"}, other)


def transfer() -> Row:
    window = _window()
    open_shift(venue=VENUE, window=window, bank=BANK, actor="walk")
    client, other = pair(Role.CAGE)
    body = {"venue": VENUE, "source": "vault", "target": f"window:{window}",
            "count": {"5000": 10}, "signed_by": [client.username, "vera"]}
    return Row(client, "/api/v1/cashier/transfers", body, "/api/v1/cashier/transfers",
               {**body, "count": {"5000": 11}}, other)


def table_write(path: str) -> Row:
    """openings | fills | credits | closes | soft-counts of a fresh table."""
    table = _table()
    client, other = pair(Role.TABLE_CONTROLLER)
    signers = [client.username, "pia"]
    if path != "openings":
        open_table(venue=VENUE, table=table, inventory=INVENTORY, signed_by=["d", "p"],
                   actor="d")
    if path == "soft-counts":
        close_table(venue=VENUE, table=table, inventory=INVENTORY, signed_by=["d", "p"],
                    actor="d")
        body = {"venue": VENUE, "first_count": {"5000": 10}, "second_count": {"5000": 10},
                "counted_by": signers}
        other_body = {**body, "second_count": {"5000": 11}}
    elif path in ("fills", "credits"):
        body = {"venue": VENUE, "chips": {"10000": 1}, "signed_by": signers}
        other_body = {**body, "chips": {"10000": 2}}
    else:
        body = {"venue": VENUE, "inventory": INVENTORY, "signed_by": signers}
        other_body = {**body, "inventory": {"10000": 21}}
    url = f"/api/v1/tablegames/{table}/{path}"
    return Row(client, url, body, url, other_body, other)
