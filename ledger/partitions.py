"""Monthly partitions of the log: ensure, list, detach, verify what is kept.

`ledger_event` and `ledger_posting` are partitioned by month of
`gaming_day` (migration 0009 says why that key), with a DEFAULT partition
so that an insert never fails for want of a month. This module is the
owner's side of it (`manage.py ledger_partitions`):

* `ensure_partitions(first_day, last_day)` runs the SQL function
  `ledger_ensure_partitions`, which creates the missing months (moving a
  month's rows out of DEFAULT if they landed there first).
* `detach_before(month)` is the archival path after the retention period:
  every month partition before `month` is DETACHed from both tables and
  stays behind as a plain table, append-only still (its own triggers), for
  the operator to dump and drop. What left is recorded, append-only, for
  each book: the positions and the hash of the last archived event
  (`ledger_archived_range`), each account's archived postings
  (`ledger_archived_balance`), each stream's newest archived version
  (`ledger_archived_stream`). A month is detached only if, in every book,
  the archived events are one run of positions from the start of the book
  (or from the previous archive) and nothing kept comes before them:
  otherwise the chain would have a hole, and the detach is refused.
* `verify_retained()` checks each book's chain from its first kept event,
  trusting the archived head hash recorded at detach time, and every
  account's balance as the archived sum plus the kept postings.

pg_partman would do ensure and detach by schedule (`run_maintenance`, its
premake and retention settings); it is not installable into the embedded
PostgreSQL 16 (pgserver) the suite runs on, so these few functions stand in
for it. What it would not do is the ledger's part: refuse a detach that cuts
a chain and record the archived head.

Every function takes the Django database alias (`using`), so a book placed
on another server has its partitions kept there.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date

from django.db import DEFAULT_DB_ALIAS, connections, transaction

from .books import base_position
from .canonical import GENESIS_HASH
from .errors import InvariantViolation
from .models import DEBIT_NORMAL_TYPES

PARENTS = ("ledger_event", "ledger_posting")
MONTHS_AHEAD_MAX = 120
_MONTH_NAME = re.compile(r"^(ledger_event|ledger_posting)_(\d{4})_(\d{2})$")


class PartitionError(Exception):
    """An archival step the ledger refuses; the message says why and what to do."""


@dataclass(frozen=True, slots=True)
class Partition:
    parent: str
    name: str
    month: date | None  # None: the DEFAULT partition
    rows: int


@dataclass(frozen=True, slots=True)
class ArchivedRange:
    book: int
    month: date
    first_position: int
    last_position: int
    last_hash: str
    events: int
    archived_as: str


@dataclass(frozen=True, slots=True)
class RetainedResult:
    ok: bool
    problem: str = ""
    book: int | None = None
    bad_position: int | None = None
    account: str | None = None
    # Per book: the position the chain check started after (the book's
    # base when nothing is archived). `events`: the kept events it read.
    started_after: dict[int, int] | None = None
    events: int = 0


def month_start(day: date) -> date:
    """Return the first day of `day`'s month (a partition's lower bound)."""
    return day.replace(day=1)


def add_months(month: date, months: int) -> date:
    """Return the first day of the month `months` after `month`'s."""
    index = month.year * 12 + month.month - 1 + months
    return date(index // 12, index % 12 + 1, 1)


def parse_month(text: str) -> date:
    """Return the first day of a `YYYY-MM` month; ValueError if it is not one."""
    match = re.fullmatch(r"(\d{4})-(\d{2})", text)
    if match is None or not 1 <= int(match[2]) <= 12:
        raise ValueError(f"{text!r} is not a month (YYYY-MM)")
    return date(int(match[1]), int(match[2]), 1)


def ensure_partitions(first_day: date, last_day: date, *,
                      using: str = DEFAULT_DB_ALIAS) -> list[str]:
    """Create the month partitions from `first_day`'s month to `last_day`'s.

    Returns the partitions created (those that existed are left alone). The
    owner only: the SQL function is not granted to anyone else.
    """
    with connections[using].cursor() as cursor:
        cursor.execute("SELECT ledger_ensure_partitions(%s, %s)", [first_day, last_day])
        return [row[0] for row in cursor.fetchall()]


def ensure_months(months: int, *, using: str = DEFAULT_DB_ALIAS) -> list[str]:
    """Create this month's partitions and the next `months` months'.

    "This month" is the database's current date. Run it ahead of each
    month (from a monthly owner's cron job: the runtime role, which the
    Celery workers use, may not create tables): a gaming day of a month
    without its partition still lands in DEFAULT, and the next ensure moves
    it out.
    """
    if not 0 <= months <= MONTHS_AHEAD_MAX:
        raise ValueError(f"months must be 0..{MONTHS_AHEAD_MAX}")
    with connections[using].cursor() as cursor:
        cursor.execute("SELECT current_date")
        today = cursor.fetchone()[0]
    first = month_start(today)
    return ensure_partitions(first, add_months(first, months), using=using)


def list_partitions(*, using: str = DEFAULT_DB_ALIAS) -> list[Partition]:
    """Return the partitions of both tables with their row counts, by month."""
    with connections[using].cursor() as cursor:
        cursor.execute(
            "SELECT p.relname, c.relname, pg_get_expr(c.relpartbound, c.oid) = 'DEFAULT'"
            " FROM pg_inherits AS i JOIN pg_class AS c ON c.oid = i.inhrelid"
            " JOIN pg_class AS p ON p.oid = i.inhparent"
            " WHERE p.relname = ANY(%s) AND p.relnamespace = c.relnamespace"
            " AND p.relnamespace = to_regnamespace(current_schema())::oid"
            " ORDER BY 1, 2",
            [list(PARENTS)],
        )
        found = cursor.fetchall()
        partitions = []
        for parent, name, is_default in found:
            cursor.execute(f'SELECT count(*) FROM "{name}"')
            rows = cursor.fetchone()[0]
            partitions.append(Partition(parent, name, None if is_default else _month_of(name),
                                        rows))
    return partitions


def _month_of(name: str) -> date:
    match = _MONTH_NAME.match(name)
    if match is None:
        raise InvariantViolation(f"partition {name} is not named <table>_YYYY_MM")
    return date(int(match[2]), int(match[3]), 1)


def archived_heads(*, using: str = DEFAULT_DB_ALIAS) -> dict[int, tuple[int, str]]:
    """Return each book's last archived position and its hash (books with an archive)."""
    with connections[using].cursor() as cursor:
        cursor.execute(
            "SELECT DISTINCT ON (book) book, last_position, last_hash"
            " FROM ledger_archived_range ORDER BY book, last_position DESC"
        )
        return {book: (position, hash_) for book, position, hash_ in cursor.fetchall()}


def archived_ranges(*, using: str = DEFAULT_DB_ALIAS) -> list[ArchivedRange]:
    with connections[using].cursor() as cursor:
        cursor.execute(
            "SELECT book, month, first_position, last_position, last_hash, events, archived_as"
            " FROM ledger_archived_range ORDER BY book, month"
        )
        return [ArchivedRange(*row) for row in cursor.fetchall()]


def detach_before(month: date, *, using: str = DEFAULT_DB_ALIAS) -> list[ArchivedRange]:
    """Detach every month partition before `month` from both tables; record it.

    One transaction: the checks, the DETACHes and the archive rows commit
    together or not at all. Refuses (PartitionError, nothing changed):
    rows before `month` still in a DEFAULT partition (run ensure for their
    months first, which moves them into partitions of their own), and a
    book whose archived events would not be one run of positions ahead of
    everything kept. The detached tables keep their names and their
    append-only triggers; dump them, then drop them.
    """
    cutoff = month_start(month)
    database = connections[using]
    with transaction.atomic(using=using), database.cursor() as cursor:
        # The archive tables and the partitions admit the owner's writes
        # only while this is on. It is switched off again before returning
        # (the caller's transaction may go on); a failure rolls the
        # savepoint back, and the setting with it.
        cursor.execute("SELECT set_config('ledger.partitioning', 'on', true)")
        ranges = _detach(cursor, cutoff, using)
        cursor.execute("SELECT set_config('ledger.partitioning', '', true)")
        return ranges


def _detach(cursor, cutoff: date, using: str) -> list[ArchivedRange]:
    # Appends wait from here to the commit: the checks below must see
    # the log the DETACH takes.
    cursor.execute("LOCK TABLE ledger_event, ledger_posting IN ACCESS EXCLUSIVE MODE")
    detached = [p for p in list_partitions(using=using)
                if p.month is not None and p.month < cutoff]
    for parent in PARENTS:
        cursor.execute(f"SELECT count(*) FROM {parent}_default WHERE gaming_day < %s",
                       [cutoff])
        early = cursor.fetchone()[0]
        if early:
            raise PartitionError(
                f"{parent}_default holds {early} rows of days before {cutoff:%Y-%m}:"
                " ensure their months' partitions first, then detach")
    events = [p for p in detached if p.parent == "ledger_event"]
    if not events:
        return []
    ranges = _archived_ranges_of(cursor, events)
    starts = archived_heads(using=using)
    for book in sorted({r.book for r in ranges}):
        _check_one_run(cursor, book, [r for r in ranges if r.book == book],
                       starts.get(book, (base_position(book), GENESIS_HASH))[0])
    for partition in events:
        _archive_postings_and_streams(cursor, partition)
    for partition in detached:
        cursor.execute(f'ALTER TABLE {partition.parent} DETACH PARTITION "{partition.name}"')
    for book in sorted({r.book for r in ranges}):
        last = max(r.last_position for r in ranges if r.book == book)
        cursor.execute("SELECT 1 FROM ledger_event WHERE position > %s AND position <= %s"
                       " LIMIT 1", [base_position(book), last])
        if cursor.fetchone() is not None:
            raise PartitionError(
                f"book {book}: an event kept (a later month's, or DEFAULT's) comes before"
                f" archived position {last}; the chain would have a hole")
    for r in ranges:
        cursor.execute(
            "INSERT INTO ledger_archived_range (book, month, first_position, last_position,"
            " last_hash, events, archived_as) VALUES (%s, %s, %s, %s, %s, %s, %s)",
            [r.book, r.month, r.first_position, r.last_position, r.last_hash, r.events,
             r.archived_as])
    return ranges


def _archived_ranges_of(cursor, events: list[Partition]) -> list[ArchivedRange]:
    ranges = []
    for partition in events:
        cursor.execute(
            f'SELECT book, min(position), max(position), count(*) FROM "{partition.name}"'
            " GROUP BY book ORDER BY book"
        )
        for book, first, last, count in cursor.fetchall():
            cursor.execute(f'SELECT hash FROM "{partition.name}" WHERE position = %s', [last])
            ranges.append(ArchivedRange(book, partition.month, first, last,
                                        cursor.fetchone()[0], count, partition.name))
    return ranges


def _check_one_run(cursor, book: int, ranges: list[ArchivedRange], after: int) -> None:
    """Refuse unless the book's archived events are positions after+1 .. last, all."""
    first = min(r.first_position for r in ranges)
    last = max(r.last_position for r in ranges)
    count = sum(r.events for r in ranges)
    if first != after + 1 or count != last - after:
        raise PartitionError(
            f"book {book}: the months to archive hold {count} events from position {first}"
            f" to {last}, not every position after {after}; an event of a kept month sits"
            " among them, so the chain cannot start after them")


def _archive_postings_and_streams(cursor, events: Partition) -> None:
    postings = events.name.replace("ledger_event_", "ledger_posting_", 1)
    cursor.execute(
        "INSERT INTO ledger_archived_balance (book, month, account_id, currency, debit_minor,"
        f' postings) SELECT book, %s, account_id, currency, sum(amount_minor), count(*)'
        f' FROM "{postings}" GROUP BY book, account_id, currency',
        [events.month])
    cursor.execute(
        "INSERT INTO ledger_archived_stream (book, month, stream, version)"
        f' SELECT min(book), %s, stream, max(version) FROM "{events.name}" GROUP BY stream',
        [events.month])


def verify_retained(*, using: str = DEFAULT_DB_ALIAS) -> RetainedResult:
    """Verify each book's kept chain and every balance, given what was archived.

    The chain of each book starts after its last archived event, from the
    hash recorded at detach time (ledger_archived_range); without an
    archive, from the book's first position. Balances: each account's
    stored balance must be its archived postings' sum plus its kept ones.
    Projections other than the balances are not compared: a rebuild would
    need the archived events (restore the dump to rebuild them).
    """
    from .verify import verify_chain

    with connections[using].cursor() as cursor:
        cursor.execute("SELECT id FROM ledger_head ORDER BY id")
        books = [row[0] for row in cursor.fetchall()]
    starts = archived_heads(using=using)
    started_after = {}
    events = 0
    for book in books:
        after, prev_hash = starts.get(book, (base_position(book), GENESIS_HASH))
        started_after[book] = after
        # verify_chain reads the default database unless told (the lead's
        # placement adds `using`); pass it only when it is another.
        on = {} if using == DEFAULT_DB_ALIAS else {"using": using}
        result = verify_chain(book=book, after=after, prev_hash=prev_hash, **on)
        if not result.ok:
            return RetainedResult(False, result.problem, book, result.bad_position,
                                  started_after=started_after)
        events += result.read
    debit_normal = ", ".join(f"'{t}'" for t in sorted(DEBIT_NORMAL_TYPES))
    natural = (f"CASE WHEN a.type IN ({debit_normal}) THEN coalesce(r.debit_minor, 0)"
               " ELSE -coalesce(r.debit_minor, 0) END")
    with connections[using].cursor() as cursor:
        cursor.execute(
            "WITH recomputed AS (SELECT account_id, sum(debit_minor) AS debit_minor FROM ("
            " SELECT account_id, amount_minor AS debit_minor FROM ledger_posting"
            " UNION ALL SELECT account_id, debit_minor FROM ledger_archived_balance) AS p"
            " GROUP BY account_id)"
            f" SELECT coalesce(a.code, r.account_id), a.balance_minor, {natural}"
            " FROM ledger_account AS a FULL JOIN recomputed AS r ON r.account_id = a.code"
            f" WHERE a.code IS NULL OR a.balance_minor <> {natural} ORDER BY 1 LIMIT 1"
        )
        row = cursor.fetchone()
    if row is not None:
        code, stored, recomputed = row
        return RetainedResult(False, f"stored balance {stored}, recomputed {recomputed}",
                              account=code, started_after=started_after, events=events)
    return RetainedResult(True, started_after=started_after, events=events)
