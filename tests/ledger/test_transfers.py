"""Money between books (issue 19, point 2): two events linked by a transfer
id, through clearing accounts; atomic on one database, two-phase (pending,
then posted or voided) across databases.

Book keys: `north` (the source, a player with 50,000 cents) and `south`
(the target, whose player may hold at most 10,000). Amounts in EUR cents.
"""

import datetime as dt

import pytest
from django.core.management import call_command

from ledger import append, open_account, rebuild_projections, verify_chain
from ledger.books import book_id, open_book
from ledger.errors import (BalanceMaxExceeded, CurrencyMismatch, IdempotencyConflict,
                           InsufficientFunds, InvalidEvent, StaleVersion, UnknownAccount)
from ledger.models import Account, Event
from ledger.transfers import (TRANSFER_PENDING, TRANSFER_POSTED, TRANSFER_RECEIVED,
                              TRANSFER_REFUSED, TRANSFER_SENT, TRANSFER_VOIDED, TransferStatus,
                              begin, clearing_account, hold_account, pending_transfers,
                              receive, refuse, resolve, resolve_pending, status, transfer,
                              transfer_atomic, transfer_two_phase)
from ledger.types import NewEvent, Posting

from .factories import GAMING_DAY, transfer_event

T0 = dt.datetime(2026, 6, 16, 12, 0, tzinfo=dt.timezone.utc)
ALICE_N, ALICE_S = "north/player/alice", "south/player/alice"
CLEARING_NS = clearing_account("north", "south", "EUR")
CLEARING_SN = clearing_account("south", "north", "EUR")
HOLD_NS = hold_account("north", "south", "EUR")


@pytest.fixture
def books(db):
    """Two books; north's player holds 50,000; south's may hold 10,000 at most."""
    open_book("north")
    open_book("south")
    open_account(code="north/cage", type="asset", currency="EUR", book="north")
    open_account(code=ALICE_N, type="liability", currency="EUR", must_not_go_negative=True,
                 book="north")
    open_account(code="north/sek", type="liability", currency="SEK", book="north")
    open_account(code="south/cage", type="asset", currency="EUR", book="south")
    open_account(code=ALICE_S, type="liability", currency="EUR", must_not_go_negative=True,
                 balance_max_minor=10_000, book="south")
    open_account(code="south/sek", type="liability", currency="SEK", book="south")
    append([transfer_event(ALICE_N, "north/cage", 50_000)], book="north")
    return {"north": book_id("north"), "south": book_id("south")}


def _balance(code: str) -> int | None:
    return Account.objects.filter(code=code).values_list("balance_minor", flat=True).first()


def _events(book: str) -> list[Event]:
    return list(Event.objects.filter(book=book_id(book)).order_by("position"))


def _counts() -> dict[int, int]:
    return {book: Event.objects.filter(book=book).count() for book in (1, 2, 3)}


def _move(transfer_id="t-1", amount=3_000, **overrides):
    arguments = dict(transfer_id=transfer_id, source_book="north", source_account=ALICE_N,
                     target_book="south", target_account=ALICE_S, amount_minor=amount,
                     currency="EUR", gaming_day=GAMING_DAY)
    arguments.update(overrides)
    return arguments


def test_an_atomic_transfer_moves_the_money_through_a_clearing_pair(books):
    """Out of X in north, into Y in south, each event balanced by its own book's
    clearing account; the two clearing accounts sum to zero; both chains verify."""
    result = transfer(**_move())
    assert (result.status, result.replayed) == (TransferStatus.POSTED, False)
    assert _balance(ALICE_N) == 47_000
    assert _balance(ALICE_S) == 3_000
    # Out of a liability: the player's liability is debited, clearing credited.
    assert (_balance(CLEARING_NS), _balance(CLEARING_SN)) == (-3_000, 3_000)
    assert _balance(CLEARING_NS) + _balance(CLEARING_SN) == 0
    assert Account.objects.get(code=CLEARING_NS).book == books["north"]
    assert Account.objects.get(code=CLEARING_SN).book == books["south"]
    sent, received = _events("north")[-1], _events("south")[-1]
    assert (sent.stream, sent.type, sent.version) == ("transfer/t-1/out", TRANSFER_SENT, 1)
    assert (received.stream, received.type) == ("transfer/t-1/in", TRANSFER_RECEIVED)
    assert sent.payload["transfer_id"] == received.payload["transfer_id"] == "t-1"
    assert result.source_positions == (sent.position,)
    assert result.target_positions == (received.position,)
    assert verify_chain(book=books["north"]).ok
    assert verify_chain(book=books["south"]).ok
    assert status("t-1") == result
    assert pending_transfers() == []


