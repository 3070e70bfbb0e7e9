"""Group commit across books: one writer per database (issue 19, point 8).

The group writer gathers the waiting requests of every book placed in its
database and writes them in ONE transaction (`ledger.writer.write_books`):
the books' heads locked in ascending id, every book's rows in one insert,
one commit. These tests hold it to what one book's group commit promised:
each request has its own outcome, a refusal in one book leaves the other
books' requests alone, a book frozen by a move fails only its own requests,
and the lock order is the one `ledger.transfers` uses, so neither waits
for the other forever.
"""

from __future__ import annotations

import concurrent.futures
import logging
import threading
import time

import pytest
from django.db import DatabaseError, connection, connections, transaction
from django.test.utils import CaptureQueriesContext

from ledger import append, open_account, verify_chain
from ledger.books import base_position, book_id, open_book
from ledger.errors import InsufficientFunds, InvariantViolation
from ledger.models import Account, Event
from ledger.placement import is_moved_error
from ledger.transfers import transfer_atomic
from ledger.types import AppendResult, NewEvent
from ledger.writer import (
    GROUP_BOOKS,
    _build_request,
    _GroupWriter,
    _writer,
    write_books,
    write_group,
)

from .factories import GAMING_DAY, transfer_event

BOOKS = ("north", "south")
WAIT_SECONDS_MAX = 30


def _open_books(opening_minor: int = 10_000) -> None:
    """Books north (id 2) and south (id 3), each with a cage and a guarded player."""
    for key in BOOKS:
        open_book(key)
        open_account(code=f"{key}/cage", type="asset", currency="EUR", book=key)
        open_account(code=f"{key}/player", type="liability", currency="EUR",
                     must_not_go_negative=True, book=key)
        append([transfer_event(f"{key}/player", f"{key}/cage", opening_minor)], book=key)


def _request(book: str, amount_minor: int, *, out: bool = False):
    """A request paying `amount_minor` to book's player (`out`: from the player)."""
    source, destination = f"{book}/player", f"{book}/cage"
    if out:
        source, destination = destination, source
    return _build_request([transfer_event(source, destination, amount_minor)],
                          None, None, None, None, book=book_id(book))


def _thread_free_writer() -> _GroupWriter:
    """A writer for `default` whose thread never starts: the test calls `_commit`."""
    writer = _GroupWriter.__new__(_GroupWriter)
    writer.using = "default"
    return writer


class _One:
    """The outcome of one queued request (the writer answers each item with a list)."""

    def __init__(self, future: concurrent.futures.Future) -> None:
        self.future = future

    def result(self):
        return self.future.result()[0]


def _commit(requests: list) -> list[_One]:
    group = [((request,), concurrent.futures.Future()) for request in requests]
    _thread_free_writer()._commit(group)
    return [_One(future) for _, future in group]


def _commit_items(items: list[tuple]) -> list[list]:
    """Commit queued items as the writer thread does: each a tuple of linked requests."""
    group = [(tuple(item), concurrent.futures.Future()) for item in items]
    _thread_free_writer()._commit(group)
    return [future.result() for _, future in group]


def _balance(code: str) -> int:
    return Account.objects.values_list("balance_minor", flat=True).get(code=code)


def _heads() -> dict[str, tuple[int, str]]:
    """Book key -> (head position, the transaction that last moved the head)."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT key, position, xid::text FROM ledger_head")
        return {key: (position, xid) for key, position, xid in cursor.fetchall()}


def _histogram_totals(histogram) -> tuple[float, float]:
    """(observations, sum of observed values) of a prometheus histogram."""
    samples = {sample.name.rsplit("_", 1)[-1]: sample.value
               for sample in histogram.collect()[0].samples}
    return samples["count"], samples["sum"]


def _wait_for(condition, what: str) -> None:
    deadline = time.monotonic() + WAIT_SECONDS_MAX
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.01)


@pytest.mark.django_db(transaction=True)
def test_two_books_requests_commit_in_one_transaction():
    """One round of the writer writes both books' requests in ONE transaction:
    both heads move with the same transaction id, both books' events carry the
    same recording time, each book's chain continues its own positions."""
    _open_books()
    before = _heads()
    futures = _commit([_request("north", 100), _request("south", 200),
                       _request("north", 300)])
    north_1, south, north_2 = (future.result() for future in futures)
    assert all(isinstance(outcome, AppendResult) for outcome in (north_1, south, north_2))
    after = _heads()
    assert after["north"][0] == before["north"][0] + 2
    assert after["south"][0] == before["south"][0] + 1
    assert after["north"][1] == after["south"][1]          # one transaction ...
    assert after["north"][1] != before["north"][1]          # ... and a new one
    assert after["main"] == before["main"]
    recorded = {event.recorded_at for result in (north_1, south, north_2)
                for event in result.events}
    assert len(recorded) == 1
    assert Event.objects.filter(recorded_at__in=recorded).count() == 3
    assert north_2.first_position == north_1.last_position + 1
    assert (_balance("north/player"), _balance("south/player")) == (10_400, 10_200)
    for key in BOOKS:
        assert verify_chain(book=book_id(key)).ok


