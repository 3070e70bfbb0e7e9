"""One feed over many books with a vector cursor (issue 19 point 3).

The feed merges the books, keeping a cursor per book: per book it is
gap-free and in position (commit) order, and a consumer that stops and
resumes from its saved cursor misses nothing and sees nothing twice, while
appends go on and books open. `?after=` keeps reading the main book alone,
as it did before books.
"""

from __future__ import annotations

import base64
import json
import random
import threading
from collections import defaultdict

import pytest
from django.contrib.auth.models import User
from django.db import connection, transaction
from hypothesis import HealthCheck, given, settings as hypothesis_settings, strategies as st
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from casino.error_table import status_for
from ledger import open_account
from ledger.books import BOOK_SPAN, MAIN_BOOK, base_position, book_id, local_position, open_book
from ledger.feed import (CURSOR_LENGTH_MAX, FeedErrorCode, UnknownBook, book_heads,
                         decode_cursor, encode_cursor, read_feed)
from ledger.models import Event

from .factories import transfer

BOOKS = ("main", "tallinn", "riga")
CASH = {"main": "cage/cash", "tallinn": "tallinn/cage", "riga": "riga/cage"}
PLAYER = {"main": "player/alice", "tallinn": "tallinn/player", "riga": "riga/player"}
FEED = "/api/v1/events"
PAGES_MAX = 500


def _open_book_with_accounts(key: str) -> None:
    open_book(key)
    open_account(code=f"{key}/cage", type="asset", currency="EUR", book=key)
    open_account(code=f"{key}/player", type="liability", currency="EUR", book=key)
    CASH.setdefault(key, f"{key}/cage")
    PLAYER.setdefault(key, f"{key}/player")


@pytest.fixture
def books(accounts):
    """Three books: main (the conftest's accounts), tallinn and riga (two accounts each)."""
    for key in BOOKS[1:]:
        _open_book_with_accounts(key)
    return BOOKS


def _pay(key: str, amount_minor: int = 100):
    return transfer(PLAYER[key], CASH[key], amount_minor, book=key)


def _client() -> APIClient:
    user = User.objects.create_user(f"feed-reader-{User.objects.count() + 1}")
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=user).key}")
    return api


@pytest.fixture(autouse=True)
def _unnarrowed(settings):
    # The ledger's own feed: the per-role filter is tested in tests/security.
    settings.LEDGER_FEED_FILTER = None


def _stored() -> dict[str, list[int]]:
    """Every event's local position per book key, in position order."""
    keys = {head.id: head.key for head in book_heads().values()}
    stored = defaultdict(list)
    for position, book in Event.objects.order_by("position").values_list("position", "book"):
        stored[keys[book]].append(local_position(position))
    return dict(stored)


def _drain(client: APIClient, cursor: str, limit: int) -> tuple[list[dict], str]:
    """Read pages from `cursor` until one says nothing more: (events, last next_cursor)."""
    events = []
    for _ in range(PAGES_MAX):
        answer = client.get(FEED, {"cursor": cursor, "limit": limit})
        assert answer.status_code == 200, answer.content
        page = answer.json()
        assert len(page["events"]) <= limit
        events += page["events"]
        cursor = page["next_cursor"]
        if not page["has_more"]:
            assert page["next"] is None
            return events, cursor
        assert "cursor=" in page["next"] and "after=" not in page["next"]
    raise AssertionError("the feed does not end")


def _by_book(events: list[dict]) -> dict[str, list[int]]:
    seen = defaultdict(list)
    for event in events:
        assert event["position"] == base_position(book_id(event["book"])) + event["local_position"]
        seen[event["book"]].append(event["local_position"])
    return dict(seen)


def _interleave(rng: random.Random, appends: int) -> None:
    for _ in range(appends):
        _pay(rng.choice(BOOKS), rng.randint(1, 500))


