"""Journal export throughput and memory: CSV (streamed) and XLSX (constant memory).

Runs against a throwaway database on the configured PostgreSQL (the embedded
one by default), created and dropped by casino/throwaway.py. Appends N postings (two per event,
in batches of 1,000 events through the public `ledger.append`; batches of
10,000 measured four times slower here) spread over
30 gaming days across the project's account patterns, then exports the whole
range: CSV through `journal.CsvExport` into a digest (nothing kept), XLSX
through `journal.write_xlsx` to a temporary file, each followed by its trial
balance. Peak RSS (resource.getrusage) is printed after the append phase and
after each export: an export that held its rows in memory would raise it in
proportion to N.

    python benchmarks/journal_export.py [--postings N] [--seed S]

Prints a table, then one line:
journal_export: rows=<n> csv_rows_per_s=<n> xlsx_rows_per_s=<n> peak_rss_mb=<n>
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import random
import resource
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "casino.settings")

import django  # noqa: E402

django.setup()

from casino import throwaway  # noqa: E402

from ledger import Metadata, NewEvent, Posting, append, open_account  # noqa: E402

BATCH_EVENTS = 1_000
DAYS = 30
FIRST_DAY = dt.date(2026, 1, 1)
VENUE = "bench-room"


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def accounts() -> list[str]:
    codes = [f"cage/{VENUE}/cash", f"cage/{VENUE}/chips", f"house/{VENUE}/rake",
             f"house/{VENUE}/games/roulette", f"jackpot/{VENUE}/bad_beat/pending",
             "bench/unclassified"]
    codes += [f"player/p{n}/account" for n in range(200)]
    codes += [f"table/t{n}/stacks" for n in range(10)]
    for code in codes:
        open_account(code=code, type="asset" if code.startswith("cage/") else "liability",
                     currency="EUR")
    return codes


def generate(postings: int, rng: random.Random) -> int:
    codes = accounts()
    events_total = postings // 2
    written = 0
    metadata = Metadata(actor="bench", source="benchmarks.journal_export")
    while written < events_total:
        batch = []
        for offset in range(min(BATCH_EVENTS, events_total - written)):
            n = written + offset
            debit, credit = rng.sample(codes, 2)
            amount = rng.randint(1, 500_00)
            batch.append(NewEvent(
                stream=f"bench/{n % 1000}", type="bench.moved", payload={"n": n},
                postings=(Posting(debit, amount, "EUR"), Posting(credit, -amount, "EUR")),
                gaming_day=FIRST_DAY + dt.timedelta(days=n * DAYS // events_total)))
        append(batch, metadata=metadata)
        written += len(batch)
    return written * 2


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--postings", type=int, default=200_000)
    parser.add_argument("--seed", type=int, default=20260616)
    throwaway.add_arguments(parser)
    args = parser.parse_args()
    if args.smoke:
        args.postings = 400

    with throwaway.throwaway_database("journalexport", disposable_server=args.disposable_server):
        from casino.reports.journal import TRIAL_BALANCE, CsvExport, write_xlsx
        from casino.reports.reading import head_at

        began = time.perf_counter()
        rows = generate(args.postings, random.Random(args.seed))
        append_seconds = time.perf_counter() - began
        rss_after_append = peak_rss_mb()
        last_day = FIRST_DAY + dt.timedelta(days=DAYS - 1)
        head = head_at()
        print(f"{'step':<22} {'rows':>9} {'seconds':>8} {'rows/s':>9} {'MB out':>8}"
              f" {'peak RSS MB':>12}")
        print(f"{'append':<22} {rows:>9} {append_seconds:>8.2f} {rows / append_seconds:>9.0f}"
              f" {'':>8} {rss_after_append:>12.1f}", flush=True)

        began = time.perf_counter()
        export = CsvExport(FIRST_DAY, last_day, head=head)
        for _ in export:
            pass
        csv_seconds = time.perf_counter() - began
        assert export.tally.rows == rows, (export.tally.rows, rows)
        print(f"{'csv journal':<22} {rows:>9} {csv_seconds:>8.2f} {rows / csv_seconds:>9.0f}"
              f" {export.tally.bytes / 2**20:>8.1f} {peak_rss_mb():>12.1f}", flush=True)
        began = time.perf_counter()
        trial = CsvExport(FIRST_DAY, last_day, head=head, part=TRIAL_BALANCE)
        for _ in trial:
            pass
        print(f"{'csv trial balance':<22} {trial.tally.rows:>9}"
              f" {time.perf_counter() - began:>8.2f} {'':>9} {trial.tally.bytes / 2**20:>8.1f}"
              f" {peak_rss_mb():>12.1f}", flush=True)

        began = time.perf_counter()
        workbook = write_xlsx(FIRST_DAY, last_day, head=head)
        xlsx_seconds = time.perf_counter() - began
        workbook.file.close()
        assert workbook.journal.rows == rows
        print(f"{'xlsx (both sheets)':<22} {rows:>9} {xlsx_seconds:>8.2f}"
              f" {rows / xlsx_seconds:>9.0f} {workbook.bytes / 2**20:>8.1f}"
              f" {peak_rss_mb():>12.1f}", flush=True)
        print(f"journal_export: rows={rows} csv_rows_per_s={rows / csv_seconds:.0f}"
              f" xlsx_rows_per_s={rows / xlsx_seconds:.0f} peak_rss_mb={peak_rss_mb():.1f}")


if __name__ == "__main__":
    main()
