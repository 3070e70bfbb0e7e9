"""Postings' legacy NULL gaming day: backfilled, moved, then NOT NULL (migration 0012).

The legacy state is built as a database upgraded from before the writer
filed postings under their day looks: the column nullable (what 0012's
reverse restores), and postings of well-formed events (appended by the
writer, so the chain and the balances are right) sitting in the DEFAULT
partition with NULL. The superuser puts them there with the triggers off
(session_replication_role = replica), the way the tamper tests do; the
backfill itself then runs as a role that merely belongs to the tables'
owner, as `migrate` runs as casino_owner, with every trigger on.

Everything happens in the test's transaction and is rolled back with it.
"""

from __future__ import annotations

import datetime as dt
import importlib
import os

import psycopg
import pytest
from django.core.management import call_command
from django.db import DatabaseError, IntegrityError, connection, transaction
from django.db.migrations.executor import MigrationExecutor

from casino.dbroles import create_runtime_role, grant
from ledger import NewEvent, Posting, append, verify_chain
from ledger.models import Posting as PostingRow
from ledger.partitions import ensure_partitions
from ledger.projections import ACCOUNT_OPENED
from ledger.verify import verify_ledger

MIGRATION = "0012_posting_gaming_day_backfill"
backfill_migration = importlib.import_module(f"ledger.migrations.{MIGRATION}")

# Months far from the clock: the migrated test database has partitions only
# for the current month and the next (0009), so April 2019 has none.
MARCH = dt.date(2019, 3, 14)
MARCH_LAST = dt.date(2019, 3, 31)
APRIL = dt.date(2019, 4, 2)
OWNER = f"ledger_owner_test_{os.getpid()}"
RUNTIME = f"casino_app_backfill_test_{os.getpid()}"
# Every column that must not change when a posting moves.
KEPT = "id, event_id, index, book, account_id, amount_minor, currency"


def _all(sql: str, params=None):
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchall()


def _one(sql: str, params=None):
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchone()


def _opened(code: str, account_type: str, day: dt.date) -> NewEvent:
    return NewEvent(stream=f"account/{code}", type=ACCOUNT_OPENED, gaming_day=day,
                    payload={"code": code, "type": account_type, "currency": "EUR", "name": "",
                             "must_not_go_negative": False, "balance_max_minor": None})


def _moved(amount_minor: int, day: dt.date) -> NewEvent:
    return NewEvent(stream="legacy/s", type="test.transferred", gaming_day=day,
                    payload={"amount_minor": amount_minor},
                    postings=(Posting("legacy/cash", amount_minor, "EUR"),
                              Posting("legacy/player", -amount_minor, "EUR")))


def _made_legacy(positions: list[int]) -> None:
    """Put these events' postings back where a pre-0010 writer left them: DEFAULT, NULL day."""
    columns = KEPT
    with connection.cursor() as cursor:
        cursor.execute("ALTER TABLE ledger_posting ALTER COLUMN gaming_day DROP NOT NULL")
        cursor.execute("SET LOCAL session_replication_role = replica")
        cursor.execute(
            f"WITH gone AS (DELETE FROM ledger_posting WHERE event_id = ANY(%s)"
            f" RETURNING {columns}) INSERT INTO ledger_posting_default ({columns}, gaming_day)"
            f" SELECT {columns}, NULL FROM gone", [positions])
        cursor.execute("SET LOCAL session_replication_role = origin")


@pytest.fixture
def legacy(db):
    """Four legacy events: two in March (partitioned), two in April (no partition yet)."""
    ensure_partitions(MARCH, MARCH)
    append([_opened("legacy/cash", "asset", MARCH), _opened("legacy/player", "liability", MARCH)])
    positions = [append([_moved(amount, day)]).last_position
                 for amount, day in ((100, MARCH), (250, MARCH_LAST), (40, APRIL), (7, APRIL))]
    # A posting the writer filed under its day: the backfill leaves it be.
    dated = append([_moved(3, MARCH)]).last_position
    _made_legacy(positions)
    assert _one("SELECT count(*) FROM ledger_posting_default WHERE gaming_day IS NULL")[0] == 8
    return {"positions": positions, "dated": dated}


