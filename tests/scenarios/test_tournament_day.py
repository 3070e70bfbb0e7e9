"""A tournament day through the HTTP API, reconciled with the ledger.

1. A 60-player progressive bounty re-entry tournament at poker-helsinki
   (000 §4.3-4.5): EUR 60 + 10 (40 prize, 20 bounty, 10 fee), two entries
   per player, the paid field growing by one per two re-entries
   (000:L3302-3304). A seeded random.Random picks who busts whom; busted
   players re-enter while the window is open; then the pool is fixed, the
   payout table is read before any prize is paid, and play goes down to one
   player, sometimes two out in one hand at different tables (they tie,
   000:L3397-3398).
2. A five-handed EUR 10 Sit & Go online (9.50 + 0.50, 001:L689) interrupted
   before the money (001:L423-427): fees back, pool half equal, half chips.

Reconciliation, independent of the server's own totals: each player's
gaming account = deposit - what the test paid in + bounties + prize (+ fee
refunds), as the test computes them from the rules; the prize pool and
bounties accounts end at 0; the house's fees equal the fees paid in less
those refunded; the hash chain verifies.
"""

from __future__ import annotations

import random
from collections import Counter

from casino.cage.commands import deposit
from casino.accounts import gaming_account
from casino.roles import Role
from casino.rules.commands import register_venue
from casino.tournaments.events import bounties, prize_pool, tournament_fees
from ledger import verify_chain
from tests.casino.api.conftest import client_for, post
from tests.casino.conftest import make_player
from tests.casino.tournaments.conftest import balance, key

SEED = 20261122
ROOM = "poker-helsinki"
ONLINE = "veikkaus-online"
DEPOSIT_MINOR = 400_00


def act(client, tournament_id: str, action: str, body=None):
    response = post(client, f"/api/v1/tournaments/{tournament_id}/{action}", body or {},
                    key=key("http"))
    assert response.status_code == 201, response.json()
    return response.json()


def players(count: int, venue: str, method: str) -> list[str]:
    ids = []
    for _ in range(count):
        player = make_player()
        deposit(player_id=player.id, venue=venue, amount_minor=DEPOSIT_MINOR, currency="EUR",
                method=method, actor="cage", idempotency_key=key("deposit"))
        ids.append(player.id)
    return ids


