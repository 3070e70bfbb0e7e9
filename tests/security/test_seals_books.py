"""Seals per book (issue 19, point 1: "each book has its own hash chain and seals").

Two books: main (the log as it always was) and tallinn (`open_book`). Each
book is sealed into its own file outside the database: main into
LEDGER_SEAL_FILE as before books, tallinn into the sibling
`<stem>.tallinn<suffix>`, with the book's own positions (1..n, its Merkle
tree the same as main's) and the book's key inside the signed part. Then
someone with the database's superuser (triggers off) tampers with tallinn
only, and the full and the incremental verification name the book and the
position while main still verifies and is still sealed. Sealing main never
waits for tallinn: each book has its own sealers' lock and writer lock.
"""

from __future__ import annotations

import threading

import pytest
from django.core.management import call_command
from django.db import OperationalError, connection, transaction

from ledger import open_account, seals
from ledger.books import base_position, book_id, open_book
from ledger.canonical import GENESIS_HASH, dumps, event_hash, timestamp_text
from ledger.store import head, load_book_events_after, load_events
from ledger.verify import verify_chain, verify_ledger
from tests.ledger.factories import transfer
from tests.security.test_seals import _tamper

MAIN, TALLINN = "main", "tallinn"


def _grow(book: str, events: int) -> None:
    """Append transfers to `book` until it holds `events` events."""
    ident = book_id(book)
    while head(ident)[0] - base_position(ident) < events:
        if book == MAIN:
            transfer("player/alice", "cage/cash", 100)
        else:
            transfer("tallinn/player/alice", "tallinn/cage", 100, book=book)


def _at(book: str, local: int) -> int:
    """The log position of the book's `local`-th event."""
    return base_position(book_id(book)) + local


def _book_events(book: str):
    ident = book_id(book)
    return load_book_events_after(ident, base_position(ident), 1000)


def _seal_files(tmp_path) -> dict[str, object]:
    files = sorted(tmp_path.glob("seals-*.jsonl"))
    return {("main" if path.name.count(".") == 1 else path.name.split(".")[-2]): path
            for path in files}


def _sizes(path) -> list[int]:
    return [seal["tree_size"] for seal in seals.read_seals(path)]


@pytest.fixture
def books(accounts, settings, tmp_path):
    """main and tallinn; main sealed at 6 and 8, tallinn at 3 and 5 (its own numbers)."""
    settings.LEDGER_SEAL_FILE = str(tmp_path / "seals-{database}.jsonl")
    settings.LEDGER_SEAL_KEY_FILE = str(tmp_path / "seal.key")
    open_book(TALLINN)
    open_account(code="tallinn/cage", type="asset", currency="EUR", book=TALLINN)
    open_account(code="tallinn/player/alice", type="liability", currency="EUR",
                 must_not_go_negative=True, book=TALLINN)
    _grow(MAIN, 6)
    _grow(TALLINN, 3)
    first = seals.anchor_books(sealed_at="2026-06-16T01:00:00+00:00")
    assert {key: seal["tree_size"] for key, seal in first.items()} == {MAIN: 6, TALLINN: 3}
    _grow(TALLINN, 5)
    second = seals.anchor_books(sealed_at="2026-06-16T02:00:00+00:00")
    assert second[MAIN] is None and second[TALLINN]["tree_size"] == 5
    _grow(MAIN, 8)
    assert seals.anchor(book=MAIN)["tree_size"] == 8
    assert verify_ledger().ok
    return tmp_path


# --- one seal file per book ----------------------------------------------------------------

