"""Moving a book back onto a server that still holds its frozen old copy
(issue 19, point 4: `ledger.placement.move_book`, `_move_back`).

tallinn starts on server 2, moves to server 3 (server 2's copy frozen),
takes more appends, and moves back to server 2: only the events after the
old copy's head are copied, the old copy is unfrozen and the copy left on
server 3 is frozen. Nothing is lost or doubled, under appends from a thread
too; a stopped move back is rerun; an old copy that is not a prefix of the
live one is refused before anything freezes.
"""

from __future__ import annotations

import time

import pytest
from django.db import DatabaseError, connections

from ledger import append, open_account, verify_chain
from ledger.books import base_position, local_position, open_book
from ledger.models import Account
from ledger.placement import (database_for, forget, is_moved_error, move_book, placements,
                              reading_book, verify_placed_books)
from ledger.placement import _databases as directory_cache
from ledger.store import heads, load_book_events_after

from .conftest import THREE_SERVERS
from .test_three_servers import JOIN_SECONDS_MAX, _Appender, _event

pytestmark = [THREE_SERVERS, pytest.mark.slow]     # two servers started for the folder

EVENTS_MAX = 5_000
APPENDS_BEFORE = 20
APPENDS_AFTER = 20


@pytest.fixture
def tallinn(three_servers):
    """The book tallinn on server 2, with a cage and a player account (EUR)."""
    book = open_book("tallinn", "server2")
    open_account(code="tallinn/cash", type="asset", currency="EUR", book="tallinn")
    open_account(code="tallinn/player", type="liability", currency="EUR",
                 must_not_go_negative=True, book="tallinn")
    return book


def _keyed(index: int, amount_minor: int = 100):
    """One deposit under its own idempotency key (`paid/<index>`)."""
    return append([_event("tallinn/cash", "tallinn/player", amount_minor,
                          stream=f"paid/{index}")],
                  idempotency_key=f"paid/{index}", book="tallinn")


def _frozen(book: int, database: str) -> bool:
    with connections[database].cursor() as cursor:
        cursor.execute("SELECT read_only FROM ledger_head WHERE id = %s", [book])
        return cursor.fetchone()[0]


def _keys(book: int, database: str) -> dict[str, tuple[int, int]]:
    """Idempotency key -> (events under it, first position), in `database`."""
    with connections[database].cursor() as cursor:
        cursor.execute("SELECT idempotency_key, count(*), min(position) FROM ledger_event"
                       " WHERE book = %s AND idempotency_key IS NOT NULL"
                       " GROUP BY idempotency_key", [book])
        return {key: (count, position) for key, count, position in cursor.fetchall()}


def _recorded_keys(book: int, database: str) -> list[str]:
    with connections[database].cursor() as cursor:
        cursor.execute("SELECT key FROM ledger_idempotency WHERE book = %s ORDER BY key",
                       [book])
        return [row[0] for row in cursor.fetchall()]


def _chain(book: int, database: str) -> list[tuple[int, str]]:
    return [(event.position, event.hash)
            for event in load_book_events_after(book, 0, EVENTS_MAX, using=database)]


def _player_balance(database: str) -> int:
    with connections[database].cursor() as cursor:
        cursor.execute("SELECT balance_minor FROM ledger_account WHERE code = 'tallinn/player'")
        return cursor.fetchone()[0]


