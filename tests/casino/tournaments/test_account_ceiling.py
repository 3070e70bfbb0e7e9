"""Tournament prizes and bounties above the gaming account's ceiling (002:L3070,
EUR 5,000; ray-online decision online.account.balance_overflow, 002:L3068-3070):
credited up to the ceiling, to the cent; the rest owed on bank/<venue>/payouts_due."""

from __future__ import annotations

from django.db.models import Sum

from casino.accounts import gaming_account, payouts_due
from casino.tournaments import commands
from casino.tournaments.events import bounties, prize_pool
from ledger import rebuild_projections, verify_chain
from ledger.models import Event, Posting

from .conftest import balance, funded_player, key

ROOM = "poker-helsinki"
CEILING = 5_000_00


def test_a_prize_and_bounty_crossing_the_ceiling_overflow_to_payouts_due(venues):
    """000:L3374-3377: 600 + 70 progressive bounty, three players (a room
    tournament starts with three at a table, 000:L3240). The winner starts at
    the ceiling, pays 670, is paid two EUR 100 bounties (they fit), then the
    pool of 1,200 and their own bounty of 400: EUR 470 fits, EUR 1,130 is owed
    to the bank account."""
    t = commands.announce(venue=ROOM, name="Friday bounty", format="progressive_bounty",
                          entry={"prize_minor": 40000, "fee_minor": 7000,
                                 "bounty_minor": 20000},
                          re_entry=False, entries_per_player_max=1, actor="td",
                          idempotency_key=key("announce")).tournament_id
    commands.open_registration(tournament_id=t, actor="td", idempotency_key=key())
    winner, loser, third = funded_player(CEILING), funded_player(), funded_player()
    for p in (winner, loser, third):
        commands.register(tournament_id=t, player_id=p.id, actor="cage", idempotency_key=key())
    commands.start(tournament_id=t, actor="td", idempotency_key=key())
    for out in (third, loser):
        commands.eliminate(tournament_id=t, outs=[{"player_id": out.id, "stack": 100}],
                           eliminators={out.id: [winner.id]}, actor="td",
                           idempotency_key=key())
    assert balance(gaming_account(winner.id)) == CEILING - 670_00 + 2 * 100_00
    assert balance(payouts_due(ROOM)) == 0
    commands.fix_prize_pool(tournament_id=t, actor="td", idempotency_key=key())
    commands.finish(tournament_id=t, actor="td", idempotency_key=key())
    assert balance(gaming_account(winner.id)) == CEILING
    assert balance(payouts_due(ROOM)) == 1_200_00 + 400_00 - 470_00
    assert balance(prize_pool(t)) == 0 and balance(bounties(t)) == 0
    finished = Event.objects.get(type="tournaments.tournament_finished")
    (block,) = finished.payload["overflow"]
    assert (block["player_id"], block["amount_minor"], block["credited_minor"],
            block["overflow_minor"]) == (winner.id, 1_600_00, 470_00, 1_130_00)
    # The transfers (what the player won) are unchanged: the split is in the postings.
    won = sum(tr["amount_minor"] for tr in finished.payload["transfers"]
              if tr["to"] == f"player:{winner.id}")
    assert won == 1_600_00
    assert Posting.objects.aggregate(total=Sum("amount_minor"))["total"] == 0
    assert verify_chain().ok
    from casino.tournaments.models import Entrant, Tournament

    live = list(Tournament.objects.values()), list(Entrant.objects.order_by("key").values())
    rebuild_projections()
    assert (list(Tournament.objects.values()),
            list(Entrant.objects.order_by("key").values())) == live


def test_a_deposit_racing_the_split_makes_the_payout_split_again(venues, monkeypatch):
    """The finish expects the credited players' stream versions: a deposit committed
    after the balances were read makes its append stale, and the runner splits
    again from a new read, so nothing is posted above the ceiling."""
    from casino.cage.commands import deposit

    t = commands.announce(venue=ROOM, name="Freezeout", format="freezeout",
                          entry={"prize_minor": 100_00, "fee_minor": 10_00}, actor="td",
                          idempotency_key=key("announce")).tournament_id
    commands.open_registration(tournament_id=t, actor="td", idempotency_key=key())
    # Three players: a room tournament starts with three at a table (000:L3240).
    winner, loser, third = funded_player(CEILING - 500_00), funded_player(), funded_player()
    for p in (winner, loser, third):
        commands.register(tournament_id=t, player_id=p.id, actor="cage", idempotency_key=key())
    commands.start(tournament_id=t, actor="td", idempotency_key=key())
    for out in (third, loser):
        commands.eliminate(tournament_id=t, outs=[{"player_id": out.id, "stack": 100}],
                           actor="td", idempotency_key=key())
    commands.fix_prize_pool(tournament_id=t, actor="td", idempotency_key=key())
    read = commands._accounts
    raced = []

    def read_then_deposit(codes):
        found = read(codes)
        if not raced:
            raced.append(True)
            deposit(player_id=winner.id, venue=ROOM, amount_minor=500_00, currency="EUR",
                    method="cash", actor="cage", idempotency_key=key("deposit"))
        return found

    monkeypatch.setattr(commands, "_accounts", read_then_deposit)
    # The winner holds 4,390 after the entry: 610 of headroom before the deposit, 110
    # after it; the pool of 300 is credited 110 and owes 190.
    commands.finish(tournament_id=t, actor="td", idempotency_key=key())
    assert balance(gaming_account(winner.id)) == CEILING
    assert balance(payouts_due(ROOM)) == 190_00
    finished = Event.objects.get(type="tournaments.tournament_finished")
    (block,) = finished.payload["overflow"]
    assert (block["credited_minor"], block["overflow_minor"]) == (110_00, 190_00)
    assert verify_chain().ok
