"""Time the daily jackpot roll-up over many contributions.

Runs against a throwaway database on the configured PostgreSQL (the embedded
one by default), created and dropped by casino/throwaway.py. The contributions are real ledger
events appended through `ledger.append` (the legal path: hash chain, posting
triggers, projections), BATCH_EVENTS per append, each a EUR 1 drop
posted to `jackpot/poker-helsinki/bad_beat/pending` on one gaming day. The
roll-up is then timed: one aggregate SQL statement over that day's postings
and one append (casino.jackpots.commands.rollup_day), then its rerun (a
replay that posts nothing) and a chain verification are reported.

    python benchmarks/jackpot_rollup.py [--contributions N]

Prints figures, then one line:
jackpot_rollup: contributions=<n> rollup_s=<s> rerun_s=<s> insert_events_per_s=<n>
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import sys
import time
from pathlib import Path
from zoneinfo import ZoneInfo

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "casino.settings")

import django  # noqa: E402

django.setup()

from django.db import connection  # noqa: E402

from casino import throwaway  # noqa: E402

from casino.jackpots.accounts import pending_account, pool_account  # noqa: E402
from casino.jackpots.commands import ROLLUP_SQL, ensure_pool, rollup_day  # noqa: E402
from casino.jackpots.events import CONTRIBUTIONS_ROLLED_UP  # noqa: E402
from casino.rules.commands import load_shipped_rulebooks, register_venue  # noqa: E402
from ledger import NewEvent, Posting, append, open_account  # noqa: E402
from ledger.models import Account  # noqa: E402

VENUE = "poker-helsinki"
DAY = dt.date(2026, 6, 15)
HELSINKI = ZoneInfo("Europe/Helsinki")
STREAMS = 1_000   # contributions spread over this many hand streams
# Measured on the embedded PostgreSQL: 100 events per append insert about
# 4,200 events/s, 1,000 about 3,200 and 5,000 about 1,200 (the insert
# statement's time grows faster than its rows), so the set-up uses small
# batches; only the roll-up itself is the figure of interest.
BATCH_EVENTS = 100


def insert(count: int) -> float:
    """Append `count` EUR 1 drops on DAY; return events per second."""
    source, pending = f"bench/{VENUE}/tables", pending_account(VENUE, "bad_beat")
    # The pool's book (the venue's own, casino.books): the drops go there.
    book = Account.objects.get(code=pending).book
    open_account(code=source, type="asset", currency="EUR", name="bench tables", book=book)
    began = time.perf_counter()
    done = 0
    while done < count:
        batch = min(BATCH_EVENTS, count - done)
        append([NewEvent(stream=f"bench/hand/{(done + i) % STREAMS}",
                         type="bench.hand_settled", payload={"drop_minor": 100},
                         postings=(Posting(source, 100, "EUR"), Posting(pending, -100, "EUR")),
                         gaming_day=DAY) for i in range(batch)], book=book)
        done += batch
        if done % 100_000 == 0 or done == count:
            print(f"  {done:>9,} contributions appended", flush=True)
    return count / (time.perf_counter() - began)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--contributions", type=int, default=1_000_000)
    throwaway.add_arguments(parser)
    args = parser.parse_args()
    if args.smoke:
        args.contributions = 1_000

    with throwaway.throwaway_database("jackpotrollup", disposable_server=args.disposable_server):
        load_shipped_rulebooks()
        register_venue(code=VENUE, name=VENUE, rulebook_id="veikkaus-poker-room")
        ensure_pool(venue=VENUE, at=dt.datetime.combine(DAY, dt.time(12), tzinfo=HELSINKI))
        insert_rate = insert(args.contributions)
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE ledger_posting")
            cursor.execute("ANALYZE ledger_event")
            cursor.execute("EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) " + ROLLUP_SQL,
                           [pending_account(VENUE, "bad_beat"), DAY, CONTRIBUTIONS_ROLLED_UP])
            plan = "\n".join(row[0] for row in cursor.fetchall())
        now = dt.datetime.combine(DAY + dt.timedelta(days=1), dt.time(7), tzinfo=HELSINKI)
        began = time.perf_counter()
        result = rollup_day(venue=VENUE, gaming_day=DAY, now=now)
        rollup_s = time.perf_counter() - began
        began = time.perf_counter()
        again = rollup_day(venue=VENUE, gaming_day=DAY, now=now)
        rerun_s = time.perf_counter() - began
        pool = Account.objects.get(code=pool_account(VENUE, "bad_beat")).balance_minor
        assert result.contributions == args.contributions, result
        assert result.amount_minor == pool == 100 * args.contributions, (result, pool)
        assert again.replayed and again.position == result.position
        print(f"plan of the roll-up's aggregate (EXPLAIN ANALYZE, before the timed run):\n{plan}")
        print(f"contributions appended      {args.contributions:>12,}"
              f"   ({insert_rate:,.0f} events/s)")
        print(f"roll-up (sum + one append)  {rollup_s:>12.3f} s"
              f"   pool EUR {pool // 100:,}, {result.contributions:,} contributions")
        print(f"rerun (replay, no posting)  {rerun_s:>12.3f} s")
        print(f"jackpot_rollup: contributions={args.contributions} rollup_s={rollup_s:.3f}"
              f" rerun_s={rerun_s:.3f} insert_events_per_s={insert_rate:.0f}")


if __name__ == "__main__":
    main()