def test_a_book_moves_away_and_back_and_loses_nothing(tallinn):
    """server 2 -> server 3 -> server 2, appending between: server 2's old copy
    takes only the events it lacked, is live again, the copy on server 3 is
    frozen; every key once, every balance right, every chain verifies."""
    for index in range(3):
        _keyed(index)
    old_head = heads(using="server2")[tallinn.id]
    move_book("tallinn", "server3")
    for index in range(3, 7):
        _keyed(index)
    away_head = heads(using="server3")[tallinn.id]
    assert (_frozen(tallinn.id, "server2"), _frozen(tallinn.id, "server3")) == (True, False)
    assert local_position(old_head[0]) == 5 and local_position(away_head[0]) == 9

    back = move_book("tallinn", "server2")

    assert (back.id, back.position, back.hash) == (tallinn.id, *away_head)
    assert placements()["tallinn"] == "server2" and database_for("tallinn") == "server2"
    assert (_frozen(tallinn.id, "server2"), _frozen(tallinn.id, "server3")) == (False, True)
    # Server 2 holds exactly the chain server 3 had: its old five, then the four after.
    assert _chain(tallinn.id, "server2") == _chain(tallinn.id, "server3")
    assert heads(using="server2")[tallinn.id] == away_head
    # Each key once, its events once; the keys of the appends made away came along.
    assert _recorded_keys(tallinn.id, "server2") == [f"paid/{i}" for i in range(7)]
    assert {key: count for key, (count, _) in _keys(tallinn.id, "server2").items()} == {
        f"paid/{i}": 1 for i in range(7)}
    assert _keyed(5).replayed                    # a retry of an append made away: no double
    assert _player_balance("server2") == 700     # the triggers moved it for the tail too

    # Appends go on in server 2, after the copied tail; server 3's copy stays frozen.
    after = _keyed(7)
    assert local_position(after.events[0].position) == 10
    assert heads(using="server3")[tallinn.id] == away_head
    assert _player_balance("server2") == 800
    with reading_book("tallinn"):
        assert Account.objects.get(code="tallinn/player").balance_minor == 800
    assert verify_chain(book=tallinn.id, using="server2").ok
    assert verify_chain(book=tallinn.id, using="server3").ok
    placed = {key: (database, result.ok) for key, database, result in verify_placed_books()}
    assert placed["tallinn"] == ("server2", True)
    from ledger.verify import verify_ledger

    assert verify_ledger().ok

    # And away once more: server 3's frozen copy takes only the one event it lacks.
    again = move_book("tallinn", "server3")
    assert local_position(again.position) == 10 and database_for("tallinn") == "server3"
    assert (_frozen(tallinn.id, "server2"), _frozen(tallinn.id, "server3")) == (True, False)
    assert _chain(tallinn.id, "server3") == _chain(tallinn.id, "server2")
    assert _recorded_keys(tallinn.id, "server3") == [f"paid/{i}" for i in range(8)]


def test_a_book_moves_back_under_appends_and_loses_nothing(tallinn):
    """A thread appends throughout both moves (retrying appends the frozen copy
    refused): every acknowledged append is in server 2's copy once, in the
    position it was acknowledged at."""
    appender = _Appender("tallinn")
    appender.thread.start()
    try:
        appender.wait_for(APPENDS_BEFORE)
        move_book("tallinn", "server3")
        appender.wait_for(len(appender.acknowledged) + APPENDS_AFTER)
        back = move_book("tallinn", "server2")
        appender.wait_for(len(appender.acknowledged) + APPENDS_AFTER)
    finally:
        appender.stop.set()
        appender.thread.join(JOIN_SECONDS_MAX)
    assert not appender.thread.is_alive() and appender.error is None, appender.error
    assert database_for("tallinn") == "server2"
    assert back.position >= base_position(tallinn.id) + 2 + 2 * APPENDS_AFTER
    live = _keys(tallinn.id, "server2")
    assert live == {key: (1, position) for key, position in appender.acknowledged.items()}
    assert verify_chain(book=tallinn.id, using="server2").ok
    assert (_frozen(tallinn.id, "server2"), _frozen(tallinn.id, "server3")) == (False, True)
    # The frozen copy on server 3 is server 2's chain up to the move back.
    frozen = _chain(tallinn.id, "server3")
    assert frozen == _chain(tallinn.id, "server2")[:len(frozen)]
    assert frozen[-1] == (back.position, back.hash)


