"""L7: one client key, one effect, however often the request is retried."""

import threading

import pytest
from django.db import connection, transaction

from ledger import open_account
from ledger.errors import IdempotencyConflict
from ledger.models import Event, IdempotencyRecord

from .factories import transfer


def test_repeat_returns_the_original_result_and_writes_nothing(accounts):
    """Same key, same request: the first result comes back, marked replayed."""
    first = transfer("player/alice", "cage/cash", 2_500, stream="player/alice",
                     idempotency_key="cage-42")
    again = transfer("player/alice", "cage/cash", 2_500, stream="player/alice",
                     idempotency_key="cage-42")
    assert again.replayed is True
    assert first.replayed is False
    assert again.events == first.events
    assert Event.objects.count() == 5
    assert IdempotencyRecord.objects.get(key="cage-42").first_position == 5


def test_repeat_is_recognised_even_when_the_stream_moved_on(accounts):
    """A retry whose expected version is now stale still gets its result."""
    transfer("player/alice", "cage/cash", 100, stream="player/alice",
             expected_versions={"player/alice": 0}, idempotency_key="k-1")
    transfer("player/alice", "cage/cash", 100, stream="player/alice")
    again = transfer("player/alice", "cage/cash", 100, stream="player/alice",
                     expected_versions={"player/alice": 0}, idempotency_key="k-1")
    assert again.replayed is True
    assert again.first_position == 5


def test_same_key_for_a_different_request_is_a_conflict(accounts):
    """Reusing a key for another amount is refused; nothing is written."""
    transfer("player/alice", "cage/cash", 100, stream="player/alice", idempotency_key="k-2")
    with pytest.raises(IdempotencyConflict):
        transfer("player/alice", "cage/cash", 101, stream="player/alice", idempotency_key="k-2")
    assert Event.objects.count() == 5


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("mode", ["own_transaction", "group_commit"])
def test_fifty_concurrent_retries_write_exactly_one_event(mode):
    """50 threads send one request under one key at once: one event results.

    own_transaction: each thread appends inside its own transaction on its
    own connection, contending for the writer lock in PostgreSQL.
    group_commit: the threads hand their requests to the shared writer.
    """
    open_account(code="cage/cash", type="asset", currency="EUR")
    open_account(code="player/alice", type="liability", currency="EUR")
    start = threading.Barrier(50)
    results, errors = [], []

    def retry() -> None:
        try:
            start.wait()
            if mode == "own_transaction":
                with transaction.atomic():
                    results.append(transfer("player/alice", "cage/cash", 700,
                                            stream="player/alice", idempotency_key="same-key"))
            else:
                results.append(transfer("player/alice", "cage/cash", 700,
                                        stream="player/alice", idempotency_key="same-key"))
        except Exception as error:  # noqa: BLE001 - reported below
            errors.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=retry) for _ in range(50)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert errors == []
    assert len(results) == 50
    assert sum(not result.replayed for result in results) == 1
    assert {result.first_position for result in results} == {3}
    assert Event.objects.filter(type="test.transferred").count() == 1
    assert IdempotencyRecord.objects.count() == 1
