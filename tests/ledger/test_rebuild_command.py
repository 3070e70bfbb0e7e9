"""manage.py rebuild_projections names what it destroys and checks its target."""

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection

from ledger.models import Account
from ledger.store import head

from .factories import transfer


def test_rebuild_help_says_what_it_deletes() -> None:
    """The help text warns that projection rows are deleted, and events never."""
    from ledger.management.commands.rebuild_projections import Command

    assert Command.help.startswith("DELETES every projection row")
    assert "Events, postings and idempotency records are never touched" in Command.help


def test_rebuild_refuses_a_log_that_is_not_whole(accounts, capsys) -> None:
    """With the last event gone (a superuser with triggers off), the rebuild
    refuses and deletes no projection row."""
    transfer("player/alice", "cage/cash", 4_200)
    balances = dict(Account.objects.values_list("code", "balance_minor"))
    position, _ = head()
    with connection.cursor() as cursor:
        cursor.execute("SET session_replication_role = replica")
        cursor.execute("DELETE FROM ledger_posting WHERE event_id IN"
                       " (SELECT id FROM ledger_event WHERE position = %s)", [position])
        cursor.execute("DELETE FROM ledger_event WHERE position = %s", [position])
        cursor.execute("SET session_replication_role = origin")

    with pytest.raises(CommandError, match="its log is not whole"):
        call_command("rebuild_projections", "--no-progress")

    assert dict(Account.objects.values_list("code", "balance_minor")) == balances
    assert balances["player/alice"] == 4_200


def test_rebuild_names_its_database(accounts, capsys) -> None:
    """Before it deletes anything, the command names the database it acts on."""
    transfer("player/alice", "cage/cash", 100)
    call_command("rebuild_projections", "--no-progress")
    err = capsys.readouterr().err
    assert f"database {connection.settings_dict['NAME']!r}: deleting every projection" in err
