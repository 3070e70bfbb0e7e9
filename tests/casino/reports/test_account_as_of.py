"""An account's balance as of any position or time, and its history
(issue 17 item 5): GET /api/v1/accounts/<code>?as_of=...&history=true."""

from __future__ import annotations

import datetime as dt

from casino.cage.commands import deposit, withdraw
from casino.roles import Role
from ledger.models import Event
from tests.casino.api.conftest import client_for
from tests.casino.conftest import NOON, make_player


def _moves(player):
    first = deposit(player_id=player.id, venue="casino-helsinki", amount_minor=300_00,
                    currency="EUR", method="cash", actor="cashier", at=NOON)
    withdraw(player_id=player.id, venue="casino-helsinki", amount_minor=120_00,
             currency="EUR", method="cash", actor="cashier", at=NOON)
    deposit(player_id=player.id, venue="casino-helsinki", amount_minor=50_00,
            currency="EUR", method="cash", actor="cashier", at=NOON)
    return first


def _positions(code: str) -> list[int]:
    return list(Event.objects.filter(postings__account_id=code).order_by("position")
                .values_list("position", flat=True))


def test_balance_as_of_a_position(venues):
    player = make_player()
    _moves(player)
    code = f"player/{player.id}/account"
    first, second, third = _positions(code)
    client = client_for(Role.ACCOUNTANT)
    balances = [client.get(f"/api/v1/accounts/{code}", {"as_of": position}).json()["as_of"]
                for position in (first - 1, first, second, third)]
    assert [b["balance_minor"] for b in balances] == [0, 300_00, 180_00, 230_00]
    assert client.get(f"/api/v1/accounts/{code}").json()["balance_minor"] == 230_00


def test_balance_as_of_a_time(transactional_db, venues):
    """Each command commits on its own here, so recorded times differ."""
    player = make_player()
    _moves(player)
    code = f"player/{player.id}/account"
    second = Event.objects.get(position=_positions(code)[1])
    moment = (second.recorded_at + dt.timedelta(microseconds=1)).isoformat()
    answer = client_for(Role.ACCOUNTANT).get(f"/api/v1/accounts/{code}", {"as_of": moment})
    assert answer.status_code == 200
    assert answer.json()["as_of"]["balance_minor"] == 180_00


def test_history_with_running_balances(venues):
    player = make_player()
    _moves(player)
    code = f"player/{player.id}/account"
    client = client_for(Role.ACCOUNTANT)
    answer = client.get(f"/api/v1/accounts/{code}", {"history": "true", "limit": 2}).json()
    assert [(r["type"], r["amount_minor"], r["balance_after_minor"])
            for r in answer["history"]] == [("cage.cash_deposited", -300_00, 300_00),
                                            ("cage.cash_withdrawn", 120_00, 180_00)]
    rest = client.get(f"/api/v1/accounts/{code}", {"history": "true", "limit": 2,
                                                   "after": answer["next_after"]}).json()
    assert [(r["amount_minor"], r["balance_after_minor"]) for r in rest["history"]] == [
        (-50_00, 230_00)]
    assert rest["next_after"] is None


def test_a_bad_as_of_is_a_400(venues):
    player = make_player()
    _moves(player)
    answer = client_for(Role.ACCOUNTANT).get(f"/api/v1/accounts/player/{player.id}/account",
                                             {"as_of": "yesterday"})
    assert answer.status_code == 400
