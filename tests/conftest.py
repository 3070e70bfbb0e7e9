"""Test plumbing shared by every app's tests.

The database is always PostgreSQL: the embedded pgserver instance unless
DATABASE_URL names another (casino/settings.py); pytest-django creates the
test database from the migrations, triggers included.
"""

from __future__ import annotations

import os

import pytest
from hypothesis import settings as hypothesis_settings
from django.db import connection

from ledger.canonical import GENESIS_HASH
from ledger.writer import stop_writer


# CI runs the property tests on a fixed sequence of examples so that a green
# run stays green; local runs keep drawing new examples (and keep finding
# things, as the ledger state machine did).
hypothesis_settings.register_profile("ci", derandomize=True, database=None)
if os.environ.get("CI"):
    hypothesis_settings.load_profile("ci")


@pytest.fixture(scope="session", autouse=True)
def _stop_ledger_writer(django_db_setup, django_db_blocker):
    """Close the group writer's connection before the test database is dropped."""
    yield
    with django_db_blocker.unblock():
        stop_writer()


@pytest.fixture(scope="session", autouse=True)
def _no_autovacuum_under_open_test_transactions(django_db_setup, django_db_blocker):
    """Keep autovacuum off the test database's tables.

    A test runs in one transaction that pytest-django rolls back, and some
    write tens of thousands of rows in it (the hall evening: 20,000 machine
    rounds). Woken by the previous tests' flushes, autovacuum vacuumed those
    tables meanwhile, saw none of the uncommitted rows and recorded them as
    empty (reltuples 0); the planner then planned for empty tables and each
    append or report read got slower with every row (the hall evening: 8
    minutes in CI against 19 s without). No production transaction holds
    rows that way, and nothing in the tests relies on autovacuum.
    """
    if connection.settings_dict["NAME"] != connection.settings_dict["TEST"]["NAME"]:
        # No test of this session asked for the database (a run of
        # native_eval's tests alone): there is no test database to tune.
        yield
        return
    with django_db_blocker.unblock(), connection.cursor() as cursor:
        _check_test_database()
        cursor.execute(
            "SELECT c.oid::regclass FROM pg_class c"
            " WHERE c.relkind = 'r' AND c.relnamespace = current_schema()::regnamespace")
        for (table,) in cursor.fetchall():
            cursor.execute(f"ALTER TABLE {table} SET (autovacuum_enabled = false)")
    yield


def _check_test_database() -> None:
    """Refuse to switch a database's triggers off unless it is this run's test database.

    The flush after a transactional test empties every table, the log's
    included; the target must be the test database pytest-django created
    (`test_<configured name>_<pid>`, casino/settings.py), never the
    configured one.
    """
    name = connection.settings_dict["NAME"]
    expected = connection.settings_dict["TEST"]["NAME"]
    if name != expected or not name.startswith("test_"):
        raise RuntimeError(
            f"refusing to let the test flush empty database {name!r}: it is not this"
            f" run's test database {expected!r}")


@pytest.fixture(autouse=True)
def _let_flush_empty_the_test_database_log(request, django_db_blocker):
    """Let Django's flush after a transactional test empty the ledger tables.

    Destroys: every row of the test database, the log included (Django's
    flush does the emptying; this switches the log's triggers off for it),
    after checking that the connection is on this run's test database.

    The log's triggers refuse TRUNCATE for every role, including Django's test
    flush. A superuser may switch triggers off for its own session
    (session_replication_role = replica): done here only around the flush, and
    switched back on before each test so every test runs with them enforced.
    """
    marker = request.node.get_closest_marker("django_db")
    transactional = "transactional_db" in request.fixturenames or "live_server" in request.fixturenames or (
        marker is not None and marker.kwargs.get("transaction", False)
    )
    if not transactional:
        yield
        return
    request.getfixturevalue("transactional_db")
    with django_db_blocker.unblock():
        stop_writer()  # a fresh writer connection per test
        with connection.cursor() as cursor:
            # The flush also emptied ledger_head, whose single row migration
            # 0002 created; put it back before the triggers are on again.
            cursor.execute("SET session_replication_role = replica")
            cursor.execute(
                "INSERT INTO ledger_head (id, position, hash) VALUES (1, 0, %s)"
                " ON CONFLICT (id) DO NOTHING",
                [GENESIS_HASH],
            )
            cursor.execute("SET session_replication_role = origin")
    yield
    with django_db_blocker.unblock():
        stop_writer()
        _check_test_database()
        with connection.cursor() as cursor:
            cursor.execute("SET session_replication_role = replica")


@pytest.fixture(autouse=True)
def _triggers_enforced_in_db_tests(request, django_db_blocker):
    """Make sure a `db` test never inherits the flush's trigger switch."""
    if "db" not in request.fixturenames:
        yield
        return
    request.getfixturevalue("db")
    with connection.cursor() as cursor:
        cursor.execute("SET session_replication_role = origin")
    yield


@pytest.fixture(autouse=True)
def _no_rate_limit_unless_asked(settings):
    """The API's per-client rate (issue 16, 100/s by default) is a production
    guard; a test that drives a table or a machine faster than that tests the
    product, not the limit. tests/security/test_settings.py sets its own."""
    settings.CASINO_API_RATE = "1000000/s"


@pytest.fixture(autouse=True)
def _reference_data_cache_per_test():
    """Start every test with an empty reference-data cache (casino/rules/cache.py).

    A test's venues and rulebooks roll back with its transaction; a venue
    cached by one test must not answer in the next. The same for the
    accounts the command runner remembers as open (casino/runner.py).
    """
    from casino.books import forget as forget_venue_books
    from casino.rules.cache import invalidate
    from casino.runner import forget_open_accounts
    from casino.webhooks.projections import invalidate as forget_subscriptions
    from ledger.crossbook import forget as forget_books_seen

    def forget() -> None:
        invalidate()
        forget_open_accounts()
        forget_subscriptions()
        forget_venue_books()
        forget_books_seen()

    forget()
    yield
    forget()


@pytest.fixture
def steady_caches(monkeypatch, settings):
    """Hold the per-process caches' wall-clock expiry off for a statement count.

    The reference data (30 s) and the webhook subscriptions (2 s) are re-read
    when they expire: a read amortised over every write, not one of any
    write's statements. On a loaded machine a budget test can outlast either,
    and the count would then depend on the clock.
    """
    monkeypatch.setattr("casino.rules.cache.TTL_SECONDS", 3600.0)
    settings.WEBHOOKS_SUBSCRIPTIONS_CACHE_SECONDS = 3600.0
    # Where a venue's book lives (ledger.placement): 5 s, re-read when it expires.
    settings.LEDGER_PLACEMENT_CACHE_SECONDS = 3600.0