def test_each_book_gets_its_own_seal_file_in_its_own_positions(books):
    """main keeps LEDGER_SEAL_FILE; tallinn's seals go to seals-<db>.tallinn.jsonl and
    cover its positions 1..5 (not the log's 2^40+1..), naming the book."""
    files = _seal_files(books)
    assert set(files) == {MAIN, TALLINN}
    main_file, _ = seals.settings_paths()
    assert files[MAIN] == main_file
    assert files[TALLINN] == main_file.with_name(f"{main_file.stem}.tallinn.jsonl")
    assert (_sizes(files[MAIN]), _sizes(files[TALLINN])) == ([6, 8], [3, 5])
    tallinn = seals.read_seals(files[TALLINN])
    assert [seal["book"] for seal in tallinn] == [TALLINN, TALLINN]
    assert [seal["first_position"] for seal in tallinn] == [1, 4]
    hashes = [event.hash for event in _book_events(TALLINN)]
    assert tallinn[0]["leaves"] + tallinn[1]["leaves"] == hashes
    assert tallinn[1]["root"] == seals.merkle_root([seals.leaf_hash(h) for h in hashes]).hex()
    assert tallinn[1]["head_hash"] == head(book_id(TALLINN))[1]
    assert {seal["book"] for seal in seals.read_seals(files[MAIN])} == {MAIN}
    assert verify_ledger().sealed == 8 + 5


def test_the_incremental_run_starts_each_book_from_its_own_last_seal(books):
    """Each book is read from its own last seal (main after 8, tallinn after 5) and
    sealed on its own: three new events in tallinn, one in main."""
    _grow(TALLINN, 8)
    _grow(MAIN, 9)
    result = verify_ledger(incremental=True)
    assert result.ok, str(result)
    per_book = {r.book: (r.since, r.read, r.sealed) for r in result.books}
    assert per_book == {MAIN: (8, 1, 9), TALLINN: (5, 3, 8)}
    assert (result.events, result.read, result.sealed) == (9 + 8, 4, 17)
    assert str(result) == ("verify_ledger: OK (main: 9 events, 9 sealed; 1 read after the"
                           " seal at 8 | tallinn: 8 events, 8 sealed; 3 read after the seal"
                           " at 5)")
    files = _seal_files(books)
    assert (_sizes(files[MAIN]), _sizes(files[TALLINN])) == ([6, 8, 9], [3, 5, 8])
    assert seals.read_seals(files[TALLINN])[-1]["leaves"] == [
        event.hash for event in _book_events(TALLINN)[5:]]


def test_the_seal_command_seals_every_book_or_one(books, capsys):
    _grow(TALLINN, 6)
    _grow(MAIN, 10)
    call_command("seal_ledger", "--book", TALLINN)
    assert capsys.readouterr().out.strip().endswith("book tallinn: sealed 6 events, root "
                                                    + seals.read_seals(
                                                        _seal_files(books)[TALLINN])[-1]["root"])
    assert _sizes(_seal_files(books)[MAIN]) == [6, 8]
    call_command("seal_ledger")
    out = capsys.readouterr().out
    assert "book main: sealed 10 events" in out
    assert "book tallinn: nothing new to seal" in out


def test_the_auditors_verifier_checks_one_books_file(books, capsys):
    """`python -m ledger.seals` on tallinn's file: its own positions, its book named;
    told another book, it refuses the file."""
    public = books / "seal.pub"
    public.write_bytes(seals.public_key_pem(seals.load_private_key(books / "seal.key")))
    path = _seal_files(books)[TALLINN]
    assert seals.main([str(path), "--public-key", str(public), "--include", "2",
                       "--consistency", "3", "5"]) == 0
    out = capsys.readouterr().out
    assert "2 signed seals, 5 events (book tallinn)" in out
    assert "inclusion of position 2 in the seal of size 5: OK" in out
    assert "consistency of seal 3 with seal 5: OK" in out
    assert seals.main([str(path), "--public-key", str(public), "--book", MAIN]) == 1
    assert "is book tallinn's, not book main's" in capsys.readouterr().out


# --- the book in the signed part, and the seals written before books -------------------------

def _version_1(seal: dict, private_key) -> dict:
    """A seal as sealers wrote it before books: version 1, no book, signed without it."""
    old = {name: value for name, value in seal.items() if name not in ("book", "signature")}
    return seals.sign_seal({**old, "version": 1}, private_key)


