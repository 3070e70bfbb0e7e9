"""Monthly partitions of the log (issue 19, point 5; migration 0009, ledger.partitions).

`ledger_event` and `ledger_posting` are partitioned by month of gaming day
with a DEFAULT partition. Each guarantee of the log still holds: the chain
(L2, L8) across partitions and months, L6 without the unique constraint,
L1 on every partition named directly; an old month detaches only where the
chain can start after it, and what stays verifies.

Partitions created here are created inside the test's transaction and
rolled back with it, so the suite keeps few partitions (migration 0009
creates the current month's, the next month's and DEFAULT).
"""

import datetime as dt

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import DatabaseError, IntegrityError, connection, transaction

from ledger import NewEvent, Posting, append, verify_chain
from ledger.books import base_position, open_book
from ledger.partitions import (PartitionError, archived_heads, detach_before, ensure_partitions,
                               list_partitions, parse_month, verify_retained)
from ledger.projections import ACCOUNT_OPENED

JULY = dt.date(2026, 7, 10)
AUGUST = dt.date(2026, 8, 20)
SEPTEMBER = dt.date(2026, 9, 1)


def _fails(sql: str, params=None) -> str:
    with pytest.raises(DatabaseError) as caught:
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute(sql, params)
    return str(caught.value)


def _one(sql: str, params=None):
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchone()


def _partition_of(position: int) -> str:
    return _one("SELECT tableoid::regclass::text FROM ledger_event WHERE position = %s",
                [position])[0]


def _opened(code: str, account_type: str, day: dt.date) -> NewEvent:
    """An account opening dated `day`, as ledger.open_account writes it."""
    return NewEvent(stream=f"account/{code}", type=ACCOUNT_OPENED, gaming_day=day,
                    payload={"code": code, "type": account_type, "currency": "EUR", "name": "",
                             "must_not_go_negative": False, "balance_max_minor": None})


def _moved(stream: str, amount_minor: int, day: dt.date, source: str = "vault/player",
           destination: str = "vault/cash") -> NewEvent:
    return NewEvent(stream=stream, type="test.transferred", gaming_day=day,
                    payload={"amount_minor": amount_minor},
                    postings=(Posting(destination, amount_minor, "EUR"),
                              Posting(source, -amount_minor, "EUR")))


def test_the_event_and_posting_tables_are_partitioned_by_month_of_gaming_day(db):
    """Both tables are RANGE partitions on gaming_day; the event key holds the day too."""
    rows = {name: (strategy, key) for name, strategy, key in _all(
        "SELECT c.relname, p.partstrat::text, pg_get_partkeydef(c.oid)"
        " FROM pg_partitioned_table AS p JOIN pg_class AS c ON c.oid = p.partrelid"
        " WHERE c.relname IN ('ledger_event', 'ledger_posting')")}
    assert rows == {"ledger_event": ("r", "RANGE (gaming_day)"),
                    "ledger_posting": ("r", "RANGE (gaming_day)")}
    key = _one("SELECT pg_get_constraintdef(oid) FROM pg_constraint"
               " WHERE conname = 'ledger_event_pkey'")[0]
    assert key == 'PRIMARY KEY ("position", gaming_day)'
    today = _one("SELECT date_trunc('month', current_date)::date")[0]
    names = {p.name for p in list_partitions()}
    for parent in ("ledger_event", "ledger_posting"):
        assert f"{parent}_default" in names
        assert f"{parent}_{today:%Y_%m}" in names


def test_the_migration_kept_every_index_and_trigger(db):
    """The old tables' indexes and L1-L8 triggers are on the new parents."""
    indexes = {row[0] for row in _all(
        "SELECT indexname FROM pg_indexes WHERE tablename IN ('ledger_event', 'ledger_posting')")}
    assert {"ledger_event_pkey", "ledger_event_type_pos", "ledger_event_day_pos",
            "ledger_event_stream_version", "ledger_posting_account_event",
            "ledger_posting_event_index"} <= indexes
    triggers = {row[0] for row in _all(
        "SELECT tgname FROM pg_trigger WHERE tgrelid IN"
        " ('ledger_event'::regclass, 'ledger_posting'::regclass) AND NOT tgisinternal")}
    assert triggers >= {"ledger_event_append_only", "ledger_event_appended",
                        "ledger_event_admits_versions", "ledger_posting_append_only",
                        "ledger_postings_inserted", "ledger_posting_day_matches"}


def _all(sql: str, params=None):
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchall()


