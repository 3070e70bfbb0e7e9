"""Verification of the log, and of everything derived from it.

`verify_chain` walks every event in position order and checks, for each one:
the position is the next integer (no gap, nothing deleted), prev_hash is the
previous event's hash, the stored hash equals the recomputed one (nothing
edited), and the postings sum to zero per currency. Finally the head row must
point at the last event (nothing cut off the end). The first failure is
reported with its position; later positions are not trusted once one link is
broken.

`verify_ledger` (the command's) does that and then checks what the writer
and the readers trust besides the log: every account's balance against the
sum of its postings, and every projection against a rebuild of it into a
scratch schema. Balances are guarded by triggers (migration 0004), but a
superuser with triggers off gets past any trigger; this is what names it.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from dataclasses import dataclass, replace
from typing import Any, Callable

from django.db import connection, transaction

from . import projections
from .canonical import GENESIS_HASH, dumps, event_hash, timestamp_text
from .errors import InvariantViolation
from .models import DEBIT_NORMAL_TYPES
from .rebuild import replay_log
from .store import head, iter_event_chunks

# The only schema verify ever creates or drops: `verify_scratch_<backend pid>`.
# One backend runs one verify at a time, so the name is never taken by a
# concurrent run; CREATE SCHEMA (not IF NOT EXISTS) fails rather than reuse.
SCRATCH_SCHEMA = re.compile(r"verify_scratch_[0-9]+")


@dataclass(frozen=True, slots=True)
class VerifyResult:
    ok: bool
    events: int
    head_position: int
    bad_position: int | None = None
    problem: str = ""
    # Set instead of bad_position when the log is intact but what is derived
    # from it is not: the account whose balance differs, or the projection
    # table that differs from its rebuild.
    account: str | None = None
    table: str | None = None
    # With external seals (ledger.seals): the size of the last seal the log
    # still matches, when a sealed position differs.
    last_good_seal: int | None = None
    sealed: int = 0

    def __str__(self) -> str:
        if self.ok:
            sealed = f", {self.sealed} sealed" if self.sealed else ""
            return f"verify_ledger: OK ({self.events} events{sealed})"
        if self.last_good_seal is not None or (self.sealed and self.bad_position):
            return (f"verify_ledger: FAILED at position {self.bad_position}: {self.problem}"
                    f" (last good seal: {self.last_good_seal or 'none'})")
        if self.account is not None:
            return f"verify_ledger: FAILED at account {self.account}: {self.problem}"
        if self.table is not None:
            return f"verify_ledger: FAILED in projection {self.table}: {self.problem}"
        return f"verify_ledger: FAILED at position {self.bad_position}: {self.problem}"


def verify_chain(progress: Callable[[int], None] | None = None) -> VerifyResult:
    """Recompute the hash chain over the whole log; report the first break."""
    expected_position = 1
    prev_hash = GENESIS_HASH
    count = 0
    for chunk in iter_event_chunks():
        for event in chunk:
            position = event.position
            if position != expected_position:
                return VerifyResult(False, count, position, expected_position,
                                    f"position {expected_position} is missing (next is {position})")
            if event.prev_hash != prev_hash:
                return VerifyResult(False, count, position, position,
                                    "prev_hash does not match the previous event's hash")
            recomputed = event_hash(
                prev_hash=prev_hash, position=position, stream=event.stream,
                version=event.version, type=event.type, schema_version=event.schema_version,
                payload_json=dumps(event.payload), metadata_json=dumps(event.metadata),
                idempotency_key=event.idempotency_key,
                occurred_at_text=timestamp_text(event.occurred_at),
                recorded_at_text=timestamp_text(event.recorded_at), gaming_day=event.gaming_day,
                postings=[(p.account, p.amount_minor, p.currency) for p in event.postings],
            )
            if recomputed != event.hash:
                return VerifyResult(False, count, position, position,
                                    "content does not match its hash (the event was altered)")
            totals: dict[str, int] = defaultdict(int)
            for posting in event.postings:
                totals[posting.currency] += posting.amount_minor
            if any(totals.values()):
                return VerifyResult(False, count, position, position,
                                    "postings do not sum to zero per currency")
            prev_hash = event.hash
            expected_position += 1
            count += 1
        if progress is not None:
            progress(len(chunk))
    head_position, head_hash = head()
    if head_position != count or head_hash != prev_hash:
        return VerifyResult(False, count, head_position, count + 1,
                            f"the head says position {head_position} but the log ends at {count}")
    return VerifyResult(True, count, head_position)


def verify_ledger(progress: Callable[[int], None] | None = None) -> VerifyResult:
    """Verify the chain, then every balance, then every projection.

    The chain first (L8): if it is broken, nothing derived from it is
    checked. Then each account's balance is recomputed from the postings in
    one GROUP BY and compared with `ledger_account` (L4). Then every
    registered projection is rebuilt into a scratch schema and compared with
    its live table row by row (L9). The first difference is reported: the
    position, the account (stored and recomputed balance) or the table and
    row (its key and the columns that differ).

    One snapshot serves all three (REPEATABLE READ when this call opens the
    transaction), so appends committing meanwhile neither wait nor skew the
    comparison. Nothing is written: the scratch schema is dropped and the
    transaction rolled back. Run it in a process of its own, as the command
    does: the rebuild goes through the registered projection objects, which
    a writer thread of the same process may be using at the same time.
    """
    outermost = not connection.in_atomic_block
    with transaction.atomic():
        if outermost:
            with connection.cursor() as cursor:
                cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
        # The external seals first (ledger.seals): they name the first sealed
        # position that differs even where the chain was recomputed or its
        # tail cut and the head moved back, which the chain alone cannot see.
        sealed = _verify_seals()
        if sealed is not None and not sealed.ok:
            result = VerifyResult(False, 0, head()[0], sealed.bad_position, sealed.problem,
                                  last_good_seal=sealed.last_good_seal,
                                  sealed=sealed.sealed_size)
        else:
            result = verify_chain(progress)
            if result.ok:
                result = _verify_balances(result) or _verify_projections(result) or result
            if sealed is not None:
                result = replace(result, sealed=sealed.sealed_size)
        transaction.set_rollback(True)
    return result


def _verify_seals():
    from .seals import verify_seals

    return verify_seals()


def _verify_balances(chain: VerifyResult) -> VerifyResult | None:
    """Name the first account (by code) whose balance is not its postings' sum."""
    debit_normal = ", ".join(f"'{t}'" for t in sorted(DEBIT_NORMAL_TYPES))
    natural = (f"CASE WHEN a.type IN ({debit_normal}) THEN coalesce(r.debit_minor, 0)"
               " ELSE -coalesce(r.debit_minor, 0) END")
    with connection.cursor() as cursor:
        cursor.execute(
            "WITH recomputed AS ("
            " SELECT account_id AS code, sum(amount_minor) AS debit_minor"
            " FROM ledger_posting GROUP BY account_id)"
            f" SELECT coalesce(a.code, r.code), a.balance_minor, {natural}"
            " FROM ledger_account AS a FULL JOIN recomputed AS r ON r.code = a.code"
            f" WHERE a.code IS NULL OR a.balance_minor <> {natural}"
            " ORDER BY 1 LIMIT 1"
        )
        row = cursor.fetchone()
    if row is None:
        return None
    code, stored, recomputed = row
    if stored is None:
        problem = "postings name this account but ledger_account has no row for it"
    else:
        problem = f"stored balance {stored}, recomputed from the postings {int(recomputed)}"
    return VerifyResult(False, chain.events, chain.head_position, account=code, problem=problem)


