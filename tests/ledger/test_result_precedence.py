"""The ledger's result codes come in a written order (ledger/errors.py).

Each row breaks two rules at once and names the code that must answer: the
higher of the two in the documented precedence. Nothing is written by any
row.
"""

import datetime as dt

import pytest

from ledger import NewEvent, Posting, append, open_account
from ledger.errors import LedgerError
from ledger.models import Event

from .factories import GAMING_DAY

DAY = GAMING_DAY


def _move(source: str, destination: str, amount: int, currency: str = "EUR",
          stream: str = "s/1", gaming_day: dt.date | None = DAY) -> NewEvent:
    return NewEvent(stream=stream, type="test.moved", payload={"amount": amount},
                    postings=(Posting(destination, amount, currency),
                              Posting(source, -amount, currency)),
                    gaming_day=gaming_day)


def _opening(code: str) -> NewEvent:
    return NewEvent(stream=f"account/{code}", type="ledger.account_opened",
                    payload={"code": code, "type": "asset", "currency": "EUR",
                             "name": code, "must_not_go_negative": False,
                             "balance_max_minor": None})


@pytest.fixture
def book(db):
    """Two guarded player accounts, a cage, a USD account; one keyed append done."""
    open_account(code="cage", type="asset", currency="EUR")
    open_account(code="alice", type="liability", currency="EUR", must_not_go_negative=True,
                 balance_max_minor=10_000)
    open_account(code="bob", type="liability", currency="EUR", must_not_go_negative=True)
    open_account(code="usd", type="asset", currency="USD")
    append([_move("alice", "cage", 5_000)], idempotency_key="recorded")
    return ["cage", "alice", "bob", "usd"]


# (case, events, expected_versions, key, code)
CASES = [
    ("form beats a reused key",
     [_move("alice", "cage", 1, gaming_day=None)], {}, "recorded", "ledger.invalid_event"),
    ("reused key beats a stale version",
     [_move("alice", "cage", 7)], {"s/1": 0}, "recorded", "ledger.idempotency_key_reused"),
    ("stale version beats an existing account",
     [_opening("cage")], {"s/1": 0}, None, "ledger.stale_version"),
    ("stale version beats an overdraft",
     [_move("bob", "cage", -1)], {"s/1": 0}, None, "ledger.stale_version"),
    ("existing account beats an unknown account in the same event",
     [NewEvent(stream="x", type="ledger.account_opened",
               payload={"code": "cage", "type": "asset", "currency": "EUR", "name": "c",
                        "must_not_go_negative": False, "balance_max_minor": None},
               postings=(Posting("nobody", 1, "EUR"), Posting("cage", -1, "EUR")),
               gaming_day=DAY)],
     {}, None, "ledger.account_exists"),
    ("unknown account beats a currency mismatch on a later posting",
     [NewEvent(stream="x", type="test.moved", payload={},
               postings=(Posting("nobody", 1, "EUR"), Posting("usd", -1, "EUR")),
               gaming_day=DAY)],
     {}, None, "ledger.unknown_account"),
    ("currency mismatch beats an overdraft",
     [NewEvent(stream="x", type="test.moved", payload={},
               postings=(Posting("bob", 1, "EUR"), Posting("usd", -1, "EUR")),
               gaming_day=DAY)],
     {}, None, "ledger.currency_mismatch"),
    ("an earlier event's overdraft beats a later event's unknown account",
     [_move("cage", "bob", 1), _move("nobody", "cage", 1)], {}, None, "ledger.insufficient_funds"),
    ("overdraft of the first posted account beats the ceiling of the second",
     [NewEvent(stream="x", type="test.moved", payload={},
               postings=(Posting("bob", 6_000, "EUR"), Posting("alice", -6_000, "EUR")),
               gaming_day=DAY)],
     {}, None, "ledger.insufficient_funds"),
    ("ceiling of the first posted account beats the overdraft of the second",
     [NewEvent(stream="x", type="test.moved", payload={},
               postings=(Posting("alice", -6_000, "EUR"), Posting("bob", 6_000, "EUR")),
               gaming_day=DAY)],
     {}, None, "ledger.balance_max_exceeded"),
]


@pytest.mark.parametrize("events, expected_versions, key, code",
                         [case[1:] for case in CASES], ids=[case[0] for case in CASES])
def test_the_higher_rule_answers_and_nothing_is_written(book, events, expected_versions, key,
                                                        code):
    """Two rules broken at once: the documented precedence picks the code."""
    before = Event.objects.count()
    with pytest.raises(LedgerError) as refused:
        append(events, expected_versions=expected_versions, idempotency_key=key)
    assert refused.value.code == code
    assert Event.objects.count() == before
