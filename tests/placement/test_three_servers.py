"""Books placed on three PostgreSQL servers (issue 19, point 4).

Server 1 is the test database's own (`default`, which also holds the
directory), servers 2 and 3 are started by conftest.py. Three books, one
per server: ljubljana on server 1, tallinn on server 2, helsinki on
server 3. The four things the issue asks: writes to books on different
servers run in parallel; the feed and the daily close (the trial balance)
span the servers; each book verifies in its own database and a tampered
one is named there; a book moves to another server, under appends,
without losing or doubling one.
"""

from __future__ import annotations

import time
import datetime as dt
import itertools
import threading
import time
from collections import defaultdict

import pytest
from django.db import DatabaseError, OperationalError, connections, transaction

from ledger import NewEvent, Posting, append, open_account, verify_chain
from ledger.books import base_position, book_id, local_position, open_book
from ledger.feed import read_feed
from ledger.placement import (database_for, is_moved_error, move_book, placed_books,
                              placements, verify_placed_books)
from ledger.placement import _databases as directory_cache
from ledger.store import heads, load_book_events_after
from ledger.trial_balance import trial_balance
from ledger.transfers import TransferStatus, begin, transfer

from .conftest import THREE_SERVERS

DAY_ONE = dt.date(2026, 6, 16)
DAY_TWO = dt.date(2026, 6, 17)
# Where each book lives: one per server.
PLACED = {"ljubljana": "default", "tallinn": "server2", "helsinki": "server3"}
# Bounds on waits for threads, so a broken run fails instead of hanging;
# never a measure of speed.
JOIN_SECONDS_MAX = 60
LOCK_TIMEOUT = "200ms"
LOCK_NOT_AVAILABLE = "55P03"
FEED_PAGE_EVENTS = 4
MOVE_APPENDS_BEFORE = 30
MOVE_APPENDS_AFTER = 30
MOVE_APPENDS_MAX = 2_000
MOVE_RETRIES_MAX = 1_000

pytestmark = [THREE_SERVERS, pytest.mark.slow]     # two servers started for the folder

_streams = itertools.count(1)


def _event(debit: str, credit: str, amount_minor: int, day: dt.date = DAY_ONE,
           stream: str | None = None) -> NewEvent:
    """Money moving: `debit` up by amount_minor (a positive posting), `credit` down."""
    return NewEvent(stream=stream or f"test/{next(_streams)}", type="test.moved",
                    payload={"debit": debit, "credit": credit, "amount_minor": amount_minor},
                    postings=(Posting(debit, amount_minor, "EUR"),
                              Posting(credit, -amount_minor, "EUR")),
                    gaming_day=day)


def _deposit(key: str, amount_minor: int, day: dt.date = DAY_ONE, **kwargs):
    """A player pays cash in at the book's cage: cash (asset) and the player's funds grow."""
    return append([_event(f"{key}/cash", f"{key}/player", amount_minor, day)], book=key,
                  **kwargs)


@pytest.fixture
def placed(three_servers):
    """Three books, one per server, each with a cage and a player account (EUR)."""
    opened = {key: open_book(key, database) for key, database in PLACED.items()}
    for key in PLACED:
        open_account(code=f"{key}/cash", type="asset", currency="EUR", book=key)
        open_account(code=f"{key}/player", type="liability", currency="EUR",
                     must_not_go_negative=True, book=key)
    return opened


def _in_thread(target) -> list:
    """Run `target` in a thread of its own (its own connections); return what it
    returned, or raise what it raised."""
    outcome: list = []

    def run():
        try:
            outcome.append(("ok", target()))
        except BaseException as error:  # noqa: BLE001 - handed back to the test
            outcome.append(("error", error))
        finally:
            connections.close_all()

    thread = threading.Thread(target=run)
    thread.start()
    thread.join(JOIN_SECONDS_MAX)
    assert not thread.is_alive(), "the thread is still waiting"
    kind, value = outcome[0]
    if kind == "error":
        raise value
    return value