def test_assets_move_the_same_way(books):
    """Cash out of north's cage into south's cage: the asset side; the clearing
    pair still cancels."""
    transfer(**_move("cash-1", 1_500, source_account="north/cage",
                     target_account="south/cage"))
    assert (_balance("north/cage"), _balance("south/cage")) == (48_500, 1_500)
    assert (_balance(CLEARING_NS), _balance(CLEARING_SN)) == (1_500, -1_500)


def test_a_refusal_in_the_second_book_leaves_neither_event(books):
    """South refuses Y's credit over its maximum after north's append: the one
    transaction rolls north back too (both or neither)."""
    before = _counts()
    with pytest.raises(BalanceMaxExceeded):
        transfer(**_move(amount=12_000))
    assert _counts() == before
    assert _balance(ALICE_N) == 50_000
    assert _balance(CLEARING_NS) is None  # its opening rolled back with it
    assert not Event.objects.filter(stream__startswith="transfer/t-1/").exists()


def test_a_crash_between_the_two_books_leaves_neither_event(books):
    """An exception after the first book's append and before the second's undoes the first."""
    before = _counts()

    def crash(point):
        assert point == "between_books"
        raise RuntimeError("crash")

    with pytest.raises(RuntimeError):
        transfer_atomic(**_move(), hook=crash)
    assert _counts() == before
    assert _balance(ALICE_N) == 50_000


def test_a_retry_by_transfer_id_returns_the_first_result(books):
    """The same id and request answers the recorded transfer; another request
    under it is refused."""
    first = transfer(**_move())
    events = Event.objects.count()
    again = transfer(**_move())
    assert again.replayed
    assert (again.status, again.source_positions, again.target_positions) == (
        first.status, first.source_positions, first.target_positions)
    assert Event.objects.count() == events
    assert _balance(ALICE_N) == 47_000
    with pytest.raises(IdempotencyConflict):
        transfer(**_move(amount=3_001))
    assert Event.objects.count() == events


@pytest.mark.parametrize(("overrides", "error", "message"), [
    pytest.param({"source_account": "north/nobody"}, UnknownAccount, "does not exist",
                 id="unknown_account_case"),
    pytest.param({"target_account": "north/cage"}, InvalidEvent, "belongs to another book",
                 id="other_books_account_case"),
    pytest.param({"amount": 60_000}, InsufficientFunds, "would go negative",
                 id="insufficient_funds_case"),
    pytest.param({"target_book": "north", "target_account": "north/cage"}, InvalidEvent,
                 "between two books", id="same_book_case"),
    pytest.param({"amount": 0}, InvalidEvent, "positive integer", id="zero_amount_case"),
    pytest.param({"amount": -5}, InvalidEvent, "positive integer", id="negative_amount_case"),
    pytest.param({"currency": "SEK"}, CurrencyMismatch, "holds EUR, not SEK",
                 id="currency_mismatch_case"),
    pytest.param({"target_account": "south/sek"}, CurrencyMismatch, "holds SEK, not EUR",
                 id="target_currency_case"),
    pytest.param({"target_account": "south/cage"}, InvalidEvent, "same natural side",
                 id="opposite_sides_case"),
    pytest.param({"source_account": CLEARING_NS}, InvalidEvent, "clearing or hold",
                 id="clearing_account_named_case"),
    pytest.param({"transfer_id": "a/b"}, InvalidEvent, "transfer id", id="bad_id_case"),
])
@pytest.mark.parametrize("path", [transfer_atomic, begin], ids=["atomic", "two_phase"])
def test_refusals_write_nothing(books, path, overrides, error, message):
    """Each refused request raises its ledger error with a clear message and writes nothing."""
    overrides = dict(overrides)  # the case's dict is shared by both paths
    amount = overrides.pop("amount", 3_000)
    before = _counts()
    with pytest.raises(error, match=message):
        path(**_move(amount=amount, **overrides))
    assert _counts() == before


