"""Appends that span books of one database (ledger.crossbook, issue 19).

A venue's cage lives on the venue's book, the player's one gaming account on
the main book: a deposit from one into the other is one request, written as
one event per book through clearing accounts, all or nothing, once.
"""

import threading

import pytest
from django.db import connection

from ledger import open_account, verify_chain
from ledger.books import book_id, open_book
from ledger.crossbook import CROSSBOOK_LEG, append_across, part_key, recorded
from ledger.errors import IdempotencyConflict, InsufficientFunds, StaleVersion
from ledger.models import Account, Event, IdempotencyRecord, Stream
from ledger.types import NewEvent, Posting

from .factories import GAMING_DAY


@pytest.fixture
def venue(db):
    """Book `tallinn` with its cage; the player's account on main."""
    open_book("tallinn")
    open_account(code="cage/tallinn/cash", type="asset", currency="EUR", book="tallinn")
    open_account(code="player/alice/account", type="liability", currency="EUR",
                 must_not_go_negative=True)
    return book_id("tallinn")


def _deposit(amount: int, stream: str = "player/alice", **payload) -> NewEvent:
    """Cash into the venue's cage, credited to the player's gaming account."""
    return NewEvent(stream=stream, type="cage.cash_deposited",
                    payload={"amount_minor": amount, **payload},
                    postings=(Posting("cage/tallinn/cash", amount, "EUR"),
                              Posting("player/alice/account", -amount, "EUR")),
                    gaming_day=GAMING_DAY)


def _balance(code: str) -> int:
    return Account.objects.get(code=code).balance_minor


def _counts() -> dict[int, int]:
    return {book: Event.objects.filter(book=book).count() for book in (1, 2)}


def test_an_event_reaching_another_books_account_is_split_through_clearing(venue):
    """The player's stream stays on main; the cage's posting moves to the venue's book as a
    companion, each side balanced by its clearing account, and the clearing pair nets to zero."""
    result = append_across([_deposit(5_000, venue="tallinn")], home_book="tallinn",
                           book_for_stream=lambda stream: "main")
    event, leg = result.events
    assert (event.book, leg.book) == (1, venue)
    assert event.stream == "player/alice" and leg.type == CROSSBOOK_LEG
    assert {p.account: p.amount_minor for p in event.postings} == {
        "player/alice/account": -5_000, "clearing/main/tallinn/EUR": 5_000}
    assert {p.account: p.amount_minor for p in leg.postings} == {
        "cage/tallinn/cash": 5_000, "clearing/tallinn/main/EUR": -5_000}
    assert leg.payload["from_book"] == "main" and leg.payload["venue"] == "tallinn"
    # The caller reads both balances it moved from its own event.
    assert event.balances_after["player/alice/account"] == 5_000
    assert event.balances_after["cage/tallinn/cash"] == 5_000
    assert _balance("cage/tallinn/cash") == 5_000
    assert _balance("player/alice/account") == 5_000
    assert _balance("clearing/main/tallinn/EUR") + _balance("clearing/tallinn/main/EUR") == 0
    assert Account.objects.get(code="clearing/tallinn/main/EUR").book == venue
    assert verify_chain().ok and verify_chain(book=venue).events == 3  # two openings, one leg


def test_events_go_to_their_streams_books(venue):
    """A new stream goes where the caller's rule says (here: the home book); an existing
    stream keeps its book, whatever the home book of a later request."""
    append_across([NewEvent(stream="table/t1", type="test.opened", payload={})],
                  home_book="tallinn")
    assert Stream.objects.get(name="table/t1").book == venue
    result = append_across([NewEvent(stream="table/t1", type="test.closed", payload={})],
                           home_book="main")
    assert result.events[0].book == venue and result.events[0].version == 2


def test_a_refusal_in_either_book_writes_nothing_in_any(venue):
    """All or nothing: the venue's part (a cash-out larger than the player's balance, refused on
    main) leaves the venue's book untouched too, clearing openings included."""
    before = _counts()
    with pytest.raises(InsufficientFunds):
        append_across([_deposit(-1_000)], home_book="tallinn",
                      book_for_stream=lambda stream: "main")
    assert _counts() == before
    assert not Account.objects.filter(code__startswith="clearing/").exists()


