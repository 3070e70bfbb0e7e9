"""The append path's checks (L3-L6): each refusal writes nothing at all."""

import pytest

from ledger import Metadata, NewEvent, Posting, append, open_account
from ledger.errors import (
    AccountExists,
    BalanceMaxExceeded,
    CurrencyMismatch,
    InsufficientFunds,
    InvalidEvent,
    StaleVersion,
    UnbalancedPostings,
    UnknownAccount,
)
from ledger.models import Account, Event, LedgerHead, Posting as PostingRow, Stream

from .factories import transfer, transfer_event


def _log_size() -> tuple[int, int, int]:
    return Event.objects.count(), PostingRow.objects.count(), LedgerHead.objects.get().position


def _balances() -> dict[str, int]:
    return dict(Account.objects.values_list("code", "balance_minor"))


def test_deposit_moves_both_accounts_in_their_natural_direction(accounts):
    """A deposit raises the cage's cash (asset) and the player's liability."""
    result = transfer("player/alice", "cage/cash", 12_345)
    assert _balances() == {"cage/cash": 12_345, "house/revenue": 0,
                           "player/alice": 12_345, "player/bob": 0}
    event = result.events[0]
    assert event.position == 5
    assert event.version == 1
    assert [(p.account, p.amount_minor) for p in event.postings] == [
        ("cage/cash", 12_345), ("player/alice", -12_345)]
    assert Account.objects.get(code="player/alice").last_position == 5


def test_positions_and_versions_continue_across_appends(accounts):
    """Positions are global and gap-free; versions count per stream."""
    first = transfer("player/alice", "cage/cash", 100, stream="player/alice")
    second = transfer("player/alice", "cage/cash", 100, stream="player/alice")
    third = transfer("player/bob", "cage/cash", 100, stream="player/bob")
    assert [first.first_position, second.first_position, third.first_position] == [5, 6, 7]
    assert [first.events[0].version, second.events[0].version, third.events[0].version] == [1, 2, 1]
    assert second.events[0].prev_hash == first.events[0].hash
    assert Stream.objects.get(name="player/alice").version == 2


def test_stale_expected_version_is_rejected_and_writes_nothing(accounts):
    """An append expecting an old stream version is refused (L6)."""
    transfer("player/alice", "cage/cash", 100, stream="player/alice",
             expected_versions={"player/alice": 0})
    before, balances = _log_size(), _balances()
    with pytest.raises(StaleVersion) as caught:
        transfer("player/alice", "cage/cash", 100, stream="player/alice",
                 expected_versions={"player/alice": 0})
    assert caught.value.details == {"stream": "player/alice", "expected_version": 0,
                                    "current_version": 1}
    assert _log_size() == before
    assert _balances() == balances


def test_expected_version_zero_means_a_new_stream(accounts):
    """Version 0 is expected of a stream with no events yet."""
    result = transfer("player/bob", "cage/cash", 100, stream="table/7",
                      expected_versions={"table/7": 0})
    assert result.events[0].version == 1


def test_overdraft_of_a_guarded_account_is_rejected(accounts):
    """A may-not-go-negative account cannot be taken below zero (L4)."""
    transfer("player/alice", "cage/cash", 1_000)
    before = _log_size()
    with pytest.raises(InsufficientFunds) as caught:
        transfer("cage/cash", "player/alice", 1_001)
    assert caught.value.details["balance_after_minor"] == -1
    assert _log_size() == before
    transfer("cage/cash", "player/alice", 1_000)
    assert _balances()["player/alice"] == 0


def test_balance_ceiling_is_enforced(accounts):
    """An account's maximum balance cannot be exceeded, even by one cent."""
    transfer("player/alice", "cage/cash", 500_000)
    before = _log_size()
    with pytest.raises(BalanceMaxExceeded):
        transfer("player/alice", "cage/cash", 1)
    assert _log_size() == before


def test_constraints_hold_after_every_event_of_a_batch(accounts):
    """A batch may not pass through a negative balance, even if it ends at zero."""
    before = _log_size()
    with pytest.raises(InsufficientFunds):
        append([transfer_event("cage/cash", "player/bob", 500),
                transfer_event("player/bob", "cage/cash", 500)])
    assert _log_size() == before