def test_each_book_is_opened_in_its_server(placed):
    """The directory places each book where it was opened; its head lives there only."""
    assert {key: database for key, database in placements().items() if key != "main"} == PLACED
    assert [(key, database) for _, key, database in placed_books()][-3:] == list(PLACED.items())
    for key, database in PLACED.items():
        book = placed[key]
        assert database_for(key) == database
        assert heads(using=database)[book.id][0] == base_position(book.id) + 2
        for other in set(PLACED.values()) - {database}:
            assert book.id not in heads(using=other)


# -- a. writes to books on different servers run in parallel ---------------


def test_books_on_other_servers_commit_while_one_book_is_held(placed):
    """Server 2's book held (its lock, in an open transaction): the books on
    servers 3 and 1 still append and commit; the held book's next append waits
    for the lock, and with a short lock_timeout is refused."""
    tallinn = placed["tallinn"]
    with transaction.atomic(using="server2"):
        held = _deposit("tallinn", 1_000)       # in this transaction: tallinn's lock held
        assert local_position(held.events[0].position) == 3

        def other_servers():
            return {key: _deposit(key, 500).events[0].position
                    for key in ("helsinki", "ljubljana")}

        committed = _in_thread(other_servers)
        assert {key: local_position(position) for key, position in committed.items()} == {
            "helsinki": 3, "ljubljana": 3}
        assert heads(using="server3")[placed["helsinki"].id][0] == committed["helsinki"]
        assert heads()[placed["ljubljana"].id][0] == committed["ljubljana"]

        def same_book_with_lock_timeout():
            with transaction.atomic(using="server2"):
                with connections["server2"].cursor() as cursor:
                    cursor.execute(f"SET LOCAL lock_timeout = '{LOCK_TIMEOUT}'")
                return _deposit("tallinn", 7)

        with pytest.raises(OperationalError) as refused:
            _in_thread(same_book_with_lock_timeout)
        assert refused.value.__cause__.sqlstate == LOCK_NOT_AVAILABLE
    # The held append committed with its transaction; the refused one left nothing.
    assert heads(using="server2")[tallinn.id][0] == held.events[0].position
    assert [local_position(e.position) for e in
            load_book_events_after(tallinn.id, 0, 10, using="server2")] == [1, 2, 3]


# -- b. the feed and the daily close span the servers ------------------------


def _read_placed_feed(cursor: dict[int, int], limit: int):
    """One page of the feed over every placed book, each read where the directory places it."""
    page = read_feed(cursor, limit,
                     using={book: database for book, _, database in placed_books()})
    return list(page.events), dict(page.cursor)


def test_the_feed_pages_over_books_on_three_servers(placed):
    """A consumer paging with one vector cursor over books on three servers sees
    every book's events once, in order, and resumes where it stopped, across a move."""
    for amount in (100, 200, 300):
        for key in PLACED:
            _deposit(key, amount)
    seen, cursor, pages = [], {}, 0
    while True:
        events, cursor = _read_placed_feed(cursor, FEED_PAGE_EVENTS)
        if not events:
            break
        assert len(events) <= FEED_PAGE_EVENTS
        seen.extend(events)
        pages += 1
    # 3 books x (2 accounts opened + 3 deposits), each once.
    assert len(seen) == 15 and pages == 4
    per_book = defaultdict(list)
    for event in seen:
        per_book[event.book].append(local_position(event.position))
    assert {book: positions for book, positions in per_book.items()} == {
        placed[key].id: [1, 2, 3, 4, 5] for key in PLACED}
    # The consumer stops here and resumes later: only what is new comes.
    _deposit("helsinki", 50)
    _deposit("ljubljana", 60)
    events, cursor = _read_placed_feed(cursor, FEED_PAGE_EVENTS)
    assert sorted((e.book, local_position(e.position)) for e in events) == sorted([
        (placed["helsinki"].id, 6), (placed["ljubljana"].id, 6)])
    assert _read_placed_feed(cursor, FEED_PAGE_EVENTS)[0] == []
    # A book moves to another server: the consumer's cursor still holds
    # (a book keeps its positions), and it reads on from the new copy.
    move_book("tallinn", "server3")
    _deposit("tallinn", 70)
    events, cursor = _read_placed_feed(cursor, FEED_PAGE_EVENTS)
    assert [(e.book, local_position(e.position)) for e in events] == [(placed["tallinn"].id, 6)]
    assert _read_placed_feed(cursor, FEED_PAGE_EVENTS)[0] == []


