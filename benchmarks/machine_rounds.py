"""Machine rounds in batches through the HTTP API, beside the naive writer's batch figure.

On a throwaway database (casino/throwaway.py creates and drops it, and
nothing else) it loads the rulebooks, registers a RAY gaming hall and one
slot machine per client with a large cash credit, then starts gunicorn
(`casino.wsgi`, gthread workers) on 127.0.0.1. Each client process sends,
for a fixed time, batches of rounds to its own machine over one keep-alive
connection:

    POST /api/v1/machines/<m>/rounds   {"rounds": [... `--batch` rounds ...]}

every round a EUR 1 stake on one line, every third one winning EUR 1.50,
each with its own round id (the idempotency key of the round) and every
request its own Idempotency-Key; each batch must answer 201 with every
round accepted. Each round is a compliance check (Part IV caps, the
venue's maximum win), a ledger event with four postings and a meters
upsert, appended for the whole batch in one transaction.

Then, in the same invocation, it measures the naive serial writer's batch
of 100 (benchmarks/naive_writer.py) on its own throwaway database.
Issue 15's goal: rounds_per_s at least 0.3x the naive batch-100 events/s.

    python benchmarks/machine_rounds.py [--clients 2] [--seconds 15] [--batch 1000]
                                        [--workers 2] [--threads 2] [--smoke]
                                        [--disposable-server HOST:PORT]

Prints one line:
machine_rounds: rounds_per_s=<n> naive_batch_events_per_s=<n> ratio=<n>
"""

from __future__ import annotations

import argparse
import http.client
import json
import multiprocessing
import os
import sys
import time
import uuid
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(HERE))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "casino.settings")

import django  # noqa: E402

django.setup()

import _http_load  # noqa: E402
import naive_writer  # noqa: E402

from casino import throwaway  # noqa: E402

HALL = "bench-hall"
NAIVE_SCALE = 0.3           # 9,000 naive events in batches of 100: a stable figure
CREDIT_MINOR = 10**9        # EUR 10 million on each machine: never runs out


def _setup(clients: int) -> dict:
    """The hall, its machines and a controller's token; return what the clients need."""
    from django.contrib.auth.models import Group, User
    from rest_framework.authtoken.models import Token

    from casino.machines import commands as machines
    from casino.roles import Role, ensure_role_groups
    from casino.rules.commands import load_shipped_rulebooks, register_venue

    load_shipped_rulebooks()
    ensure_role_groups()
    register_venue(code=HALL, name="Benchmark hall", rulebook_id="ray-gaming-hall",
                   venue_type="gaming_hall")
    ids = []
    for n in range(clients):
        machine_id = f"bench-slot-{n}"
        machines.register_machine(machine_id=machine_id, venue=HALL, kind="slot",
                                  games=["fruits"], paylines=10, actor="bench",
                                  idempotency_key=uuid.uuid4().hex)
        machines.insert_cash(machine_id=machine_id, amount_minor=CREDIT_MINOR, actor="bench",
                             idempotency_key=uuid.uuid4().hex)
        ids.append(machine_id)
    user = User.objects.create_user(f"controller-{uuid.uuid4().hex[:8]}")
    user.groups.add(Group.objects.get(name=Role.TABLE_CONTROLLER))
    return {"token": Token.objects.create(user=user).key, "machines": ids}


def _batch(start: int, size: int) -> dict:
    return {"rounds": [{"round_id": f"r-{n}", "stakes": [{"option": "line-1",
                                                           "amount": "1.00"}],
                        "total": "1.00", "win": "1.50" if n % 3 == 0 else "0.00"}
                       for n in range(start, start + size)]}


def _client(port: int, token: str, machine_id: str, seconds: float, batch: int,
            results: multiprocessing.Queue) -> None:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    headers = {"Authorization": f"Token {token}", "Content-Type": "application/json"}
    accepted, errors, sent = 0, 0, 0
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        body = json.dumps(_batch(sent, batch))
        conn.request("POST", f"/api/v1/machines/{machine_id}/rounds", body,
                     {**headers, "Idempotency-Key": uuid.uuid4().hex})
        response = conn.getresponse()
        answer = response.read()
        sent += batch
        if response.status != 201:
            errors += 1
            continue
        data = json.loads(answer)
        accepted += data["accepted"]
        errors += data["refused"]
    results.put((accepted, errors))


def _measure(args: argparse.Namespace, bench_name: str) -> tuple[int, int, float]:
    from django.db import connections

    from ledger import stop_writer

    port = _http_load.free_port()
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
        _http_load.wait_for(port, server, f"/api/v1/machines/{setup['machines'][0]}/rounds")
        results: multiprocessing.Queue = multiprocessing.Queue()
        processes = [multiprocessing.Process(
            target=_client, args=(port, setup["token"], machine_id, args.seconds, args.batch,
                                  results)) for machine_id in setup["machines"]]
        started = time.monotonic()
        for process in processes:
            process.start()
        totals = [results.get(timeout=args.seconds + 300) for _ in processes]
        elapsed = time.monotonic() - started
        for process in processes:
            process.join()
        return sum(t[0] for t in totals), sum(t[1] for t in totals), elapsed
    finally:
        _http_load.stop_gunicorn(server)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=2)
    parser.add_argument("--seconds", type=float, default=15)
    parser.add_argument("--batch", type=int, default=1000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--threads", type=int, default=2)
    throwaway.add_arguments(parser)
    args = parser.parse_args()
    naive_scale = NAIVE_SCALE
    if args.smoke:
        args.clients, args.seconds, args.batch, args.workers = 1, 1, 20, 1
        naive_scale = 0.001
    with throwaway.throwaway_database("machinerounds",
                                      disposable_server=args.disposable_server) as bench_name:
        accepted, errors, elapsed = _measure(args, bench_name)
    if errors:
        raise SystemExit(f"machine_rounds: {errors} rounds or batches refused")
    rounds_per_s = accepted / elapsed if elapsed else 0.0
    naive = naive_writer.measure(scale=naive_scale, disposable_server=args.disposable_server)
    ratio = rounds_per_s / naive.batch100_events_per_s if naive.batch100_events_per_s else 0.0
    print(f"machine_rounds: rounds_per_s={rounds_per_s:.0f}"
          f" naive_batch_events_per_s={naive.batch100_events_per_s:.0f} ratio={ratio:.2f}"
          f" rounds={accepted} clients={args.clients} batch={args.batch}")


if __name__ == "__main__":
    main()
