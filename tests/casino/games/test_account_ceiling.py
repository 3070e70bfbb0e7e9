"""Wins above the gaming account's ceiling (002:L3070, EUR 5,000; ray-online decision
online.account.balance_overflow, 002:L3068-3070): a house-game settlement credits the
account up to the ceiling, to the cent, and owes the rest on bank/<venue>/payouts_due."""

from __future__ import annotations

from django.db.models import Sum

from casino import wallet as credits
from casino.cage.commands import deposit
from casino.accounts import gaming_account, payouts_due
from casino.games import commands
from ledger import verify_chain
from ledger.models import Event, Posting

from .conftest import balance, funded_player, key

VENUE = "casino-helsinki"
CEILING = 5_000_00


def roulette_round(player, stake=100_00, number=17):
    table = commands.open_table(venue=VENUE, game="roulette", stake_minor_min=100,
                                stake_minor_max=1_000_00, actor="floor",
                                idempotency_key=key("table"))
    round_id = commands.open_round(table_id=table.table_id, actor="floor",
                                   idempotency_key=key("round")).round_id
    commands.place_bet(round_id=round_id, player_id=player.id, kind="straight",
                       spec={"numbers": [number]}, stake_minor=stake, actor="floor",
                       idempotency_key=key("bet"))
    commands.close_betting(round_id=round_id, actor="floor", idempotency_key=key("close"))
    return round_id


def spin_and_settle(round_id, number=17):
    commands.record_outcome(round_id=round_id, outcome={"number": number}, actor="floor",
                            idempotency_key=key("outcome"))
    return commands.settle_round(round_id=round_id, actor="floor", idempotency_key=key("settle"))


def balanced() -> bool:
    return Posting.objects.aggregate(total=Sum("amount_minor"))["total"] == 0


def test_a_straight_up_win_crossing_the_ceiling_is_split_to_the_cent(venues):
    """EUR 4,950.37 deposited, EUR 100 on 17 (35:1, 002:L1590): EUR 3,600 back.
    The account takes EUR 149.63 up to EUR 5,000.00; EUR 3,450.37 is owed."""
    player = funded_player(4_950_37)
    round_id = roulette_round(player)
    assert balance(gaming_account(player.id)) == 4_850_37
    assert spin_and_settle(round_id).state == "settled"
    assert balance(gaming_account(player.id)) == CEILING
    assert balance(payouts_due(VENUE)) == 3_600_00 - 149_63
    settled = Event.objects.get(type="games.player_settled")
    assert settled.payload["returned_minor"] == 3_600_00   # the whole win is the player's
    (block,) = settled.payload["overflow"]
    assert block == {
        "player_id": player.id, "account": gaming_account(player.id),
        "amount_minor": 3_600_00, "credited_minor": 149_63, "overflow_minor": 3_450_37,
        "balance_before_minor": 4_850_37, "balance_max_minor": CEILING,
        "payouts_due_account": payouts_due(VENUE),
        "decision": "online.account.balance_overflow", "cite": "002:L3068-3070"}
    assert balanced() and verify_chain().ok


def test_a_win_below_the_ceiling_posts_no_overflow(venues):
    player = funded_player(1_000_00)
    spin_and_settle(roulette_round(player))
    assert balance(gaming_account(player.id)) == 1_000_00 - 100_00 + 3_600_00
    assert "overflow" not in Event.objects.get(type="games.player_settled").payload
    assert balance(payouts_due(VENUE)) == 0


def test_a_void_round_returns_a_stake_over_the_ceiling_to_payouts_due(venues):
    """The player refilled the account to the ceiling after betting: the voided
    stake cannot go back into it, so it is owed to the bank account."""
    player = funded_player(4_900_00)
    round_id = roulette_round(player)
    deposit(player_id=player.id, venue=VENUE, amount_minor=200_00, currency="EUR",
            method="cash", actor="cage", idempotency_key=key("deposit"))
    assert balance(gaming_account(player.id)) == CEILING
    commands.void_round(round_id=round_id, reason="no spin", actor="floor",
                        idempotency_key=key("void"))
    assert balance(gaming_account(player.id)) == CEILING
    assert balance(payouts_due(VENUE)) == 100_00
    voided = Event.objects.get(type="games.round_voided")
    assert voided.payload["overflow"][0]["overflow_minor"] == 100_00
    assert balanced() and verify_chain().ok


def test_a_deposit_racing_the_split_is_retried_and_never_posts_above_the_ceiling(
        venues, monkeypatch):
    """The split is read, then a deposit commits before the settlement appends: the
    ledger refuses the stale split (BalanceMaxExceeded) and the settlement splits
    again from a new read."""
    player = funded_player(4_000_00)
    round_id = roulette_round(player)
    commands.record_outcome(round_id=round_id, outcome={"number": 17}, actor="floor",
                            idempotency_key=key("outcome"))
    reads = []
    real = credits.credit_players

    def racing(*args, **kwargs):
        result = real(*args, **kwargs)
        reads.append(result[player.id].account_minor)
        if len(reads) == 1:   # a cage deposit lands between the read and the append
            deposit(player_id=player.id, venue=VENUE, amount_minor=900_00, currency="EUR",
                    method="cash", actor="cage", idempotency_key=key("deposit"))
        return result

    monkeypatch.setattr(commands, "credit_players", racing)
    assert commands.settle_round(round_id=round_id, actor="floor",
                                 idempotency_key=key("settle")).state == "settled"
    # First read: EUR 3,900 + 1,100 fit. Second read (after the deposit): EUR 200.
    assert reads == [1_100_00, 200_00]
    assert balance(gaming_account(player.id)) == CEILING
    assert balance(payouts_due(VENUE)) == 3_600_00 - 200_00
    assert Event.objects.filter(type="games.player_settled").count() == 1
    assert balanced() and verify_chain().ok
