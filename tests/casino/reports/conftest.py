"""A seeded gaming day for the reports' tests, played through the real commands.

Gaming day 2026-06-16 (the business clock's NOON) at two venues:

poker-helsinki  cage: five cash deposits, a bank deposit, a cash withdrawal,
                chips bought and redeemed for cash; a hold'em table (five
                seats from the account, one for cash) plays one hand (rake
                300, bad-beat drop 100) and one player cashes out; a
                time-charged table takes EUR 12 of time rake; a progressive
                bounty tournament of three (fees 3 x 70; a room tournament
                starts with three at a table, 000:L3240); the bad-beat pool
                rolls the day's drop up.
casino-helsinki a roulette round (the house loses 380 to two players).

`seeded_day` returns the facts the tests check against. `DAY_AFTER` is the
next morning, when the day has ended (closes and seals need it).
"""

from __future__ import annotations

import datetime as dt
import itertools
from dataclasses import dataclass

import pytest

from casino.cage import commands as cage
from casino.games import commands as games
from casino.jackpots import commands as jackpots
from casino.poker import commands as poker
from casino.tournaments import commands as tournaments
from tests.casino.conftest import NOON, make_player

DAY = dt.date(2026, 6, 16)
DAY_AFTER = NOON + dt.timedelta(days=1)
ROOM = "poker-helsinki"
CASINO = "casino-helsinki"

_keys = itertools.count(1)


def key(prefix: str = "r") -> str:
    return f"reports-{prefix}-{next(_keys)}"


@dataclass(frozen=True)
class Seeded:
    players: list[str]
    table_id: str
    time_table_id: str
    roulette_table_id: str
    tournament_id: str


def _deposit(player_id: str, venue: str, amount: int, method: str = "cash") -> None:
    cage.deposit(player_id=player_id, venue=venue, amount_minor=amount, currency="EUR",
                 method=method, actor="cage", idempotency_key=key("deposit"))


def play_poker(players: list[str]) -> tuple[str, str]:
    """One raked hand at a jackpot table and one time charge at another."""
    table = poker.open_table(
        venue=ROOM, variant="holdem", structure="no_limit", small_blind_minor=100,
        big_blind_minor=200, seats_max=9, buy_in_minor_min=10_000, buy_in_minor_max=40_000,
        rake="standard", jackpot=True, actor="floor", idempotency_key=key("table"))
    for seat, player_id in enumerate(players[:5], start=1):
        poker.buy_in(table_id=table.table_id, seat=seat, player_id=player_id,
                     amount_minor=20_000, paid_with="account", actor="floor",
                     idempotency_key=key("buy-in"))
    poker.buy_in(table_id=table.table_id, seat=6, player_id=players[5], amount_minor=15_000,
                 paid_with="cash", actor="floor", idempotency_key=key("buy-in"))
    hand = poker.start_hand(table_id=table.table_id, button=1, actor="dealer",
                            idempotency_key=key("hand"))
    # Seat 4 is first to act (button 1, blinds 2 and 3; seat 6 sits in).
    script = [(4, "raise", 600), (5, "call"), (6, "fold"), (1, "call"), (2, "call"),
              (3, "call"), (2, "check"), (3, "check"), (4, "bet", 1500), (5, "call"),
              (1, "fold"), (2, "fold"), (3, "fold"), (4, "bet", 2000), (5, "fold")]
    for seat, kind, *amount in script:
        poker.act(hand_id=hand.hand_id, seat=seat, kind=kind,
                  amount_minor=amount[0] if amount else None, actor="dealer",
                  idempotency_key=key("act"))
    poker.cash_out(table_id=table.table_id, seat=4, player_id=players[3], paid_to="account",
                   actor="floor", idempotency_key=key("cash-out"))

    timed = poker.open_table(
        venue=ROOM, variant="holdem", structure="no_limit", small_blind_minor=100,
        big_blind_minor=200, seats_max=9, buy_in_minor_min=10_000, buy_in_minor_max=40_000,
        rake="time_charge", time_charge_minor=600, time_charge_period_minutes=30,
        actor="floor", idempotency_key=key("table"))
    for seat, player_id in ((1, players[6]), (2, players[7])):
        poker.buy_in(table_id=timed.table_id, seat=seat, player_id=player_id,
                     amount_minor=20_000, paid_with="account", actor="floor",
                     idempotency_key=key("buy-in"))
    poker.charge_time(table_id=timed.table_id, consenting_players=[], actor="floor",
                      idempotency_key=key("time"))
    return table.table_id, timed.table_id