def test_main_seals_written_before_books_still_verify_and_are_followed(accounts, settings,
                                                                      tmp_path):
    """Version 1 lines (no book) stay valid in main's file: the full run checks
    them, the incremental run seals after them with version 2 lines."""
    settings.LEDGER_SEAL_FILE = str(tmp_path / "seals-{database}.jsonl")
    settings.LEDGER_SEAL_KEY_FILE = str(tmp_path / "seal.key")
    _grow(MAIN, 6)
    key = seals.load_private_key(tmp_path / "seal.key")
    hashes = [event.hash for event in load_events(1, 6)]
    old = _version_1(seals.make_seal(previous=[], chain_hashes=hashes, private_key=key,
                                     sealed_at="2026-06-01T00:00:00+00:00"), key)
    assert "book" not in old and seals.signature_ok(old, key.public_key())
    main_file, _ = seals.settings_paths()
    seals.append_seal(main_file, old)
    assert verify_ledger().sealed == 6
    _grow(MAIN, 7)
    result = verify_ledger(incremental=True)
    assert (result.ok, result.since, result.sealed) == (True, 6, 7), str(result)
    written = seals.read_seals(main_file)
    assert [(seal["version"], seal.get("book")) for seal in written] == [(1, None), (2, MAIN)]
    assert seals.check_seal_file(written, key.public_key(), MAIN) == (hashes + [
        load_events(7, 7)[0].hash], None)


def test_a_seal_moved_into_another_books_file_is_refused(books):
    """The book is signed (version 2): renaming it breaks the signature, and a
    signed tallinn seal in main's file is named as another book's."""
    files = _seal_files(books)
    public = seals.load_private_key(books / "seal.key").public_key()
    tallinn = seals.read_seals(files[TALLINN])
    renamed = {**tallinn[0], "book": MAIN}
    assert seals.signature_ok(tallinn[0], public) and not seals.signature_ok(renamed, public)
    no_book = {name: value for name, value in tallinn[0].items() if name != "book"}
    assert not seals.signature_ok(no_book, public)
    files[MAIN].write_text(files[TALLINN].read_text())
    result = verify_ledger()
    assert (result.ok, result.book) == (False, MAIN), str(result)
    assert "is book tallinn's, not book main's" in result.problem


# --- tampering with one book ---------------------------------------------------------------

def _edit(book: str, local: int) -> None:
    _tamper(("UPDATE ledger_event SET payload = '{\"amount_minor\": 1}' WHERE position = %s",
             [_at(book, local)]))


def _recompute_chain_from(book: str, local: int) -> None:
    """Rehash the book's events from `local` on and its head, as a careful attacker would."""
    events = _book_events(book)
    prev = events[local - 2].hash if local > 1 else GENESIS_HASH
    for event in events[local - 1:]:
        new = event_hash(
            prev_hash=prev, position=event.position, stream=event.stream,
            version=event.version, type=event.type, schema_version=event.schema_version,
            payload_json=dumps(event.payload), metadata_json=dumps(event.metadata),
            idempotency_key=event.idempotency_key,
            occurred_at_text=timestamp_text(event.occurred_at),
            recorded_at_text=timestamp_text(event.recorded_at), gaming_day=event.gaming_day,
            postings=[(p.account, p.amount_minor, p.currency) for p in event.postings])
        _tamper(("UPDATE ledger_event SET prev_hash = %s, hash = %s WHERE position = %s",
                 [prev, new, event.position]))
        prev = new
    _tamper(("UPDATE ledger_head SET hash = %s WHERE id = %s", [prev, book_id(book)]))


def _cut_tail(book: str, keep: int) -> None:
    """Delete the book's events after `keep` and move its head back to `keep`."""
    events = _book_events(book)
    for event in reversed(events[keep:]):
        _tamper(("DELETE FROM ledger_posting WHERE event_id = %s", [event.position]),
                ("DELETE FROM ledger_event WHERE position = %s", [event.position]))
    _tamper(("UPDATE ledger_head SET position = %s, hash = %s WHERE id = %s",
             [events[keep - 1].position, events[keep - 1].hash, book_id(book)]))