def test_sixty_player_re_entry_bounty_tournament_and_cancelled_sit_and_go(venues):
    rng = random.Random(SEED)
    director = client_for(Role.TABLE_CONTROLLER)
    field = players(60, ROOM, "cash")
    paid = Counter()
    won = Counter()

    announced = post(director, "/api/v1/tournaments", {
        "venue": ROOM, "name": "Progressive KO 60 + 10", "format": "progressive_bounty",
        "entry": {"prize_minor": 40_00, "fee_minor": 10_00, "bounty_minor": 20_00},
        "re_entry": True, "entries_per_player_max": 2,
    }, key=key("http"))
    assert announced.status_code == 201, announced.json()
    t = announced.json()["tournament_id"]
    act(director, t, "registration")
    for p in field:
        act(director, t, "entries", {"player_id": p})
        paid[p] += 70_00
    act(director, t, "start")

    alive = list(field)
    bounty_head = {p: 20_00 for p in field}
    re_entries = 0
    # Re-entry window: 20 busts, most re-enter.
    for _ in range(20):
        out, taker = rng.sample(alive, 2)
        act(director, t, "eliminations", {"outs": [{"player_id": out, "stack": 1000}],
                                          "eliminators": {out: [taker]}})
        head = bounty_head.pop(out)
        won[taker] += head - head // 2
        bounty_head[taker] += head // 2
        alive.remove(out)
        if rng.random() < 0.7 and paid[out] == 70_00:
            act(director, t, "entries", {"player_id": out, "kind": "re_entry"})
            paid[out] += 70_00
            bounty_head[out] = 20_00
            alive.append(out)
            re_entries += 1
    act(director, t, "prize-pool")
    details = director.get(f"/api/v1/tournaments/{t}").json()
    entries = 60 + re_entries
    assert details["state"] in ("pool_fixed", "in_the_money")
    assert details["pool_minor"] == entries * 40_00
    assert details["paid_field"] == 60 + re_entries // 2
    table = [row["prize_minor"] for row in details["prize_table"]]
    assert sum(table) == details["pool_minor"] and table == sorted(table, reverse=True)
    assert all(row["prize_minor"] for row in details["prize_table"])
    assert balance(prize_pool(t)) == entries * 40_00  # nothing paid yet

    finish_order: list[list[str]] = []
    while len(alive) > 1:
        if len(alive) > 3 and rng.random() < 0.1:
            outs = rng.sample(alive, 2)
            taker = rng.choice([p for p in alive if p not in outs])
            act(director, t, "eliminations", {
                "outs": [{"player_id": o, "stack": 500 + i, "table": f"t{i}"}
                         for i, o in enumerate(outs)],
                "eliminators": {o: [taker] for o in outs}})
        else:
            outs = [rng.choice(alive)]
            taker = rng.choice([p for p in alive if p not in outs])
            act(director, t, "eliminations", {"outs": [{"player_id": outs[0], "stack": 7}],
                                              "eliminators": {outs[0]: [taker]}})
        for o in outs:
            head = bounty_head.pop(o)
            won[taker] += head - head // 2
            bounty_head[taker] += head // 2
            alive.remove(o)
        finish_order.append(outs)
    winner = alive[0]
    result = act(director, t, "finish")
    assert result["state"] == "finished"

    details = director.get(f"/api/v1/tournaments/{t}").json()
    prizes = {p: amount for p, amount in details["payout"]["prizes_minor"].items()}
    assert details["payout"]["places"][winner] == 1
    # Tied players (two out in one hand at different tables) share their places.
    place = 1
    expected_prizes = {winner: table[0]}
    for outs in reversed(finish_order):
        place_prizes = table[place:place + len(outs)]
        shares = sum(place_prizes)
        for i, o in enumerate(sorted(outs, key=lambda o: -(500 + [*outs].index(o)))):
            expected_prizes[o] = shares // len(outs) + (1 if i < shares % len(outs) else 0)
        place += len(outs)
    assert {p: a for p, a in prizes.items() if a} == {p: a for p, a in expected_prizes.items() if a}
    for p in field:
        expected = (DEPOSIT_MINOR - paid[p] + won[p] + prizes.get(p, 0)
                    + (bounty_head[winner] if p == winner else 0))
        assert balance(gaming_account(p)) == expected, p
    assert balance(prize_pool(t)) == 0 and balance(bounties(t)) == 0
    assert balance(tournament_fees(ROOM)) == entries * 10_00
    assert sum(paid.values()) == entries * 70_00

    # -- the interrupted Sit & Go ------------------------------------------------
    register_venue(code=ONLINE, name="Veikkaus online poker",
                   rulebook_id="veikkaus-online-poker")
    sng_players = players(5, ONLINE, "bank")
    announced = post(director, "/api/v1/tournaments", {
        "venue": ONLINE, "name": "SNG 5-max EUR 10", "format": "sit_and_go",
        "entry": {"prize_minor": 9_50, "fee_minor": 50}, "payout_table": "sng_5_handed",
        "seats_per_table": 5,
    }, key=key("http"))
    assert announced.status_code == 201, announced.json()
    s = announced.json()["tournament_id"]
    act(director, s, "registration")
    for p in sng_players:
        act(director, s, "entries", {"player_id": p})
    act(director, s, "start")
    act(director, s, "eliminations", {"outs": [{"player_id": sng_players[4], "stack": 9}],
                                      "eliminators": {sng_players[4]: [sng_players[0]]}})
    stacks = {sng_players[0]: 4000, sng_players[1]: 3000, sng_players[2]: 2000,
              sng_players[3]: 1000}
    cancelled = act(director, s, "cancel", {"stacks": stacks})
    assert cancelled["state"] == "interrupted"
    # 001:L426: pool 47.50 -> 23.75 equally (5.9375 each) + 23.75 by chips.
    exact = {p: 475_0 / 2 / 4 + 475_0 / 2 * c / 10_000 for p, c in stacks.items()}
    for p in sng_players[:4]:
        share = balance(gaming_account(p)) - (DEPOSIT_MINOR - 10_00 + 50)
        assert abs(share - exact[p]) < 1, (p, share, exact[p])
    assert balance(gaming_account(sng_players[4])) == DEPOSIT_MINOR - 10_00
    assert balance(prize_pool(s)) == 0
    assert balance(tournament_fees(ONLINE)) == 50  # the busted player's fee only
    assert verify_chain().ok
