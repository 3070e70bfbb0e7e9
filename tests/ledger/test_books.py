"""Books (issue 19, point 1): every guarantee of the log holds per book.

A book has its own gap-free positions, its own hash chain and its own
writer lock; an event of one book never touches another book's accounts or
streams. Book 1 ("main") is the log as it always was.
"""

import threading

import pytest
from django.db import DatabaseError, OperationalError, connection, transaction

from ledger import GENESIS_HASH, append, open_account, rebuild_projections, verify_chain
from ledger.books import (BOOK_SPAN, MAIN_BOOK, base_position, book_id, books, local_position,
                          open_book)
from ledger.errors import IdempotencyConflict, InvalidEvent, StaleVersion
from ledger.models import Account, Event, LedgerHead, Stream

from .factories import transfer, transfer_event


def _tamper(sql: str, params=None) -> None:
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL session_replication_role = replica")
        cursor.execute(sql, params)
        cursor.execute("SET LOCAL session_replication_role = origin")


def _fails(sql: str, params=None) -> str:
    with pytest.raises(DatabaseError) as caught:
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute(sql, params)
    return str(caught.value)


@pytest.fixture
def tallinn(accounts):
    """A second book with its own cage and player accounts."""
    book = open_book("tallinn")
    open_account(code="tallinn/cage", type="asset", currency="EUR", book="tallinn")
    open_account(code="tallinn/player/alice", type="liability", currency="EUR",
                 must_not_go_negative=True, book="tallinn")
    return book


def test_a_book_opens_once_with_its_own_range(db):
    """A new book starts empty at the base of its own range of positions, at genesis."""
    book = open_book("helsinki")
    assert (book.id, book.position, book.hash) == (2, BOOK_SPAN, GENESIS_HASH)
    assert open_book("helsinki") == book
    assert book_id("helsinki") == 2
    assert [b.key for b in books()] == ["main", "helsinki"]
    with pytest.raises(DatabaseError, match="book key"):
        with transaction.atomic():
            open_book("Not A Key")


def test_each_book_numbers_its_own_events_from_one(tallinn):
    """Positions are gap-free per book (L2): the new book counts 1, 2, 3 in its range."""
    main_head = LedgerHead.objects.get(key="main").position
    result = transfer("tallinn/player/alice", "tallinn/cage", 1_000, book="tallinn")
    events = list(Event.objects.filter(book=tallinn.id).order_by("position"))
    assert [local_position(e.position) for e in events] == [1, 2, 3]
    assert result.first_position == base_position(tallinn.id) + 3
    assert events[0].prev_hash == GENESIS_HASH  # its own chain (L8)
    assert [e.prev_hash for e in events[1:]] == [e.hash for e in events[:-1]]
    assert LedgerHead.objects.get(key="main").position == main_head
    assert LedgerHead.objects.get(key="tallinn").position == events[-1].position
    assert verify_chain().ok
    assert verify_chain(book=tallinn.id).events == 3


def test_an_event_may_not_post_to_another_books_account(tallinn):
    """Money crosses books only through clearing accounts: the writer refuses, and so does PostgreSQL."""
    before = Event.objects.count()
    with pytest.raises(InvalidEvent, match="belongs to another book"):
        transfer("player/alice", "tallinn/cage", 1_000)
    with pytest.raises(InvalidEvent, match="belongs to another book"):
        transfer("tallinn/player/alice", "cage/cash", 1_000, book="tallinn")
    assert Event.objects.count() == before
    position = LedgerHead.objects.get(key="main").position
    assert "account of another book" in _fails(
        "INSERT INTO ledger_posting (event_id, index, account_id, amount_minor, currency, book,"
        " gaming_day) SELECT %s, i, a, m, 'EUR', 1, e.gaming_day FROM ledger_event AS e,"
        " (VALUES (9, 'tallinn/cage', 5), (10, 'cage/cash', -5)) AS p(i, a, m)"
        " WHERE e.position = %s",
        [position, position])


