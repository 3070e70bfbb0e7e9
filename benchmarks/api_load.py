"""The REST API under load: concurrent clients against gunicorn on loopback.

Creates a throwaway database on the configured PostgreSQL (the embedded one
by default; casino/throwaway.py creates and drops it, and nothing else), loads the rulebooks, registers the venues, and sets up players
and one heads-up online hold'em table per client. Then it starts gunicorn
(`casino.wsgi`, gthread workers, the real server with its own processes and
connections) on 127.0.0.1 and runs client processes, each with one
keep-alive HTTP connection, sending a mixed write load for a fixed time:

    70 %  POST /api/v1/cage/chip-purchases    chips bought for cash
    10 %  POST /api/v1/cage/chip-redemptions  some of them cashed back
    20 %  POST /api/v1/poker/tables/<t>/hand-histories
                                               a complete hand (the client's
                                               own table), won before the flop

Every request carries its own Idempotency-Key and must answer 201; anything
else counts as an error and is reported. The cage traffic is chips for cash,
not gaming-account transfers, so the load runs at any hour (online
transfers stop 00:00-06:00, 002:L3072); the set-up uses business time. Latency is measured per request by
the client (send to last byte).

    python benchmarks/api_load.py [--clients 16] [--seconds 20]
                                  [--workers 2] [--threads 8] [--smoke]
                                  [--disposable-server HOST:PORT]

Prints per-kind counts and latencies, then one line:
api_load: writes_per_s=<n> p50_ms=<n> p99_ms=<n> errors=<n> clients=<n>
"""

from __future__ import annotations

import argparse
import http.client
import json
import multiprocessing
import os
import random
import signal
import statistics
import subprocess
import sys
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "casino.settings")

import django  # noqa: E402

django.setup()

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


def _client(port: int, seconds: float, seed: int, cage_token: str, table_token: str,
            setup: dict, results: multiprocessing.Queue) -> None:
    """One client: one keep-alive connection, requests back to back until time is up."""
    rng = random.Random(seed)
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    samples: list[tuple[str, float, int]] = []
    button = 1
    bought = {player: 0 for player in setup["cage_players"]}
    deadline = time.perf_counter() + seconds
    while time.perf_counter() < deadline:
        draw = rng.random()
        player = rng.choice(setup["cage_players"])
        if draw < 0.7 or bought[player] < 100:
            kind, token, path = "chips_in", cage_token, "/api/v1/cage/chip-purchases"
            body = {"player_id": player, "venue": CAGE_VENUE, "amount": "5.00",
                    "currency": "EUR", "paid_with": "cash"}
            bought[player] += 500
        elif draw < 0.8:
            kind, token, path = "chips_out", cage_token, "/api/v1/cage/chip-redemptions"
            body = {"player_id": player, "venue": CAGE_VENUE, "amount": "1.00",
                    "currency": "EUR", "paid_to": "cash"}
            bought[player] -= 100
        else:
            # Heads-up the button posts the small blind and acts first: it folds,
            # the big blind wins 0.50; the buttons alternate, so stacks stay level.
            kind, token = "hand", table_token
            path = f"/api/v1/poker/tables/{setup['table_id']}/hand-histories"
            body = {"button": button, "actions": [{"seat": button, "kind": "fold"}]}
            button = 3 - button
        payload = json.dumps(body)
        headers = {"Authorization": f"Token {token}", "Content-Type": "application/json",
                   "Idempotency-Key": uuid.uuid4().hex}
        began = time.perf_counter()
        conn.request("POST", path, payload, headers)
        response = conn.getresponse()
        response.read()
        samples.append((kind, time.perf_counter() - began, response.status))
    conn.close()
    results.put(samples)


def _wait_for(port: int, process: subprocess.Popen, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError("gunicorn exited before it served")
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
            conn.request("GET", "/api/schema/")
            conn.getresponse().read()
            return
        except OSError:
            time.sleep(0.3)
    raise RuntimeError("gunicorn did not answer")


def _percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--workers", type=int, default=2, help="gunicorn processes")
    parser.add_argument("--threads", type=int, default=8, help="threads per process")
    parser.add_argument("--port", type=int, default=0, help="default: a free port")
    throwaway.add_arguments(parser)
    args = parser.parse_args()
    if args.smoke:
        args.clients, args.seconds, args.workers, args.threads = 1, 1.0, 1, 2
    if not args.port:
        args.port = _free_port()

    with throwaway.throwaway_database("apiload", disposable_server=args.disposable_server
                                      ) as bench_name:
        samples, elapsed = _measure(args, bench_name)
    _report(args, samples, elapsed)


def _free_port() -> int:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _measure(args: argparse.Namespace, bench_name: str
             ) -> tuple[list[tuple[str, float, int]], float]:
    """Set up, serve the throwaway database with gunicorn, run the clients."""
    from django.db import connections

    from ledger.writer import stop_writer

    server = None
    try:
        setup = _setup(args.clients)
        stop_writer()
        connections.close_all()
        env = {**os.environ, "DATABASE_URL": throwaway.database_url(bench_name), "DEBUG": "0",
               "ALLOWED_HOSTS": "127.0.0.1,localhost"}
        env.pop("CASINO_DATABASE_NAME", None)
        server = subprocess.Popen(
            [sys.executable, "-m", "gunicorn", "casino.wsgi", "--bind",
             f"127.0.0.1:{args.port}", "--workers", str(args.workers), "--worker-class",
             "gthread", "--threads", str(args.threads), "--log-level", "warning"],
            cwd=ROOT, env=env, start_new_session=True)
        _wait_for(args.port, server)

        results: multiprocessing.Queue = multiprocessing.Queue()
        clients = [multiprocessing.Process(
            target=_client, args=(args.port, args.seconds, seed, setup["cage_token"],
                                  setup["table_token"], client, results))
            for seed, client in enumerate(setup["clients"])]
        began = time.perf_counter()
        for process in clients:
            process.start()
        samples = [sample for _ in clients for sample in results.get()]
        for process in clients:
            process.join()
        elapsed = time.perf_counter() - began
    finally:
        if server is not None and server.poll() is None:
            os.killpg(server.pid, signal.SIGTERM)
            server.wait(timeout=30)
    return samples, elapsed


def _report(args: argparse.Namespace, samples: list[tuple[str, float, int]],
            elapsed: float) -> None:
    ok = [s for s in samples if s[2] == 201]
    errors = len(samples) - len(ok)
    print(f"{'kind':<11} {'requests':>9} {'p50 ms':>8} {'p99 ms':>8} {'mean ms':>8}")
    for kind in ("chips_in", "chips_out", "hand"):
        latencies = [1000 * s[1] for s in ok if s[0] == kind]
        if latencies:
            print(f"{kind:<11} {len(latencies):>9} {_percentile(latencies, 0.5):>8.1f}"
                  f" {_percentile(latencies, 0.99):>8.1f} {statistics.mean(latencies):>8.1f}")
    statuses: dict[int, int] = {}
    for _, _, status in samples:
        statuses[status] = statuses.get(status, 0) + 1
    print(f"statuses: {dict(sorted(statuses.items()))}; {args.clients} clients,"
          f" gunicorn {args.workers} x {args.threads} threads, {elapsed:.1f} s")
    latencies = [1000 * s[1] for s in ok]
    print(f"api_load: writes_per_s={len(ok) / elapsed:.0f}"
          f" p50_ms={_percentile(latencies, 0.5):.1f} p99_ms={_percentile(latencies, 0.99):.1f}"
          f" errors={errors} clients={args.clients}")


if __name__ == "__main__":
    main()