@pytest.fixture
def as_owner(db):
    """Become a role that merely belongs to the tables' owner: no superuser powers."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT current_user")
        owner = cursor.fetchone()[0]
        cursor.execute(f'CREATE ROLE "{OWNER}" NOLOGIN NOSUPERUSER INHERIT')
        cursor.execute(f'GRANT "{owner}" TO "{OWNER}"')
    yield OWNER
    with connection.cursor() as cursor:
        cursor.execute("RESET ROLE")


def _backfill(role: str | None = None) -> int:
    with connection.cursor() as cursor:
        if role:
            cursor.execute(f'SET ROLE "{role}"')
        cursor.execute("SELECT current_user, rolsuper FROM pg_roles"
                       " WHERE rolname = current_user")
        who = cursor.fetchone()
    assert who == ((role, False) if role else who)
    try:
        return backfill_migration.backfill(connection)
    finally:
        with connection.cursor() as cursor:
            cursor.execute("RESET ROLE")


def _postings(positions: list[int]):
    return _all(f"SELECT {KEPT}, gaming_day, tableoid::regclass::text FROM ledger_posting"
                " WHERE event_id = ANY(%s) ORDER BY id", [positions])


def test_each_legacy_posting_gets_its_events_day_and_moves_into_its_month(legacy, as_owner):
    """NULL days become the event's; the rows land in their month (April's made now)."""
    positions = legacy["positions"]
    before = _all(f"SELECT {KEPT} FROM ledger_posting ORDER BY id")
    balances = _all("SELECT code, balance_minor FROM ledger_account ORDER BY code")
    assert _one("SELECT to_regclass('ledger_posting_2019_04')")[0] is None
    assert _one("SELECT tableoid::regclass::text FROM ledger_event WHERE position = %s",
                [positions[2]])[0] == "ledger_event_default"

    assert _backfill(as_owner) == 8

    rows = _postings(positions)
    assert [(row[1], row[7], row[8]) for row in rows] == [
        (positions[0], MARCH, "ledger_posting_2019_03"),
        (positions[0], MARCH, "ledger_posting_2019_03"),
        (positions[1], MARCH_LAST, "ledger_posting_2019_03"),
        (positions[1], MARCH_LAST, "ledger_posting_2019_03"),
        (positions[2], APRIL, "ledger_posting_2019_04"),
        (positions[2], APRIL, "ledger_posting_2019_04"),
        (positions[3], APRIL, "ledger_posting_2019_04"),
        (positions[3], APRIL, "ledger_posting_2019_04"),
    ]
    # Every posting, not only these: its event's day.
    assert _one("SELECT count(*) FROM ledger_posting AS p JOIN ledger_event AS e"
                " ON e.position = p.event_id WHERE p.gaming_day IS DISTINCT FROM"
                " e.gaming_day")[0] == 0
    assert _one("SELECT count(*) FROM ledger_posting WHERE gaming_day IS NULL")[0] == 0
    # April's partitions were made the way ensure makes them: the April
    # events moved out of DEFAULT too, and the new partition is guarded.
    assert _one("SELECT tableoid::regclass::text FROM ledger_event WHERE position = %s",
                [positions[2]])[0] == "ledger_event_2019_04"
    assert "forbidden; the ledger is append-only" in _fails(
        "DELETE FROM ledger_posting_2019_04")
    # Nothing else about a posting changed; the chain and balances verify.
    assert _all(f"SELECT {KEPT} FROM ledger_posting ORDER BY id") == before
    assert _all("SELECT code, balance_minor FROM ledger_account ORDER BY code") == balances
    chain = verify_chain()
    assert chain.ok, chain.problem
    ledger = verify_ledger()
    assert ledger.ok, ledger.problem


def test_the_column_is_not_null_afterwards_and_no_check_is_left_behind(legacy, as_owner):
    """SET NOT NULL on the parent and every partition; the helper checks are gone."""
    _backfill(as_owner)
    assert _all("SELECT c.oid::regclass::text, a.attnotnull FROM pg_attribute AS a"
                " JOIN pg_class AS c ON c.oid = a.attrelid WHERE a.attname = 'gaming_day'"
                " AND (c.oid = 'ledger_posting'::regclass OR c.oid IN (SELECT inhrelid"
                " FROM pg_inherits WHERE inhparent = 'ledger_posting'::regclass))"
                " AND NOT a.attnotnull") == []
    assert _all("SELECT conname FROM pg_constraint WHERE conname = %s",
                [backfill_migration.CHECK_NAME]) == []
    assert PostingRow._meta.get_field("gaming_day").null is False


def test_a_posting_with_no_day_is_refused_afterwards(legacy, as_owner):
    """An INSERT with NULL gaming_day is refused (23502), and nothing is written."""
    _backfill(as_owner)
    event = legacy["dated"]
    count = _one("SELECT count(*) FROM ledger_posting")[0]
    with pytest.raises(IntegrityError) as refused:
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute(
                "INSERT INTO ledger_posting (event_id, index, account_id, amount_minor, currency,"
                " book, gaming_day) VALUES (%s, 5, 'legacy/cash', 3, 'EUR', 1, NULL),"
                " (%s, 6, 'legacy/player', -3, 'EUR', 1, NULL)", [event, event])
    assert isinstance(refused.value.__cause__, psycopg.errors.NotNullViolation)
    assert _one("SELECT count(*) FROM ledger_posting")[0] == count


def test_running_it_again_changes_nothing(legacy, as_owner):
    """Idempotent: a database with no NULL day left is left as it is."""
    _backfill(as_owner)
    after = _postings(legacy["positions"] + [legacy["dated"]])
    partitions = _all("SELECT inhrelid::regclass::text FROM pg_inherits ORDER BY 1")
    assert _backfill(as_owner) == 0
    assert _postings(legacy["positions"] + [legacy["dated"]]) == after
    # A run stopped after its last batch (no NULL left, the column still
    # nullable) completes: NOT NULL, nothing moved.
    with connection.cursor() as cursor:
        cursor.execute("ALTER TABLE ledger_posting ALTER COLUMN gaming_day DROP NOT NULL")
    assert _backfill(as_owner) == 0
    assert _one("SELECT attnotnull FROM pg_attribute WHERE attname = 'gaming_day'"
                " AND attrelid = 'ledger_posting'::regclass")[0] is True
    assert _postings(legacy["positions"] + [legacy["dated"]]) == after
    assert _all("SELECT inhrelid::regclass::text FROM pg_inherits ORDER BY 1") == partitions


def _fails(sql: str, params=None) -> str:
    with pytest.raises(DatabaseError) as caught:
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute(sql, params)
    return str(caught.value)


def test_postings_stay_immutable_after_it(legacy, as_owner):
    """The append-only triggers survived: UPDATE and DELETE are still refused for every role."""
    _backfill(as_owner)
    event = legacy["positions"][0]
    # The owner (the superuser here): the parent's trigger, untouched.
    assert "UPDATE on ledger_posting is forbidden" in _fails(
        "UPDATE ledger_posting SET amount_minor = amount_minor WHERE event_id = %s", [event])
    assert "DELETE on ledger_posting is forbidden" in _fails(
        "DELETE FROM ledger_posting WHERE event_id = %s", [event])
    # A partition named without the owner's switch: its guard.
    assert "UPDATE on ledger_posting_2019_03 is forbidden" in _fails(
        "UPDATE ledger_posting_2019_03 SET gaming_day = gaming_day")
    # The application role, even with the owner's switch on: the parent
    # refuses it the privilege; a partition's guard refuses it as not the
    # owner (the switch alone blesses nobody).
    with connection.cursor() as cursor:
        cursor.execute("SELECT current_user")
        owner = cursor.fetchone()[0]
        create_runtime_role(cursor, RUNTIME)
        grant(cursor, RUNTIME, owner)
        cursor.execute(f'SET ROLE "{RUNTIME}"')
    try:
        refused = {}
        for statement in ("UPDATE ledger_posting SET gaming_day = gaming_day",
                          "DELETE FROM ledger_posting_default",
                          "UPDATE ledger_posting_2019_03 SET gaming_day = gaming_day"):
            with pytest.raises(DatabaseError) as caught:
                with transaction.atomic(), connection.cursor() as cursor:
                    cursor.execute("SELECT set_config('ledger.partitioning', 'on', true)")
                    cursor.execute(statement)
            refused[statement] = caught.value
    finally:
        with connection.cursor() as cursor:
            cursor.execute("RESET ROLE")
    assert isinstance(refused["UPDATE ledger_posting SET gaming_day = gaming_day"].__cause__,
                      psycopg.errors.InsufficientPrivilege)
    for partition in ("ledger_posting_default", "ledger_posting_2019_03"):
        statement = next(s for s in refused if partition in s)
        cause = refused[statement].__cause__
        assert isinstance(cause, psycopg.errors.InsufficientPrivilege) or (
            "is forbidden; the ledger is append-only" in str(cause)), (statement, repr(cause))
    assert _postings([event])[0][7] == MARCH


def test_a_null_posting_whose_event_month_was_detached_stops_it_before_any_move(db, as_owner):
    """Its day cannot be learnt: the migration names it and moves nothing."""
    ensure_partitions(MARCH, MARCH)
    append([_opened("legacy/cash", "asset", APRIL), _opened("legacy/player", "liability", APRIL)])
    position = append([_moved(100, APRIL)]).last_position
    other = append([_moved(5, APRIL)]).last_position
    _made_legacy([position, other])
    with connection.cursor() as cursor:
        # The event's month left the log (a detach that did not see the
        # NULL posting in DEFAULT), replayed with the triggers off.
        cursor.execute("SET LOCAL session_replication_role = replica")
        cursor.execute("DELETE FROM ledger_event WHERE position = %s", [position])
        cursor.execute("SET LOCAL session_replication_role = origin")
    with pytest.raises(RuntimeError, match=rf"2 postings .*positions {position} to {position}\)"):
        _backfill(as_owner)
    assert _one("SELECT count(*) FROM ledger_posting_default WHERE gaming_day IS NULL")[0] == 4


def test_the_migration_runs_through_django_from_0011(legacy):
    """Migrating back to 0011 and forward again backfills, and the state says NOT NULL."""
    assert MigrationExecutor(connection).loader.applied_migrations.get(("ledger", MIGRATION))
    executor = MigrationExecutor(connection)
    executor.migrate([("ledger", "0011_trigger_plans_use_indexes")])
    _made_legacy([legacy["dated"]])
    assert _one("SELECT count(*) FROM ledger_posting WHERE gaming_day IS NULL")[0] == 10
    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes("ledger"))
    assert _one("SELECT count(*) FROM ledger_posting WHERE gaming_day IS NULL")[0] == 0
    assert _one("SELECT attnotnull FROM pg_attribute WHERE attname = 'gaming_day'"
                " AND attrelid = 'ledger_posting'::regclass")[0] is True
    state = executor.loader.project_state(("ledger", MIGRATION))
    assert state.models["ledger", "posting"].fields["gaming_day"].null is False
    assert verify_chain().ok


def test_the_model_and_the_migrations_agree(db):
    """No migration is missing for the Posting field (makemigrations finds nothing)."""
    call_command("makemigrations", "ledger", "--check", "--dry-run", verbosity=0)


def test_a_posting_is_refused_for_the_right_reason_once_every_posting_has_a_day(legacy):
    """A wrong day is still refused as one; a missing event is named as missing (0002)."""
    event = legacy["dated"]
    insert = ("INSERT INTO ledger_posting (event_id, index, account_id, amount_minor, currency,"
              " book, gaming_day) VALUES (%s, 5, 'legacy/cash', 3, 'EUR', 1, %s),"
              " (%s, 6, 'legacy/player', -3, 'EUR', 1, %s)")
    count = _one("SELECT count(*) FROM ledger_posting")[0]
    assert "another gaming day than its event" in _fails(insert, [event, APRIL, event, APRIL])
    assert "event that does not exist" in _fails(insert, [event + 100, MARCH,
                                                          event + 100, MARCH])
    assert _one("SELECT count(*) FROM ledger_posting")[0] == count