def test_a_stream_lives_in_one_book(tallinn):
    """A stream's versions are one book's to order (L6 per book)."""
    transfer("player/alice", "cage/cash", 500, stream="shared/stream")
    with pytest.raises(InvalidEvent, match="stream shared/stream belongs to another book"):
        transfer("tallinn/player/alice", "tallinn/cage", 500, stream="shared/stream",
                 book="tallinn")
    with pytest.raises(StaleVersion):
        transfer("tallinn/player/alice", "tallinn/cage", 500, stream="tallinn/s",
                 book="tallinn", expected_versions={"tallinn/s": 3})
    assert Stream.objects.get(name="shared/stream").book == MAIN_BOOK


def test_the_database_refuses_a_gap_or_a_broken_link_in_a_book(tallinn):
    """The insert trigger checks continuity and the chain per book (L2, L8)."""
    head = LedgerHead.objects.get(key="tallinn")
    row = ("INSERT INTO ledger_event (position, book, stream, version, type, schema_version,"
           " payload, metadata, occurred_at, recorded_at, gaming_day, prev_hash, hash)"
           " VALUES (%s, %s, 'x/1', 1, 't', 1, '{}', '{}', now(), now(), '2026-06-16', %s,"
           " 'h')")
    assert "do not continue the log of book" in _fails(row, [head.position + 2, tallinn.id,
                                                             head.hash])
    assert "does not link to the previous event of book" in _fails(
        row, [head.position + 1, tallinn.id, "f" * 64])
    assert "ledger_event_book_range" in _fails(row, [head.position + 1, MAIN_BOOK, head.hash])


def test_verify_names_the_altered_event_of_a_book(tallinn):
    """The chain of each book is verified on its own (L8): an edit is named by position."""
    transfer("tallinn/player/alice", "tallinn/cage", 700, book="tallinn")
    transfer("player/alice", "cage/cash", 700)
    assert verify_chain().ok
    altered = base_position(tallinn.id) + 2
    _tamper("UPDATE ledger_event SET payload = '{\"code\": \"x\"}' WHERE position = %s",
            [altered])
    result = verify_chain()
    assert (result.ok, result.bad_position) == (False, altered)
    assert verify_chain(book=MAIN_BOOK).ok


def test_idempotency_per_book(tallinn):
    """A repeated key in a book returns its first result; another request under it is refused (L7)."""
    first = transfer("tallinn/player/alice", "tallinn/cage", 900, book="tallinn",
                     idempotency_key="k-tallinn", stream="tallinn/k")
    again = transfer("tallinn/player/alice", "tallinn/cage", 900, book="tallinn",
                     idempotency_key="k-tallinn", stream="tallinn/k")
    assert again.replayed and again.events == first.events
    with pytest.raises(IdempotencyConflict):
        transfer("tallinn/player/alice", "tallinn/cage", 901, book="tallinn",
                 idempotency_key="k-tallinn", stream="tallinn/k")


def test_balances_and_rebuild_per_book(tallinn):
    """Balances move per book (L4) and a rebuild reproduces every book's accounts and streams (L9)."""
    transfer("tallinn/player/alice", "tallinn/cage", 1_200, book="tallinn")
    with pytest.raises(Exception, match="would go negative"):
        append([transfer_event("tallinn/cage", "tallinn/player/alice", 5_000)], book="tallinn")
    live = sorted(Account.objects.values_list("code", "book", "balance_minor", "last_position"))
    streams = sorted(Stream.objects.values_list("name", "book", "version", "last_position"))
    assert ("tallinn/player/alice", tallinn.id, 1_200,
            base_position(tallinn.id) + 3) in live
    rebuild_projections()
    assert sorted(Account.objects.values_list("code", "book", "balance_minor",
                                              "last_position")) == live
    assert sorted(Stream.objects.values_list("name", "book", "version",
                                             "last_position")) == streams


@pytest.mark.django_db(transaction=True)
def test_an_append_to_a_book_may_change_projections():
    """The projection guard (issue 13) knows the transaction that moved any book's head."""
    open_book("tallinn")
    open_account(code="tallinn/cage", type="asset", currency="EUR", book="tallinn")
    open_account(code="tallinn/player/alice", type="liability", currency="EUR", book="tallinn")
    with transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute("SELECT ledger_in_append()")
            assert cursor.fetchone()[0] is False
        transfer("tallinn/player/alice", "tallinn/cage", 100, book="tallinn")
        with connection.cursor() as cursor:
            cursor.execute("SELECT ledger_in_append()")
            assert cursor.fetchone()[0] is True
    with connection.cursor() as cursor:
        cursor.execute("SELECT ledger_in_append()")
        assert cursor.fetchone()[0] is False