def test_two_phase_happy_path(books):
    """Pending in north (X -> hold), received in south, posted in north (hold -> clearing)."""
    result = transfer_two_phase(**_move(), now=T0)
    assert result.status == TransferStatus.POSTED
    out = [e.type for e in Event.objects.filter(stream="transfer/t-1/out").order_by("version")]
    into = [e.type for e in Event.objects.filter(stream="transfer/t-1/in")]
    assert out == [TRANSFER_PENDING, TRANSFER_POSTED]
    assert into == [TRANSFER_RECEIVED]
    assert (_balance(ALICE_N), _balance(ALICE_S)) == (47_000, 3_000)
    assert _balance(HOLD_NS) == 0
    assert (_balance(CLEARING_NS), _balance(CLEARING_SN)) == (-3_000, 3_000)
    assert Account.objects.get(code=HOLD_NS).book == books["north"]
    assert len(result.source_positions) == 2 and len(result.target_positions) == 1
    assert verify_chain().ok
    live = sorted(Account.objects.values_list("code", "book", "balance_minor"))
    rebuild_projections()  # clearing and hold accounts are the log's, like any other (L9)
    assert sorted(Account.objects.values_list("code", "book", "balance_minor")) == live
    assert pending_transfers() == []
    assert transfer_two_phase(**_move(), now=T0).replayed


def test_phase_by_phase(books):
    """Each phase writes one event; the hold carries the money in between; resolve posts."""
    pending = begin(**_move(), now=T0, timeout_seconds=60)
    assert pending.status == TransferStatus.PENDING
    assert (_balance(ALICE_N), _balance(HOLD_NS)) == (47_000, -3_000)
    hold_event = Event.objects.get(stream="transfer/t-1/out")
    assert hold_event.payload["expires_at"] == (T0 + dt.timedelta(seconds=60)).isoformat()
    assert [transfer_id for _, transfer_id in pending_transfers()] == ["t-1"]
    events = Event.objects.count()
    assert resolve("t-1", T0 + dt.timedelta(seconds=59)).status == TransferStatus.PENDING
    assert Event.objects.count() == events
    assert receive("t-1", now=T0 + dt.timedelta(seconds=30)).status == TransferStatus.PENDING
    assert _balance(ALICE_S) == 3_000
    done = resolve("t-1", T0 + dt.timedelta(seconds=31))
    assert done.status == TransferStatus.POSTED
    assert (_balance(HOLD_NS), _balance(CLEARING_NS) + _balance(CLEARING_SN)) == (0, 0)


def test_the_default_timeout_is_the_setting(books, settings):
    """Without a timeout, a hold expires LEDGER_TRANSFER_TIMEOUT_SECONDS after `now`."""
    settings.LEDGER_TRANSFER_TIMEOUT_SECONDS = 300
    begin(**_move(), now=T0)
    payload = Event.objects.get(stream="transfer/t-1/out").payload
    assert payload["expires_at"] == (T0 + dt.timedelta(minutes=5)).isoformat()


