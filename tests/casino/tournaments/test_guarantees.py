"""Guaranteed prize pools, freerolls, and the partner premises' payout table
(issue 14 item 18).

001:L580: many tournaments guarantee their prize pool; 002:L323: the prize is
the entry fees collected, a part of them, or a fixed amount. 001:L330-332,
L602: a freeroll has no buy-in and no fee. Part I of seed 002 runs tournament
poker at partner premises as in the halls (002:L323).
"""

from __future__ import annotations

import pytest

from casino.accounts import gaming_account
from casino.rules.commands import register_venue
from casino.tournaments import commands
from casino.tournaments.errors import TournamentError
from casino.tournaments.events import prize_pool, tournament_prizes
from casino.tournaments.models import Tournament
from ledger import rebuild_projections

from .conftest import balance, funded_player, key

ONLINE = "poker-online"


@pytest.fixture
def online(venues):
    register_venue(code=ONLINE, name=ONLINE, rulebook_id="veikkaus-online-poker")
    return ONLINE


def _run_to_fixed(venue: str, players, **settings) -> str:
    t = commands.announce(venue=venue, name="Guaranteed", format="freezeout", actor="td",
                          idempotency_key=key("announce"), **settings).tournament_id
    commands.open_registration(tournament_id=t, actor="td", idempotency_key=key())
    for p in players:
        commands.register(tournament_id=t, player_id=p.id, actor="web",
                          idempotency_key=key())
    commands.start(tournament_id=t, actor="td", idempotency_key=key())
    return t


def test_the_house_tops_the_pool_up_to_its_guarantee(online):
    """001:L580: three EUR 11 entries put EUR 30 in a pool guaranteed at EUR
    100; when the pool is fixed the house adds the EUR 70 overlay, and the
    winner is paid from the guaranteed EUR 100 (the online table pays all of
    it to first for three entrants)."""
    players = [funded_player() for _ in range(3)]
    t = _run_to_fixed(ONLINE, players, entry={"prize_minor": 10_00, "fee_minor": 1_00},
                      guaranteed_pool_minor=100_00)
    fixed = commands.fix_prize_pool(tournament_id=t, actor="td", idempotency_key=key())
    assert {"from": "house", "to": "pool", "amount_minor": 70_00,
            "reason": "overlay"} in fixed.transfers
    assert balance(prize_pool(t)) == 100_00
    assert balance(tournament_prizes(ONLINE)) == 70_00
    commands.eliminate(tournament_id=t, outs=[{"player_id": players[2].id, "stack": 1}],
                       actor="td", idempotency_key=key())
    commands.eliminate(tournament_id=t, outs=[{"player_id": players[1].id, "stack": 1}],
                       actor="td", idempotency_key=key())
    commands.finish(tournament_id=t, actor="td", idempotency_key=key())
    prizes = {p.id: balance(gaming_account(p.id)) - (1_000_00 - 11_00) for p in players}
    assert sum(prizes.values()) == 100_00
    assert balance(prize_pool(t)) == 0
    live = list(Tournament.objects.filter(id=t).values())
    rebuild_projections()
    assert list(Tournament.objects.filter(id=t).values()) == live


def test_a_pool_above_the_guarantee_takes_no_overlay(online):
    """001:L580: the guarantee is a floor: EUR 30 collected over a EUR 20
    guarantee stays EUR 30 and the house adds nothing."""
    players = [funded_player() for _ in range(3)]
    t = _run_to_fixed(ONLINE, players, entry={"prize_minor": 10_00, "fee_minor": 1_00},
                      guaranteed_pool_minor=20_00)
    fixed = commands.fix_prize_pool(tournament_id=t, actor="td", idempotency_key=key())
    assert not any(tr["reason"] == "overlay" for tr in fixed.transfers)
    assert balance(prize_pool(t)) == 30_00


def test_a_freeroll_charges_nothing_and_pays_the_guarantee(online):
    """001:L330-332, L602: no buy-in, no fee; the prize is the pool the house
    guarantees. An entry that costs nothing without a guarantee is refused."""
    players = [funded_player() for _ in range(2)]
    t = _run_to_fixed(ONLINE, players, entry={"prize_minor": 0, "fee_minor": 0},
                      guaranteed_pool_minor=50_00)
    assert all(balance(gaming_account(p.id)) == 1_000_00 for p in players)
    commands.fix_prize_pool(tournament_id=t, actor="td", idempotency_key=key())
    commands.eliminate(tournament_id=t, outs=[{"player_id": players[1].id, "stack": 1}],
                       actor="td", idempotency_key=key())
    commands.finish(tournament_id=t, actor="td", idempotency_key=key())
    assert balance(gaming_account(players[0].id)) == 1_000_00 + 50_00
    assert balance(tournament_prizes(ONLINE)) == 50_00
    with pytest.raises(TournamentError) as refused:
        commands.announce(venue=ONLINE, name="Nothing to win", format="freezeout",
                          entry={"prize_minor": 0, "fee_minor": 0}, actor="td",
                          idempotency_key=key("announce"))
    assert refused.value.details.get("field") is None
    assert "freeroll" in refused.value.message


def test_partner_premises_announce_with_the_part_i_payout_table(venues):
    """002:L323: tournament poker at partner premises pays by the same Part I
    default table as the halls; announcing there no longer fails."""
    t = commands.announce(venue="partner-kioski", name="Kioski cup", format="freezeout",
                          entry={"prize_minor": 20_00, "fee_minor": 5_00}, actor="td",
                          idempotency_key=key("announce")).tournament_id
    row = Tournament.objects.get(id=t)
    assert row.config["payout"]["key"] == "tournaments.payout.standard"
    assert row.config["payout"]["cite"] == "002:L323"


def test_a_share_of_the_pool_is_kept_for_a_later_tournament_000_L3386(venues):
    """000:L3386-3388: 10 % of a EUR 300 pool is kept when the pool is fixed
    (EUR 270 left to pay); a later tournament takes the EUR 30 into its own
    pool; one asking for more than the reserve holds is refused."""
    from casino.tournaments.events import tournament_reserve

    room = "poker-helsinki"
    first = _run_to_fixed(room, [funded_player() for _ in range(3)],
                          entry={"prize_minor": 100_00, "fee_minor": 10_00},
                          reserved_basis_points=1_000)
    fixed = commands.fix_prize_pool(tournament_id=first, actor="td", idempotency_key=key())
    assert {"from": "pool", "to": "reserve", "amount_minor": 30_00,
            "reason": "reserved"} in fixed.transfers
    assert (balance(prize_pool(first)), balance(tournament_reserve(room))) == (270_00, 30_00)

    greedy = _run_to_fixed(room, [funded_player() for _ in range(3)],
                           entry={"prize_minor": 100_00, "fee_minor": 10_00},
                           reserve_added_minor=30_01)
    with pytest.raises(TournamentError) as refused:
        commands.fix_prize_pool(tournament_id=greedy, actor="td", idempotency_key=key())
    assert refused.value.details["cite"] == "000:L3386-3388"
    later = _run_to_fixed(room, [funded_player() for _ in range(3)],
                          entry={"prize_minor": 100_00, "fee_minor": 10_00},
                          reserve_added_minor=30_00)
    commands.fix_prize_pool(tournament_id=later, actor="td", idempotency_key=key())
    assert (balance(prize_pool(later)), balance(tournament_reserve(room))) == (330_00, 0)
    assert Tournament.objects.get(id=later).pool_minor == 330_00
