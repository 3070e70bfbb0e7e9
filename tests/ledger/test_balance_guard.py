"""L4, L6: the rows the writer decides with follow the log and nothing else.

`ledger_account` (balances, maximums, may-not-go-negative) and
`ledger_stream` (versions) are maintained by the log's insert triggers
(migration 0004). A direct INSERT, UPDATE, DELETE or TRUNCATE is refused for
every role, superusers included, unless triggers are switched off; then
verify_ledger names the difference (tests/ledger/test_verify.py).

"The application's role" is played by a role made here: not a superuser,
not the owner, with every privilege on the tables the application has and
TRUNCATE besides, so that the refusals below come from the guard, not from
a missing GRANT.
"""

from __future__ import annotations

import contextlib
import os

import pytest
from django.db import DatabaseError, connection, transaction

from ledger.errors import InsufficientFunds
from ledger.models import Account, Event, Stream

from .factories import transfer

APP_ROLE = f"casino_app_{os.getpid()}"  # roles are per server; tests run in parallel


@pytest.fixture
def app_role(db):
    """A runtime role as the application would have it (rolled back with the test)."""
    with connection.cursor() as cursor:
        cursor.execute(f"CREATE ROLE {APP_ROLE} LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE")
        cursor.execute(
            f"GRANT SELECT, INSERT, UPDATE, DELETE, TRUNCATE ON ALL TABLES IN SCHEMA public"
            f" TO {APP_ROLE}"
        )
        cursor.execute(f"GRANT USAGE ON ALL SEQUENCES IN SCHEMA public TO {APP_ROLE}")
    return APP_ROLE


@contextlib.contextmanager
def acting_as(role: str):
    """Run the block's SQL as `role`; back to the test's own role after."""
    with connection.cursor() as cursor:
        cursor.execute(f"SET ROLE {role}")
        try:
            yield cursor
        finally:
            cursor.execute("RESET ROLE")


def _refused(cursor, sql: str) -> str:
    with pytest.raises(DatabaseError) as caught:
        with transaction.atomic():
            cursor.execute(sql)
    return str(caught.value)


def _balance(code: str) -> int:
    return Account.objects.get(code=code).balance_minor


def test_application_role_cannot_raise_a_balance(accounts, app_role):
    """The issue's forgery: the runtime role's UPDATE of a balance is refused,
    and the withdrawal it was meant to fund is refused as before (L4)."""
    transfer("player/alice", "cage/cash", 1_000)
    with acting_as(app_role) as cursor:
        message = _refused(cursor, "UPDATE ledger_account SET balance_minor = balance_minor"
                                   " + 300000 WHERE code = 'player/alice'")
    assert "UPDATE on ledger_account is refused; it follows the log" in message
    assert _balance("player/alice") == 1_000
    with pytest.raises(InsufficientFunds):
        transfer("cage/cash", "player/alice", 250_000)
    assert _balance("player/alice") == 1_000
    assert Event.objects.count() == 5


@pytest.mark.parametrize(
    "sql",
    [
        "UPDATE ledger_account SET balance_max_minor = NULL WHERE code = 'player/alice'",
        "UPDATE ledger_account SET must_not_go_negative = false WHERE code = 'player/bob'",
        "DELETE FROM ledger_account WHERE code = 'player/bob'",
        "INSERT INTO ledger_account (code, type, currency, name, must_not_go_negative,"
        " balance_max_minor, balance_minor, opened_position, last_position)"
        " VALUES ('player/mallory', 'liability', 'EUR', '', false, NULL, 300000, 1, 1)",
        "TRUNCATE ledger_account",
        "UPDATE ledger_stream SET version = 0 WHERE name = 'account/player/bob'",
        "DELETE FROM ledger_stream",
        "INSERT INTO ledger_stream (name, version, last_position) VALUES ('x', 7, 1)",
    ],
    ids=["maximum", "not-negative", "delete", "insert", "truncate",
         "stream-version", "stream-delete", "stream-insert"],
)
def test_application_role_cannot_change_what_the_writer_decides_with(accounts, app_role, sql):
    """Maximums, rules, rows and stream versions are refused like balances (L4, L6)."""
    before = (list(Account.objects.values_list()), list(Stream.objects.values_list()))
    with acting_as(app_role) as cursor:
        assert "it follows the log" in _refused(cursor, sql)
    assert (list(Account.objects.values_list()), list(Stream.objects.values_list())) == before