def _clearing_accounts(pairs) -> None:
    for key, other in pairs:
        open_account(code=f"clearing/{key}/{other}/EUR", type="asset", currency="EUR",
                     book=key)


def _move_between_books(source: str, target: str, amount_minor: int, day: dt.date,
                        legs: tuple[str, ...] = ("out", "in")) -> None:
    """Move a player's funds from book `source` to book `target` by hand: two
    events through the books' clearing accounts (ledger.transfers' shape)."""
    if "out" in legs:
        append([_event(f"{source}/player", f"clearing/{source}/{target}/EUR", amount_minor,
                       day)], book=source)
    if "in" in legs:
        append([_event(f"clearing/{target}/{source}/EUR", f"{target}/player", amount_minor,
                       day)], book=target)


def test_the_trial_balance_spans_books_on_three_servers(placed):
    """Per book and account: the day's debits, credits and net, and the closing balance,
    each book read from its own server; books balance and clearing pairs net to zero."""
    _clearing_accounts([("tallinn", "helsinki"), ("helsinki", "tallinn"),
                        ("tallinn", "ljubljana"), ("ljubljana", "tallinn")])
    _deposit("tallinn", 10_000)
    _deposit("helsinki", 5_000)
    _deposit("ljubljana", 2_000)
    _move_between_books("tallinn", "helsinki", 3_000, DAY_ONE)
    _deposit("ljubljana", 700, DAY_TWO)
    _move_between_books("tallinn", "ljubljana", 1_000, DAY_TWO)
    # ledger.transfers across servers (two-phase): one completed, one still
    # pending (its money held in `pending/...`, outside the clearing pairs).
    posted = transfer("tb-posted", "helsinki", "helsinki/player", "ljubljana",
                      "ljubljana/player", 400, "EUR", DAY_TWO)
    held = begin("tb-pending", "helsinki", "helsinki/player", "tallinn", "tallinn/player", 250,
                 "EUR", DAY_TWO)
    assert (posted.status, held.status) == (TransferStatus.POSTED, TransferStatus.PENDING)

    one = trial_balance(DAY_ONE)
    assert one.ok, one.problems
    assert [(b.key, b.database) for b in one.books][-3:] == list(PLACED.items())
    assert {type(amount) for b in one.books for line in b.lines
            for amount in (line.debits_minor, line.credits_minor, line.net_minor,
                           line.closing_minor)} == {int}               # minor units, never Decimal
    lines = {(b.key, line.code): (line.debits_minor, line.credits_minor, line.net_minor,
                                  line.closing_minor)
             for b in one.books for line in b.lines}
    assert lines == {
        ("ljubljana", "ljubljana/cash"): (2_000, 0, 2_000, 2_000),
        ("ljubljana", "ljubljana/player"): (0, 2_000, 2_000, 2_000),
        ("tallinn", "tallinn/cash"): (10_000, 0, 10_000, 10_000),
        ("tallinn", "tallinn/player"): (3_000, 10_000, 7_000, 7_000),
        ("tallinn", "clearing/tallinn/helsinki/EUR"): (0, 3_000, -3_000, -3_000),
        ("helsinki", "helsinki/cash"): (5_000, 0, 5_000, 5_000),
        ("helsinki", "helsinki/player"): (0, 8_000, 8_000, 8_000),
        ("helsinki", "clearing/helsinki/tallinn/EUR"): (3_000, 0, 3_000, 3_000),
    }
    assert [(p.book, p.other, p.net_minor) for p in one.clearing] == [
        ("helsinki", "tallinn", 0)]

    two = trial_balance(DAY_TWO)
    assert two.ok, two.problems
    tallinn = {line.code: line for line in two.book("tallinn").lines}
    assert (tallinn["tallinn/player"].net_minor, tallinn["tallinn/player"].closing_minor) == (
        -1_000, 6_000)
    assert tallinn["tallinn/cash"].debits_minor == 0          # nothing that day
    ljubljana = {line.code: line for line in two.book("ljubljana").lines}
    assert (ljubljana["ljubljana/player"].net_minor,
            ljubljana["ljubljana/player"].closing_minor) == (2_100, 4_100)
    helsinki = {line.code: line for line in two.book("helsinki").lines}
    assert (helsinki["helsinki/player"].net_minor,
            helsinki["helsinki/player"].closing_minor) == (-650, 7_350)
    # The hold: an asset credited with what is on its way to tallinn.
    assert helsinki["pending/helsinki/tallinn/EUR"].closing_minor == -250
    assert [(p.book, p.other, p.book_raw_minor, p.other_raw_minor) for p in two.clearing] == [
        ("helsinki", "ljubljana", -400, 400), ("helsinki", "tallinn", 3_000, -3_000),
        ("ljubljana", "tallinn", 1_000, -1_000)]


