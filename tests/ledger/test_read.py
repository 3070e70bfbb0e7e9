"""The declared read side (ledger.read): versions, a stream's events,
balances now and at a position, recorded results (L6, L7)."""

import ledger
from ledger import read

from .factories import transfer


def test_read_side_is_exported_from_the_package():
    """The four reads are names of `ledger` itself."""
    assert (ledger.stream_version, ledger.stream_events, ledger.balances,
            ledger.recorded_result) == (read.stream_version, read.stream_events,
                                        read.balances, read.recorded_result)


def test_stream_version_counts_the_stream_events(accounts):
    """0 before the first event, then the version of the newest (L6)."""
    assert read.stream_version("player/alice") == 0
    transfer("player/alice", "cage/cash", 100, stream="player/alice")
    transfer("player/alice", "cage/cash", 200, stream="player/alice")
    assert read.stream_version("player/alice") == 2


def test_stream_events_are_one_stream_in_version_order_with_postings(accounts):
    """Only the stream's events, after the given version, postings attached;
    `limit` pages through them."""
    for amount in (100, 200, 300):
        transfer("player/alice", "cage/cash", amount, stream="player/alice")
        transfer("player/bob", "cage/cash", amount, stream="player/bob")
    events = read.stream_events("player/alice")
    assert [(e.version, e.payload["amount_minor"]) for e in events] == [
        (1, 100), (2, 200), (3, 300)]
    assert [(p.account, p.amount_minor) for p in events[1].postings] == [
        ("cage/cash", 200), ("player/alice", -200)]
    assert [e.version for e in read.stream_events("player/alice", after_version=1)] == [2, 3]
    assert [e.version for e in read.stream_events("player/alice", 1, limit=1)] == [2]
    assert read.stream_events("player/nobody") == []


def test_balances_now_and_at_a_position(accounts):
    """Natural-direction balances now, or just after a position; 0 for an
    account not open."""
    first = transfer("player/alice", "cage/cash", 1_000)
    transfer("player/bob", "player/alice", 250)
    codes = ["player/alice", "player/bob", "cage/cash", "player/nobody"]
    assert read.balances(codes) == {
        "player/alice": 750, "player/bob": 250, "cage/cash": 1_000, "player/nobody": 0}
    assert read.balances(codes, at_position=first.first_position) == {
        "player/alice": 1_000, "player/bob": 0, "cage/cash": 1_000, "player/nobody": 0}


def test_recorded_result_returns_the_keyed_append(accounts):
    """The events an append under the key wrote; None for an unused key (L7)."""
    result = transfer("player/alice", "cage/cash", 500, idempotency_key="deposit-9")
    assert read.recorded_result("deposit-9") == list(result.events)
    assert read.recorded_result("deposit-10") is None
    assert read.recorded_result(None) is None