def test_expiry_refuses_at_the_target_and_voids(books):
    """Undecided past expires_at: south records a refusal, north gives X its money back."""
    begin(**_move(), now=T0, timeout_seconds=60)
    result = resolve("t-1", T0 + dt.timedelta(seconds=60))
    assert result.status == TransferStatus.VOIDED
    refused = Event.objects.get(stream="transfer/t-1/in")
    assert (refused.type, refused.payload["reason"]) == (TRANSFER_REFUSED,
                                                          "ledger.transfer_expired")
    assert refused.book == books["south"]
    assert not refused.postings.exists()
    assert Event.objects.filter(stream="transfer/t-1/out").latest("version").type == (
        TRANSFER_VOIDED)
    assert (_balance(ALICE_N), _balance(HOLD_NS), _balance(ALICE_S)) == (50_000, 0, 0)
    assert _balance(CLEARING_NS) is None
    assert verify_chain().ok


def test_a_late_receive_after_a_refusal_is_impossible(books):
    """Once south refused, neither receive nor a racing receiver's append can credit Y."""
    begin(**_move(), now=T0, timeout_seconds=60)
    refuse("t-1", reason="test.refused")
    # A receiver that read the stream before the refusal appends at version 0:
    late = NewEvent(stream="transfer/t-1/in", type=TRANSFER_RECEIVED,
                    postings=(Posting(ALICE_S, -3_000, "EUR"),
                              Posting("south/cage", 3_000, "EUR")),
                    gaming_day=GAMING_DAY)
    with pytest.raises(StaleVersion):
        append([late], book="south", expected_versions={"transfer/t-1/in": 0})
    # receive() within the hold's time answers the refusal and writes nothing.
    events = Event.objects.count()
    assert receive("t-1", now=T0).status == TransferStatus.PENDING
    assert Event.objects.count() == events
    assert resolve("t-1", T0).status == TransferStatus.VOIDED
    assert [e.type for e in Event.objects.filter(stream="transfer/t-1/in")] == [
        TRANSFER_REFUSED]
    assert (_balance(ALICE_N), _balance(ALICE_S)) == (50_000, 0)


def test_a_refusal_after_a_receive_is_impossible(books):
    """Once south received, an expiry sweep cannot refuse: it posts."""
    begin(**_move(), now=T0, timeout_seconds=60)
    receive("t-1", now=T0)
    result = refuse("t-1")
    assert [e.type for e in Event.objects.filter(stream="transfer/t-1/in")] == [
        TRANSFER_RECEIVED]
    assert result.status == TransferStatus.PENDING
    assert resolve("t-1", T0 + dt.timedelta(hours=1)).status == TransferStatus.POSTED
    assert _balance(ALICE_S) == 3_000


def test_the_target_refuses_what_it_cannot_hold(books):
    """Two-phase: south cannot credit Y over its maximum, so it refuses and north voids."""
    result = transfer_two_phase(**_move(amount=12_000), now=T0)
    assert result.status == TransferStatus.VOIDED
    refused = Event.objects.get(stream="transfer/t-1/in")
    assert refused.payload["reason"] == "ledger.balance_max_exceeded"
    assert (_balance(ALICE_N), _balance(ALICE_S), _balance(HOLD_NS)) == (50_000, 0, 0)


def test_the_sweep_finishes_every_pending_transfer_once(books):
    """resolve_pending posts what south received, voids what expired, leaves the rest;
    a second run writes nothing; the command prints the counts."""
    begin(**_move("a"), now=T0, timeout_seconds=60)
    begin(**_move("b"), now=T0, timeout_seconds=60)
    begin(**_move("c"), now=T0, timeout_seconds=600)
    receive("a", now=T0)
    later = T0 + dt.timedelta(seconds=120)
    assert resolve_pending(later) == {"pending": 1, "posted": 1, "voided": 1,
                                      "blocked": 0}
    events = Event.objects.count()
    assert resolve_pending(later) == {"pending": 1, "posted": 0, "voided": 0,
                                      "blocked": 0}
    assert Event.objects.count() == events
    assert (status("a").status, status("b").status, status("c").status) == (
        TransferStatus.POSTED, TransferStatus.VOIDED, TransferStatus.PENDING)
    call_command("resolve_transfers", "--now", (T0 + dt.timedelta(hours=1)).isoformat())
    assert status("c").status == TransferStatus.VOIDED
    assert (_balance(ALICE_N), _balance(ALICE_S), _balance(HOLD_NS)) == (47_000, 3_000, 0)
    assert pending_transfers() == []