def _verify_projections(chain: VerifyResult) -> VerifyResult | None:
    """Rebuild every projection into a scratch schema; name the first difference."""
    tables = projections.projection_tables()
    quote = connection.ops.quote_name
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pg_backend_pid(), current_setting('search_path'), n.nspname"
            " FROM pg_class AS c JOIN pg_namespace AS n ON n.oid = c.relnamespace"
            " WHERE c.oid = 'ledger_event'::regclass"
        )
        backend_pid, search_path, live = cursor.fetchone()
        scratch = f"verify_scratch_{backend_pid}"
        if not SCRATCH_SCHEMA.fullmatch(scratch) or scratch == live:
            raise InvariantViolation(f"refusing {scratch!r} as verify's scratch schema")
        cursor.execute(f"CREATE SCHEMA {quote(scratch)}")
        try:
            # A savepoint: a failed comparison must leave the transaction
            # usable for the DROP below.
            with transaction.atomic():
                failure = _rebuild_into(cursor, scratch, live, tables, search_path)
                if failure is not None:
                    where, problem = failure
                    return VerifyResult(False, chain.events, chain.head_position,
                                        table=where.removeprefix("projection "),
                                        problem=problem)
                for table in tables:
                    problem = _first_row_difference(cursor, live, scratch, table)
                    if problem is not None:
                        return VerifyResult(False, chain.events, chain.head_position,
                                            table=table, problem=problem)
        finally:
            if SCRATCH_SCHEMA.fullmatch(scratch):
                cursor.execute(f"DROP SCHEMA IF EXISTS {quote(scratch)} CASCADE")
    return None


