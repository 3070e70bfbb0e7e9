"""The runtime database role is least-privileged (issue 16).

In the test database the tables belong to the connecting superuser, which
here plays the owner: it creates a runtime role (NOLOGIN, in the test's
transaction, so it vanishes with it), runs casino.dbroles' grants, and
becomes the runtime role with SET ROLE. As that role the ledger still
appends (events, postings, projections) and every forbidden statement is
refused by PostgreSQL's privileges, not by a trigger.
"""

from __future__ import annotations

import os

import psycopg
import pytest
from django.db import connection, transaction

from casino.dbroles import LOG_TABLES, create_runtime_role, grant
from ledger.models import Account, Event
from tests.ledger.factories import transfer

RUNTIME = f"casino_app_test_{os.getpid()}"
PROJECTIONS = ("ledger_account", "ledger_stream", "ledger_head", "players_player",
               "jackpots_jackpotpool")

FORBIDDEN = [
    *(f"UPDATE {table} SET position = position" if table == "ledger_event" else
      f"UPDATE {table} SET amount_minor = amount_minor" if table == "ledger_posting" else
      f"UPDATE {table} SET key = key" for table in LOG_TABLES),
    *(f"DELETE FROM {table}" for table in LOG_TABLES),
    *(f"TRUNCATE {table}" for table in (*LOG_TABLES, *PROJECTIONS)),
    "ALTER TABLE ledger_event DISABLE TRIGGER ALL",
    "ALTER TABLE ledger_posting DISABLE TRIGGER USER",
    f"ALTER TABLE ledger_event OWNER TO \"{RUNTIME}\"",
    "SET session_replication_role = replica",
    "DROP TABLE ledger_event",
    "ALTER TABLE ledger_account ADD COLUMN sneaky int",
    "DELETE FROM django_migrations",
    "INSERT INTO django_migrations (app, name, applied) VALUES ('x', 'y', now())",
    f"ALTER ROLE {RUNTIME} SUPERUSER",
    "CREATE TABLE ledger_shadow (id int)",
    # Freezing and unfreezing a book are a move's, the owner's (migrations 0008, 0014).
    "SELECT ledger_freeze_book(1::smallint)",
    "SELECT ledger_unfreeze_book(1::smallint, 0, 'x')",
    # Where per-venue books began is written once, by its migration (rules 0004).
    "UPDATE rules_venuebookssince SET position = 0",
    "DELETE FROM rules_venuebookssince",
    "INSERT INTO rules_venuebookssince (position) VALUES (0)",
]


@pytest.fixture
def runtime(accounts):
    with connection.cursor() as cursor:
        cursor.execute("SELECT current_user")
        owner = cursor.fetchone()[0]
        create_runtime_role(cursor, RUNTIME)
        grant(cursor, RUNTIME, owner)
        cursor.execute("REVOKE CREATE ON SCHEMA public FROM PUBLIC")
        cursor.execute(f'SET ROLE "{RUNTIME}"')
    yield RUNTIME
    with connection.cursor() as cursor:
        cursor.execute("RESET ROLE")


@pytest.mark.parametrize("statement", FORBIDDEN)
def test_the_runtime_role_cannot(runtime, statement):
    with connection.cursor() as cursor:
        cursor.execute("SELECT current_user, (SELECT rolsuper FROM pg_roles"
                       " WHERE rolname = current_user)")
        assert cursor.fetchone() == (RUNTIME, False)
        with pytest.raises(Exception) as refused, transaction.atomic():
            cursor.execute(statement)
    cause = refused.value.__cause__ or refused.value
    assert isinstance(cause, psycopg.errors.InsufficientPrivilege), (statement, repr(cause))


def test_the_runtime_role_still_appends_and_projects(runtime):
    before = Event.objects.count()
    transfer("player/alice", "cage/cash", 1_00)
    assert Event.objects.count() == before + 1
    assert Account.objects.get(code="cage/cash").balance_minor != 0
    with connection.cursor() as cursor:
        cursor.execute("SELECT current_user")
        assert cursor.fetchone()[0] == RUNTIME


def test_the_runtime_role_opens_a_venue_book_and_nothing_more(runtime):
    """Migration 0013: the application opens a venue's book on its first write
    (casino/books.py), but cannot open one under an id of its choosing, nor
    move, freeze or rewrite a book: the directory stays the owner's."""
    from ledger.books import ensure_book

    book = ensure_book("tallinn")
    assert ensure_book("tallinn") == book > 1
    with connection.cursor() as cursor:
        cursor.execute("SELECT database FROM ledger_placement WHERE key = 'tallinn'")
        assert cursor.fetchone() == ("default",)
    for statement in ("UPDATE ledger_placement SET database = 'elsewhere'",
                      "DELETE FROM ledger_placement",
                      "SELECT ledger_open_book('riga', 9::smallint)"):
        with pytest.raises(Exception) as refused, transaction.atomic():
            with connection.cursor() as cursor:
                cursor.execute(statement)
        cause = refused.value.__cause__ or refused.value
        assert isinstance(cause, psycopg.errors.InsufficientPrivilege), (statement, repr(cause))
    # Freezing a book (what a move does) is refused by the heads' guard.
    with pytest.raises(Exception, match="forbidden; it follows the log"), transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute("UPDATE ledger_head SET read_only = true")