def test_the_trial_balance_names_a_half_done_move_and_an_unbalanced_book(placed, three_servers):
    """A leg in one book without the other's breaks its clearing pair; a posting
    edited with the triggers off unbalances its book: both are named."""
    _clearing_accounts([("tallinn", "helsinki"), ("helsinki", "tallinn")])
    _deposit("tallinn", 10_000)
    _move_between_books("tallinn", "helsinki", 3_000, DAY_ONE)
    assert trial_balance(DAY_ONE).ok
    _move_between_books("tallinn", "helsinki", 500, DAY_ONE, legs=("out",))
    half = trial_balance(DAY_ONE)
    assert half.problems == (
        "clearing helsinki/tallinn EUR does not net to zero: 3000 + -3500 = -500",)

    with three_servers["server3"].connect() as server3:   # an attacker with triggers off
        server3.execute("SET session_replication_role = replica")
        server3.execute("UPDATE ledger_posting SET amount_minor = amount_minor + 1"
                        " WHERE account_id = 'helsinki/player'")
    edited = trial_balance(DAY_ONE)
    assert edited.problems[0] == ("book helsinki (server3): postings do not sum to zero:"
                                  " day EUR 1, closing EUR 1")
    assert not edited.book("helsinki").balanced and edited.book("tallinn").balanced


# -- c. verification per book ------------------------------------------------


def test_each_book_verifies_in_its_own_server_and_a_tampered_one_is_named(placed,
                                                                           three_servers):
    """verify_placed_books walks each book where it lives; an event edited on
    server 3 is named there while the books on servers 1 and 2 still verify."""
    for key in PLACED:
        _deposit(key, 400)
        _deposit(key, 600)
    results = verify_placed_books()
    assert [(key, database, result.ok, result.events) for key, database, result in results
            if key in PLACED] == [(key, database, True, 4) for key, database in PLACED.items()]

    helsinki = placed["helsinki"]
    altered = base_position(helsinki.id) + 3
    with three_servers["server3"].connect() as server3:
        server3.execute("SET session_replication_role = replica")
        server3.execute("UPDATE ledger_event SET payload = '{\"amount_minor\": 1}'"
                        " WHERE position = %s", [altered])
    results = {key: (database, result) for key, database, result in verify_placed_books()}
    database, failed = results["helsinki"]
    assert (database, failed.ok, failed.bad_position) == ("server3", False, altered)
    assert "altered" in failed.problem
    assert str(failed).startswith(f"verify_ledger: FAILED at position 3 of book helsinki"
                                  f" (log position {altered})")
    alone = verify_chain(book=helsinki.id, using="server3")
    assert (alone.ok, alone.bad_position) == (False, altered)
    assert results["tallinn"][1].ok and results["ljubljana"][1].ok
    # The operator's command walks the books on every server too.
    from ledger.verify import verify_ledger

    whole = verify_ledger()
    assert (whole.ok, whole.bad_position, whole.book) == (False, altered, "helsinki")


# -- d. moving a book loses nothing ------------------------------------------