@pytest.mark.django_db(transaction=True)
def test_the_writer_thread_gathers_several_books_into_one_commit():
    """Through `append`: while the writer thread waits for north's head (held by
    another transaction), requests for south and north queue behind it; they
    are then written together, in one transaction (one recording time)."""
    _open_books()
    writer = _writer(book_id("north"), "default")
    assert _writer(book_id("south"), "default") is writer   # one writer per database
    blocker_holds, release = threading.Event(), threading.Event()
    results: dict[str, AppendResult] = {}
    errors: list[BaseException] = []

    def hold_north() -> None:
        try:
            with transaction.atomic(), connection.cursor() as cursor:
                cursor.execute("SELECT 1 FROM ledger_head WHERE key = 'north' FOR UPDATE")
                blocker_holds.set()
                release.wait(WAIT_SECONDS_MAX)
        finally:
            blocker_holds.set()
            connection.close()

    def append_to(name: str, book: str, amount_minor: int) -> None:
        try:
            results[name] = append([transfer_event(f"{book}/player", f"{book}/cage",
                                                   amount_minor)], book=book)
        except BaseException as error:  # noqa: BLE001 - reported below
            errors.append(error)
        finally:
            connection.close()

    holder = threading.Thread(target=hold_north)
    holder.start()
    threads = []
    try:
        assert blocker_holds.wait(WAIT_SECONDS_MAX)
        # The first request takes the writer into north's lock wait; the next
        # two queue while it waits.
        threads.append(threading.Thread(target=append_to, args=("first", "north", 1)))
        threads[-1].start()
        _wait_for(lambda: writer._queue.qsize() == 0 and _north_lock_waits() == 1,
                  "the writer to wait for north's head")
        for name, book in (("south", "south"), ("north", "north")):
            threads.append(threading.Thread(target=append_to, args=(name, book, 2)))
            threads[-1].start()
        _wait_for(lambda: writer._queue.qsize() == 2, "two requests queued")
    finally:
        release.set()
        holder.join()
        for thread in threads:
            thread.join()
    assert errors == []
    assert results["first"].events[0].recorded_at != results["south"].events[0].recorded_at
    assert results["south"].events[0].recorded_at == results["north"].events[0].recorded_at
    assert results["north"].first_position == results["first"].last_position + 1
    heads = _heads()
    assert heads["north"][1] == heads["south"][1]
    for key in BOOKS:
        assert verify_chain(book=book_id(key)).ok


def _north_lock_waits() -> int:
    """Backends waiting for a row lock on north's head (the writer's, here)."""
    with connections["default"].cursor() as cursor:
        cursor.execute("SELECT count(*) FROM pg_locks l JOIN pg_stat_activity a USING (pid)"
                       " WHERE NOT l.granted AND a.query LIKE '%%ledger_lock_and_read%%'"
                       " AND a.pid <> pg_backend_pid()")
        return cursor.fetchone()[0]


@pytest.mark.django_db(transaction=True)
def test_a_refusal_in_one_book_does_not_fail_another():
    """An overdraft refused in south (its own outcome) leaves north's requests and
    south's other request committed, in the same round."""
    _open_books(opening_minor=500)
    futures = _commit([_request("north", 100), _request("south", 900, out=True),
                       _request("south", 50), _request("north", 200, out=True)])
    outcomes = [future.result() for future in futures]
    assert isinstance(outcomes[1], InsufficientFunds)
    assert [isinstance(o, AppendResult) for o in outcomes] == [True, False, True, True]
    assert (_balance("north/player"), _balance("south/player")) == (400, 550)
    heads = _heads()
    assert heads["north"][1] == heads["south"][1]
    for key in BOOKS:
        assert verify_chain(book=book_id(key)).ok