def _main_is_intact() -> None:
    assert verify_chain(book=1).ok
    assert seals.verify_seals(book=MAIN).ok


def test_an_edit_in_tallinn_is_named_by_the_full_run_with_the_book_and_position(books):
    """Tallinn's 4th event edited (no rehash): the full run names book tallinn, its
    position 4 (log position 2^40 + 4) and its seal at 3 as the last good one."""
    _edit(TALLINN, 4)
    result = verify_ledger()
    assert (result.ok, result.book, result.bad_position, result.last_good_seal) == (
        False, TALLINN, _at(TALLINN, 4), 3), str(result)
    assert str(result).startswith(
        f"verify_ledger: FAILED at position 4 of book tallinn (log position {_at(TALLINN, 4)})")
    _main_is_intact()


def test_an_edit_in_tallinn_is_named_by_the_incremental_run_and_main_is_still_sealed(books):
    """The incremental run's audit re-reads tallinn's sealed part against its seals
    and names position 4; main's new event is verified and sealed all the same,
    tallinn's is not."""
    _grow(MAIN, 9)
    _grow(TALLINN, 6)
    _edit(TALLINN, 4)
    result = verify_ledger(incremental=True, audit=10)
    assert (result.ok, result.book, result.bad_position, result.last_good_seal) == (
        False, TALLINN, _at(TALLINN, 4), 3), str(result)
    assert "position 4 of book tallinn" in str(result)
    main_result = next(r for r in result.books if r.book == MAIN)
    assert (main_result.ok, main_result.sealed) == (True, 9)
    files = _seal_files(books)
    assert (_sizes(files[MAIN]), _sizes(files[TALLINN])) == ([6, 8, 9], [3, 5])
    _main_is_intact()


def test_a_rehashed_edit_in_tallinn_is_caught_at_its_sealed_position(books):
    """Edit at tallinn's 2 with its chain recomputed (its chain alone then verifies):
    the incremental run's anchor (tallinn's sealed position 5) no longer matches,
    and the comparison names 2 with no good seal before it."""
    _edit(TALLINN, 2)
    _recompute_chain_from(TALLINN, 2)
    assert verify_chain().ok
    for result in (verify_ledger(incremental=True), verify_ledger()):
        assert (result.ok, result.book, result.bad_position, result.last_good_seal) == (
            False, TALLINN, _at(TALLINN, 2), None), str(result)
        assert "differs from its seal" in result.problem
    with pytest.raises(ValueError, match="book tallinn no longer matches its seals"):
        seals.anchor(book=TALLINN)
    _main_is_intact()


def test_a_tail_cut_in_tallinn_with_its_head_moved_back_is_caught(books):
    """Tallinn's 4 and 5 deleted and its head moved back to 3: its chain verifies,
    the seals name position 4 and the seal at 3, in both runs."""
    _cut_tail(TALLINN, 3)
    assert verify_chain().ok
    for result in (verify_ledger(), verify_ledger(incremental=True)):
        assert (result.ok, result.book, result.bad_position, result.last_good_seal) == (
            False, TALLINN, _at(TALLINN, 4), 3), str(result)
        assert "missing" in result.problem or "cut" in result.problem
    _main_is_intact()


@pytest.mark.parametrize("directory_row_too", [False, True],
                         ids=["directory_row_left", "directory_row_deleted"])
def test_a_book_removed_whole_is_named(books, directory_row_too):
    """Tallinn deleted whole (head row, events, accounts): no chain is left to
    break, but the directory still places it here or, with its directory row
    deleted too, its seal file is left; both runs name the book."""
    ident = book_id(TALLINN)
    statements = [("DELETE FROM ledger_posting WHERE book = %s", [ident]),
                  ("DELETE FROM ledger_event WHERE book = %s", [ident]),
                  ("DELETE FROM ledger_idempotency WHERE book = %s", [ident]),
                  ("DELETE FROM ledger_account WHERE book = %s", [ident]),
                  ("DELETE FROM ledger_stream WHERE book = %s", [ident]),
                  ("DELETE FROM ledger_head WHERE id = %s", [ident])]
    if directory_row_too:
        statements.append(("DELETE FROM ledger_placement WHERE book = %s", [ident]))
    _tamper(*statements)
    assert verify_chain().ok
    expected = "has seals" if directory_row_too else "the directory places book tallinn"
    for result in (verify_ledger(), verify_ledger(incremental=True)):
        assert (result.ok, result.book) == (False, TALLINN), str(result)
        assert expected in result.problem and "no such book" in result.problem


