"""A real hot standby of the test server, and a `replica` alias on it.

`standby` (once per test session) takes a base backup of the server the
test database lives on and starts it as a streaming hot standby
(casino.replicas.standby). `replica` (per test, transactional: a row must
be committed to reach the standby) adds the `replica` alias, a test mirror
of `default` on the standby's socket, for that test only, so no other test
in the session ever reads from it.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from pathlib import Path

import psycopg
import pytest
from django.conf import settings
from django.db import connections

from casino.replicas.router import REPLICA, forget_lag, measure_lag_seconds
from casino.replicas.standby import Standby, start_standby
from ledger import open_account
from ledger.store import head
from tests.ledger.factories import transfer

_REPLICA_DB = pytest.mark.django_db(transaction=True, databases=["default", REPLICA])


def REPLICA_DB(test):  # noqa: N802 (used as a marker)
    """Mark a test that reads the standby: transactional, both aliases, slow (the standby)."""
    return pytest.mark.slow(_REPLICA_DB(test))


# Named maxima of the waits below (seconds): replay on loopback takes
# milliseconds; these only bound a broken run.
REPLAY_WAIT_S_MAX = 60
LAG_WAIT_S_MAX = 60
POLL_S = 0.05


@pytest.fixture(scope="session")
def standby(django_db_setup, django_db_blocker) -> Standby:
    """Start a hot standby of the test server; stop and delete it after the session."""
    primary = connections["default"].settings_dict
    # A short folder: a Unix socket's path is limited to about 100 bytes.
    base = Path(tempfile.mkdtemp(prefix="casino-standby-"))
    try:
        server = start_standby(primary_host=primary["HOST"], primary_port=primary["PORT"] or None,
                               user=primary["USER"], data_dir=base / "data",
                               socket_dir=base / "socket",
                               application_name=f"casino_test_{os.getpid()}")
    except BaseException:
        shutil.rmtree(base, ignore_errors=True)
        raise
    yield server
    server.stop()
    shutil.rmtree(base, ignore_errors=True)


@pytest.fixture(scope="package")
def replica_alias(standby, django_db_blocker):
    """Configure the `replica` alias on the standby for this folder's tests only.

    Package-scoped, so the alias exists before pytest-django builds a
    test's case (which checks the aliases a test names), and is gone
    before any other folder's test runs.
    """
    entry = standby.database_settings(connections["default"].settings_dict)
    configured = connections.configure_settings(
        {"default": dict(connections["default"].settings_dict), REPLICA: entry})[REPLICA]
    connections.settings[REPLICA] = configured
    settings.DATABASES[REPLICA] = configured
    forget_lag()
    yield standby
    with django_db_blocker.unblock():
        connections[REPLICA].close()
    del connections[REPLICA]
    del connections.settings[REPLICA]
    settings.DATABASES.pop(REPLICA, None)
    forget_lag()


@pytest.fixture
def replica(replica_alias, transactional_db):
    """The standby, replayed up to now; its replay resumed after the test.

    Tests that use it are marked
    `django_db(transaction=True, databases=["default", "replica"])`
    (REPLICA_DB): a row reaches the standby only once committed.
    """
    forget_lag()
    wait_replayed(replica_alias)
    yield replica_alias
    resume_replay(replica_alias)
    connections[REPLICA].close()
    del connections[REPLICA]        # a test may have changed its settings
    forget_lag()


def _standby_connection(standby: Standby) -> psycopg.Connection:
    return psycopg.connect(standby.conninfo(), autocommit=True)


def primary_wal_lsn() -> str:
    """Return the primary's current WAL position (after every commit so far)."""
    with connections["default"].cursor() as cursor:
        cursor.execute("SELECT pg_current_wal_lsn()::text")
        return cursor.fetchone()[0]


def wait_replayed(standby: Standby) -> None:
    """Wait until the standby has replayed everything the primary has written so far."""
    target = primary_wal_lsn()
    deadline = time.monotonic() + REPLAY_WAIT_S_MAX
    with _standby_connection(standby) as connection:
        while True:
            (done,) = connection.execute(
                "SELECT pg_last_wal_replay_lsn() >= %s::pg_lsn", [target]).fetchone()
            if done:
                return
            if time.monotonic() > deadline:
                raise AssertionError(f"the standby did not replay up to {target}")
            time.sleep(POLL_S)


def wait_received(standby: Standby) -> None:
    """Wait until the standby has received (not necessarily replayed) the primary's WAL."""
    target = primary_wal_lsn()
    deadline = time.monotonic() + REPLAY_WAIT_S_MAX
    with _standby_connection(standby) as connection:
        while True:
            (done,) = connection.execute(
                "SELECT pg_last_wal_receive_lsn() >= %s::pg_lsn", [target]).fetchone()
            if done:
                return
            if time.monotonic() > deadline:
                raise AssertionError(f"the standby did not receive up to {target}")
            time.sleep(POLL_S)


def pause_replay(standby: Standby) -> None:
    """Stop the standby replaying WAL (it keeps receiving it)."""
    with _standby_connection(standby) as connection:
        connection.execute("SELECT pg_wal_replay_pause()")
        deadline = time.monotonic() + REPLAY_WAIT_S_MAX
        while connection.execute("SELECT pg_get_wal_replay_pause_state()").fetchone()[0] \
                != "paused":
            if time.monotonic() > deadline:
                raise AssertionError("the standby's replay did not pause")
            time.sleep(POLL_S)


def resume_replay(standby: Standby) -> None:
    """Let the standby replay WAL again."""
    with _standby_connection(standby) as connection:
        connection.execute("SELECT pg_wal_replay_resume()")


def witness(standby: Standby) -> tuple[int, int]:
    """Replay up to a first event, pause replay, write one more; return both heads.

    The event written last is on the primary only: a read that sees it was
    served by the primary, one that does not by the replica.
    """
    open_account(code="cage/cash", type="asset", currency="EUR")
    open_account(code="player/alice", type="liability", currency="EUR")
    transfer("player/alice", "cage/cash", 1_00)
    wait_replayed(standby)
    replica_head = head()[0]
    pause_replay(standby)
    transfer("player/alice", "cage/cash", 2_00)
    wait_received(standby)
    primary_head = head()[0]
    assert primary_head == replica_head + 1
    return replica_head, primary_head


def lag_beyond(bound: float) -> None:
    """Wait until the paused standby's measured lag exceeds `bound` (the cache untouched)."""
    deadline = time.monotonic() + LAG_WAIT_S_MAX
    while (measure_lag_seconds() or 0.0) <= bound:
        assert time.monotonic() < deadline, "the paused standby's lag never grew"
        time.sleep(POLL_S)
