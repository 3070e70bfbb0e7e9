"""Three PostgreSQL servers: the test database's own (`default`, the directory
and server 1) and two more started here (`server2`, `server3`, servers.py).

`book_servers` starts them once for this folder (package scope, so the
aliases exist before pytest-django builds a test's case, which checks the
aliases a test names) and stops them after it. `three_servers` (per test)
gives a test empty books on every server: Django's flush after each
transactional test empties every alias a test names, the ledger's tables
included; the log's triggers refuse TRUNCATE, so, as the root conftest
does for `default`, the flush runs with them off (session_replication_role
= replica, the superuser's own session), and each test starts on fresh
connections, triggers on.

Tests here are `@THREE_SERVERS` (transactional, every alias): a book's
appends commit in its own server's transaction, the writer's threads hold
connections of their own, and nothing of it can roll back with the test.
"""

from __future__ import annotations

import pytest
from django.db import connections

from ledger import books as ledger_books
from ledger.placement import forget
from ledger.writer import stop_writer

from .servers import book_servers

SERVER_ALIASES = ("server2", "server3")
ALIASES = ("default", *SERVER_ALIASES)

THREE_SERVERS = pytest.mark.django_db(transaction=True, databases=list(ALIASES))


def _forget_books() -> None:
    """Drop what this process remembers of books and placements: each test
    opens its books anew, and the flush reuses their ids."""
    forget()
    with ledger_books._ids_lock:
        ledger_books._ids.clear()
        ledger_books._ids[ledger_books.MAIN_BOOK_KEY] = ledger_books.MAIN_BOOK


@pytest.fixture(scope="package")
def book_server_aliases(django_db_setup, django_db_blocker):
    """Start server 2 and server 3 (migrated), registered as aliases; stop them after."""
    with django_db_blocker.unblock():
        with book_servers(SERVER_ALIASES) as servers:
            yield {server.alias: server for server in servers}
            stop_writer()
            _forget_books()


@pytest.fixture
def three_servers(book_server_aliases, transactional_db, django_db_blocker):
    """The servers by alias (`server2`, `server3`), every book empty; writers stopped after."""
    for alias in SERVER_ALIASES:
        connections[alias].close()             # a fresh session: triggers on
    _forget_books()
    yield book_server_aliases
    stop_writer()
    _forget_books()
    for alias in SERVER_ALIASES:
        with connections[alias].cursor() as cursor:
            # For the flush that follows (see the module docstring).
            cursor.execute("SET session_replication_role = replica")
