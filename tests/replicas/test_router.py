"""The replica router's choice, both ways, proved with real reads (issue 19 point 6).

A real hot standby replays the test server (tests/replicas/conftest.py).
Replay is paused after the first event has reached it, then a second event
is written on the primary: the second event is the witness. A read that
sees it was served by the primary; one that does not, by the replica.
Every scope below reads through both paths the read-only routes use: the
ledger's own SQL (`ledger.store`, on the `default` connection) and the ORM
(through the router).
"""

from __future__ import annotations

import time

import pytest
from django.contrib.auth.models import User
from django.db import DEFAULT_DB_ALIAS, DatabaseError, connections, transaction

from casino.replicas.config import replica_database
from casino.replicas.router import (
    REPLICA,
    ReplicaRouter,
    current_alias,
    forget_lag,
    measure_lag_seconds,
    read_alias,
    reading_from_replica,
)
from ledger import open_account
from ledger.models import Event
from ledger.store import head
from tests.ledger.factories import transfer

from .conftest import REPLICA_DB, lag_beyond, wait_replayed, witness

# A bound no run reaches, and one a paused replay soon exceeds (seconds).
LAG_MAX_S_GENEROUS = 3600.0
LAG_MAX_S_SMALL = 0.2
LAG_MAX_S_CACHED = 1.0
LAG_WAIT_S_MAX = 60


def _read() -> tuple[int, int, int]:
    """Return the head position (ledger SQL), the event count and the last position (ORM)."""
    last = Event.objects.order_by("-position").values_list("position", flat=True).first()
    return head()[0], Event.objects.count(), last


@REPLICA_DB
def test_reads_from_the_replica_when_its_lag_is_within_the_bound(replica, settings):
    """Within the bound the scope reads the replica: the primary's newest event is absent."""
    replica_head, primary_head = witness(replica)
    settings.CASINO_REPLICA_LAG_MAX_S = LAG_MAX_S_GENEROUS
    forget_lag()
    with reading_from_replica() as alias:
        assert alias == REPLICA
        assert current_alias() == REPLICA
        assert _read() == (replica_head, replica_head, replica_head)
        assert connections[DEFAULT_DB_ALIAS].settings_dict["HOST"] == str(replica.socket_dir)
    # The scope is over: the primary again, with the witness.
    assert current_alias() is None
    assert _read() == (primary_head, primary_head, primary_head)


@REPLICA_DB
def test_reads_from_the_primary_when_the_lag_exceeds_the_bound(replica, settings):
    """Beyond the bound the scope reads the primary: the newest event is there."""
    _, primary_head = witness(replica)
    settings.CASINO_REPLICA_LAG_MAX_S = LAG_MAX_S_SMALL
    lag_beyond(LAG_MAX_S_SMALL)
    forget_lag()
    with reading_from_replica() as alias:
        assert alias == DEFAULT_DB_ALIAS
        assert _read() == (primary_head, primary_head, primary_head)
        assert connections[DEFAULT_DB_ALIAS].settings_dict["HOST"] != str(replica.socket_dir)


@REPLICA_DB
def test_the_lag_is_cached_for_the_configured_time(replica, settings):
    """Within CASINO_REPLICA_LAG_CACHE_S the last measurement decides, not a new one."""
    settings.CASINO_REPLICA_LAG_MAX_S = LAG_MAX_S_CACHED
    settings.CASINO_REPLICA_LAG_CACHE_S = 3600.0
    forget_lag()
    assert read_alias() == REPLICA          # measured now (caught up), cached
    _, primary_head = witness(replica)     # replay paused, the standby falls behind
    lag_beyond(LAG_MAX_S_CACHED)
    assert read_alias() == REPLICA          # still the cached measurement
    forget_lag()
    assert read_alias() == DEFAULT_DB_ALIAS
    with reading_from_replica():
        assert _read() == (primary_head, primary_head, primary_head)


@REPLICA_DB
def test_a_standby_cut_off_from_its_primary_is_behind_once_the_primary_writes(
        replica, settings):
    """Replayed all it received is not enough: the lag is against the primary's position."""
    import psycopg
    import psycopg.sql

    open_account(code="cage/cash", type="asset", currency="EUR")
    open_account(code="player/alice", type="liability", currency="EUR")
    wait_replayed(replica)
    with psycopg.connect(replica.conninfo(), autocommit=True) as standby:
        (conninfo,) = standby.execute("SHOW primary_conninfo").fetchone()
        standby.execute("ALTER SYSTEM SET primary_conninfo = 'host=/nonexistent'")
        standby.execute("SELECT pg_reload_conf()")
        try:
            deadline = time.monotonic() + LAG_WAIT_S_MAX
            while standby.execute("SELECT count(*) FROM pg_stat_wal_receiver"
                                  " WHERE status = 'streaming'").fetchone()[0]:
                assert time.monotonic() < deadline, "the standby kept streaming"
                time.sleep(0.05)
            transfer("player/alice", "cage/cash", 1_00)     # never reaches the standby
            settings.CASINO_REPLICA_LAG_MAX_S = LAG_MAX_S_SMALL
            lag_beyond(LAG_MAX_S_SMALL)
            forget_lag()
            assert read_alias() == DEFAULT_DB_ALIAS
        finally:
            standby.execute(psycopg.sql.SQL("ALTER SYSTEM SET primary_conninfo = {}").format(
                psycopg.sql.Literal(conninfo)))
            standby.execute("SELECT pg_reload_conf()")
    wait_replayed(replica)


