"""L3, L4, L6, L7, L9 as properties: for any sequence of valid and invalid
operations, money is conserved, refusals change nothing, and a rebuild
reproduces every balance.

The state machine keeps its own model of the books (natural balances per
account, the number of events, the keys used) and never asks the ledger what
the answer should be. Each run happens inside a savepoint that is rolled back
afterwards, since the log itself can never be emptied.
"""

from collections import defaultdict

import pytest
from django.db import connection, transaction
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    rule,
    run_state_machine_as_test,
)

from ledger import append, open_account, rebuild_projections
from ledger.errors import (
    BalanceMaxExceeded,
    CurrencyMismatch,
    IdempotencyConflict,
    InsufficientFunds,
    StaleVersion,
)
from ledger.models import Account, Event

from .factories import transfer_event

# code: (type, currency, must_not_go_negative, balance_max_minor)
ACCOUNTS = {
    "cage/eur": ("asset", "EUR", False, None),
    "house/eur": ("revenue", "EUR", False, None),
    "player/a": ("liability", "EUR", True, 50_000),
    "player/b": ("liability", "EUR", True, None),
    "cage/sek": ("asset", "SEK", False, None),
    "player/c": ("liability", "SEK", True, None),
}
DEBIT_NORMAL = {"asset", "expense"}


class LedgerMachine(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.savepoint = transaction.savepoint()
        self.balances: dict[str, int] = {}
        self.events = 0
        self.stream_versions: dict[str, int] = defaultdict(int)
        self.keys: dict[str, tuple] = {}

    @initialize()
    def open_accounts(self) -> None:
        for code, (type_, currency, guarded, ceiling) in ACCOUNTS.items():
            open_account(code=code, type=type_, currency=currency,
                         must_not_go_negative=guarded, balance_max_minor=ceiling)
            self.balances[code] = 0
            self.events += 1

    def _expected_error(self, moves):
        """Apply moves to a copy of the model; return (error type, balances)."""
        balances = dict(self.balances)
        for source, destination, amount, currency in moves:
            for code in (source, destination):
                if ACCOUNTS[code][1] != currency:
                    return CurrencyMismatch, None
            for code, debit in ((destination, amount), (source, -amount)):
                sign = 1 if ACCOUNTS[code][0] in DEBIT_NORMAL else -1
                balances[code] += sign * debit
            # The ledger checks accounts in posting order: the debited
            # destination first, then the credited source.
            for code in (destination, source):
                _, _, guarded, ceiling = ACCOUNTS[code]
                if guarded and balances[code] < 0:
                    return InsufficientFunds, None
                if ceiling is not None and balances[code] > ceiling:
                    return BalanceMaxExceeded, None
        return None, balances

    def _attempt(self, moves, stream: str, expected_version=None, key=None) -> None:
        error, balances = self._expected_error(moves)
        events = [transfer_event(s, d, a, c, stream=stream) for s, d, a, c in moves]
        expected = {stream: expected_version} if expected_version is not None else None
        if expected_version is not None and expected_version != self.stream_versions[stream]:
            error = StaleVersion
        if error is None:
            result = append(events, expected_versions=expected, idempotency_key=key)
            assert result.replayed is False
            self.balances = balances
            self.events += len(events)
            self.stream_versions[stream] += len(events)
            if key is not None:
                self.keys[key] = (moves, stream)
        else:
            before = Event.objects.count()
            with pytest.raises(error):
                append(events, expected_versions=expected, idempotency_key=key)
            assert Event.objects.count() == before

    @rule(
        source=st.sampled_from(sorted(ACCOUNTS)),
        destination=st.sampled_from(sorted(ACCOUNTS)),
        amount=st.integers(min_value=1, max_value=60_000),
        currency=st.sampled_from(["EUR", "SEK"]),
        key=st.none() | st.text(alphabet="abcdef", min_size=1, max_size=3),
    )
    def single_transfer(self, source, destination, amount, currency, key) -> None:
        if source == destination:
            return
        if key is not None and key in self.keys:
            self._retry(key, [(source, destination, amount, currency)])
            return
        self._attempt([(source, destination, amount, currency)], stream="transfers", key=key)

    @rule(
        moves=st.lists(
            st.tuples(st.sampled_from(["cage/eur", "house/eur", "player/a", "player/b"]),
                      st.sampled_from(["cage/eur", "house/eur", "player/a", "player/b"]),
                      st.integers(min_value=1, max_value=30_000)),
            min_size=2, max_size=4,
        )
    )
    def batch_is_all_or_nothing(self, moves) -> None:
        moves = [(s, d, a, "EUR") for s, d, a in moves if s != d]
        if moves:
            self._attempt(moves, stream="batches")

    @rule(version_offset=st.integers(min_value=-2, max_value=2))
    def expected_version(self, version_offset) -> None:
        expected = max(0, self.stream_versions["guarded"] + version_offset)
        self._attempt([("player/b", "cage/eur", 100, "EUR")], stream="guarded",
                      expected_version=expected)

    def _retry(self, key, moves) -> None:
        before = (Event.objects.count(), self._stored_balances())
        original_moves, stream = self.keys[key]
        if moves == original_moves:
            events = [transfer_event(s, d, a, c, stream=stream) for s, d, a, c in moves]
            assert append(events, idempotency_key=key).replayed is True
        else:
            with pytest.raises(IdempotencyConflict):
                append([transfer_event(s, d, a, c, stream="transfers") for s, d, a, c in moves],
                       idempotency_key=key)
        assert (Event.objects.count(), self._stored_balances()) == before

    @rule(data=st.data())
    def retry_an_earlier_request(self, data) -> None:
        if self.keys:
            key = data.draw(st.sampled_from(sorted(self.keys)))
            self._retry(key, self.keys[key][0])

    def _stored_balances(self) -> dict[str, int]:
        return dict(Account.objects.values_list("code", "balance_minor"))

    @invariant()
    def books_match_the_model(self) -> None:
        if not self.balances:
            return
        assert self._stored_balances() == self.balances
        assert Event.objects.count() == self.events

    @invariant()
    def money_is_conserved(self) -> None:
        with connection.cursor() as cursor:
            cursor.execute("SELECT currency, sum(amount_minor) FROM ledger_posting GROUP BY currency")
            assert all(total == 0 for _, total in cursor.fetchall())

    def teardown(self) -> None:
        try:
            if self.balances:
                rebuild_projections()
                assert self._stored_balances() == self.balances
        finally:
            transaction.savepoint_rollback(self.savepoint)


@pytest.mark.slow
def test_money_is_conserved_and_rebuildable_under_any_operations(db):
    """Random valid and invalid operations keep the books equal to the model."""
    run_state_machine_as_test(
        LedgerMachine,
        settings=settings(
            max_examples=40,
            stateful_step_count=25,
            deadline=None,
            suppress_health_check=[HealthCheck.too_slow],
        ),
    )