class _Appender:
    """Appends to a book in a loop from a thread of its own (plain `append`:
    the writer thread's group commit), one idempotency key per append,
    retrying a refused append under the same key; records what was acknowledged."""

    def __init__(self, key: str) -> None:
        self.key = key
        self.acknowledged: dict[str, int] = {}      # idempotency key -> position
        self.refused_as_moved = 0
        self.stop = threading.Event()
        self.progress = threading.Condition()
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self._run)

    def _run(self) -> None:
        try:
            for index in range(MOVE_APPENDS_MAX):
                if self.stop.is_set():
                    return
                self._append_once(f"move/{index}")
        except BaseException as error:  # noqa: BLE001 - the test reads it
            self.error = error
        finally:
            with self.progress:
                self.progress.notify_all()
            connections.close_all()

    def _append_once(self, key: str) -> None:
        for _ in range(MOVE_RETRIES_MAX):
            try:
                result = append([_event(f"{self.key}/cash", f"{self.key}/player", 1)],
                                 idempotency_key=key, book=self.key)
            except DatabaseError as error:
                if not is_moved_error(error):
                    raise
                # Frozen before the directory switched: not written; again.
                self.refused_as_moved += 1
                self.stop.wait(0.005)
                continue
            with self.progress:
                self.acknowledged[key] = result.events[0].position
                self.progress.notify_all()
            return
        raise AssertionError(f"{key} was refused {MOVE_RETRIES_MAX} times")

    def wait_for(self, count: int) -> None:
        with self.progress:
            assert self.progress.wait_for(
                lambda: len(self.acknowledged) >= count or self.error is not None
                or not self.thread.is_alive(), JOIN_SECONDS_MAX)
        assert self.error is None, self.error


def test_a_book_moves_to_another_server_under_appends_and_loses_nothing(placed, monkeypatch):
    """Moving tallinn from server 2 to server 3 while a thread appends to it:
    every acknowledged append is in the new copy once, the chain verifies there,
    the directory says server 3, and the old copy is frozen and still readable."""
    monkeypatch.setattr("ledger.placement.COPY_CHUNK_EVENTS", 7)   # copied in several chunks
    tallinn = placed["tallinn"]
    appender = _Appender("tallinn")
    appender.thread.start()
    try:
        appender.wait_for(MOVE_APPENDS_BEFORE)
        moved = move_book("tallinn", "server3")
        after_move = len(appender.acknowledged)
        appender.wait_for(after_move + MOVE_APPENDS_AFTER)
    finally:
        appender.stop.set()
        appender.thread.join(JOIN_SECONDS_MAX)
    assert not appender.thread.is_alive() and appender.error is None, appender.error
    assert moved.id == tallinn.id
    assert placements()["tallinn"] == "server3" and database_for("tallinn") == "server3"

    with connections["server3"].cursor() as cursor:
        cursor.execute("SELECT idempotency_key, count(*), min(position) FROM ledger_event"
                       " WHERE book = %s AND idempotency_key LIKE 'move/%%'"
                       " GROUP BY idempotency_key", [tallinn.id])
        copied = {key: (count, position) for key, count, position in cursor.fetchall()}
    assert copied == {key: (1, position) for key, position in appender.acknowledged.items()}
    new_copy = verify_chain(book=tallinn.id, using="server3")
    assert new_copy.ok, new_copy
    assert new_copy.events == len(appender.acknowledged) + 2     # and the 2 accounts opened

    # The old copy: frozen at the head it had, every event of it in the new copy.
    frozen_position, frozen_hash = heads(using="server2")[tallinn.id]
    old_events = load_book_events_after(tallinn.id, 0, MOVE_APPENDS_MAX, using="server2")
    new_events = load_book_events_after(tallinn.id, 0, MOVE_APPENDS_MAX, using="server3")
    assert old_events[-1].position == frozen_position and old_events[-1].hash == frozen_hash
    assert [(e.position, e.hash) for e in new_events[:len(old_events)]] == [
        (e.position, e.hash) for e in old_events]
    assert len(old_events) >= MOVE_APPENDS_BEFORE + 2
    assert len(new_events) >= len(old_events) + MOVE_APPENDS_AFTER
    assert verify_chain(book=tallinn.id, using="server2").ok
    with connections["server2"].cursor() as cursor:
        cursor.execute("SELECT read_only FROM ledger_head WHERE id = %s", [tallinn.id])
        assert cursor.fetchone() == (True,)

    # A process whose directory entry is stale appends through a connection
    # to the old copy: refused, "was moved"; the old head does not move.
    directory_cache[tallinn.id] = ("server2", time.monotonic())
    try:
        with pytest.raises(DatabaseError) as refused:
            with transaction.atomic(using="server2"):
                _deposit("tallinn", 5)
    finally:
        directory_cache.pop(tallinn.id, None)
    assert is_moved_error(refused.value), refused.value
    assert heads(using="server2")[tallinn.id] == (frozen_position, frozen_hash)
    assert book_id("tallinn") == tallinn.id