@pytest.mark.django_db(transaction=True)
def test_a_frozen_book_fails_its_own_requests_and_the_other_book_commits(caplog):
    """A book frozen by a move (its old copy refuses appends, SQLSTATE 25006)
    fails only its own requests of the round; the other book's commit."""
    _open_books()
    with connection.cursor() as cursor:
        cursor.execute("SELECT ledger_freeze_book(%s::smallint)", [book_id("south")])
    south_before = _heads()["south"]
    with caplog.at_level(logging.WARNING, logger="ledger.writer"):
        futures = _commit([_request("north", 100), _request("south", 200),
                           _request("north", 300), _request("south", 400)])
    for index in (1, 3):
        with pytest.raises(DatabaseError) as refused:
            futures[index].result()
        assert is_moved_error(refused.value)
    assert all(isinstance(futures[index].result(), AppendResult) for index in (0, 2))
    assert _balance("north/player") == 10_400
    assert _heads()["south"] == south_before
    assert any(record.getMessage() == "ledger.group_commit_failed"
               and getattr(record, "books", None) == 2 for record in caplog.records)
    # Through append: the directory still says `default`, so the refusal surfaces.
    with pytest.raises(DatabaseError, match="was moved"):
        append([transfer_event("south/player", "south/cage", 1)], book="south")
    assert isinstance(append([transfer_event("north/player", "north/cage", 1)], book="north"),
                      AppendResult)


@pytest.mark.django_db(transaction=True)
def test_books_are_locked_in_ascending_id_whatever_the_requests_order():
    """A group whose first request is south's (id 3) locks north (id 2) first: while
    another transaction holds south, the writer holds north and waits."""
    _open_books()
    held, release = threading.Event(), threading.Event()
    committed: list[list[_One]] = []

    def hold_south() -> None:
        try:
            with transaction.atomic(), connection.cursor() as cursor:
                cursor.execute("SELECT 1 FROM ledger_head WHERE key = 'south' FOR UPDATE")
                held.set()
                release.wait(WAIT_SECONDS_MAX)
        finally:
            held.set()
            connection.close()

    def write() -> None:
        try:
            committed.append(_commit([_request("south", 1), _request("north", 2)]))
        finally:
            connection.close()

    holder = threading.Thread(target=hold_south)
    holder.start()
    writer = threading.Thread(target=write)
    try:
        assert held.wait(WAIT_SECONDS_MAX)
        writer.start()
        _wait_for(lambda: _north_is_locked(), "the writer to lock north")
        assert writer.is_alive()   # still waiting for south
    finally:
        release.set()
        holder.join()
        if writer.ident is not None:
            writer.join()
    assert [isinstance(future.result(), AppendResult) for future in committed[0]] == [True, True]


def _north_is_locked() -> bool:
    """Whether another transaction holds north's head (NOWAIT: no waiting here)."""
    try:
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute("SELECT 1 FROM ledger_head WHERE key = 'north' FOR UPDATE NOWAIT")
    except DatabaseError:
        return True
    return False