@REPLICA_DB
def test_a_write_inside_a_replica_scope_is_refused(replica, settings):
    """The scope fails closed: a write in it reaches the standby, which refuses it."""
    settings.CASINO_REPLICA_LAG_MAX_S = LAG_MAX_S_GENEROUS
    forget_lag()
    with reading_from_replica() as alias:
        assert alias == REPLICA
        with pytest.raises(DatabaseError, match="read-only transaction"):
            User.objects.create_user("written-in-a-read-scope")
    assert not User.objects.filter(username="written-in-a-read-scope").exists()


@REPLICA_DB
def test_inside_a_transaction_on_the_primary_reads_stay_there(replica, settings):
    """The write path's reads (inside its transaction) never go to the replica."""
    settings.CASINO_REPLICA_LAG_MAX_S = LAG_MAX_S_GENEROUS
    forget_lag()
    with transaction.atomic():
        open_account(code="cage/cash", type="asset", currency="EUR")
        with reading_from_replica() as alias:
            assert alias == DEFAULT_DB_ALIAS
            assert head()[0] == 1


@REPLICA_DB
def test_an_unreachable_replica_is_not_read(replica, settings, monkeypatch):
    """A replica that cannot be reached counts as unusable: the primary answers."""
    connections[REPLICA].close()
    monkeypatch.setitem(connections.settings[REPLICA], "HOST", str(replica.socket_dir) + "-gone")
    settings.CASINO_REPLICA_LAG_MAX_S = LAG_MAX_S_GENEROUS
    forget_lag()
    assert measure_lag_seconds() is None
    forget_lag()
    with reading_from_replica() as alias:
        assert alias == DEFAULT_DB_ALIAS


@REPLICA_DB
def test_a_nested_scope_keeps_the_outer_choice(replica, settings):
    """A report that calls another report reads one snapshot, not two."""
    settings.CASINO_REPLICA_LAG_MAX_S = LAG_MAX_S_GENEROUS
    forget_lag()
    with reading_from_replica() as outer:
        settings.CASINO_REPLICA_LAG_MAX_S = -1.0
        forget_lag()
        with reading_from_replica() as inner:
            assert (outer, inner) == (REPLICA, REPLICA)
        assert current_alias() == REPLICA


@pytest.mark.django_db
def test_without_a_replica_the_scope_changes_nothing(monkeypatch):
    """The default set-up (no DATABASE_REPLICA_URL) reads from the primary, unswapped."""
    # This folder's other tests configure the alias; the default set-up has none.
    monkeypatch.delitem(connections.settings, REPLICA, raising=False)
    primary = connections[DEFAULT_DB_ALIAS]
    with reading_from_replica() as alias:
        assert alias == DEFAULT_DB_ALIAS
        assert connections[DEFAULT_DB_ALIAS] is primary
        assert ReplicaRouter().db_for_read(Event) == DEFAULT_DB_ALIAS
    assert ReplicaRouter().db_for_read(Event) is None


def test_the_router_keeps_migrations_and_replica_rows_writes_off_the_replica():
    """Migrations never run on the replica; a row read there is saved on the primary."""
    router = ReplicaRouter()
    assert router.allow_migrate(REPLICA, "ledger") is False
    assert router.allow_migrate(DEFAULT_DB_ALIAS, "ledger") is None
    user = User(username="read-on-the-replica")
    user._state.db = REPLICA
    assert router.db_for_write(User, instance=user) == DEFAULT_DB_ALIAS
    assert router.db_for_write(User) is None


def test_the_replica_alias_is_a_test_mirror_of_the_primary_database():
    """DATABASE_REPLICA_URL gives host and user; the database is always the primary's."""
    default = {"NAME": "casino", "OPTIONS": {"prepare_threshold": 5}}
    entry = replica_database("postgres://reader:secret@standby.internal:5433/other", default)
    assert (entry["HOST"], entry["PORT"], entry["USER"], entry["PASSWORD"]) == (
        "standby.internal", 5433, "reader", "secret")
    assert entry["NAME"] == "casino"
    assert entry["TEST"] == {"MIRROR": "default"}
    assert entry["OPTIONS"]["prepare_threshold"] == 5


def test_the_replica_url_may_name_a_failover_pair():
    """With settings' parser a multi-host URL names whichever node is the standby now."""
    from casino.settings import _database_from_url

    default = {"NAME": "casino", "OPTIONS": {}}
    entry = replica_database(
        "postgres://reader@db1:5432,db2:5433/other?target_session_attrs=prefer-standby",
        default, parse=_database_from_url)
    assert (entry["HOST"], entry["PORT"]) == ("db1,db2", "5432,5433")
    assert entry["OPTIONS"]["target_session_attrs"] == "prefer-standby"
    assert entry["NAME"] == "casino"
    assert entry["TEST"] == {"MIRROR": "default"}