def test_a_move_stopped_before_the_switch_is_rerun_and_can_go_back(placed, monkeypatch):
    """A move that stopped after its copy committed, before the directory
    switched: the book is frozen (appends refused, none acknowledged), the
    directory still names server 2; the rerun copies nothing twice and switches.
    It moves back onto its frozen old copy (test_move_back.py: in detail)."""
    tallinn = placed["tallinn"]
    def keyed(index: int):
        return append([_event("tallinn/cash", "tallinn/player", 100, stream=f"kept/{index}")],
                      idempotency_key=f"before/{index}", book="tallinn")

    for index in range(3):
        keyed(index)

    def crash(*args, **kwargs):
        raise RuntimeError("the mover stopped")

    with monkeypatch.context() as patched:
        patched.setattr("ledger.verify.verify_chain", crash)
        with pytest.raises(RuntimeError, match="the mover stopped"):
            move_book("tallinn", "server3")
    assert database_for("tallinn") == "server2"
    with pytest.raises(DatabaseError) as refused:
        _deposit("tallinn", 5)
    assert is_moved_error(refused.value)

    moved = move_book("tallinn", "server3")
    assert (database_for("tallinn"), moved.events) == ("server3", 5)
    assert verify_chain(book=tallinn.id, using="server3").ok
    with connections["server3"].cursor() as cursor:
        cursor.execute("SELECT key FROM ledger_idempotency WHERE book = %s ORDER BY key",
                       [tallinn.id])
        assert [row[0] for row in cursor.fetchall()] == [f"before/{i}" for i in range(3)]
    assert keyed(1).replayed                     # its key came along: nothing written twice
    after = _deposit("tallinn", 5)
    assert local_position(after.events[0].position) == 6

    assert move_book("tallinn", "server2").position == after.events[0].position
    assert database_for("tallinn") == "server2"
    assert local_position(_deposit("tallinn", 5).events[0].position) == 7   # not frozen


def test_a_write_across_books_with_a_stale_directory_asks_again(placed):
    """A write across two books of server 2 (ledger.crossbook, linked through the group
    writer) after one of them moved to server 3, by a process whose directory entry is
    stale: the old, frozen copy refuses "was moved", the request asks the directory again
    and, now spanning two servers, is refused as such; nothing is written anywhere."""
    from ledger.crossbook import append_across
    from ledger.errors import InvalidEvent

    open_book("parnu", "server2")
    open_account(code="parnu/cash", type="asset", currency="EUR", book="parnu")
    parnu = book_id("parnu")

    def deposit(amount_minor: int):
        # The player's funds on tallinn, the cash on parnu's cage: one request, two books.
        return append_across([_event("parnu/cash", "tallinn/player", amount_minor,
                                     stream="test/parnu-deposits")],
                             home_book="tallinn", book_for_stream=lambda stream: "tallinn")

    deposit(100)                   # learns the books, opens the clearing pair
    linked = deposit(200)          # through server 2's writer, linked
    assert {event.book for event in linked.events} == {placed["tallinn"].id, parnu}
    move_book("parnu", "server3")
    before = {alias: heads(using=alias) for alias in ("server2", "server3")}
    directory_cache[parnu] = ("server2", time.monotonic())
    try:
        with pytest.raises(InvalidEvent, match="different databases"):
            deposit(300)
    finally:
        directory_cache.pop(parnu, None)
    assert {alias: heads(using=alias) for alias in ("server2", "server3")} == before
    assert database_for("parnu") == "server3"
