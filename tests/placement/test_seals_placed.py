"""Seals of a book placed on another server (issue 19: each book has its own
seals, points 1 and 4).

vilnius lives on server 2, main on the test database's own server. The
seal command seals both, each read where the directory places it, into its
own file; verify_ledger checks each against its seals, and its incremental
run starts each from its last seal in its own server. Then someone with
server 2's superuser edits an event of vilnius with triggers off and
recomputes the chain and the head after it, so server 2's chain verifies
again on its own: the seals still name the book and the position, the
seal command refuses to seal vilnius (and still seals main). A move to
server 3 keeps the book's seals: they are checked and continued there.
"""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from ledger import append, open_account, seals, verify_chain
from ledger.books import base_position, open_book
from ledger.canonical import dumps, event_hash, timestamp_text
from ledger.placement import database_for, move_book
from ledger.store import heads, load_book_events_after
from ledger.verify import verify_ledger

from .conftest import THREE_SERVERS
from .test_three_servers import _event

pytestmark = [THREE_SERVERS, pytest.mark.slow]     # two servers started for the folder

VILNIUS = "vilnius"
EVENTS_MAX = 1_000


def _pay(book: str, amount_minor: int = 100):
    prefix = "main" if book == "main" else book
    return append([_event(f"{prefix}/cash", f"{prefix}/player", amount_minor)], book=book)


def _call(*args) -> str:
    out = StringIO()
    call_command(*args, stdout=out)
    return out.getvalue()


@pytest.fixture
def sealed_books(three_servers, settings, tmp_path):
    """main (default) and vilnius (server 2), each with a cage and a player
    and a few payments: main 2 + 2 events, vilnius 2 + 4."""
    settings.LEDGER_SEAL_FILE = str(tmp_path / "seals-{database}.jsonl")
    settings.LEDGER_SEAL_KEY_FILE = str(tmp_path / "seal.key")
    vilnius = open_book(VILNIUS, "server2")
    for book, prefix in (("main", "main"), (VILNIUS, VILNIUS)):
        open_account(code=f"{prefix}/cash", type="asset", currency="EUR", book=book)
        open_account(code=f"{prefix}/player", type="liability", currency="EUR", book=book)
    for _ in range(2):
        _pay("main")
    for _ in range(4):
        _pay(VILNIUS)
    return vilnius


def _seal_file(book: str):
    main_file, _ = seals.settings_paths()
    return seals.book_path(main_file, book)


def _sizes(book: str) -> list[int]:
    return [seal["tree_size"] for seal in seals.read_seals(_seal_file(book))]


def _chain_hashes(book: int, database: str) -> list[str]:
    return [event.hash for event in load_book_events_after(book, 0, EVENTS_MAX,
                                                           using=database)]


def test_the_seal_command_seals_a_book_on_another_server_and_verify_checks_it(sealed_books):
    """seal_ledger seals vilnius from server 2 into its own file (its own
    positions 1..6, the leaves server 2's chain); --book seals it alone;
    verify_ledger counts both books' seals and passes."""
    vilnius = sealed_books
    out = _call("seal_ledger")
    assert "seal_ledger: book main: sealed 4 events" in out
    assert "seal_ledger: book vilnius: sealed 6 events" in out
    written = seals.read_seals(_seal_file(VILNIUS))
    assert [(seal["book"], seal["tree_size"]) for seal in written] == [(VILNIUS, 6)]
    assert written[0]["leaves"] == _chain_hashes(vilnius.id, "server2")
    assert written[0]["head_hash"] == heads(using="server2")[vilnius.id][1]

    _pay(VILNIUS)
    out = _call("seal_ledger", "--book", VILNIUS)
    assert out.startswith("seal_ledger: book vilnius: sealed 7 events")
    assert (_sizes("main"), _sizes(VILNIUS)) == ([4], [6, 7])

    result = verify_ledger()
    assert result.ok, str(result)
    assert result.sealed == 4 + 7
    check = seals.verify_seals()
    assert (check.ok, check.seals, check.sealed_size) == (True, 3, 11)
    one = seals.verify_seals(book=VILNIUS)
    assert (one.ok, one.seals, one.sealed_size) == (True, 2, 7)
    assert _call("verify_ledger", "--no-progress").startswith("verify_ledger: OK")


def test_each_book_is_sealed_once_where_the_directory_places_it(sealed_books):
    """Every book server holds an empty main of its own: only the directory's
    database's main is the book, listed or not in the directory (a flush
    empties it; placement's placed_books then falls back to the heads)."""
    from django.db import connection, connections

    expected = [(seals.BookRef(1, "main"), "default"),
                (seals.BookRef(sealed_books.id, VILNIUS), "server2")]
    with connections["server2"].cursor() as cursor:
        # As migrating a book server leaves it (a flush after a test empties it).
        cursor.execute("SELECT ledger_open_book('main', 1::smallint)")
    assert seals.placed_refs() == expected
    with connection.cursor() as cursor:
        cursor.execute("DELETE FROM ledger_placement WHERE book = 1")
    assert [ref.key for ref in seals.open_books("server2")] == ["main", VILNIUS]
    assert seals.placed_refs() == expected
    out = _call("seal_ledger")
    assert out.count("book main:") == 1 and "book main: sealed 4 events" in out


