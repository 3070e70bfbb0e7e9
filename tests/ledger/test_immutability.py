"""L1, L2, L3, L5 on the database side: PostgreSQL refuses what the Python
checks would refuse, even for raw SQL from a superuser connection."""

import pytest
from django.db import DatabaseError, connection, transaction

from ledger import open_account
from ledger.models import Event, LedgerHead, Posting

from .factories import GAMING_DAY, transfer


def _fails(sql: str, params=None) -> str:
    """Run SQL in a savepoint; return the database's error message."""
    with pytest.raises(DatabaseError) as caught:
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute(sql, params)
    return str(caught.value)


@pytest.mark.parametrize("table", ["ledger_event", "ledger_posting", "ledger_idempotency"])
@pytest.mark.parametrize(
    "statement",
    ["UPDATE {table} SET {column} = {column}", "DELETE FROM {table}"],
    ids=["update", "delete"],
)
def test_raw_sql_cannot_change_the_log(accounts, table, statement):
    """UPDATE and DELETE on the log's tables fail (L1)."""
    transfer("player/alice", "cage/cash", 1_000, idempotency_key="deposit-1")
    column = {"ledger_event": "payload", "ledger_posting": "amount_minor",
              "ledger_idempotency": "fingerprint"}[table]
    message = _fails(statement.format(table=table, column=column))
    assert "append-only" in message
    assert Event.objects.count() == 5
    assert Posting.objects.count() == 2


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("table", ["ledger_event", "ledger_posting", "ledger_idempotency"])
def test_truncate_of_committed_log_fails(table):
    """TRUNCATE fails on the committed log's tables, CASCADE or not (L1)."""
    open_account(code="cage/cash", type="asset", currency="EUR")
    open_account(code="player/alice", type="liability", currency="EUR")
    transfer("player/alice", "cage/cash", 1_000, idempotency_key="deposit-1")
    # Plain TRUNCATE of ledger_event is already refused by the posting
    # foreign key; CASCADE gets past that and meets the trigger.
    _fails(f"TRUNCATE {table}")
    assert "append-only" in _fails(f"TRUNCATE {table} CASCADE")
    assert Event.objects.count() == 3
    assert Posting.objects.count() == 2


def test_update_matching_no_rows_still_fails(accounts):
    """The trigger is statement-level: even an update of nothing is refused."""
    message = _fails("UPDATE ledger_event SET type = 'x' WHERE false")
    assert "append-only" in message


def test_head_cannot_be_moved_by_hand(accounts):
    """ledger_head follows the log; a direct UPDATE or DELETE fails."""
    assert "follows the log" in _fails("UPDATE ledger_head SET position = 0")
    assert "follows the log" in _fails("DELETE FROM ledger_head")
    assert LedgerHead.objects.get().position == 4


def _insert_event(position: int, prev_hash: str, hash_: str) -> None:
    with connection.cursor() as cursor:
        cursor.execute(
            "INSERT INTO ledger_event (position, stream, version, type, schema_version,"
            " payload, metadata, occurred_at, recorded_at, gaming_day, prev_hash, hash)"
            " VALUES (%s, 'raw', %s, 'raw', 1, '{}', '{}', now(), now(), current_date, %s, %s)",
            [position, position, prev_hash, hash_],
        )


def test_database_refuses_a_gap_in_positions(accounts):
    """An insert that skips a position is refused by the insert trigger (L2)."""
    head = LedgerHead.objects.get()
    with pytest.raises(DatabaseError, match="do not continue the log"):
        with transaction.atomic():
            _insert_event(head.position + 2, head.hash, "f" * 64)
    assert Event.objects.count() == head.position


def test_database_refuses_a_broken_chain_link(accounts):
    """An insert whose prev_hash is not the head's hash is refused (L2, L8)."""
    head = LedgerHead.objects.get()
    with pytest.raises(DatabaseError, match="prev_hash does not link"):
        with transaction.atomic():
            _insert_event(head.position + 1, "e" * 64, "f" * 64)
    assert Event.objects.count() == head.position


def test_database_refuses_unbalanced_postings(accounts):
    """Postings inserted for one event must sum to zero per currency (L3)."""
    result = transfer("player/alice", "cage/cash", 1_000)
    with pytest.raises(DatabaseError, match="do not sum to zero"):
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute(
                "INSERT INTO ledger_posting (event_id, index, account_id, amount_minor, currency,"
                " gaming_day) VALUES (%s, 5, 'cage/cash', 100, 'EUR', %s)",
                [result.first_position, GAMING_DAY],
            )
    assert Posting.objects.count() == 2


def test_database_refuses_a_posting_in_the_wrong_currency(accounts):
    """A posting's currency must be its account's: the insert trigger (L5)."""
    result = transfer("player/alice", "cage/cash", 1_000)
    with pytest.raises(DatabaseError, match="unknown account or the wrong currency"):
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute(
                "INSERT INTO ledger_posting (event_id, index, account_id, amount_minor, currency,"
                " gaming_day) VALUES (%s, 5, 'cage/cash', 100, 'SEK', %s),"
                " (%s, 6, 'player/bob', -100, 'SEK', %s)",
                [result.first_position, GAMING_DAY, result.first_position, GAMING_DAY],
            )
    assert Posting.objects.count() == 2


def test_database_refuses_a_posting_for_a_missing_event(accounts):
    """Postings can only be attached to an event in the log."""
    with pytest.raises(DatabaseError, match="event that does not exist"):
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute(
                "INSERT INTO ledger_posting (event_id, index, account_id, amount_minor, currency,"
                " gaming_day) VALUES (999, 0, 'cage/cash', 100, 'EUR', %s),"
                " (999, 1, 'player/bob', -100, 'EUR', %s)", [GAMING_DAY, GAMING_DAY]
            )
    assert Posting.objects.count() == 0


def _insert_postings(event_id: int, *postings: tuple[int, str, int]) -> None:
    """Attach postings (index, account, amount) to an existing event, raw."""
    with connection.cursor() as cursor:
        cursor.execute(
            "INSERT INTO ledger_posting (event_id, index, account_id, amount_minor, currency,"
            " gaming_day) SELECT %s, i, a, m, 'EUR', %s FROM unnest(%s::smallint[], %s::text[],"
            " %s::bigint[]) AS p(i, a, m)",
            [event_id, GAMING_DAY, [p[0] for p in postings], [p[1] for p in postings],
             [p[2] for p in postings]],
        )


def test_database_refuses_a_negative_balance_on_a_guarded_account(accounts):
    """Postings inserted past the writer's checks still meet the balance row's
    CHECK constraint, moved by the posting insert trigger (L4)."""
    result = transfer("player/alice", "cage/cash", 1_000)
    with pytest.raises(DatabaseError, match="ledger_account_not_negative"):
        with transaction.atomic():
            # A debit of a liability lowers it: bob (0) would owe -100.
            _insert_postings(result.first_position, (5, "player/bob", 100), (6, "cage/cash", -100))
    assert Posting.objects.count() == 2


def test_database_refuses_a_balance_over_the_maximum(accounts):
    """The maximum balance is held at insert time too (L4)."""
    result = transfer("player/alice", "cage/cash", 1_000)
    with pytest.raises(DatabaseError, match="ledger_account_balance_max"):
        with transaction.atomic():
            _insert_postings(result.first_position, (5, "cage/cash", 499_001),
                             (6, "player/alice", -499_001))
    assert Posting.objects.count() == 2
