"""L8: verify_ledger finds what was altered, removed or cut off.

Tampering needs the triggers off, which only a superuser can do; these tests
do exactly that, the way an attacker with database access would.
"""

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection

from ledger import verify_chain

from .factories import transfer


@pytest.fixture
def ten_events(accounts):
    for amount in range(1, 7):
        transfer("player/alice", "cage/cash", amount * 100)
    assert verify_chain().ok
    return 10


def _tamper(sql: str, params=None) -> None:
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL session_replication_role = replica")
        cursor.execute(sql, params)
        cursor.execute("SET LOCAL session_replication_role = origin")


def test_intact_log_verifies(ten_events, capsys):
    """An untouched log verifies and the command prints the event count."""
    call_command("verify_ledger")
    assert capsys.readouterr().out.strip() == "verify_ledger: OK (10 events)"


def test_changed_payload_is_named_by_position(ten_events):
    """Editing one event's payload makes verify name exactly that position."""
    _tamper("""UPDATE ledger_event SET payload = '{"amount_minor": 1}' WHERE position = 7""")
    result = verify_chain()
    assert result.ok is False
    assert result.bad_position == 7
    assert "altered" in result.problem


def test_changed_posting_amount_is_caught(ten_events):
    """Editing both legs of a posting (still balanced) breaks the hash."""
    _tamper("UPDATE ledger_posting SET amount_minor = amount_minor * 2 WHERE event_id = 8")
    result = verify_chain()
    assert (result.ok, result.bad_position) == (False, 8)


def test_deleted_event_is_caught(ten_events):
    """Deleting an event from the middle leaves a gap that verify names."""
    _tamper("DELETE FROM ledger_posting WHERE event_id = 6")
    _tamper("DELETE FROM ledger_event WHERE position = 6")
    result = verify_chain()
    assert (result.ok, result.bad_position) == (False, 6)
    assert "missing" in result.problem


def test_deleted_last_event_is_caught(ten_events):
    """Cutting the newest event off the end is caught through the head row."""
    _tamper("DELETE FROM ledger_posting WHERE event_id = 10")
    _tamper("DELETE FROM ledger_event WHERE position = 10")
    result = verify_chain()
    assert (result.ok, result.bad_position) == (False, 10)


def test_rewritten_chain_tail_is_caught_by_the_head(ten_events):
    """Changing gaming_day on one event is caught even for the last position."""
    _tamper("UPDATE ledger_event SET gaming_day = gaming_day + 1 WHERE position = 10")
    assert verify_chain().bad_position == 10


def test_command_exits_non_zero_naming_the_position(ten_events):
    """manage.py verify_ledger fails with the bad position in its message."""
    _tamper("UPDATE ledger_event SET stream = 'elsewhere' WHERE position = 9")
    with pytest.raises(CommandError, match="FAILED at position 9") as caught:
        call_command("verify_ledger")
    assert caught.value.returncode == 1