def test_batch_is_all_or_nothing(accounts):
    """When one event of a batch is refused, none of the batch is written."""
    before = _log_size()
    with pytest.raises(UnknownAccount):
        append([transfer_event("player/alice", "cage/cash", 100),
                transfer_event("player/nobody", "cage/cash", 100)])
    assert _log_size() == before


def test_unknown_account_and_wrong_currency_are_rejected(accounts):
    """Postings must name an existing account in its own currency (L5)."""
    with pytest.raises(UnknownAccount):
        transfer("player/nobody", "cage/cash", 100)
    with pytest.raises(CurrencyMismatch):
        transfer("player/alice", "cage/cash", 100, currency="SEK")
    assert _log_size() == (4, 0, 4)


def test_unbalanced_postings_are_rejected_before_queueing():
    """Postings must sum to zero per currency (L3), checked in NewEvent."""
    with pytest.raises(UnbalancedPostings) as caught:
        NewEvent(stream="s", type="t", postings=(Posting("a", 100, "EUR"), Posting("b", -99, "EUR")))
    assert caught.value.details == {"totals": {"EUR": 1}}
    with pytest.raises(UnbalancedPostings):
        NewEvent(stream="s", type="t", postings=(Posting("a", 100, "EUR"), Posting("b", -100, "SEK")))


@pytest.mark.parametrize(
    "amount", [0, 1.5, "100", 2**63], ids=["zero", "float", "string", "overflow"]
)
def test_posting_amounts_are_non_zero_64_bit_integers(amount):
    """Money is integer minor units; anything else is refused."""
    with pytest.raises(InvalidEvent):
        Posting("a", amount, "EUR")


@pytest.mark.parametrize(
    "payload",
    [{"amount": 1.25}, {"nested": [{"x": float("nan")}]}, {"bad": "a\x00b"}, {1: "x"},
     {"when": object()}],
    ids=["float", "nested-nan", "nul", "int-key", "object"],
)
def test_payload_must_round_trip_through_jsonb(payload):
    """Payloads are JSON that PostgreSQL stores exactly; floats are refused."""
    with pytest.raises(InvalidEvent):
        NewEvent(stream="s", type="t", payload=payload)


def test_account_codes_are_unique(accounts):
    """Opening an account twice is refused."""
    with pytest.raises(AccountExists):
        open_account(code="player/alice", type="liability", currency="EUR")
    assert Account.objects.count() == 4


def test_metadata_is_recorded_on_every_event(accounts):
    """Actor, source and correlation travel with each event of the batch."""
    metadata = Metadata(actor="cashier-7", source="cage-terminal-2", request_id="r-1",
                        correlation_id="c-1")
    result = append([transfer_event("player/alice", "cage/cash", 100),
                     transfer_event("player/bob", "cage/cash", 100)], metadata=metadata)
    stored = list(Event.objects.filter(position__gte=result.first_position)
                  .values_list("metadata", flat=True))
    assert stored == [metadata.as_dict()] * 2
    assert metadata.as_dict() == {"actor": "cashier-7", "source": "cage-terminal-2",
                                  "request_id": "r-1", "correlation_id": "c-1"}


def test_gaming_day_defaults_to_the_local_date_of_occurrence(accounts):
    """Without a gaming day, the date in the project time zone is used."""
    import datetime as dt
    from zoneinfo import ZoneInfo

    late_evening_utc = dt.datetime(2026, 6, 30, 22, 30, tzinfo=dt.UTC)  # 01:30 in Helsinki
    event = NewEvent(stream="s", type="t", occurred_at=late_evening_utc)
    recorded = append([event]).events[0]
    assert recorded.gaming_day == dt.date(2026, 7, 1)
    assert recorded.occurred_at.astimezone(ZoneInfo("Europe/Helsinki")).hour == 1


def test_when_two_accounts_break_their_rules_the_first_posting_decides(accounts):
    """The error names the first offending account in posting order, in every
    process (found by the state machine: a set's order varies with the hash
    seed). Debiting bob (empty) and crediting alice (at her ceiling) at once:
    bob's overdraft is reported."""
    transfer("player/alice", "cage/cash", 500_000)
    with pytest.raises(InsufficientFunds) as caught:
        transfer("player/alice", "player/bob", 1)
    assert caught.value.details["account"] == "player/bob"
