"""Every posting filed under its event's gaming day, then the day NOT NULL (issue 19, point 5).

Migration 0009 partitioned `ledger_posting` by month of `gaming_day` and
copied the postings it found with their event's day; the writer files each
new posting under its event's day. Postings written between the two (a
database upgraded from a release before the writer did so) carry NULL: they
sit in the DEFAULT partition, and readers fall back to the event's day
(`casino/reports/close.py`). This migration gives each of them its event's
day, moves it into its month's partition, and makes the column NOT NULL on
the table and in Django's state, so no reader needs the fallback again.

Why the chain still verifies: a posting's `gaming_day` is not part of the
event hash. The canonical form (`ledger.canonical.canonical_event`) holds
the event's own `gaming_day` and each posting as (account, amount,
currency) in index order; the posting's day, id and partition are not in
it. The rows moved keep every other column as it was (id, event, index,
book, account, amount, currency), so the events' hashes, the postings'
sums (L3) and the balances (L4) are those of before.

How the rows move, and what still refuses every other change:

* A posting is never UPDATEd: `ledger_posting_append_only` (0002) refuses
  UPDATE, DELETE and TRUNCATE on the parent for every role, with no switch,
  and it stays so. An UPDATE of the partition key would also be a DELETE
  from DEFAULT plus an INSERT through the parent's insert triggers, which
  would count each moved posting into its account's balance a second time.
* Instead each batch names the partitions, as `ledger_ensure_partitions`
  (0009) does when it moves a month out of DEFAULT: one statement DELETEs
  the batch's NULL rows of one month from `ledger_posting_default` and
  INSERTs them, with their event's day, into that month's partition.
  Statement triggers of the parent do not fire for a statement naming a
  partition; each partition's `ledger_partition_guard` admits it only while
  `ledger.partitioning` is on in this transaction AND the current user is
  (a member of) the table's owner. The setting is local to the batch's
  transaction (set_config(..., true)) and switched off again at once; the
  runtime role setting it too is still refused (the guard checks the role).
  No trigger is dropped or disabled.
* A month without a partition gets one from `ledger_ensure_partitions`
  itself (the same function `manage.py ledger_partitions ensure` runs), so
  the partitions are named, guarded and filled as every other month's.
* Batches of at most BATCH_POSTINGS_MAX postings, lowest ids first, each in
  its own transaction (the migration is not atomic): a large DEFAULT
  partition is never one giant statement or one long lock, and a stopped
  run resumes where it stopped. A posting whose event is not in
  `ledger_event` (its month was detached while it sat in DEFAULT) cannot
  learn its day here: the migration stops, naming it, before moving any.
* NOT NULL without a long exclusive lock: a `CHECK (gaming_day IS NOT
  NULL) NOT VALID` on every partition first (DEFAULT's before the backfill,
  so no NULL slips in while it runs), validated after it (a scan that lets
  appends go on), then `SET NOT NULL` on the parent, which PostgreSQL
  proves from those checks without scanning again; then the checks go.
* Idempotent: on a column NOT NULL already it returns at once; with no
  NULL left (a stopped run), the batches find nothing and the checks and
  SET NOT NULL complete.

With NOT NULL, a posting with no day is refused by PostgreSQL (SQLSTATE
23502) before any trigger. `ledger_posting_day_matches` (0009) keeps
refusing a posting filed under a day other than its event's, and now
leaves a posting whose event does not exist to `ledger_postings_inserted`
(0002), which says so: every posting names a day now, and the day check,
firing first (triggers fire in name order), would otherwise report a
missing event as a wrong day.

Reversing drops NOT NULL only: the days filled in stay (they are right).
"""

from __future__ import annotations

from datetime import date

from django.db import migrations, models, transaction

BATCH_POSTINGS_MAX = 10_000
CHECK_NAME = "ledger_posting_gaming_day_filled"


def _partitions(cursor) -> list[str]:
    """Return the posting table's partitions (schema-qualified, quoted)."""
    cursor.execute("SELECT inhrelid::regclass::text FROM pg_inherits"
                   " WHERE inhparent = 'ledger_posting'::regclass ORDER BY 1")
    return [row[0] for row in cursor.fetchall()]