def test_a_moved_books_frozen_copy_is_not_sealed_here(books):
    """A book the directory places in another database is read there, never
    here: what this one holds of it is a moved book's frozen copy. Placed in
    a database this process has no connection for, the book is named (it
    cannot be checked) and not sealed, and main is still sealed.
    (tests/placement/test_seals_placed.py: a book on another server.)"""
    _tamper(("UPDATE ledger_placement SET database = 'elsewhere' WHERE key = %s", [TALLINN]))
    assert [book.key for book in seals.open_books()] == [MAIN]
    _grow(MAIN, 9)
    result = verify_ledger(incremental=True)
    assert (result.ok, result.book) == (False, TALLINN), str(result)
    assert "places book tallinn in elsewhere, a database this process has no" in str(result)
    assert [r.book for r in result.books] == [MAIN, TALLINN]
    assert _sizes(_seal_files(books)[TALLINN]) == [3, 5]
    assert _sizes(_seal_files(books)[MAIN]) == [6, 8, 9]
    with pytest.raises(seals.SealingFailed) as failed:
        seals.anchor_books()
    assert list(failed.value.failures) == [TALLINN]


def test_an_edited_balance_in_tallinn_is_named_with_its_book(books):
    """The incremental run recomputes the balances of the accounts each book's new
    events post to: tallinn's player, raised with the triggers off, is named."""
    _grow(TALLINN, 6)
    _tamper(("UPDATE ledger_account SET balance_minor = balance_minor + 50000"
             " WHERE code = 'tallinn/player/alice'", []))
    result = verify_ledger(incremental=True)
    assert (result.ok, result.account, result.book) == (False, "tallinn/player/alice",
                                                        TALLINN), str(result)
    assert "of book tallinn" in str(result)
    assert _sizes(_seal_files(books)[TALLINN]) == [3, 5]


def test_each_book_has_its_own_audit_cursor(books, settings, tmp_path_factory):
    """The rolling audit keeps one cursor per book: beside each seal file, or,
    with LEDGER_VERIFY_AUDIT_FILE, at that path and its book siblings."""
    assert verify_ledger(incremental=True, audit=4).ok
    files = _seal_files(books)
    assert seals.audit_cursor_file(files[MAIN]).read_text() == "5\n"
    assert seals.audit_cursor_file(files[TALLINN], TALLINN).read_text() == "5\n"
    assert verify_ledger(incremental=True, audit=4).ok
    assert seals.audit_cursor_file(files[TALLINN], TALLINN).read_text() == "1\n"   # wrapped at 5
    assert seals.audit_cursor_file(files[MAIN]).read_text() == "1\n"               # wrapped at 8
    elsewhere = tmp_path_factory.mktemp("state")
    settings.LEDGER_VERIFY_AUDIT_FILE = str(elsewhere / "audit-{database}")
    assert verify_ledger(incremental=True, audit=2).ok
    assert sorted(path.name.split(".")[-1] if "." in path.name else "main"
                  for path in elsewhere.iterdir()) == [MAIN, TALLINN]


# --- sealing main does not need tallinn quiet ----------------------------------------------

