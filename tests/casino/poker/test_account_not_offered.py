"""Tallinn and Ljubljana tables move no gaming-account money (issue 14).

The gaming account is the RAY online service's (002:L3062-3066, one per
person); the Olympic (Tallinn) and PokerStars Live (Ljubljana) rooms are
other operators'. The cage already refuses account money there (figure
`cage.gaming_account.offered`, decision of the same name); a poker buy-in
from the account or a cash-out into it is refused the same way and recorded
(compliance.attempt_rejected, rule compliance.gaming_account_not_offered).
Chips bought at the venue's cage buy in instead ("plaques or cash chips",
003:L110) and a cash-out pays chips back to the float. Ljubljana's rulebook
(pslive-tournaments) has no rake rule, so no cash table opens there: the
seats read the same figure, but only Tallinn has tables to test.
"""

from __future__ import annotations

import pytest

from casino.accounts import chips_outstanding, gaming_account
from casino.compliance.errors import AttemptRejected
from casino.poker import commands
from casino.poker.events import table_stacks
from casino.poker.models import Seat
from casino.roles import Role
from ledger import verify_chain
from ledger.models import Event
from tests.casino.api.conftest import client_for, post
from tests.casino.poker.conftest import balance, chips_for, funded_player, key

TALLINN = "olympic-tallinn"
RULE = "compliance.gaming_account_not_offered"


def _open(venue: str) -> str:
    return commands.open_table(
        venue=venue, variant="holdem", structure="no_limit", small_blind_minor=100,
        big_blind_minor=200, seats_max=9, buy_in_minor_min=5_000, buy_in_minor_max=40_000,
        actor="floor", idempotency_key=key()).table_id


def _refusals(player_id: str) -> list[dict]:
    return [e.payload for e in Event.objects.filter(stream=f"player/{player_id}",
                                                   type="compliance.attempt_rejected")]


def test_a_tallinn_buy_in_from_the_gaming_account_is_refused_and_recorded(venues):
    """002:L3062 (decision cage.gaming_account.offered): EUR 200 from the RAY
    account at a Tallinn table is refused, the refusal is on the player's
    stream, and neither the account nor the table moves."""
    table_id = _open(TALLINN)
    player = funded_player()
    with pytest.raises(AttemptRejected) as refused:
        commands.buy_in(table_id=table_id, seat=1, player_id=player.id, amount_minor=20_000,
                        paid_with="account", actor="floor", idempotency_key=key())
    assert refused.value.failure.code == RULE
    assert refused.value.failure.cite == "decision cage.gaming_account.offered"
    [recorded] = _refusals(player.id)
    assert recorded["rule"] == RULE
    assert recorded["attempt"]["kind"] == "buy_in"
    assert recorded["attempt"]["amount_minor"] == 20_000
    assert balance(gaming_account(player.id)) == 1_000_00
    assert balance(table_stacks(table_id)) == 0
    assert not Seat.objects.filter(table_id=table_id, player_id=player.id).exists()


def test_a_tallinn_cash_out_into_the_gaming_account_is_refused_chips_are_paid(venues):
    """The stack bought with the venue's chips cannot be cashed out into the
    RAY account (recorded refusal, the stack stays on the seat); cashed out in
    chips it returns to the venue's chip float, and the ledger reconciles."""
    table_id = _open(TALLINN)
    player = funded_player()
    chips_for(player.id, TALLINN, 30_000)
    assert balance(chips_outstanding(TALLINN)) == 30_000
    commands.buy_in(table_id=table_id, seat=1, player_id=player.id, amount_minor=30_000,
                    paid_with="chips", actor="floor", idempotency_key=key())
    assert balance(chips_outstanding(TALLINN)) == 0
    assert balance(table_stacks(table_id)) == 30_000
    with pytest.raises(AttemptRejected) as refused:
        commands.cash_out(table_id=table_id, seat=1, player_id=player.id,
                          paid_to="account", actor="floor", idempotency_key=key("out"))
    assert refused.value.failure.code == RULE
    [recorded] = _refusals(player.id)
    assert recorded["attempt"]["kind"] == "chip_redemption"
    assert recorded["attempt"]["amount_minor"] == 30_000
    assert Seat.objects.get(table_id=table_id, number=1).stack_minor == 30_000
    assert balance(gaming_account(player.id)) == 1_000_00
    commands.cash_out(table_id=table_id, seat=1, player_id=player.id, paid_to="chips",
                      actor="floor", idempotency_key=key())
    assert balance(table_stacks(table_id)) == 0
    assert balance(chips_outstanding(TALLINN)) == 30_000
    assert verify_chain().ok


def test_chips_not_sold_by_the_cage_cannot_buy_in(venues):
    """A buy-in in chips takes them from the venue's float: more chips than the
    cage has sold is refused (poker.insufficient_funds), nothing written."""
    table_id = _open(TALLINN)
    player = funded_player()
    chips_for(player.id, TALLINN, 5_000)
    with pytest.raises(Exception) as refused:
        commands.buy_in(table_id=table_id, seat=1, player_id=player.id, amount_minor=20_000,
                        paid_with="chips", actor="floor", idempotency_key=key())
    assert getattr(refused.value, "code", None) == "poker.insufficient_funds"
    assert balance(chips_outstanding(TALLINN)) == 5_000


def test_a_helsinki_table_still_buys_in_from_the_gaming_account(venues):
    """The RAY account's own venues: the account pays the buy-in as before."""
    table_id = _open("poker-helsinki")
    player = funded_player()
    commands.buy_in(table_id=table_id, seat=1, player_id=player.id, amount_minor=20_000,
                    paid_with="account", actor="floor", idempotency_key=key())
    assert balance(gaming_account(player.id)) == 1_000_00 - 20_000


def test_over_the_api_the_account_is_refused_and_chips_buy_in(venues):
    """HTTP: the account buy-in at Tallinn is refused with the rule named; a
    chip buy-in and a chip cash-out go through and reconcile to the float."""
    table_id = _open(TALLINN)
    player = funded_player()
    client = client_for(Role.TABLE_CONTROLLER)
    url = f"/api/v1/poker/tables/{table_id}/buy-ins"
    response = post(client, url, {"seat": 1, "player_id": player.id, "amount": "200.00",
                                  "paid_with": "account"}, key=key())
    assert response.status_code == 422, response.content
    assert response.json()["details"]["rule"] == RULE
    chips_for(player.id, TALLINN, 20_000)
    response = post(client, url, {"seat": 1, "player_id": player.id, "amount": "200.00",
                                  "paid_with": "chips"}, key=key())
    assert response.status_code == 201, response.content
    response = post(client, f"/api/v1/poker/tables/{table_id}/cash-outs",
                    {"seat": 1, "player_id": player.id, "paid_to": "chips"}, key=key())
    assert response.status_code == 201, response.content
    assert balance(chips_outstanding(TALLINN)) == 20_000
    assert balance(table_stacks(table_id)) == 0
