"""The floor on this box: a minimal token-authenticated DRF write under load.

What the least a Django/DRF/PostgreSQL write costs here, measured exactly as
`api_load.py` measures the product: the same gunicorn shape (gthread
workers on 127.0.0.1) and the same client loop (benchmarks/_http_load.py).
The endpoint is `benchmarks/_floor_app.py` with its own settings
(`_floor_settings`: the product's database settings, no product apps or
URLs): token authentication, a serializer validating a small body, and
one row inserted in a transaction. It runs on a throwaway database of its
own (casino/throwaway.py), holding only auth, authtoken and its one table.

    python benchmarks/api_floor.py [--clients 16] [--seconds 20]
                                   [--workers 2] [--threads 8] [--smoke]
                                   [--disposable-server HOST:PORT]

`api_load.py` calls `measure` after its own run, with the same options.
Prints the table, then one line:
api_floor: writes_per_s=<n> p50_ms=<n> p99_ms=<n> errors=<n> clients=<n>
"""

from __future__ import annotations

import argparse
import os
import random
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "casino.settings")

import django  # noqa: E402

django.setup()

import _http_load  # noqa: E402

from casino import throwaway  # noqa: E402

PATH = "/floor/writes"
PLAYERS = 1_000
TABLE_SQL = """
CREATE TABLE floor_write (
    id bigserial PRIMARY KEY,
    player_id bigint NOT NULL,
    amount_minor bigint NOT NULL,
    currency char(3) NOT NULL,
    idempotency_key varchar(200) UNIQUE,
    recorded_at timestamptz NOT NULL DEFAULT now()
)
"""


class FloorMix:
    """Every request one small write: a player, an amount, a currency."""

    def __init__(self, seed: int, token: str) -> None:
        self.rng = random.Random(seed)
        self.token = token

    def next_request(self) -> tuple[str, str, str, dict]:
        body = {"player_id": self.rng.randint(1, PLAYERS), "amount": "5.00",
                "currency": "EUR"}
        return "write", self.token, PATH, body


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the load options api_load and api_floor share."""
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--workers", type=int, default=2, help="gunicorn processes")
    parser.add_argument("--threads", type=int, default=8, help="threads per process")
    parser.add_argument("--port", type=int, default=0, help="default: a free port")
    throwaway.add_arguments(parser)


def smoke_sized(args: argparse.Namespace) -> None:
    """Shrink the load to a smoke run's: one client, one second, 1 x 2 threads."""
    if args.smoke:
        args.clients, args.seconds, args.workers, args.threads = 1, 1.0, 1, 2


def measure(args: argparse.Namespace) -> _http_load.Summary:
    """Serve the floor app on a throwaway database, run the clients, report."""
    from django.contrib.auth.models import User
    from django.core.management import call_command
    from django.db import connection, connections
    from rest_framework.authtoken.models import Token

    port = args.port or _http_load.free_port()
    server = None
    with throwaway.throwaway_database("apifloor", disposable_server=args.disposable_server,
                                      migrate=False) as name:
        try:
            for app in ("auth", "authtoken"):  # auth's latest, not just authtoken's needs
                call_command("migrate", app, verbosity=0, interactive=False)
            with connection.cursor() as cursor:
                cursor.execute(TABLE_SQL)
            # bulk_create sends no post_save: the product's settings, loaded
            # in this process, would turn a saved Token into a hashed
            # ClientKey (casino.keys), a table the floor database lacks. The
            # floor serves DRF's own plaintext TokenAuthentication.
            token = Token.objects.bulk_create([Token(
                key=Token.generate_key(), user=User.objects.create_user("floor"))])[0].key
            connections.close_all()
            env = {**os.environ, "DATABASE_URL": throwaway.database_url(name),
                   "DJANGO_SETTINGS_MODULE": "_floor_settings", "DEBUG": "0",
                   "ALLOWED_HOSTS": "127.0.0.1,localhost"}
            env.pop("CASINO_DATABASE_NAME", None)
            server = _http_load.start_gunicorn(
                "_floor_app:application", port=port, workers=args.workers,
                threads=args.threads, env=env, pythonpath=str(HERE))
            _http_load.wait_for(port, server, PATH)
            samples, elapsed = _http_load.run_clients(
                port, args.seconds, [FloorMix(seed, token) for seed in range(args.clients)])
        finally:
            _http_load.stop_gunicorn(server)
    return _http_load.report(samples, elapsed, ("write",), clients=args.clients,
                             workers=args.workers, threads=args.threads)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_arguments(parser)
    args = parser.parse_args()
    smoke_sized(args)
    floor = measure(args)
    print(f"api_floor: writes_per_s={floor.writes_per_s:.0f} p50_ms={floor.p50_ms:.1f}"
          f" p99_ms={floor.p99_ms:.1f} errors={floor.errors} clients={args.clients}")


if __name__ == "__main__":
    main()