@pytest.mark.django_db(transaction=True)
def test_sealing_main_does_not_wait_for_tallinn(settings, tmp_path):
    """While another session holds tallinn's writer lock (an append not yet
    committed) and tallinn's sealers' lock, main is sealed and verified with a
    200 ms lock timeout; sealing tallinn is what waits (and gives up)."""
    settings.LEDGER_SEAL_FILE = str(tmp_path / "seals-{database}.jsonl")
    settings.LEDGER_SEAL_KEY_FILE = str(tmp_path / "seal.key")
    open_account(code="cage/cash", type="asset", currency="EUR")
    open_account(code="player/alice", type="liability", currency="EUR")
    open_book(TALLINN)
    open_account(code="tallinn/cage", type="asset", currency="EUR", book=TALLINN)
    open_account(code="tallinn/player/alice", type="liability", currency="EUR", book=TALLINN)
    _grow(MAIN, 4)
    holding, release = threading.Event(), threading.Event()
    errors: list[BaseException] = []

    def hold_tallinn() -> None:
        try:
            with seals.locked(None, book_id(TALLINN)):
                with transaction.atomic():
                    transfer("tallinn/player/alice", "tallinn/cage", 100, book=TALLINN)
                    holding.set()
                    release.wait(timeout=60)
        except BaseException as error:  # noqa: BLE001 - reported below
            errors.append(error)
        finally:
            holding.set()
            connection.close()

    holder = threading.Thread(target=hold_tallinn)
    holder.start()
    try:
        assert holding.wait(timeout=60)
        with connection.cursor() as cursor:
            cursor.execute("SET lock_timeout = '200ms'")
        try:
            assert seals.anchor(book=MAIN)["tree_size"] == 4
            _grow(MAIN, 5)
            assert seals.anchor(book=MAIN)["tree_size"] == 5
            with pytest.raises(OperationalError, match="lock timeout"):
                seals.anchor(book=TALLINN)
        finally:
            with connection.cursor() as cursor:
                cursor.execute("SET lock_timeout = 0")
    finally:
        release.set()
        holder.join()
    assert errors == []
    assert seals.anchor(book=TALLINN)["tree_size"] == 3
    files = _seal_files(tmp_path)
    assert (_sizes(files[MAIN]), _sizes(files[TALLINN])) == ([4, 5], [3])
    assert verify_ledger().ok


@pytest.mark.django_db(transaction=True)
def test_the_incremental_run_seals_every_book_while_tallinn_is_being_written(settings,
                                                                             tmp_path):
    """An append to tallinn not yet committed holds tallinn's writer lock: the
    incremental run reads its snapshot, takes no writer lock, and seals both
    books up to what was committed."""
    settings.LEDGER_SEAL_FILE = str(tmp_path / "seals-{database}.jsonl")
    settings.LEDGER_SEAL_KEY_FILE = str(tmp_path / "seal.key")
    open_account(code="cage/cash", type="asset", currency="EUR")
    open_account(code="player/alice", type="liability", currency="EUR")
    open_book(TALLINN)
    open_account(code="tallinn/cage", type="asset", currency="EUR", book=TALLINN)
    open_account(code="tallinn/player/alice", type="liability", currency="EUR", book=TALLINN)
    _grow(MAIN, 3)
    holding, release = threading.Event(), threading.Event()
    errors: list[BaseException] = []

    def append_to_tallinn() -> None:
        try:
            with transaction.atomic():
                transfer("tallinn/player/alice", "tallinn/cage", 100, book=TALLINN)
                holding.set()
                release.wait(timeout=60)
        except BaseException as error:  # noqa: BLE001 - reported below
            errors.append(error)
        finally:
            holding.set()
            connection.close()

    writer = threading.Thread(target=append_to_tallinn)
    writer.start()
    try:
        assert holding.wait(timeout=60)
        with connection.cursor() as cursor:
            cursor.execute("SET lock_timeout = '200ms'")
        try:
            result = verify_ledger(incremental=True)
        finally:
            with connection.cursor() as cursor:
                cursor.execute("SET lock_timeout = 0")
    finally:
        release.set()
        writer.join()
    assert errors == []
    assert result.ok, str(result)
    assert {r.book: r.sealed for r in result.books} == {MAIN: 3, TALLINN: 2}
    again = verify_ledger(incremental=True)
    assert {r.book: (r.since, r.read) for r in again.books} == {MAIN: (3, 0), TALLINN: (2, 1)}
