"""The runner retries a write whose connection was lost, under its key.

The connections are really lost: another session terminates them on the
server (pg_terminate_backend), as a failed-over primary drops them. A write
under an Idempotency-Key is then run again on a new connection and written
once; a write without a key is not retried (nothing would stop a second
copy), and an error of the request itself is never retried.
"""

from __future__ import annotations

import psycopg
import pytest
from django.db import OperationalError, connection

from casino.cage.commands import buy_chips
from casino.runner import CONNECTION_RETRIES_MAX, connection_lost
from ledger import verify_ledger
from tests.casino.conftest import make_player

pytestmark = pytest.mark.django_db(transaction=True)

VENUE = "casino-helsinki"


def _terminate_every_other_session() -> None:
    """Terminate every session on this test database (this thread's, the
    ledger writer's if it keeps one) from a new session, as a lost primary does."""
    connection.ensure_connection()
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        own = cursor.fetchone()[0]
    settings = connection.settings_dict
    with psycopg.connect(host=settings["HOST"], port=settings["PORT"] or None,
                         user=settings["USER"], dbname=settings["NAME"],
                         autocommit=True) as killer:
        terminated = {pid for pid, done in killer.execute(
            "SELECT pid, pg_terminate_backend(pid) FROM pg_stat_activity"
            " WHERE datname = current_database() AND pid <> pg_backend_pid()") if done}
    assert own in terminated


def _chip_purchases() -> list[tuple[str, int]]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT idempotency_key, (payload->>'amount_minor')::bigint"
                       " FROM ledger_event WHERE type = 'cage.chips_purchased'"
                       " ORDER BY position")
        return list(cursor.fetchall())


def _buy(player_id: str, key: str | None, amount_minor: int = 100):
    return buy_chips(player_id=player_id, venue=VENUE, amount_minor=amount_minor,
                     currency="EUR", paid_with="cash", actor="cage-1", idempotency_key=key)


def test_write_under_key_is_retried_on_new_connection_after_sessions_terminated(venues):
    """Both the request's and the ledger writer's sessions are gone: the write
    is run again on new ones and written once (issue 19 point 7)."""
    player = make_player()
    _buy(player.id, "warm-up")          # the writer thread has its connection now
    _terminate_every_other_session()
    before = connection.connection

    result = _buy(player.id, "after-loss", 250)

    assert result.replayed is False
    assert result.amount_minor == 250
    assert connection.connection is not before
    assert _chip_purchases() == [("warm-up", 100), ("after-loss", 250)]
    assert verify_ledger().ok


def test_retry_of_committed_write_answers_from_record_and_writes_nothing(venues):
    """A write that committed before its connection was lost is replayed by
    the retry under its key: no second chip purchase (ledger L7)."""
    player = make_player()
    first = _buy(player.id, "same-key", 300)
    _terminate_every_other_session()

    again = _buy(player.id, "same-key", 300)

    assert again.replayed is True
    assert again.position == first.position
    assert _chip_purchases() == [("same-key", 300)]


def test_write_without_key_is_not_retried_after_connection_lost(venues):
    """Without a key a retry could write a second copy: the error goes to the caller."""
    player = make_player()
    _buy(player.id, "warm-up")
    _terminate_every_other_session()

    with pytest.raises(OperationalError) as raised:
        _buy(player.id, None)

    assert connection_lost(raised.value)
    connection.close()
    assert _chip_purchases() == [("warm-up", 100)]


def test_connection_lost_tells_connection_failures_from_request_errors():
    """No SQLSTATE (libpq's own failure), class 08 and 57P01-03 are a lost
    connection; a request's own error (a serialization failure) is not."""
    lost = OperationalError("server closed the connection unexpectedly")
    lost.__cause__ = psycopg.OperationalError("server closed the connection unexpectedly")
    assert connection_lost(lost)
    assert connection_lost(_with_sqlstate(psycopg.errors.AdminShutdown))
    assert connection_lost(_with_sqlstate(psycopg.errors.ConnectionFailure))
    assert not connection_lost(_with_sqlstate(psycopg.errors.SerializationFailure))
    assert not connection_lost(_with_sqlstate(psycopg.errors.QueryCanceled))
    assert CONNECTION_RETRIES_MAX >= 1


def _with_sqlstate(kind: type[psycopg.Error]) -> OperationalError:
    error = OperationalError(kind.__name__)
    error.__cause__ = kind(kind.__name__)
    return error