@pytest.mark.parametrize("limit", [1, 2, 5, 1000])
def test_a_consumer_paging_three_books_sees_every_event_once(books, limit):
    """Small pages over three interleaved books: each event once, per book gap-free in order."""
    _interleave(random.Random(limit), 24)
    events, _ = _drain(_client(), "", limit)
    stored = _stored()
    assert set(stored) == set(BOOKS)
    assert _by_book(events) == stored
    for key, positions in stored.items():
        assert positions == list(range(1, len(positions) + 1)), key
    assert len(events) == len({event["position"] for event in events}) == Event.objects.count()


def test_a_consumer_resumes_from_its_saved_cursor_with_a_new_client(books):
    """Stop mid-way, keep only the cursor's text, go on with a new client:
    appends made meanwhile, and a book opened meanwhile, arrive; nothing twice."""
    _interleave(random.Random(7), 12)
    first = _client().get(FEED, {"cursor": "", "limit": 5}).json()
    assert first["has_more"] is True
    saved = first["next_cursor"]
    _interleave(random.Random(8), 6)
    _open_book_with_accounts("parnu")
    _pay("parnu")
    rest, last = _drain(_client(), saved, 3)
    assert _by_book(first["events"] + rest) == _stored()
    assert _by_book(rest)["parnu"] == [1, 2, 3]          # a later book from its beginning
    _pay("riga")
    _pay("main")
    newest, _ = _drain(_client(), last, 3)
    assert sorted((event["book"], event["local_position"]) for event in newest) == [
        ("main", len(_stored()["main"])), ("riga", len(_stored()["riga"]))]


def test_every_event_names_its_book_and_local_position(books):
    """A feed entry carries its book's key and its number within the book."""
    result = _pay("tallinn", 4_321)
    (event,) = [e for e in _drain(_client(), "", 100)[0] if e["position"] == result.first_position]
    assert event["book"] == "tallinn"
    assert event["local_position"] == 3                   # after the book's two accounts
    assert event["position"] == BOOK_SPAN + 3
    assert event["hash"] == result.events[0].hash


def test_after_reads_the_main_book_alone_as_before(books):
    """`after` pages the main book only (positions, next_after, head_position as
    before books); its next_cursor leads on over the other books without a repeat."""
    _interleave(random.Random(3), 15)
    main = _stored()["main"]
    client = _client()
    positions, after = [], 0
    for _ in range(PAGES_MAX):
        page = client.get(FEED, {"after": after, "limit": 4}).json()
        assert {event["book"] for event in page["events"]} <= {"main"}
        assert page["head_position"] == len(main)
        positions += [event["position"] for event in page["events"]]
        after = page["next_after"]
        if not page["has_more"]:
            break
        assert page["next"].endswith(f"after={after}&limit=4")
    assert positions == main
    rest, _ = _drain(client, page["next_cursor"], 4)
    assert {event["book"] for event in rest} == {"tallinn", "riga"}
    assert _by_book(page["events"] + rest) | {"main": main} == _stored()


def test_after_beyond_the_main_books_events_is_an_empty_page(books):
    """An `after` past the head (a lagging replica's client) reads nothing and keeps it."""
    _pay("tallinn")
    page = _client().get(FEED, {"after": 2**50}).json()
    assert (page["events"], page["next_after"], page["has_more"]) == ([], 2**50, False)


def test_after_with_a_book_reads_that_book_alone(books):
    """`book=<key>` with `after` pages one other book by its positions (what a write's
    Location names for an event on a venue's book): from the book's beginning when
    `after` is before it, each event once, the page's head that book's."""
    _interleave(random.Random(5), 15)
    riga = _stored()["riga"]
    base = base_position(book_id("riga"))
    client = _client()
    seen, after = [], 0
    for _ in range(PAGES_MAX):
        page = client.get(FEED, {"book": "riga", "after": after, "limit": 3}).json()
        assert {event["book"] for event in page["events"]} <= {"riga"}
        assert page["head_position"] == base + len(riga)
        seen += [event["local_position"] for event in page["events"]]
        after = page["next_after"]
        if not page["has_more"]:
            break
        assert "book=riga" in page["next"] and f"after={after}" in page["next"]
    assert seen == riga
    # Exactly the events a write names: from its first position, `limit` of them.
    named = client.get(FEED, {"book": "riga", "after": base + 1, "limit": 2}).json()["events"]
    assert [event["local_position"] for event in named] == riga[1:3]