def _rewrite_on_server2(server, book: int, position: int) -> None:
    """What a careful insider with server 2's superuser does: edit the event at
    `position`, then rehash it and every later event of the book, and the head."""
    events = load_book_events_after(book, position - 1, EVENTS_MAX, using="server2")
    with server.connect() as connection:
        connection.execute("SET session_replication_role = replica")
        connection.execute("UPDATE ledger_event SET payload = '{\"amount_minor\": 1}'"
                           " WHERE position = %s", [position])
        previous = events[0].prev_hash
        for event in events:
            payload = {"amount_minor": 1} if event.position == position else event.payload
            new = event_hash(
                prev_hash=previous, position=event.position, stream=event.stream,
                version=event.version, type=event.type, schema_version=event.schema_version,
                payload_json=dumps(payload), metadata_json=dumps(event.metadata),
                idempotency_key=event.idempotency_key,
                occurred_at_text=timestamp_text(event.occurred_at),
                recorded_at_text=timestamp_text(event.recorded_at),
                gaming_day=event.gaming_day,
                postings=[(p.account, p.amount_minor, p.currency) for p in event.postings])
            connection.execute("UPDATE ledger_event SET prev_hash = %s, hash = %s"
                               " WHERE position = %s", [previous, new, event.position])
            previous = new
        connection.execute("UPDATE ledger_head SET hash = %s WHERE id = %s", [previous, book])


def test_the_incremental_run_verifies_and_seals_a_book_on_another_server(sealed_books):
    """verify_ledger --incremental starts vilnius from its last seal, reads only
    its new events on server 2, checks the balances they move there, and
    seals it on."""
    _call("seal_ledger")
    _pay(VILNIUS)
    _pay(VILNIUS)
    result = verify_ledger(incremental=True)
    assert result.ok, str(result)
    per_book = {r.book: (r.since, r.read, r.sealed) for r in result.books}
    assert per_book == {"main": (4, 0, 4), VILNIUS: (6, 2, 8)}
    assert (_sizes("main"), _sizes(VILNIUS)) == ([4], [6, 8])


def test_a_balance_edited_on_the_other_server_is_named_by_the_incremental_run(
        sealed_books, three_servers):
    """A balance row of vilnius changed on server 2 with triggers off: the
    incremental run, moving that account, names it and does not seal vilnius."""
    _call("seal_ledger")
    _pay(VILNIUS)
    with three_servers["server2"].connect() as server2:
        server2.execute("SET session_replication_role = replica")
        server2.execute("UPDATE ledger_account SET balance_minor = balance_minor + 1"
                        " WHERE code = 'vilnius/player'")
    result = verify_ledger(incremental=True)
    assert (result.ok, result.book, result.account) == (False, VILNIUS, "vilnius/player"), (
        str(result))
    assert _sizes(VILNIUS) == [6]


def test_a_rewrite_on_the_other_server_is_named_by_the_seals(sealed_books, three_servers):
    """After the insider's rewrite server 2's chain verifies on its own, but the
    seals name vilnius and its position 4; sealing refuses vilnius and still
    seals main."""
    vilnius = sealed_books
    _call("seal_ledger")
    rewritten = base_position(vilnius.id) + 4
    _rewrite_on_server2(three_servers["server2"], vilnius.id, rewritten)
    assert verify_chain(book=vilnius.id, using="server2").ok      # the chain alone: fooled

    check = seals.verify_seals()
    assert (check.ok, check.book, check.bad_position, check.last_good_seal) == (
        False, VILNIUS, 4, None)
    result = verify_ledger()
    assert (result.ok, result.book, result.bad_position) == (False, VILNIUS, rewritten), (
        str(result))
    assert "position 4 differs" in result.problem
    # The incremental run reads vilnius from its last seal on server 2: the
    # sealed position no longer carries its sealed hash.
    incremental = verify_ledger(incremental=True)
    assert (incremental.ok, incremental.book, incremental.bad_position) == (
        False, VILNIUS, rewritten), str(incremental)
    with pytest.raises(CommandError) as failed:
        _call("verify_ledger", "--no-progress")
    assert "vilnius" in str(failed.value)

    _pay("main")
    out = StringIO()
    with pytest.raises(CommandError, match="book vilnius: the log of book vilnius no longer"
                                           " matches its seals"):
        call_command("seal_ledger", stdout=out)
    assert "book main: sealed 5 events" in out.getvalue()
    assert (_sizes("main"), _sizes(VILNIUS)) == ([4, 5], [6])


def test_a_placed_books_seals_follow_it_to_another_server(sealed_books):
    """Moved from server 2 to server 3, vilnius is checked against the seals
    made on server 2 and sealed on from server 3; the frozen old copy is not
    sealed again."""
    vilnius = sealed_books
    _call("seal_ledger")
    move_book(VILNIUS, "server3")
    assert database_for(VILNIUS) == "server3"
    _pay(VILNIUS)
    assert verify_ledger().ok
    out = _call("seal_ledger")
    assert "book vilnius: sealed 7 events" in out
    assert out.count("book vilnius") == 1
    assert _sizes(VILNIUS) == [6, 7]
    assert seals.read_seals(_seal_file(VILNIUS))[-1]["leaves"] == _chain_hashes(
        vilnius.id, "server3")[6:]