def test_the_command_prints_counts(books, capsys):
    begin(**_move(), now=T0, timeout_seconds=60)
    call_command("resolve_transfers", "--now", (T0 + dt.timedelta(minutes=5)).isoformat())
    assert capsys.readouterr().out.strip() == "pending=0 posted=0 voided=1 blocked=0"


def test_a_void_the_source_cannot_hold_blocks_that_transfer_only(books):
    """X received money while its hold was out, so the void would take it over its
    maximum: the sweep reports that transfer blocked, finishes the others, and
    voids it once X has room again."""
    open_account(code="north/capped", type="liability", currency="EUR",
                 must_not_go_negative=True, balance_max_minor=5_000, book="north")
    append([transfer_event("north/capped", "north/cage", 5_000)], book="north")
    begin(**_move("blocked", 2_000, source_account="north/capped"), now=T0,
          timeout_seconds=60)
    begin(**_move("fine", 1_000), now=T0, timeout_seconds=60)
    append([transfer_event("north/capped", "north/cage", 2_000)], book="north")  # full again
    later = T0 + dt.timedelta(minutes=5)
    assert resolve_pending(later) == {"pending": 0, "posted": 0, "voided": 1, "blocked": 1}
    assert status("fine").status == TransferStatus.VOIDED
    assert status("blocked").status == TransferStatus.PENDING
    assert [transfer_id for _, transfer_id in pending_transfers()] == ["blocked"]
    append([transfer_event("north/cage", "north/capped", 2_000)], book="north")  # paid out
    assert resolve_pending(later) == {"pending": 0, "posted": 0, "voided": 1, "blocked": 0}
    assert (_balance("north/capped"), _balance(HOLD_NS)) == (5_000, 0)


@pytest.mark.django_db(transaction=True)
def test_opposite_transfers_in_parallel_neither_deadlock_nor_lose_money():
    """Two connections move money north->south and south->north at once, atomically
    (books locked in ascending id order) and in two phases (through the group
    writers): every transfer commits, the money adds up and both chains verify."""
    import threading

    from django.db import connection

    open_book("north")
    open_book("south")
    for book in ("north", "south"):
        open_account(code=f"{book}/cage", type="asset", currency="EUR", book=book)
        open_account(code=f"{book}/player", type="liability", currency="EUR",
                     must_not_go_negative=True, book=book)
        append([transfer_event(f"{book}/player", f"{book}/cage", 100_000)], book=book)
    start = threading.Barrier(2)
    errors = []
    rounds = 12

    def worker(source: str, target: str, base: int) -> None:
        start.wait()
        try:
            for n in range(rounds):
                arguments = dict(source_book=source, source_account=f"{source}/player",
                                 target_book=target, target_account=f"{target}/player",
                                 amount_minor=base + n, currency="EUR", gaming_day=GAMING_DAY)
                transfer_atomic(transfer_id=f"{source}-a{n}", **arguments)
                assert transfer_two_phase(transfer_id=f"{source}-b{n}", now=T0,
                                          **arguments).status == TransferStatus.POSTED
        except Exception as error:  # noqa: BLE001 - reported below
            errors.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=worker, args=pair)
               for pair in (("north", "south", 100), ("south", "north", 50))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    # North sent 2 x (100 + ... + 111) = 2,532 and received 2 x (50 + ... + 61) = 1,332.
    assert (_balance("north/player"), _balance("south/player")) == (98_800, 101_200)
    assert (_balance(CLEARING_NS), _balance(CLEARING_SN)) == (-1_200, 1_200)
    assert _balance(HOLD_NS) == _balance(hold_account("south", "north", "EUR")) == 0
    assert Event.objects.filter(type=TRANSFER_POSTED).count() == 2 * rounds
    assert pending_transfers() == []
    assert verify_chain().ok