def test_a_retry_is_answered_from_the_record_and_writes_nothing(venue):
    """Idempotency across books: the home part under the key, the other under key#book;
    a retry returns every part's events, a different request under the key is refused."""
    first = append_across([_deposit(2_000)], home_book="tallinn", idempotency_key="k-1",
                          request={"amount": 2_000}, book_for_stream=lambda stream: "main")
    before = _counts()
    again = append_across([_deposit(2_000)], home_book="tallinn", idempotency_key="k-1",
                          request={"amount": 2_000}, book_for_stream=lambda stream: "main")
    assert again.replayed
    assert sorted(e.position for e in again.events) == sorted(e.position for e in first.events)
    assert _counts() == before and _balance("player/alice/account") == 2_000
    # The key stays with the part holding the caller's event (main's), the venue's
    # companion is key#<venue>: the caller's event carries the key it sent.
    keys = dict(IdempotencyRecord.objects.values_list("key", "book"))
    assert keys["k-1"] == 1 and keys[part_key("k-1", venue)] == venue
    assert first.events[0].idempotency_key == "k-1"
    fingerprint, events = recorded("k-1")
    assert [e.position for e in events] == [e.position for e in first.events]
    # The balances each event left, as the live append gave them (each in its own book).
    assert [e.balances_after for e in events] == [e.balances_after for e in first.events]
    with pytest.raises(IdempotencyConflict):
        append_across([_deposit(3_000)], home_book="tallinn", idempotency_key="k-1",
                      request={"amount": 3_000}, book_for_stream=lambda stream: "main")


def test_expected_versions_are_checked_in_the_streams_book(venue):
    append_across([_deposit(1_000)], home_book="tallinn", book_for_stream=lambda s: "main")
    with pytest.raises(StaleVersion):
        append_across([_deposit(1_000)], home_book="tallinn", expected_versions={"player/alice": 0})
    result = append_across([_deposit(1_000)], home_book="tallinn",
                           expected_versions={"player/alice": 1})
    assert result.events[0].version == 2


@pytest.mark.django_db(transaction=True)
def test_requests_crossing_books_both_ways_do_not_deadlock(venue):
    """Books are locked in ascending id order whichever book is home: threads depositing on
    the venue's stream and on the player's stream at once all commit."""
    errors: list[BaseException] = []

    def deposits(stream: str, home: str) -> None:
        try:
            for _ in range(15):
                append_across([_deposit(100, stream=stream)], home_book=home,
                              book_for_stream=lambda s: home)
        except BaseException as error:  # noqa: BLE001 - reported below
            errors.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=deposits, args=(f"s/{n}", home))
               for n, home in enumerate(("main", "tallinn", "main", "tallinn"))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert not errors and not any(thread.is_alive() for thread in threads)
    assert _balance("player/alice/account") == 60 * 100
    assert _balance("cage/tallinn/cash") == 60 * 100
    assert verify_chain().ok


def test_a_balance_as_of_a_position_reads_other_books_as_they_are_now(venue):
    """A position orders its own book only (ledger.read.balances(at_position=)): the venue's
    cage, on another book, is read as it is now, never as if every posting of its book
    came after a main-book position."""
    from ledger.read import balances

    first = append_across([_deposit(1_000)], home_book="tallinn",
                          book_for_stream=lambda stream: "main")
    append_across([_deposit(2_000)], home_book="tallinn", book_for_stream=lambda stream: "main")
    at_first = balances(["player/alice/account", "cage/tallinn/cash"], first.events[0].position)
    assert at_first == {"player/alice/account": 1_000, "cage/tallinn/cash": 3_000}
    leg = first.events[1]
    assert balances(["cage/tallinn/cash"], leg.position) == {"cage/tallinn/cash": 1_000}


