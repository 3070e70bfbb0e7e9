"""L8, L4, L9: verify_ledger finds what was altered, removed or cut off in
the log, any balance that is not the sum of its postings, and any projection
row that a rebuild would not reproduce.

Tampering needs the triggers off, which only a superuser can do; these tests
do exactly that, the way an attacker with database access would.
"""

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection

from ledger import projections, verify_chain
from ledger.models import Account
from ledger.verify import verify_ledger

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


def test_balance_edited_with_triggers_off_is_named(ten_events):
    """A superuser's balance edit past the guard (triggers off) is named with
    the account, the stored and the recomputed balance (L4)."""
    _tamper("UPDATE ledger_account SET balance_minor = balance_minor + 300000"
            " WHERE code = 'player/alice'")
    assert verify_chain().ok  # the log itself is intact
    result = verify_ledger()
    assert (result.ok, result.account, result.bad_position) == (False, "player/alice", None)
    assert result.problem == "stored balance 302100, recomputed from the postings 2100"
    with pytest.raises(CommandError) as caught:
        call_command("verify_ledger")
    assert str(caught.value) == ("verify_ledger: FAILED at account player/alice: stored"
                                 " balance 302100, recomputed from the postings 2100")
    assert caught.value.returncode == 1


def test_payout_from_a_forged_balance_is_named(ten_events):
    """The issue's attack with triggers off: a forged balance funds a payout
    the writer cannot tell from a real one; verify names the account, whose
    postings now take it below zero (L4)."""
    _tamper("UPDATE ledger_account SET balance_minor = balance_minor + 300000"
            " WHERE code = 'player/alice'")
    transfer("cage/cash", "player/alice", 250_000)
    result = verify_ledger()
    assert (result.ok, result.account) == (False, "player/alice")
    assert result.problem == "stored balance 52100, recomputed from the postings -247900"


def test_stream_version_edited_with_triggers_off_is_named(ten_events):
    """A projection row of another kind: verify rebuilds into a scratch schema
    and names the table, the row and the column (L9)."""
    _tamper("UPDATE ledger_stream SET version = 9 WHERE name = 'account/player/bob'")
    result = verify_ledger()
    assert (result.ok, result.table, result.account) == (False, "ledger_stream", None)
    assert result.problem == "row name='account/player/bob' differs: version live 9, rebuilt 1"
    with pytest.raises(CommandError, match="FAILED in projection ledger_stream: row"):
        call_command("verify_ledger")


def test_account_rule_edited_with_triggers_off_is_named(ten_events):
    """A lifted maximum leaves every balance right; the rebuild names it (L4, L9)."""
    _tamper("UPDATE ledger_account SET balance_max_minor = NULL WHERE code = 'player/alice'")
    result = verify_ledger()
    assert (result.ok, result.table) == (False, "ledger_account")
    assert result.problem == ("row code='player/alice' differs:"
                              " balance_max_minor live None, rebuilt 500000")


def test_deleted_and_added_projection_rows_are_named(ten_events):
    """A row missing from the live table, or one the log never made (L9)."""
    _tamper("DELETE FROM ledger_stream WHERE name = 'account/cage/cash'")
    result = verify_ledger()
    assert result.problem == ("row name='account/cage/cash' is in the rebuild but not in"
                              " the live table")
    _tamper("INSERT INTO ledger_stream VALUES ('account/cage/cash', 1, 1), ('a/forged', 1, 1)")
    result = verify_ledger()
    assert result.problem == "row name='a/forged' is in the live table but not in the rebuild"


def test_projection_that_cannot_be_rebuilt_is_named(ten_events, monkeypatch):
    """A rebuild that fails is a finding, reported with the projection's name."""

    class Broken:
        name = "test.broken"
        event_types = None
        tables = ()

        def reset(self) -> None:
            pass

        def apply(self, events) -> None:
            raise ValueError("cannot fold")

    monkeypatch.setitem(projections._registry, Broken.name, Broken())
    result = verify_ledger()
    assert (result.ok, result.table) == (False, "test.broken, events at positions 1 to 10")
    assert result.problem == "cannot be rebuilt from the log: ValueError: cannot fold"


def test_verify_writes_nothing_and_leaves_no_scratch_tables(ten_events):
    """The scratch (temporary) tables are dropped, the search_path restored,
    the live tables untouched, whether verify passes or fails."""
    with connection.cursor() as cursor:
        cursor.execute("SHOW search_path")
        search_path = cursor.fetchone()[0]
    accounts_before = list(Account.objects.values_list())
    assert verify_ledger().ok
    _tamper("UPDATE ledger_stream SET version = 9 WHERE name = 'account/player/bob'")
    assert not verify_ledger().ok
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM pg_class WHERE relnamespace = pg_my_temp_schema()")
        assert cursor.fetchone() == (0,)
        cursor.execute("SHOW search_path")
        assert cursor.fetchone()[0] == search_path
    assert list(Account.objects.values_list()) == accounts_before


@pytest.mark.django_db(transaction=True)
def test_verify_outside_a_transaction_reads_one_snapshot_and_writes_nothing():
    """Called in autocommit (as the command is), verify opens its own
    REPEATABLE READ transaction, rolls it back and leaves no scratch tables."""
    from ledger import open_account

    open_account(code="cage/cash", type="asset", currency="EUR")
    open_account(code="player/alice", type="liability", currency="EUR")
    transfer("player/alice", "cage/cash", 700)
    seen = []

    def progress(events: int) -> None:
        with connection.cursor() as cursor:
            cursor.execute("SHOW transaction_isolation")
            seen.append((events, cursor.fetchone()[0]))

    result = verify_ledger(progress)
    assert (result.ok, result.events) == (True, 3)
    assert seen == [(3, "repeatable read")]
    assert connection.get_autocommit() and not connection.in_atomic_block
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM pg_class WHERE relnamespace = pg_my_temp_schema()")
        assert cursor.fetchone() == (0,)