def play_roulette() -> str:
    """A roulette round at the casino: 17 wins straight up, black wins, dozen loses."""
    table = games.open_table(venue=CASINO, game="roulette", stake_minor_min=100,
                             stake_minor_max=10_000_00, actor="floor",
                             idempotency_key=key("game-table"))
    alice, bob = make_player(), make_player()
    for player in (alice, bob):
        _deposit(player.id, CASINO, 1_000_00)
    r = games.open_round(table_id=table.table_id, actor="floor", idempotency_key=key("round"))
    for player, kind, spec, stake in ((alice, "straight", {"numbers": [17]}, 10_00),
                                      (bob, "black", {}, 50_00),
                                      (bob, "dozen", {"which": 3}, 20_00)):
        games.place_bet(round_id=r.round_id, player_id=player.id, kind=kind, spec=spec,
                        stake_minor=stake, actor="floor", idempotency_key=key("bet"))
    games.close_betting(round_id=r.round_id, actor="floor", idempotency_key=key("close"))
    games.record_outcome(round_id=r.round_id, outcome={"number": 17}, actor="floor",
                         idempotency_key=key("outcome"))
    games.settle_round(round_id=r.round_id, actor="floor", idempotency_key=key("settle"))
    return table.table_id


def play_tournament(a: str, b: str, c: str) -> str:
    """000:L3374-3377: a 600 + 70 progressive bounty, three players (000:L3240), a finish."""
    t = tournaments.announce(
        venue=ROOM, name="Monday bounty", format="progressive_bounty",
        entry={"prize_minor": 40000, "fee_minor": 7000, "bounty_minor": 20000},
        re_entry=True, entries_per_player_max=2, actor="td",
        idempotency_key=key("announce")).tournament_id
    tournaments.open_registration(tournament_id=t, actor="td", idempotency_key=key())
    for player_id in (a, b, c):
        tournaments.register(tournament_id=t, player_id=player_id, actor="cage",
                             idempotency_key=key())
    tournaments.start(tournament_id=t, actor="td", idempotency_key=key())
    for out in (c, b):
        tournaments.eliminate(tournament_id=t, outs=[{"player_id": out, "stack": 100}],
                              eliminators={out: [a]}, actor="td", idempotency_key=key())
    tournaments.fix_prize_pool(tournament_id=t, actor="td", idempotency_key=key())
    tournaments.finish(tournament_id=t, actor="td", idempotency_key=key())
    return t


@pytest.fixture
def seeded_day(venues) -> Seeded:
    return seed_day()


def seed_day() -> Seeded:
    """Play the seeded day through the real commands (the venues registered)."""
    players = [make_player().id for _ in range(10)]
    for player_id in players[:8]:
        _deposit(player_id, ROOM, 1_000_00)
    _deposit(players[8], ROOM, 1_000_00, method="bank")
    _deposit(players[9], ROOM, 2_000_00)
    cage.withdraw(player_id=players[0], venue=ROOM, amount_minor=100_00, currency="EUR",
                  method="cash", actor="cage", idempotency_key=key("withdraw"))
    cage.buy_chips(player_id=players[1], venue=ROOM, amount_minor=200_00, currency="EUR",
                   paid_with="cash", actor="cage", idempotency_key=key("chips"))
    cage.redeem_chips(player_id=players[1], venue=ROOM, amount_minor=50_00, currency="EUR",
                      paid_to="cash", actor="cage", idempotency_key=key("redeem"))
    table_id, time_table_id = play_poker(players)
    roulette_table_id = play_roulette()
    tournament_id = play_tournament(players[8], players[9], players[7])
    jackpots.ensure_pool(venue=ROOM, actor="test")
    jackpots.rollup_day(venue=ROOM, gaming_day=DAY, actor="test", now=DAY_AFTER)
    return Seeded(players, table_id, time_table_id, roulette_table_id, tournament_id)
