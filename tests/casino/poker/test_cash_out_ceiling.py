"""A cash-out to the gaming account above its ceiling (002:L3070, EUR 5,000; ray-online
decision online.account.balance_overflow, 002:L3068-3070): the stack is credited up to
the ceiling, to the cent, and the rest is owed to the player's bank account."""

from __future__ import annotations

from django.db.models import Sum

from casino.cage.commands import deposit
from casino.accounts import cage_cash, gaming_account, payouts_due
from casino.poker import commands
from casino.poker.events import table_stacks
from ledger import verify_chain
from ledger.models import Event, Posting

from .conftest import balance, funded_player, key, open_helsinki_table

VENUE = "poker-helsinki"
CEILING = 5_000_00


def seated(amount_minor=400_00, deposit_minor=5_000_00):
    table_id = open_helsinki_table(buy_in_minor_max=400_00).table_id
    player = funded_player(deposit_minor)
    commands.buy_in(table_id=table_id, seat=1, player_id=player.id, amount_minor=amount_minor,
                    paid_with="account", actor="floor", idempotency_key=key("buy-in"))
    return table_id, player


def test_a_cash_out_over_the_ceiling_is_split_to_the_cent(venues):
    """EUR 400 on the table, the account refilled to EUR 4,899.63: EUR 100.37 fits."""
    table_id, player = seated()
    deposit(player_id=player.id, venue=VENUE, amount_minor=299_63, currency="EUR",
            method="cash", actor="cage", idempotency_key=key("deposit"))
    result = commands.cash_out(table_id=table_id, seat=1, player_id=player.id,
                               paid_to="account", actor="floor", idempotency_key=key("out"))
    assert result.amount_minor == 400_00
    assert balance(gaming_account(player.id)) == CEILING
    assert balance(payouts_due(VENUE)) == 400_00 - 100_37
    assert balance(table_stacks(table_id)) == 0
    (block,) = Event.objects.get(type="poker.player_cashed_out").payload["overflow"]
    assert (block["credited_minor"], block["overflow_minor"], block["balance_max_minor"]) == (
        100_37, 299_63, CEILING)
    assert Posting.objects.aggregate(total=Sum("amount_minor"))["total"] == 0
    assert verify_chain().ok


def test_a_cash_out_in_cash_or_under_the_ceiling_is_not_split(venues):
    table_id, player = seated(deposit_minor=1_000_00)
    commands.cash_out(table_id=table_id, seat=1, player_id=player.id, paid_to="account",
                      actor="floor", idempotency_key=key("out"))
    assert balance(gaming_account(player.id)) == 1_000_00
    assert "overflow" not in Event.objects.get(type="poker.player_cashed_out").payload
    table_id, rich = seated()
    deposit(player_id=rich.id, venue=VENUE, amount_minor=400_00, currency="EUR",
            method="cash", actor="cage", idempotency_key=key("deposit"))
    cash_before = balance(cage_cash(VENUE))
    commands.cash_out(table_id=table_id, seat=1, player_id=rich.id, paid_to="cash",
                      actor="floor", idempotency_key=key("out"))
    assert balance(cage_cash(VENUE)) == cash_before - 400_00
    assert balance(payouts_due(VENUE)) == 0