@pytest.mark.parametrize(("query", "status", "code"), [
    ({"book": "vilnius"}, 404, "ledger.unknown_book"),
    ({"book": "Riga!"}, 400, "request.invalid"),
    ({"book": "riga", "cursor": ""}, 400, "request.invalid"),
], ids=["unknown", "malformed", "with-cursor"])
def test_a_book_that_cannot_be_read_alone_is_refused(books, query, status, code):
    answer = _client().get(FEED, query)
    assert (answer.status_code, answer.json()["code"]) == (status, code)
    assert answer.json()["message"]


def _encoded(value) -> str:
    return base64.urlsafe_b64encode(json.dumps(value).encode()).decode().rstrip("=")


@pytest.mark.parametrize("cursor, code", [
    ("!!!!", "ledger.invalid_cursor"),
    ("bm90IGpzb24", "ledger.invalid_cursor"),                  # "not json"
    (_encoded([1, 2]), "ledger.invalid_cursor"),
    (_encoded({"main": -1}), "ledger.invalid_cursor"),
    (_encoded({"main": "3"}), "ledger.invalid_cursor"),
    (_encoded({"main": 1.5}), "ledger.invalid_cursor"),
    (_encoded({"main": True}), "ledger.invalid_cursor"),
    (_encoded({"main": 2**40 + 1}), "ledger.invalid_cursor"),
    (_encoded({"Main!": 1}), "ledger.invalid_cursor"),
    (_encoded({"vilnius": 1}), "ledger.unknown_book"),
    ("A" * (CURSOR_LENGTH_MAX + 1), "request.invalid"),
], ids=["not-base64", "not-json", "not-an-object", "negative", "text", "fraction", "boolean",
        "beyond-the-book", "bad-key", "unknown-book", "too-long"])
def test_a_malformed_cursor_is_refused_with_a_coded_message(books, cursor, code):
    """A cursor the feed did not make is a 4xx with a code and a message, never a 500."""
    answer = _client().get(FEED, {"cursor": cursor})
    assert answer.status_code == status_for(code)
    assert answer.status_code in (400, 404)
    body = answer.json()
    assert body["code"] == code
    assert body["message"]


def test_the_cursor_codes_have_their_statuses():
    """ledger.feed's codes are rows of the one error table."""
    assert {code.value: status_for(code) for code in FeedErrorCode} == {
        "ledger.invalid_cursor": 400, "ledger.unknown_book": 404}


def test_after_and_cursor_together_are_refused(books):
    answer = _client().get(FEED, {"after": 0, "cursor": ""})
    assert answer.status_code == 400
    assert answer.json()["code"] == "request.invalid"
    assert list(answer.json()["details"]) == ["cursor"]


def test_the_cursor_is_opaque_url_safe_and_names_books_by_key(books):
    """The cursor text is unpadded URL-safe base64 of {book key: local position}."""
    _pay("riga")
    heads = book_heads()
    keys = {book: head.key for book, head in heads.items()}
    riga = book_id("riga")
    positions = {MAIN_BOOK: 4, riga: base_position(riga) + 3}
    text = encode_cursor(positions, keys)
    assert set(text) <= set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
    assert json.loads(base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))) == {
        "main": 4, "riga": 3}
    assert decode_cursor(text, heads) == positions
    assert decode_cursor("", heads) == {}