def test_a_move_back_stopped_midway_is_rerun(tallinn, monkeypatch):
    """Stopped during the copy, the move back leaves server 2's old copy frozen
    and unchanged (its transaction rolled back) and server 3 frozen (appends
    refused, none acknowledged); stopped after the copy committed, server 2
    is live again but the directory still says server 3. Each rerun finishes
    it, copying nothing twice, and keeps what a writer with a stale directory
    entry appended to server 2 meanwhile."""
    for index in range(2):
        _keyed(index)
    move_book("tallinn", "server3")
    for index in range(2, 5):
        _keyed(index)
    old_head = heads(using="server2")[tallinn.id]

    def stop(*args, **kwargs):
        raise RuntimeError("the mover stopped")

    with monkeypatch.context() as patched:
        patched.setattr("ledger.placement._copy_events", stop)
        with pytest.raises(RuntimeError, match="the mover stopped"):
            move_book("tallinn", "server2")
    assert database_for("tallinn") == "server3"
    assert heads(using="server2")[tallinn.id] == old_head
    assert (_frozen(tallinn.id, "server2"), _frozen(tallinn.id, "server3")) == (True, True)
    with pytest.raises(DatabaseError) as refused:
        _keyed(9)
    assert is_moved_error(refused.value)

    with monkeypatch.context() as patched:
        patched.setattr("ledger.placement._switch", stop)
        with pytest.raises(RuntimeError, match="the mover stopped"):
            move_book("tallinn", "server2")
    assert database_for("tallinn") == "server3"
    assert (_frozen(tallinn.id, "server2"), _frozen(tallinn.id, "server3")) == (False, True)
    assert heads(using="server2")[tallinn.id] == heads(using="server3")[tallinn.id]
    # A process whose directory entry still says server 2 appends there now:
    # that copy is the one about to go live, and takes it after the copied tail.
    directory_cache[tallinn.id] = ("server2", time.monotonic())
    try:
        stale = _keyed(5)
    finally:
        forget(tallinn.id)
    assert local_position(stale.events[0].position) == 8

    back = move_book("tallinn", "server2")
    assert database_for("tallinn") == "server2"
    assert local_position(back.position) == 8
    assert _recorded_keys(tallinn.id, "server2") == [f"paid/{i}" for i in range(6)]
    assert {count for count, _ in _keys(tallinn.id, "server2").values()} == {1}
    assert local_position(_keyed(9).events[0].position) == 9
    assert verify_chain(book=tallinn.id, using="server2").ok


def test_an_old_copy_that_is_not_a_prefix_is_refused_before_anything_freezes(
        tallinn, three_servers):
    """An old copy whose head hash is not the live chain's at that position (here:
    its head row rewritten on server 2, as an insider with triggers off could)
    is refused with ValueError; the live copy on server 3 stays writable."""
    _keyed(0)
    move_book("tallinn", "server3")
    _keyed(1)
    with three_servers["server2"].connect() as server2:
        server2.execute("SET session_replication_role = replica")
        server2.execute("UPDATE ledger_head SET hash = repeat('0', 64) WHERE id = %s",
                        [tallinn.id])
    with pytest.raises(ValueError, match="not a prefix of its copy in server3"):
        move_book("tallinn", "server2")
    assert database_for("tallinn") == "server3"
    assert (_frozen(tallinn.id, "server2"), _frozen(tallinn.id, "server3")) == (True, False)
    assert local_position(_keyed(2).events[0].position) == 5


def test_an_old_copy_that_does_not_verify_stays_frozen(tallinn, three_servers):
    """An old copy whose head still matches but whose chain was edited below it
    is refused (RuntimeError naming it) before the live copy freezes: the old
    copy stays frozen, the live one takes appends."""
    _keyed(0)
    _keyed(1)
    move_book("tallinn", "server3")
    _keyed(2)
    edited = base_position(tallinn.id) + 3
    with three_servers["server2"].connect() as server2:
        server2.execute("SET session_replication_role = replica")
        server2.execute("UPDATE ledger_event SET payload = '{\"amount_minor\": 1}'"
                        " WHERE position = %s", [edited])
    with pytest.raises(RuntimeError, match="old copy of book tallinn in server2 does not"
                                           " verify, it stays frozen"):
        move_book("tallinn", "server2")
    assert database_for("tallinn") == "server3"
    assert (_frozen(tallinn.id, "server2"), _frozen(tallinn.id, "server3")) == (True, False)
    assert local_position(_keyed(3).events[0].position) == 6