def _columns(cursor) -> list[str]:
    """Return the posting columns but gaming_day, in table order (quoted)."""
    cursor.execute("SELECT quote_ident(attname) FROM pg_attribute"
                   " WHERE attrelid = 'ledger_posting'::regclass AND attnum > 0"
                   " AND NOT attisdropped AND attname <> 'gaming_day' ORDER BY attnum")
    return [row[0] for row in cursor.fetchall()]


def _check_not_valid(cursor, partition: str) -> None:
    cursor.execute("SELECT 1 FROM pg_constraint WHERE conrelid = %s::regclass"
                   " AND conname = %s", [partition, CHECK_NAME])
    if cursor.fetchone() is None:
        cursor.execute(f"ALTER TABLE {partition} ADD CONSTRAINT {CHECK_NAME}"
                       " CHECK (gaming_day IS NOT NULL) NOT VALID")


def _refuse_orphans(cursor) -> None:
    """Stop before any move if a NULL posting's event is not in the log."""
    cursor.execute(
        "SELECT count(*), min(p.event_id), max(p.event_id) FROM ledger_posting_default AS p"
        " WHERE p.gaming_day IS NULL AND NOT EXISTS"
        " (SELECT 1 FROM ledger_event AS e WHERE e.position = p.event_id)")
    orphans, first, last = cursor.fetchone()
    if orphans:
        raise RuntimeError(
            f"ledger: {orphans} postings with no gaming day belong to events not in"
            f" ledger_event (positions {first} to {last}): their month was detached"
            " while they sat in DEFAULT. Restore that month (reattach its event and"
            " posting tables) and migrate again.")