def test_rebuild_setting_does_not_admit_the_application_role(accounts, app_role):
    """The rebuild's transaction-local setting opens the guard only for the
    owner: the runtime role setting it is still refused (L4)."""
    with acting_as(app_role) as cursor:
        cursor.execute("SELECT set_config('ledger.rebuilding', 'on', true)")
        message = _refused(cursor, "UPDATE ledger_account SET balance_minor = 5"
                                   " WHERE code = 'player/bob'")
    assert "refused" in message
    assert _balance("player/bob") == 0


def test_application_role_own_trigger_cannot_vouch(accounts, app_role):
    """A trigger the runtime role writes runs as that role: nesting an UPDATE
    inside it does not pass for the ledger's own insert path (L4)."""
    with connection.cursor() as cursor:
        cursor.execute(f"GRANT CREATE ON SCHEMA public TO {app_role}")
    with acting_as(app_role) as cursor:
        cursor.execute("CREATE TABLE mallory_note (amount_minor bigint)")
        cursor.execute(
            "CREATE FUNCTION mallory_credit() RETURNS trigger LANGUAGE plpgsql AS $$"
            " BEGIN UPDATE ledger_account SET balance_minor = balance_minor + NEW.amount_minor"
            " WHERE code = 'player/bob'; RETURN NEW; END $$"
        )
        cursor.execute(
            "CREATE TRIGGER mallory_credit AFTER INSERT ON mallory_note"
            " FOR EACH ROW EXECUTE FUNCTION mallory_credit()"
        )
        message = _refused(cursor, "INSERT INTO mallory_note VALUES (300000)")
    assert "UPDATE on ledger_account is refused" in message
    assert _balance("player/bob") == 0


def test_superuser_is_refused_while_triggers_are_on(accounts):
    """No role is exempt from the guard: the test's superuser connection too (L4)."""
    with connection.cursor() as cursor:
        message = _refused(cursor, "UPDATE ledger_account SET balance_minor = 7"
                                   " WHERE code = 'player/bob'")
    assert "it follows the log" in message
    assert _balance("player/bob") == 0


def test_application_role_appends_and_the_trigger_moves_the_balances(accounts, app_role):
    """Appending as the runtime role works: the posting insert trigger, run as
    the owner, moves each balance and its last position (L4, L6)."""
    with acting_as(app_role):
        first = transfer("player/alice", "cage/cash", 1_500, stream="player/alice")
        second = transfer("player/bob", "player/alice", 400, stream="player/alice")
    assert {a.code: (a.balance_minor, a.last_position) for a in Account.objects.all()} == {
        "cage/cash": (1_500, first.first_position),
        "house/revenue": (0, 2),
        "player/alice": (1_100, second.first_position),
        "player/bob": (400, second.first_position),
    }
    assert Stream.objects.get(name="player/alice").version == 2


def test_opened_account_carries_its_event_rules(db):
    """The event insert trigger opens an account with the rules its event
    states: type, currency, maximum, may-not-go-negative, zero balance."""
    from ledger import open_account

    result = open_account(code="player/carol", type="liability", currency="EUR",
                          name="Carol", must_not_go_negative=True, balance_max_minor=500_000)
    assert Account.objects.filter(code="player/carol").values_list(
        "type", "currency", "name", "must_not_go_negative", "balance_max_minor",
        "balance_minor", "opened_position", "last_position",
    ).get() == ("liability", "EUR", "Carol", True, 500_000, 0,
                result.first_position, result.first_position)