def test_partitions_exist_for_the_months_ensured_and_an_old_months_event_lands_in_its_own(db):
    """ensure creates each month once; an event dated in a past month lands in that month."""
    created = ensure_partitions(JULY, AUGUST)
    assert created == ["ledger_event_2026_07", "ledger_posting_2026_07",
                       "ledger_event_2026_08", "ledger_posting_2026_08"]
    assert ensure_partitions(JULY, AUGUST) == []
    book = open_book("vault")
    append([_opened("vault/cash", "asset", JULY), _opened("vault/player", "liability", JULY)],
           book="vault")
    last = append([_moved("vault/s", 700, AUGUST)], book="vault").last_position
    first = base_position(book.id) + 1
    assert [_partition_of(p) for p in range(first, last + 1)] == [
        "ledger_event_2026_07", "ledger_event_2026_07", "ledger_event_2026_08"]
    # A posting filed under its event's day lands in that month; under
    # another day it is refused.
    _one("INSERT INTO ledger_posting (event_id, index, account_id, amount_minor, currency, book,"
         " gaming_day) VALUES (%s, 5, 'vault/cash', 3, 'EUR', %s, %s),"
         " (%s, 6, 'vault/player', -3, 'EUR', %s, %s) RETURNING 1",
         [last, book.id, AUGUST, last, book.id, AUGUST])
    assert {row[0] for row in _all("SELECT tableoid::regclass::text FROM ledger_posting"
                                   " WHERE event_id = %s AND index >= 5", [last])} == {
        "ledger_posting_2026_08"}
    assert "another gaming day" in _fails(
        "INSERT INTO ledger_posting (event_id, index, account_id, amount_minor, currency, book,"
        " gaming_day) VALUES (%s, 7, 'vault/cash', 3, 'EUR', %s, %s),"
        " (%s, 8, 'vault/player', -3, 'EUR', %s, %s)",
        [last, book.id, JULY, last, book.id, JULY])


def test_ensure_moves_a_month_out_of_default_and_the_chain_still_verifies(db):
    """An event written before its month had a partition moves there when ensured (L8 holds)."""
    book = open_book("vault")
    append([_opened("vault/cash", "asset", JULY), _opened("vault/player", "liability", JULY)],
           book="vault")
    result = append([_moved("vault/s", 700, JULY)], book="vault")
    assert _partition_of(result.last_position) == "ledger_event_default"
    assert "ledger_event_2026_07" in ensure_partitions(JULY, JULY)
    assert _partition_of(result.last_position) == "ledger_event_2026_07"
    assert _one("SELECT count(*) FROM ledger_event_default WHERE book = %s", [book.id])[0] == 0
    assert verify_chain(book=book.id).ok


def test_the_chain_verifies_across_a_month_boundary(db):
    """One book's events in July, August and the DEFAULT partition: one chain (L2, L8)."""
    ensure_partitions(JULY, AUGUST)
    book = open_book("vault")
    append([_opened("vault/cash", "asset", JULY), _opened("vault/player", "liability", JULY)],
           book="vault")
    append([_moved("vault/s", 100, JULY)], book="vault")
    append([_moved("vault/s", 200, AUGUST)], book="vault")
    append([_moved("vault/s", 300, SEPTEMBER)], book="vault")
    partitions = [_partition_of(base_position(book.id) + n) for n in (3, 4, 5)]
    assert partitions == ["ledger_event_2026_07", "ledger_event_2026_08", "ledger_event_default"]
    result = verify_chain(book=book.id)
    assert (result.ok, result.events) == (True, 5)
    # A broken link across the boundary is still found: the August event's
    # prev_hash no longer names the July event's hash.
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL session_replication_role = replica")
        cursor.execute("UPDATE ledger_event SET prev_hash = repeat('0', 64) WHERE position = %s",
                       [base_position(book.id) + 4])
        cursor.execute("SET LOCAL session_replication_role = origin")
    broken = verify_chain(book=book.id)
    assert (broken.ok, broken.bad_position) == (False, base_position(book.id) + 4)


