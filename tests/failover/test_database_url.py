"""DATABASE_URL may name a failover group: libpq's multi-host URL (issue 19 point 7)."""

from __future__ import annotations

from casino.settings import _database_from_url


def test_multi_host_url_gives_libpq_host_and_port_lists_with_health_checks():
    """Every host and port of the group reaches psycopg as libpq's comma
    lists, with target_session_attrs, and connections are checked before reuse."""
    entry = _database_from_url("postgres://casino_app:secret@10.0.0.1:5432,10.0.0.2:6432"
                               "/casino?target_session_attrs=read-write")

    assert entry["HOST"] == "10.0.0.1,10.0.0.2"
    assert entry["PORT"] == "5432,6432"
    assert entry["NAME"] == "casino"
    assert entry["USER"] == "casino_app"
    assert entry["PASSWORD"] == "secret"
    assert entry["OPTIONS"] == {"target_session_attrs": "read-write"}
    assert entry["CONN_HEALTH_CHECKS"] is True
    assert entry["CONN_MAX_AGE"] == 60


def test_multi_host_url_without_port_takes_postgresql_default():
    """A host named without a port is on 5432, as libpq reads it."""
    entry = _database_from_url("postgres://u@db-a,db-b:6000,[::1]:7000/casino")

    assert entry["HOST"] == "db-a,db-b,::1"
    assert entry["PORT"] == "5432,6000,7000"


def test_single_host_url_is_parsed_as_before():
    """One host: dj-database-url's entry, no health check per request."""
    entry = _database_from_url("postgres://u:p@db:5433/casino")

    assert (entry["HOST"], entry["PORT"], entry["NAME"]) == ("db", 5433, "casino")
    assert entry["CONN_HEALTH_CHECKS"] is False