@pytest.mark.django_db(transaction=True)
def test_books_lock_apart(django_db_blocker):
    """While one transaction holds the main book's writer lock, another book appends;
    the main book waits (and, with a lock timeout, gives up)."""
    open_account(code="cage/cash", type="asset", currency="EUR")
    open_account(code="player/alice", type="liability", currency="EUR")
    open_book("riga")
    open_account(code="riga/cage", type="asset", currency="EUR", book="riga")
    open_account(code="riga/player", type="liability", currency="EUR", book="riga")
    holding, release = threading.Event(), threading.Event()
    errors = []

    def hold_main() -> None:
        try:
            with transaction.atomic():
                transfer("player/alice", "cage/cash", 100)
                holding.set()
                release.wait(timeout=60)
        except Exception as error:  # noqa: BLE001 - reported below
            errors.append(error)
        finally:
            holding.set()
            connection.close()

    holder = threading.Thread(target=hold_main)
    holder.start()
    try:
        assert holding.wait(timeout=60)
        with transaction.atomic():
            with connection.cursor() as cursor:
                cursor.execute("SET LOCAL lock_timeout = '2s'")
            riga = transfer("riga/player", "riga/cage", 100, book="riga")
        assert riga.first_position > BOOK_SPAN
        with pytest.raises(OperationalError, match="lock timeout"):
            with transaction.atomic():
                with connection.cursor() as cursor:
                    cursor.execute("SET LOCAL lock_timeout = '200ms'")
                transfer("player/alice", "cage/cash", 100)
    finally:
        release.set()
        holder.join()
    assert errors == []
    assert verify_chain().ok


def test_the_log_of_a_book_is_append_only(tallinn):
    """L1 in a book: its events, postings and keys are never updated or deleted."""
    transfer("tallinn/player/alice", "tallinn/cage", 300, book="tallinn",
             idempotency_key="k-l1")
    base = base_position(tallinn.id)
    for statement in (f"UPDATE ledger_event SET type = 'x' WHERE position > {base}",
                      f"DELETE FROM ledger_posting WHERE event_id > {base}",
                      "DELETE FROM ledger_idempotency WHERE key = 'k-l1'"):
        assert "append-only" in _fails(statement)


def test_a_books_events_balance_in_its_currency(tallinn):
    """L3 and L5 in a book: unbalanced postings and a foreign currency are refused, writing nothing."""
    from ledger import NewEvent, Posting
    from ledger.errors import CurrencyMismatch, UnbalancedPostings

    head = LedgerHead.objects.get(key="tallinn").position
    with pytest.raises(UnbalancedPostings):
        NewEvent(stream="tallinn/x", type="t", payload={},
                 postings=(Posting("tallinn/cage", 5, "EUR"),
                           Posting("tallinn/player/alice", -4, "EUR")))
    with pytest.raises(CurrencyMismatch):
        transfer("tallinn/player/alice", "tallinn/cage", 300, currency="USD", book="tallinn")
    assert LedgerHead.objects.get(key="tallinn").position == head


def test_an_account_is_posted_to_after_the_append_that_opens_it(tallinn):
    """The writer refuses, with a ledger error and nothing written, what the insert
    trigger would refuse with a database error: postings to an account the same
    append opens (the trigger checks accounts as they stood before the statement)."""
    from ledger import NewEvent, Posting

    head = LedgerHead.objects.get(key="tallinn").position
    opening = NewEvent(stream="account/tallinn/new", type="ledger.account_opened",
                       payload={"code": "tallinn/new", "type": "asset", "currency": "EUR",
                                "name": "", "must_not_go_negative": False,
                                "balance_max_minor": None})
    with pytest.raises(InvalidEvent, match="opened by this append"):
        append([opening, transfer_event("tallinn/player/alice", "tallinn/new", 10)],
               book="tallinn")
    assert LedgerHead.objects.get(key="tallinn").position == head