def _month_bounds(day: date) -> tuple[date, date]:
    first = day.replace(day=1)
    index = first.year * 12 + first.month  # the next month, 0-based months
    return first, date(index // 12, index % 12 + 1, 1)


def _move_batch(cursor, columns: list[str]) -> int:
    """Move one batch of NULL postings into their months; return how many moved."""
    # The batch's rows are locked here, so the days read are the ones moved
    # (an event's day never changes: the log is append-only).
    cursor.execute(
        "SELECT p.id, e.gaming_day FROM ledger_posting_default AS p"
        " JOIN ledger_event AS e ON e.position = p.event_id"
        " WHERE p.gaming_day IS NULL ORDER BY p.id LIMIT %s FOR UPDATE OF p",
        [BATCH_POSTINGS_MAX])
    rows = cursor.fetchall()
    if not rows:
        return 0
    by_month: dict[tuple[date, date], list[tuple[int, date]]] = {}
    for posting, day in rows:
        by_month.setdefault(_month_bounds(day), []).append((posting, day))
    names = ", ".join(columns)
    moved_columns = ", ".join(f"p.{column}" for column in columns)
    moved = 0
    for (first, after), postings in sorted(by_month.items()):
        # Creates the month's partitions of both tables if missing (moving
        # that month's dated rows out of DEFAULT, as ensure always does).
        cursor.execute("SELECT ledger_ensure_partitions(%s, %s)", [first, first])
        cursor.fetchall()
        cursor.execute(
            "SELECT c.oid::regclass::text FROM pg_inherits AS i JOIN pg_class AS c"
            " ON c.oid = i.inhrelid WHERE i.inhparent = 'ledger_posting'::regclass"
            " AND pg_get_expr(c.relpartbound, c.oid) = format("
            "'FOR VALUES FROM (%%L) TO (%%L)', %s::date, %s::date)", [first, after])
        found = cursor.fetchone()
        if found is None:
            raise RuntimeError(f"ledger: no partition of ledger_posting holds {first:%Y-%m}"
                               " alone; ledger_ensure_partitions made none")
        partition = found[0]
        # Every new partition's rows are checked too (ensure made it plain).
        _check_not_valid(cursor, partition)
        cursor.execute("SELECT set_config('ledger.partitioning', 'on', true)")
        cursor.execute(
            "WITH moved AS (DELETE FROM ledger_posting_default AS p"
            " USING unnest(%s::bigint[], %s::date[]) AS b(id, day)"
            " WHERE p.id = b.id AND p.gaming_day IS NULL"
            f" RETURNING {moved_columns}, b.day)"
            f" INSERT INTO {partition} ({names}, gaming_day) SELECT {names}, day FROM moved",
            [[posting for posting, _ in postings], [day for _, day in postings]])
        moved += cursor.rowcount
        cursor.execute("SELECT set_config('ledger.partitioning', '', true)")
    if moved != len(rows):
        raise RuntimeError(f"ledger: moved {moved} of {len(rows)} postings; the DEFAULT"
                           " partition changed under the migration")
    return moved


def backfill(connection) -> int:
    """Fill, move and constrain the NULL posting days on `connection`; return how many.

    Each batch commits on its own unless the caller's transaction is open
    (then each is a savepoint of it).
    """
    alias = connection.alias
    with connection.cursor() as cursor:
        cursor.execute("SELECT attnotnull FROM pg_attribute WHERE attname = 'gaming_day'"
                       " AND attrelid = 'ledger_posting'::regclass")
        if cursor.fetchone()[0]:
            return 0  # done before: no NULL can be there, nothing to scan
    with transaction.atomic(using=alias), connection.cursor() as cursor:
        _refuse_orphans(cursor)
        for partition in _partitions(cursor):
            _check_not_valid(cursor, partition)
        columns = _columns(cursor)
    total = 0
    while True:
        with transaction.atomic(using=alias), connection.cursor() as cursor:
            moved = _move_batch(cursor, columns)
        if not moved:
            break
        total += moved
    with connection.cursor() as cursor:
        partitions = _partitions(cursor)
    for partition in partitions:
        # VALIDATE takes SHARE UPDATE EXCLUSIVE: appends go on meanwhile.
        with transaction.atomic(using=alias), connection.cursor() as cursor:
            _check_not_valid(cursor, partition)
            cursor.execute(f"ALTER TABLE {partition} VALIDATE CONSTRAINT {CHECK_NAME}")
    with transaction.atomic(using=alias), connection.cursor() as cursor:
        cursor.execute("ALTER TABLE ledger_posting ALTER COLUMN gaming_day SET NOT NULL")
        for partition in partitions:
            cursor.execute(f"ALTER TABLE {partition} DROP CONSTRAINT {CHECK_NAME}")
    return total


# With NOT NULL a posting always names a day, so the day check would refuse
# a posting of a missing event as "another gaming day" before the posting
# trigger could say what is wrong (triggers fire in name order). It now
# judges postings whose event exists; a missing event is
# `ledger_postings_inserted`'s to refuse (0002), as before. CASE keeps the
# second lookup off the append path: it runs only for a posting that
# already failed the first. One DO statement, so the function is never
# without its pinned search_path (0009) and plan setting (0011).
_DAY_MATCHES = r"""
DO $do$
BEGIN
    EXECUTE format($f$
CREATE OR REPLACE FUNCTION ledger_posting_day_matches() RETURNS trigger
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path = pg_catalog, %I, pg_temp SET enable_seqscan = off AS $$
BEGIN
    IF EXISTS (
        SELECT 1 FROM new_postings AS p
        WHERE <filed> CASE WHEN EXISTS (SELECT 1 FROM ledger_event AS e
                                        WHERE e.position = p.event_id
                                          AND e.gaming_day = p.gaming_day) THEN false
                           ELSE <otherwise> END
    ) THEN
        RAISE EXCEPTION 'ledger: a posting is filed under another gaming day than its event';
    END IF;
    RETURN NULL;
END;
$$$f$, current_schema());
END;
$do$;
"""
DAY_MATCHES = _DAY_MATCHES.replace("<filed> ", "").replace(
    "<otherwise>", "EXISTS (SELECT 1 FROM ledger_event AS e WHERE e.position = p.event_id)")
# 0009's: a posting with no day passed, any other not matching was refused.
DAY_MATCHES_BEFORE = _DAY_MATCHES.replace("<filed>", "p.gaming_day IS NOT NULL AND").replace(
    "<otherwise>", "true")


def forward(apps, schema_editor) -> None:
    backfill(schema_editor.connection)


def backward(apps, schema_editor) -> None:
    with schema_editor.connection.cursor() as cursor:
        cursor.execute("ALTER TABLE ledger_posting ALTER COLUMN gaming_day DROP NOT NULL")


class Migration(migrations.Migration):
    dependencies = [("ledger", "0011_trigger_plans_use_indexes")]

    # Each batch commits on its own (see the module docstring).
    atomic = False

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[
                migrations.RunPython(forward, backward, elidable=False),
                migrations.RunSQL(DAY_MATCHES, DAY_MATCHES_BEFORE),
            ],
            state_operations=[
                migrations.AlterField("posting", "gaming_day", models.DateField()),
            ],
        ),
    ]
