"""Throughput of ledger.append and of rebuild_projections.

Runs against a throwaway database on the configured PostgreSQL (the embedded
one by default), created and dropped by casino/throwaway.py; the configured
database is never touched. Every event carries two postings.
Writers are threads calling the public `append`: outside a transaction they
share the group-commit writer; "own transaction" rows wrap each append in its
caller's transaction on the caller's own connection instead (no grouping),
for comparison.

In the same invocation it measures benchmarks/naive_writer.py (a serial,
check-free hash-chained writer) on a throwaway database of its own, the
yardstick of issue 13's goals: batch of 100 at least 1.0x naive,
single-event commits with 4 writers at least 1.6x naive (group commit must
pay), rebuild at least 100,000 events/s.

    python benchmarks/ledger_append.py [--quick] [--smoke] [--disposable-server HOST:PORT]

Prints a table, then one line:
ledger_append: batch100_events_per_s=<n> single_events_per_s=<n> rebuild_events_per_s=<n>
               naive_batch100_events_per_s=<n> naive_single4_events_per_s=<n>
               batch_ratio=<r> single_ratio=<r>
(batch100 and single are the 4-writer group-commit rows; the naive batch of
100 has one writer, its single-event commits 4; each ratio is the ledger's
figure over the naive one.)
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "casino.settings")

import django  # noqa: E402

django.setup()

from django.db import connection, transaction  # noqa: E402

import naive_writer  # noqa: E402

from casino import throwaway  # noqa: E402

from ledger import NewEvent, Posting, append, open_account, rebuild_projections  # noqa: E402
from ledger.writer import stop_writer  # noqa: E402

ACCOUNTS = 20
GAMING_DAY = dt.date(2026, 6, 16)  # money carries its business day


def _events(writer: int, batch: int, serial: int) -> list[NewEvent]:
    events = []
    for offset in range(batch):
        n = serial * batch + offset
        source = f"bench/{(writer + n) % ACCOUNTS}"
        destination = f"bench/{(writer + n + 1) % ACCOUNTS}"
        events.append(NewEvent(
            stream=f"bench-stream/{writer}/{n % 50}",
            type="bench.transferred",
            payload={"amount_minor": 100 + n % 900, "writer": writer},
            postings=(Posting(destination, 100 + n % 900, "EUR"),
                      Posting(source, -(100 + n % 900), "EUR")),
            gaming_day=GAMING_DAY,
        ))
    return events


def run(writers: int, batch: int, events_total: int, own_transaction: bool) -> float:
    """Return events per second for one configuration."""
    appends_per_writer = max(1, events_total // (writers * batch))
    start = threading.Barrier(writers + 1)
    errors: list[BaseException] = []

    def work(writer: int) -> None:
        try:
            prepared = [_events(writer, batch, serial) for serial in range(appends_per_writer)]
            start.wait()
            for events in prepared:
                if own_transaction:
                    with transaction.atomic():
                        append(events)
                else:
                    append(events)
        except BaseException as error:  # noqa: BLE001 - reported below
            errors.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=work, args=(w,)) for w in range(writers)]
    for thread in threads:
        thread.start()
    start.wait()
    began = time.perf_counter()
    for thread in threads:
        thread.join()
    elapsed = time.perf_counter() - began
    if errors:
        raise errors[0]
    return writers * appends_per_writer * batch / elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a tenth of the events")
    throwaway.add_arguments(parser)
    args = parser.parse_args()
    scale = 0.001 if args.smoke else 0.1 if args.quick else 1.0

    with throwaway.throwaway_database("ledgerappend", disposable_server=args.disposable_server):
        for code in range(ACCOUNTS):
            # Unguarded asset accounts: the benchmark measures the append path,
            # not refusals.
            open_account(code=f"bench/{code}", type="asset", currency="EUR")
        rows = []
        configs = [
            ("group commit", 1, 1, 3_000), ("group commit", 4, 1, 6_000),
            ("own transaction", 4, 1, 3_000),
            ("group commit", 1, 10, 20_000), ("group commit", 4, 10, 30_000),
            ("group commit", 1, 100, 60_000), ("group commit", 4, 100, 80_000),
        ]
        print(f"{'mode':<16} {'writers':>7} {'batch':>5} {'events/s':>10}")
        for mode, writers, batch, total in configs:
            rate = run(writers, batch, int(total * scale), mode == "own transaction")
            rows.append((mode, writers, batch, rate))
            print(f"{mode:<16} {writers:>7} {batch:>5} {rate:>10,.0f}", flush=True)
        stop_writer()
        began = time.perf_counter()
        rebuilt = rebuild_projections()
        rebuild_rate = rebuilt / (time.perf_counter() - began)
        print(f"{'rebuild':<16} {'':>7} {'':>5} {rebuild_rate:>10,.0f}  ({rebuilt:,} events)")
        by_key = {(m, w, b): r for m, w, b, r in rows}
    naive = naive_writer.measure(scale=scale, disposable_server=args.disposable_server)
    batch100 = by_key[("group commit", 4, 100)]
    single = by_key[("group commit", 4, 1)]
    print(f"{'naive serial':<16} {1:>7} {100:>5} {naive.batch100_events_per_s:>10,.0f}")
    print(f"{'naive serial':<16} {4:>7} {1:>5} {naive.single4_events_per_s:>10,.0f}")
    print(
        "ledger_append:"
        f" batch100_events_per_s={batch100:.0f}"
        f" single_events_per_s={single:.0f}"
        f" rebuild_events_per_s={rebuild_rate:.0f}"
        f" naive_batch100_events_per_s={naive.batch100_events_per_s:.0f}"
        f" naive_single4_events_per_s={naive.single4_events_per_s:.0f}"
        f" batch_ratio={batch100 / naive.batch100_events_per_s:.2f}"
        f" single_ratio={single / naive.single4_events_per_s:.2f}"
    )


if __name__ == "__main__":
    main()