@pytest.mark.django_db(transaction=True)
def test_no_deadlock_with_atomic_transfers_running_at_once(caplog):
    """Atomic transfers both ways between north and south (their own
    transactions, books locked in ascending id) run while two threads append to
    both books through the group writer (its transactions lock the same heads,
    in the same order): everything commits, no group fails, the money adds up."""
    _open_books(opening_minor=100_000)
    rounds = 15
    start = threading.Barrier(4)
    errors: list[BaseException] = []

    def transfers(source: str, target: str, amount_minor: int) -> None:
        try:
            start.wait(WAIT_SECONDS_MAX)
            for n in range(rounds):
                transfer_atomic(f"{source}-{n}", source, f"{source}/player", target,
                                f"{target}/player", amount_minor, "EUR", GAMING_DAY)
        except BaseException as error:  # noqa: BLE001 - reported below
            errors.append(error)
        finally:
            connection.close()

    def appends(first: str, second: str) -> None:
        try:
            start.wait(WAIT_SECONDS_MAX)
            for _ in range(rounds):
                for book in (first, second):
                    append([transfer_event(f"{book}/player", f"{book}/cage", 1)], book=book)
        except BaseException as error:  # noqa: BLE001 - reported below
            errors.append(error)
        finally:
            connection.close()

    books_before = _histogram_totals(GROUP_BOOKS)
    threads = [threading.Thread(target=transfers, args=("north", "south", 10)),
               threading.Thread(target=transfers, args=("south", "north", 7)),
               threading.Thread(target=appends, args=("south", "north")),
               threading.Thread(target=appends, args=("north", "south"))]
    with caplog.at_level(logging.WARNING, logger="ledger.writer"):
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    assert errors == []
    assert not [r for r in caplog.records if r.getMessage() == "ledger.group_commit_failed"]
    # Each player: opening + own appends + transfers in - transfers out.
    assert _balance("north/player") == 100_000 + 2 * rounds + rounds * (7 - 10)
    assert _balance("south/player") == 100_000 + 2 * rounds + rounds * (10 - 7)
    # The writer's rounds held both books (its lock of both heads met the
    # transfers' locks): more books than rounds were committed.
    groups, books = (after - before for before, after in
                     zip(books_before, _histogram_totals(GROUP_BOOKS)))
    assert books > groups > 0
    for key in BOOKS:
        assert verify_chain(book=book_id(key)).ok
    assert verify_chain().ok


def test_books_cost_no_statement_of_their_own(db):
    """Two books' requests take the statements one book's take: one lock for
    every book, one insert for every row (the commit is one either way)."""
    _open_books()

    def statements(requests) -> int:
        with transaction.atomic():
            with CaptureQueriesContext(connection) as captured:
                outcomes = write_books(requests)
            assert all(isinstance(outcome, AppendResult) for outcome in outcomes)
        return len(captured.captured_queries)

    one_book = statements([_request("north", 1), _request("north", 2)])
    two_books = statements([_request("north", 3), _request("south", 4)])
    assert two_books == one_book == 2


def test_write_group_still_takes_one_book_only(db):
    """`write_group` (transfers, placement, crossbook) keeps its one-book contract."""
    _open_books()
    with pytest.raises(InvariantViolation, match="one book"):
        with transaction.atomic():
            write_group([_request("north", 1), _request("south", 1)])
    with transaction.atomic():
        assert isinstance(write_group([_request("north", 1)])[0], AppendResult)


@pytest.mark.django_db(transaction=True)
def test_a_book_not_open_here_fails_alone_in_its_round():
    """A request for a book this database does not hold (id 5, below an open id 9)
    fails with the database's own refusal; the open book's request commits."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT ledger_open_book('far', 9::smallint)")
    noted = NewEvent(stream="far/notes", type="test.noted", payload={"n": 1})

    def request(book: int):
        return _build_request([noted], None, None, None, None, book=book)

    with pytest.raises(InvariantViolation, match=r"books \[5\] are not open"):
        with transaction.atomic():
            write_books([request(5), request(9)])
    missing, far = _commit([request(5), request(9)])
    with pytest.raises(DatabaseError, match="book 5 is not open"):
        missing.result()
    assert far.result().events[0].position == base_position(9) + 1


@pytest.mark.django_db(transaction=True)
def test_a_linked_request_commits_all_its_parts_or_none_and_the_round_goes_on():
    """A request written across books (ledger.crossbook) goes through the writer as linked
    parts: all written in the round, or, when one part is refused, none, while the other
    requests of the round are written as if it had not been there."""
    _open_books()
    before = _heads()
    whole, torn, alone = _commit_items([
        [_request("north", 100), _request("south", 200)],
        [_request("north", 50), _request("south", 99_999, out=True)],   # south refuses
        [_request("north", 7)],
    ])
    assert all(isinstance(outcome, AppendResult) for outcome in whole + alone)
    assert isinstance(torn[0], AppendResult) and not torn[0].replayed   # north accepted it ...
    assert isinstance(torn[1], InsufficientFunds)                       # ... south refused
    after = _heads()
    # Written: the whole pair and the lone request; nothing of the torn pair.
    assert after["north"][0] == before["north"][0] + 2
    assert after["south"][0] == before["south"][0] + 1
    assert (_balance("north/player"), _balance("south/player")) == (10_107, 10_200)
    assert whole[0].events[0].recorded_at == whole[1].events[0].recorded_at
    for key in BOOKS:
        assert verify_chain(book=book_id(key)).ok