def test_read_feed_merges_by_recorded_time_then_book_then_position(books):
    """Within one transaction every event has one recorded time: book order, then position."""
    _pay("riga")
    _pay("main")
    page = read_feed({}, 1000)
    order = [(event.recorded_at, event.book, event.position) for event in page.events]
    assert order == sorted(order)
    assert page.has_more is False
    assert page.cursor == {head.id: head.position for head in book_heads().values()}


def test_using_may_name_each_books_database(books):
    """`using` as book id -> alias (placement) reads each book where it is
    placed and only the books it names: here all in `default`."""
    _interleave(random.Random(5), 9)
    every = {book: "default" for book in book_heads()}
    assert read_feed({}, 7, using=every) == read_feed({}, 7)
    riga = book_id("riga")
    page = read_feed({}, 1000, using={MAIN_BOOK: "default", riga: "default"})
    assert set(page.cursor) == {MAIN_BOOK, riga}
    assert {event.book for event in page.events} == {MAIN_BOOK, riga}
    assert len(page.events) == len(_stored()["main"]) + len(_stored()["riga"])
    with pytest.raises(UnknownBook):
        read_feed({book_id("tallinn"): 0}, 10, using={MAIN_BOOK: "default"})


# Properties ------------------------------------------------------------------

OPERATIONS = st.lists(
    st.one_of(
        st.tuples(st.just("append"), st.sampled_from(BOOKS), st.integers(1, 3)),
        st.tuples(st.just("page"), st.integers(1, 6)),
        st.tuples(st.just("restart"), st.just(0)),
    ),
    min_size=1, max_size=30,
)


@pytest.mark.slow
@hypothesis_settings(max_examples=25, deadline=None,
                     suppress_health_check=[HealthCheck.function_scoped_fixture,
                                            HealthCheck.too_slow])
@given(operations=OPERATIONS, last_limit=st.integers(1, 7))
def test_any_interleaving_of_appends_and_pages_reads_each_event_once(books, operations,
                                                                      last_limit):
    """Random appends to three books between pages of random sizes, with the
    consumer restarted from its cursor's text at random: every event once,
    per book in position order."""
    with transaction.atomic():
        seen = defaultdict(list)
        cursor: dict[int, int] = {}
        for operation in operations:
            if operation[0] == "append":
                for _ in range(operation[2]):
                    _pay(operation[1])
            elif operation[0] == "page":
                page = read_feed(cursor, operation[1])
                for event in page.events:
                    seen[event.book].append(event.position)
                cursor = dict(page.cursor)
            else:
                heads = book_heads()
                cursor = decode_cursor(encode_cursor(cursor, {b: h.key for b, h in heads.items()}),
                                       heads)
        for _ in range(PAGES_MAX):
            page = read_feed(cursor, last_limit)
            for event in page.events:
                seen[event.book].append(event.position)
            cursor = dict(page.cursor)
            if not page.has_more:
                break
        stored = defaultdict(list)
        for position, book in Event.objects.order_by("position").values_list("position", "book"):
            stored[book].append(position)
        assert dict(seen) == dict(stored)
        transaction.set_rollback(True)


# Under concurrent writes -------------------------------------------------------


def _open_two_books() -> None:
    open_account(code="cage/cash", type="asset", currency="EUR")
    open_account(code="player/alice", type="liability", currency="EUR")
    for key in ("tallinn", "riga"):
        _open_book_with_accounts(key)


