"""The REST API under load: concurrent clients against gunicorn on loopback.

Creates a throwaway database on the configured PostgreSQL (the embedded one
by default; casino/throwaway.py creates and drops it, and nothing else),
loads the rulebooks, registers the venues, and sets up players and one
heads-up online hold'em table per client. Then it starts gunicorn
(`casino.wsgi`, gthread workers, the real server with its own processes and
connections) on 127.0.0.1 and runs client processes, each with one
keep-alive HTTP connection, sending a mixed write load for a fixed time:

    70 %  POST /api/v1/cage/chip-purchases    chips bought for cash
    10 %  POST /api/v1/cage/chip-redemptions  some of them cashed back
    20 %  POST /api/v1/poker/tables/<t>/hand-histories
                                               a complete hand (the client's
                                               own table), won before the flop

Every request carries its own Idempotency-Key and must answer 201; anything
else counts as an error and is reported, 409s (conflicts) apart. The cage
traffic is chips for cash, not gaming-account transfers, so the load runs at
any hour (online transfers stop 00:00-06:00, 002:L3072); the set-up uses
business time. Latency is measured per request by the client (send to last
byte). The client loop, gunicorn's start and the summary are
benchmarks/_http_load.py's, shared with api_floor.py.

    python benchmarks/api_load.py [--clients 16] [--seconds 20]
                                  [--workers 2] [--threads 8] [--smoke]
                                  [--disposable-server HOST:PORT]

Then, in the same invocation and with the same options, it measures the
floor on this box (benchmarks/api_floor.py: a minimal token-authenticated
DRF write, same gunicorn shape, same client loop from
benchmarks/_http_load.py). Issue 13's goals: mixed writes at least 0.5x the
floor's, p99 at most 2x the floor's, 0 errors (no 409s) with 16 clients.

Prints per-kind counts and latencies for both runs, then one line:
api_load: writes_per_s=<n> p50_ms=<n> p99_ms=<n> errors=<n> clients=<n>
          floor_writes_per_s=<n> floor_p99_ms=<n> ratio=<writes / floor writes>
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import uuid
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(HERE))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "casino.settings")
# A throughput benchmark measures the product, not its per-client rate limit:
# the throttle still runs (its cost counts), with a rate no client reaches.
os.environ.setdefault("CASINO_API_RATE", "1000000/s")

import django  # noqa: E402

django.setup()

import _http_load  # noqa: E402
import api_floor  # noqa: E402

from casino import throwaway  # noqa: E402

ONLINE = "veikkaus-online"
CAGE_VENUE = "casino-helsinki"


def _setup(clients: int) -> dict:
    """Players, tokens and tables in the benchmark database; return what clients need."""
    from django.contrib.auth.models import Group, User
    from rest_framework.authtoken.models import Token

    from casino.cage.commands import deposit
    from casino.poker import commands as poker
    from casino.roles import Role, ensure_role_groups
    from casino.rules.commands import load_shipped_rulebooks, register_venue
    from tests.casino.conftest import NOON, VENUES, make_player

    load_shipped_rulebooks()
    ensure_role_groups()
    for rulebook_id, code in VENUES.items():
        register_venue(code=code, name=code, rulebook_id=rulebook_id)
    register_venue(code=ONLINE, name="Veikkaus online poker",
                   rulebook_id="veikkaus-online-poker")

    def token(role: Role) -> str:
        user = User.objects.create_user(f"{role}-{uuid.uuid4().hex[:8]}")
        user.groups.add(Group.objects.get(name=role))
        return Token.objects.create(user=user).key

    setups = []
    for _ in range(clients):
        players = [make_player() for _ in range(4)]
        table = poker.open_table(venue=ONLINE, variant="holdem", structure="no_limit",
                                 small_blind_minor=50, big_blind_minor=100, seats_max=6,
                                 buy_in_minor_min=4_000, buy_in_minor_max=10_000,
                                 actor="bench", idempotency_key=uuid.uuid4().hex, at=NOON)
        for seat, player in enumerate(players[:2], start=1):
            deposit(player_id=player.id, venue=CAGE_VENUE, amount_minor=10_000,
                    currency="EUR", method="cash", actor="bench",
                    idempotency_key=uuid.uuid4().hex, at=NOON)
            poker.buy_in(table_id=table.table_id, seat=seat, player_id=player.id,
                         amount_minor=10_000, actor="bench", idempotency_key=uuid.uuid4().hex,
                         at=NOON)
        setups.append({"cage_players": [p.id for p in players[2:]],
                       "table_id": table.table_id})
    return {"cage_token": token(Role.CAGE), "table_token": token(Role.TABLE_CONTROLLER),
            "clients": setups}


class MixedWrites:
    """One client's mix: chips in and out at the cage, hands at its own table."""

    def __init__(self, seed: int, cage_token: str, table_token: str, setup: dict) -> None:
        self.rng = random.Random(seed)
        self.cage_token = cage_token
        self.table_token = table_token
        self.table_id = setup["table_id"]
        self.cage_players = setup["cage_players"]
        self.bought = {player: 0 for player in self.cage_players}
        self.button = 1

    def next_request(self) -> tuple[str, str, str, dict]:
        draw = self.rng.random()
        player = self.rng.choice(self.cage_players)
        if draw < 0.7 or self.bought[player] < 100:
            self.bought[player] += 500
            return "chips_in", self.cage_token, "/api/v1/cage/chip-purchases", {
                "player_id": player, "venue": CAGE_VENUE, "amount": "5.00",
                "currency": "EUR", "paid_with": "cash"}
        if draw < 0.8:
            self.bought[player] -= 100
            return "chips_out", self.cage_token, "/api/v1/cage/chip-redemptions", {
                "player_id": player, "venue": CAGE_VENUE, "amount": "1.00",
                "currency": "EUR", "paid_to": "cash"}
        # Heads-up the button posts the small blind and acts first: it folds,
        # the big blind wins 0.50; the buttons alternate, so stacks stay level.
        button, self.button = self.button, 3 - self.button
        path = f"/api/v1/poker/tables/{self.table_id}/hand-histories"
        body = {"button": button, "actions": [{"seat": button, "kind": "fold"}]}
        return "hand", self.table_token, path, body


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    api_floor.add_arguments(parser)
    args = parser.parse_args()
    api_floor.smoke_sized(args)

    with throwaway.throwaway_database("apiload", disposable_server=args.disposable_server
                                      ) as bench_name:
        samples, elapsed = _measure(args, bench_name)
    print("product (casino.wsgi), mixed writes:")
    load = _http_load.report(samples, elapsed, ("chips_in", "chips_out", "hand"),
                             clients=args.clients, workers=args.workers, threads=args.threads)
    print("floor (benchmarks/_floor_app.py), one-row writes:")
    floor = api_floor.measure(args)
    ratio = load.writes_per_s / floor.writes_per_s if floor.writes_per_s else 0.0
    print(f"api_load: writes_per_s={load.writes_per_s:.0f} p50_ms={load.p50_ms:.1f}"
          f" p99_ms={load.p99_ms:.1f} errors={load.errors} clients={args.clients}"
          f" floor_writes_per_s={floor.writes_per_s:.0f} floor_p99_ms={floor.p99_ms:.1f}"
          f" ratio={ratio:.2f}")


def _measure(args: argparse.Namespace, bench_name: str
             ) -> tuple[list[_http_load.Sample], float]:
    """Set up, serve the throwaway database with gunicorn, run the clients."""
    from django.db import connections

    from ledger.writer import stop_writer

    port = args.port or _http_load.free_port()
    server = None
    try:
        setup = _setup(args.clients)
        stop_writer()
        connections.close_all()
        env = {**os.environ, "DATABASE_URL": throwaway.database_url(bench_name), "DEBUG": "0",
               "ALLOWED_HOSTS": "127.0.0.1,localhost"}
        env.pop("CASINO_DATABASE_NAME", None)
        server = _http_load.start_gunicorn("casino.wsgi", port=port, workers=args.workers,
                                           threads=args.threads, env=env)
        # Any answer will do; a POST-only endpoint answers a GET cheaply.
        _http_load.wait_for(port, server, "/api/v1/cage/chip-purchases")
        mixes = [MixedWrites(seed, setup["cage_token"], setup["table_token"], client)
                 for seed, client in enumerate(setup["clients"])]
        return _http_load.run_clients(port, args.seconds, mixes)
    finally:
        _http_load.stop_gunicorn(server)


if __name__ == "__main__":
    main()