def test_a_duplicate_or_skipped_stream_version_is_refused(db):
    """L6 without a unique constraint: versions continue the stream with no repeat or gap."""
    ensure_partitions(JULY, AUGUST)
    open_book("vault")
    append([_opened("vault/cash", "asset", JULY), _opened("vault/player", "liability", JULY)],
           book="vault")
    result = append([_moved("vault/s", 100, JULY)], book="vault")
    position, hash_ = _one("SELECT position, hash FROM ledger_head WHERE key = 'vault'")
    row = ("INSERT INTO ledger_event (position, book, stream, version, type, schema_version,"
           " payload, metadata, occurred_at, recorded_at, gaming_day, prev_hash, hash)"
           " VALUES (%s, %s, 'vault/s', %s, 't', 1, '{}', '{}', now(), now(), %s, %s, 'h')")
    book = position // (1 << 40) + 1
    # version 1 again, in another month's partition (the old unique
    # constraint would not see it there any more).
    with pytest.raises(IntegrityError, match="do not continue its version 1"):
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute(row, [position + 1, book, 1, AUGUST, hash_])
    assert "do not continue its version 1" in _fails(row, [position + 1, book, 3, AUGUST, hash_])
    with connection.cursor() as cursor:
        cursor.execute(row, [position + 1, book, 2, AUGUST, hash_])
    assert _one("SELECT version FROM ledger_stream WHERE name = 'vault/s'")[0] == 2
    assert result.last_position == position


@pytest.mark.parametrize("statement", [
    "UPDATE {p} SET book = book WHERE false",
    "DELETE FROM {p}",
    "TRUNCATE {p}",
    "INSERT INTO {p} SELECT * FROM {p} WHERE false",
], ids=["update", "delete", "truncate", "insert"])
@pytest.mark.parametrize("partition", ["ledger_event_default", "ledger_event_2026_07",
                                       "ledger_posting_default", "ledger_posting_2026_07"])
def test_a_statement_naming_a_partition_is_refused(db, statement, partition):
    """L1 on each partition: statement triggers of the parent do not fire for it."""
    ensure_partitions(JULY, JULY)
    message = _fails(statement.format(p=partition))
    assert f"on {partition} is forbidden; the ledger is append-only" in message


def _vault_months(book_key: str = "vault"):
    """July and August in their partitions, then a September event in DEFAULT."""
    ensure_partitions(JULY, AUGUST)
    book = open_book(book_key)
    append([_opened(f"{book_key}/cash", "asset", JULY),
            _opened(f"{book_key}/player", "liability", JULY)], book=book_key)
    append([_moved(f"{book_key}/s", 100, JULY, f"{book_key}/player", f"{book_key}/cash")],
           book=book_key)
    append([_moved(f"{book_key}/s", 200, AUGUST, f"{book_key}/player", f"{book_key}/cash")],
           book=book_key)
    append([_moved(f"{book_key}/s", 300, SEPTEMBER, f"{book_key}/player", f"{book_key}/cash")],
           book=book_key)
    return book


def test_detach_of_an_old_month_keeps_the_rest_verifying(db):
    """July leaves; the chain starts after its last event, from the recorded hash."""
    book = _vault_months()
    base = base_position(book.id)
    # Postings filed under July (the writer files each posting under its
    # event's day: July's 100, plus 7 more inserted here): they leave with
    # the month, and the balances then count them from the archive.
    _one("INSERT INTO ledger_posting (event_id, index, account_id, amount_minor, currency, book,"
         " gaming_day) VALUES (%s, 5, 'vault/cash', 7, 'EUR', %s, %s),"
         " (%s, 6, 'vault/player', -7, 'EUR', %s, %s) RETURNING 1",
         [base + 3, book.id, JULY, base + 3, book.id, JULY])
    july_last_hash = _one("SELECT hash FROM ledger_event WHERE position = %s", [base + 3])[0]
    ranges = detach_before(dt.date(2026, 8, 1))
    assert [(r.book, r.month, r.first_position, r.last_position, r.last_hash, r.events)
            for r in ranges] == [(book.id, dt.date(2026, 7, 1), base + 1, base + 3,
                                  july_last_hash, 3)]
    names = {p.name for p in list_partitions()}
    assert "ledger_event_2026_07" not in names and "ledger_posting_2026_07" not in names
    assert "ledger_event_2026_08" in names
    # The archived table stays behind, standalone and still append-only.
    assert _one("SELECT count(*) FROM ledger_event_2026_07")[0] == 3
    assert _all("SELECT account_id, debit_minor FROM ledger_archived_balance"
                " ORDER BY account_id") == [("vault/cash", 107), ("vault/player", -107)]
    assert "forbidden" in _fails("DELETE FROM ledger_event_2026_07")
    assert archived_heads()[book.id] == (base + 3, july_last_hash)
    assert _all("SELECT stream, version FROM ledger_archived_stream ORDER BY stream") == [
        ("account/vault/cash", 1), ("account/vault/player", 1), ("vault/s", 1)]
    kept = verify_retained()
    assert kept.ok, kept.problem
    assert kept.started_after[book.id] == base + 3
    # The plain walk from the book's start now misses July, and says so.
    assert verify_chain(book=book.id).bad_position == base + 1
    # The book appends on: its stream continues after the archived versions.
    append([_moved("vault/s", 50, SEPTEMBER, "vault/player", "vault/cash")], book="vault")
    assert verify_retained().ok
    # A balance that disagrees with archived plus kept postings is named.
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL session_replication_role = replica")
        cursor.execute("UPDATE ledger_account SET balance_minor = balance_minor + 1"
                       " WHERE code = 'vault/cash'")
        cursor.execute("SET LOCAL session_replication_role = origin")
    assert verify_retained().account == "vault/cash"