@pytest.mark.django_db(transaction=True)
def test_a_page_takes_a_prefix_of_each_books_run():
    """A transaction that began before others committed records an earlier
    time at a later position: the page still takes each book's events in
    position order, never the later one without the earlier, and merges by
    the recorded time of each book's next event."""
    _open_two_books()
    began, committed = threading.Event(), threading.Event()
    errors = []

    def early_transaction() -> None:
        try:
            with transaction.atomic():
                with connection.cursor() as cursor:
                    cursor.execute("SELECT now()")          # fixes the transaction's time
                began.set()
                assert committed.wait(timeout=60)
                _pay("tallinn", 2)
        except Exception as error:  # noqa: BLE001 - reported below
            errors.append(error)
        finally:
            began.set()
            connection.close()

    worker = threading.Thread(target=early_transaction)
    worker.start()
    assert began.wait(timeout=60)
    riga = _pay("riga", 3).events[0]
    first = _pay("tallinn", 1).events[0]
    committed.set()
    worker.join()
    assert errors == []
    second = Event.objects.get(position=first.position + 1)
    # The case this test is about: tallinn's second event was recorded
    # before riga's, and riga's before tallinn's first.
    assert second.recorded_at < riga.recorded_at < first.recorded_at
    cursor = {book: head.position for book, head in book_heads().items()}
    cursor |= {book_id("tallinn"): first.position - 1, book_id("riga"): riga.position - 1}
    page = read_feed(cursor, 2)
    assert [event.position for event in page.events] == [riga.position, first.position]
    assert page.has_more is True
    page = read_feed(page.cursor, 2)
    assert [event.position for event in page.events] == [second.position]
    assert page.has_more is False


WRITES = 150


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_a_reader_paging_while_a_writer_appends_to_two_books_sees_each_event_once():
    """A writer thread appends to two books (some appends to both in one
    transaction) while the reader pages with small limits: every committed
    event once, per book gap-free and in position order."""
    _open_two_books()
    start, done = threading.Barrier(2), threading.Event()
    errors = []

    def writer() -> None:
        rng = random.Random(19)
        try:
            start.wait(timeout=60)
            for n in range(WRITES):
                if n % 10 == 9:
                    with transaction.atomic():          # both books, ascending id order
                        _pay("tallinn", n + 1)
                        _pay("riga", n + 1)
                else:
                    _pay(rng.choice(("tallinn", "riga")), n + 1)
        except Exception as error:  # noqa: BLE001 - reported below
            errors.append(error)
        finally:
            done.set()
            connection.close()

    thread = threading.Thread(target=writer)
    thread.start()
    rng = random.Random(3)
    seen = defaultdict(list)
    cursor: dict[int, int] = {}
    pages = 0
    start.wait(timeout=60)
    while True:
        finished = done.is_set()          # before the page: a last page after it drains
        heads = book_heads()
        cursor = decode_cursor(encode_cursor(cursor, {b: h.key for b, h in heads.items()}),
                               heads)
        page = read_feed(cursor, rng.randint(1, 7))
        pages += 1
        for event in page.events:
            seen[event.book].append(event.position)
        cursor = dict(page.cursor)
        if finished and not page.has_more:
            break
        assert pages < 100 * WRITES, "the reader does not catch up"
    thread.join()
    assert errors == []
    stored = defaultdict(list)
    for position, book in Event.objects.order_by("position").values_list("position", "book"):
        stored[book].append(position)
    assert dict(seen) == dict(stored)
    for book, positions in seen.items():
        assert positions == list(range(base_position(book) + 1, positions[-1] + 1)), book
    assert sum(len(positions) for positions in seen.values()) == Event.objects.count()
    assert pages > 10, "the reader should have paged while the writer wrote"


def test_the_schema_documents_the_vector_cursor(books):
    """The feed's operation takes `cursor`; its answer has `next_cursor`, its
    events `book` and `local_position`."""
    schema = _client().get("/api/schema/", {"format": "json"}).json()
    operation = schema["paths"]["/api/v1/events"]["get"]
    assert {"after", "cursor", "limit"} <= {p["name"] for p in operation["parameters"]}
    components = schema["components"]["schemas"]
    assert "next_cursor" in components["EventFeed"]["required"]
    assert components["Event"]["properties"]["book"]["type"] == "string"
    assert components["Event"]["properties"]["local_position"]["type"] == "integer"