def test_a_replay_reads_another_books_account_at_the_requests_part_there(venue):
    """An account of another book the request wrote but did not post to (the venue's chips,
    next to the cage's cash) is read just after the request's part in that book, on the
    live answer and on a replay after later traffic alike (ledger.read.balances_after)."""
    from ledger.read import balances_after

    open_account(code="cage/tallinn/chips", type="liability", currency="EUR", book="tallinn")
    chips = NewEvent(stream="cage/tallinn", type="cage.chips_sold", payload={},
                     postings=(Posting("cage/tallinn/cash", 300, "EUR"),
                               Posting("cage/tallinn/chips", -300, "EUR")),
                     gaming_day=GAMING_DAY)
    first = append_across([_deposit(2_000)], home_book="tallinn", idempotency_key="k-2",
                          request={"amount": 2_000}, book_for_stream=lambda stream: "main")
    append_across([chips], home_book="tallinn")
    live = balances_after(first.events[0], ["player/alice/account", "cage/tallinn/chips"])
    again = append_across([_deposit(2_000)], home_book="tallinn", idempotency_key="k-2",
                          request={"amount": 2_000}, book_for_stream=lambda stream: "main")
    replayed = balances_after(again.events[0], ["player/alice/account", "cage/tallinn/chips"])
    assert live == replayed == {"player/alice/account": 2_000, "cage/tallinn/chips": 0}
    # The leg is the request's part in the venue's book; the event knows it.
    assert again.events[0].as_of == (again.events[1].position,)


def test_a_new_stream_opens_beside_the_streams_whose_versions_it_checks(venue):
    """A request that checks a stream of the venue's book and writes a new stream the caller
    leaves to the default writes it on that book, where the version is checked under the
    book's lock (the machines' batch record beside the machine's stream)."""
    append_across([NewEvent(stream="machine/m1", type="test.registered", payload={})],
                  home_book="tallinn")
    append_across([NewEvent(stream="machine/m1", type="test.played", payload={})],
                  home_book="main", expected_versions={"machine/m1": 1})  # learnt: tallinn
    result = append_across([NewEvent(stream="batches/m1", type="test.batch", payload={})],
                           home_book="main", expected_versions={"machine/m1": 2})
    assert result.events[0].book == venue


def test_a_version_in_a_book_written_nothing_is_checked_under_its_lock(venue):
    """A request that checks a stream of a book it writes nothing to (a void round checks the
    player's stream and writes the round's) takes that book's lock in the same transaction:
    a stale version is refused and writes nothing, a current one passes."""
    append_across([NewEvent(stream="machine/m2", type="test.registered", payload={})],
                  home_book="tallinn")
    before = _counts()
    with pytest.raises(StaleVersion):
        append_across([NewEvent(stream="player/zed", type="test.noted", payload={})],
                      home_book="main", book_for_stream=lambda stream: "main",
                      expected_versions={"machine/m2": 0})
    assert _counts() == before
    result = append_across([NewEvent(stream="player/zed", type="test.noted", payload={})],
                           home_book="main", book_for_stream=lambda stream: "main",
                           expected_versions={"machine/m2": 1})
    assert result.events[0].book == 1 and _counts() == {1: before[1] + 1, 2: before[2]}


@pytest.mark.django_db(transaction=True)
def test_outside_a_transaction_the_parts_go_through_the_group_writer_linked(venue,
                                                                             monkeypatch):
    """Once the clearing pair is open, a request across books is handed to the database's
    group-commit writer as linked parts (committed in one of its rounds, with other
    requests), not written on the caller's own connection; a refused part writes none."""
    from ledger.writer import _GroupWriter

    linked: list[int] = []
    real = _GroupWriter.submit_linked

    def counted(self, requests):
        linked.append(len(requests))
        return real(self, requests)

    monkeypatch.setattr(_GroupWriter, "submit_linked", counted)
    append_across([_deposit(1_000)], home_book="tallinn", book_for_stream=lambda s: "main")
    tried = len(linked)    # the first learns the player's book, then opens the clearing pair
    second = append_across([_deposit(2_000)], home_book="tallinn",
                           book_for_stream=lambda s: "main")
    assert linked[tried:] == [2]
    event, leg = second.events
    assert event.recorded_at == leg.recorded_at and event.book != leg.book
    before = _counts()
    with pytest.raises(InsufficientFunds):     # the player's account may not go negative
        append_across([_deposit(-9_000)], home_book="tallinn", book_for_stream=lambda s: "main")
    assert linked[tried:] == [2, 2] and _counts() == before
    assert _balance("player/alice/account") == 3_000 and _balance("cage/tallinn/cash") == 3_000
    assert verify_chain().ok and verify_chain(book=venue).ok