def test_the_archived_range_is_recorded_by_the_owners_detach_only(db):
    """A row in the archive could hide a gap: a direct insert is refused."""
    assert "forbidden" in _fails(
        "INSERT INTO ledger_archived_range (book, month, first_position, last_position,"
        " last_hash, events, archived_as) VALUES (1, '2026-01-01', 1, 5, 'h', 5, 'x')")
    assert "forbidden" in _fails(
        "INSERT INTO ledger_archived_stream (book, month, stream, version)"
        " VALUES (1, '2026-01-01', 's', 9)")


def test_detach_refuses_to_cut_a_chain(db):
    """A past-dated event appended after a later month's keeps its month from leaving."""
    book = _vault_months()
    # A July event written after the September one: archiving July would
    # leave September's event (kept) before an archived position.
    append([_moved("vault/s", 5, JULY, "vault/player", "vault/cash")], book="vault")
    with pytest.raises(PartitionError, match="not every position after"):
        with transaction.atomic():
            detach_before(dt.date(2026, 8, 1))
    assert "ledger_event_2026_07" in {p.name for p in list_partitions()}
    assert book.id not in archived_heads()


def test_detach_refuses_while_default_holds_an_old_day(db):
    """Rows of an archived month still in DEFAULT must move to their month first."""
    open_book("vault")
    append([_opened("vault/cash", "asset", JULY)], book="vault")
    with pytest.raises(PartitionError, match="ensure their months"):
        with transaction.atomic():
            detach_before(dt.date(2026, 8, 1))


def test_the_command_ensures_lists_and_detaches(db, capsys):
    """manage.py ledger_partitions ensure / list / detach."""
    book = _vault_months()
    call_command("ledger_partitions", "ensure", "--months", "1")
    call_command("ledger_partitions", "detach", "--before", "2026-08")
    call_command("ledger_partitions", "list")
    out = capsys.readouterr().out
    assert "ensure: 0 partitions created" in out
    assert "detach: 1 ranges archived" in out
    assert "ledger_event 2026-08 ledger_event_2026_08 rows=1" in out
    assert f"archived book {book.id} 2026-07 positions" in out
    with pytest.raises(CommandError, match="not a month"):
        call_command("ledger_partitions", "detach", "--before", "2026-13")
    assert parse_month("2026-02") == dt.date(2026, 2, 1)


def test_the_writer_files_each_posting_under_its_events_month(db):
    """A posting carries its event's gaming day, so it lands in that month's partition."""
    _vault_months()
    assert _all("SELECT count(*), min(gaming_day), max(gaming_day)"
                " FROM ledger_posting_2026_07") == [(2, JULY, JULY)]
    assert _all("SELECT count(*) FROM ledger_posting_2026_08") == [(2,)]
    assert _all("SELECT count(*) FROM ledger_posting_default WHERE gaming_day IS NULL") == [(0,)]


def test_verify_ledger_starts_after_an_archived_month(db):
    """After a detach the operator's verification walks each chain from its
    archived head and counts the archived postings in the balances."""
    from ledger.verify import verify_ledger

    book = _vault_months()
    detach_before(dt.date(2026, 8, 1))
    result = verify_ledger()
    assert result.ok and result.archived, str(result)
    assert "months archived" in str(result)
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL session_replication_role = replica")
        cursor.execute("UPDATE ledger_account SET balance_minor = balance_minor + 1"
                       " WHERE code = 'vault/cash'")
        cursor.execute("SET LOCAL session_replication_role = origin")
    failed = verify_ledger()
    assert (failed.ok, failed.account) == (False, "vault/cash")
    assert book.id > 1
