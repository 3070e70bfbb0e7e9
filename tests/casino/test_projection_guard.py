"""Projections change only inside an append (issue 13, point 8; migration 0006).

As the least-privilege runtime role (created for the test, with the grants
of casino.dbroles, and dropped after it), a direct change of any projection
row is refused: clearing a self-exclusion, resetting a loss counter,
rewriting a hand's snapshot. The same role still changes them the one way
allowed: by running the command whose event says so. The owner (migrations,
rebuilds, these fixtures) is exempt, as the issue asks; `verify_ledger`
catches what the owner does (tests/ledger/test_verify*.py).
"""

from __future__ import annotations

import os

import psycopg
import pytest
from django.db import connection, transaction

from casino.dbroles import create_runtime_role, grant
from casino.players.commands import self_exclude
from casino.players.models import Player
from ledger import guards
from tests.casino.conftest import NOON, make_player

RUNTIME = f"casino_app_guard_{os.getpid()}"
# Each statement of these tests is its own transaction, as in production:
# the guard admits only the transaction that moved the head, and inside one
# test transaction every fixture's append would have moved it already.
pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def excluded(venues):
    player = make_player()
    self_exclude(player_id=player.id, months=6, venue_code="ray-online", actor="test", at=NOON)
    player.refresh_from_db()
    assert player.self_excluded_until is not None
    return player


@pytest.fixture
def runtime(excluded):
    with connection.cursor() as cursor:
        cursor.execute("SELECT current_user")
        owner = cursor.fetchone()[0]
        create_runtime_role(cursor, RUNTIME)
        grant(cursor, RUNTIME, owner)
        cursor.execute(f'SET ROLE "{RUNTIME}"')
    try:
        yield RUNTIME
    finally:
        with connection.cursor() as cursor:
            cursor.execute("RESET ROLE")
            cursor.execute(f'DROP OWNED BY "{RUNTIME}"')
            cursor.execute(f'DROP ROLE "{RUNTIME}"')


def _refused(statement: str, params=()) -> psycopg.Error:
    with pytest.raises(Exception) as refused, transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute(statement, params)
    cause = refused.value.__cause__ or refused.value
    assert isinstance(cause, psycopg.errors.RaiseException), repr(cause)
    assert "refused outside an append" in str(cause)
    return cause


def test_every_projection_table_is_guarded():
    """The guard sits on every registered projection's tables after migrate."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT tgrelid::regclass::text FROM pg_trigger WHERE tgname = %s",
                       [guards.TRIGGER])
        guarded = {row[0] for row in cursor.fetchall()}
    expected = set(guards.guarded_tables())
    assert {"players_player", "players_playerlimit", "compliance_playeractivity",
            "compliance_cashactivity", "compliance_alert", "poker_handsnapshot",
            "games_roundsnapshot", "tournaments_tournamentsnapshot"} <= expected
    assert guarded == expected


def test_the_runtime_role_cannot_clear_a_self_exclusion(runtime, excluded):
    """The attack of issue 16: clearing `self_excluded_until` to turn a refusal into a 201."""
    _refused("UPDATE players_player SET self_excluded_until = NULL WHERE id = %s", [excluded.id])
    excluded.refresh_from_db()
    assert excluded.self_excluded_until is not None


def test_the_runtime_role_cannot_change_decision_rows(runtime):
    """Limits, loss and cash counters, alerts, snapshots: every statement kind."""
    for table in ("players_playerlimit", "compliance_playeractivity", "compliance_cashactivity",
                  "compliance_alert", "poker_handsnapshot", "games_roundsnapshot",
                  "tournaments_tournamentsnapshot"):
        _refused(f"DELETE FROM {table}")
    _refused("UPDATE players_playerlimit SET value = value + 1")
    _refused("INSERT INTO compliance_playeractivity SELECT * FROM compliance_playeractivity")


def test_the_runtime_role_changes_projections_by_appending(runtime, excluded):
    """The command path is the one way in: its append moves the head, then projects."""
    before = excluded.self_excluded_until
    # In a transaction of this connection, so the append and the projection
    # run as the runtime role (outside one, the group writer's own
    # connection would append).
    with transaction.atomic():
        self_exclude(player_id=excluded.id, months=9, venue_code="ray-online", actor="test",
                     at=NOON)
        with connection.cursor() as cursor:
            cursor.execute("SELECT current_user")
            assert cursor.fetchone()[0] == RUNTIME
    assert Player.objects.get(pk=excluded.id).self_excluded_until > before


def test_the_owner_is_exempt(excluded):
    """Migrations and rebuilds run as the owner; the issue exempts it."""
    with connection.cursor() as cursor:
        cursor.execute("UPDATE players_player SET given_name = given_name WHERE id = %s",
                       [excluded.id])
        assert cursor.rowcount == 1