def _rebuild_into(cursor, scratch: str, live: str, tables: list[str],
                  search_path: str) -> tuple[str, str] | None:
    """Create the projection tables in `scratch` and replay the log into them.

    The search_path puts the scratch schema first, so every projection's
    reset and replay (ORM or SQL, unqualified names) lands there, while the
    log and every table that is not a projection are read from the live
    schema. Copies take the columns, defaults, CHECKs and indexes (ON
    CONFLICT needs the unique ones), never triggers or foreign keys. Returns
    (what, why) if the rebuild itself fails, as it does when a live balance
    has paid out money the postings never held.
    """
    quote = connection.ops.quote_name
    try:
        with transaction.atomic():
            cursor.execute("SELECT set_config('search_path', %s, true)",
                           [f"{quote(scratch)}, {quote(live)}"])
            for table in tables:
                cursor.execute(f"CREATE TABLE {quote(scratch)}.{quote(table)}"
                               f" (LIKE {quote(live)}.{quote(table)} INCLUDING ALL)")
            replay_log()
            cursor.execute("SELECT set_config('search_path', %s, true)", [search_path])
    except Exception as error:  # noqa: BLE001 - a rebuild that fails is the finding
        reason = str(error).splitlines()[0] if str(error) else type(error).__name__
        where = next((note for note in getattr(error, "__notes__", ())
                      if note.startswith("projection ")), "the rebuild")
        return where, f"cannot be rebuilt from the log: {type(error).__name__}: {reason}"
    return None


def _first_row_difference(cursor, live: str, scratch: str, table: str) -> str | None:
    """Compare one table with its rebuild; describe the first differing row."""
    quote = connection.ops.quote_name
    live_table = f"{quote(live)}.{quote(table)}"
    scratch_table = f"{quote(scratch)}.{quote(table)}"
    cursor.execute(
        "SELECT a.attname FROM pg_index AS i"
        " JOIN pg_attribute AS a ON a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey)"
        " WHERE i.indrelid = %s::regclass AND i.indisprimary"
        " ORDER BY array_position(i.indkey::int2[], a.attnum)",
        [live_table],
    )
    key = [row[0] for row in cursor.fetchall()]
    if not key:  # every projection has a primary key; without one, the whole row
        cursor.execute(
            "SELECT attname FROM pg_attribute WHERE attrelid = %s::regclass"
            " AND attnum > 0 AND NOT attisdropped ORDER BY attnum",
            [live_table],
        )
        key = [row[0] for row in cursor.fetchall()]
    key_sql = ", ".join(quote(column) for column in key)
    cursor.execute(
        f"WITH first_key AS (SELECT {key_sql} FROM ("
        f" (SELECT * FROM {live_table} EXCEPT SELECT * FROM {scratch_table})"
        f" UNION ALL (SELECT * FROM {scratch_table} EXCEPT SELECT * FROM {live_table})"
        f" ) AS differing ORDER BY {key_sql} LIMIT 1)"
        f" SELECT 'live', to_json(l) FROM {live_table} AS l JOIN first_key USING ({key_sql})"
        f" UNION ALL"
        f" SELECT 'rebuilt', to_json(r) FROM {scratch_table} AS r"
        f" JOIN first_key USING ({key_sql})"
    )
    rows: dict[str, dict[str, Any]] = {
        side: json.loads(row) if isinstance(row, str) else row for side, row in cursor.fetchall()
    }
    if not rows:
        return None
    some_row = rows.get("live") or rows["rebuilt"]
    where = ", ".join(f"{column}={some_row[column]!r}" for column in key)
    if "rebuilt" not in rows:
        return f"row {where} is in the live table but not in the rebuild"
    if "live" not in rows:
        return f"row {where} is in the rebuild but not in the live table"
    live_row, rebuilt_row = rows["live"], rows["rebuilt"]
    changed = [column for column in live_row if live_row[column] != rebuilt_row[column]]
    return f"row {where} differs: " + "; ".join(
        f"{column} live {live_row[column]!r}, rebuilt {rebuilt_row[column]!r}"
        for column in changed
    )
