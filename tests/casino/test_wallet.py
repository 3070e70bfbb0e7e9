"""The shared ceiling split for credits to a gaming account (casino/wallet.py).

002:L3070: the online gaming account holds at most EUR 5,000; ray-online decision
online.account.balance_overflow (002:L3068-3070): a deposit over it is refused, a win
over it is credited up to the ceiling and the rest is owed to the bank account.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from casino.cage.commands import deposit
from casino.wallet import (
    accounts_to_open,
    credit_player,
    credit_players,
    ensure_payouts_due,
    split_credit,
)
from casino.accounts import gaming_account, payouts_due
from casino.compliance.errors import AttemptRejected
from ledger import InvariantViolation, open_account
from ledger.models import Account, Event
from tests.casino.conftest import make_player

CEILING = 5_000_00
CASINO = "casino-helsinki"


@given(amount=st.integers(0, 10**12), balance=st.integers(-10**9, 10**10),
       maximum=st.one_of(st.none(), st.integers(0, 10**10)))
def test_the_split_keeps_the_whole_credit_and_fills_the_account_exactly(amount, balance,
                                                                        maximum):
    to_account, overflow = split_credit(amount, balance_minor=balance,
                                        balance_max_minor=maximum)
    assert to_account + overflow == amount
    assert to_account >= 0 and overflow >= 0
    if maximum is None:
        assert overflow == 0
    else:
        assert balance + to_account <= max(maximum, balance)   # never above the ceiling
        if overflow:
            assert balance + to_account == max(maximum, balance)   # full to the cent


def test_the_split_refuses_a_negative_or_non_integer_credit():
    with pytest.raises(InvariantViolation):
        split_credit(-1, balance_minor=0, balance_max_minor=CEILING)
    with pytest.raises(InvariantViolation):
        split_credit(1.5, balance_minor=0, balance_max_minor=CEILING)


def test_an_account_not_yet_opened_splits_at_the_ceiling_it_will_open_with(venues):
    player = make_player()
    credit = credit_player(player_id=player.id, amount_minor=6_000_00, currency="EUR",
                           venue=CASINO)
    assert (credit.balance_before_minor, credit.balance_max_minor) == (0, CEILING)
    assert (credit.account_minor, credit.overflow_minor) == (CEILING, 1_000_00)
    assert [(p.account, p.amount_minor) for p in credit.postings] == [
        (gaming_account(player.id), -CEILING), (payouts_due(CASINO), -1_000_00)]
    assert credit.overflow["overflow_minor"] == 1_000_00
    # The liability was opened for the caller's append, once.
    due = Account.objects.get(code=payouts_due(CASINO))
    assert (due.type, due.must_not_go_negative, due.balance_max_minor) == (
        "liability", True, None)
    opened = Event.objects.filter(type="ledger.account_opened").count()
    ensure_payouts_due(venue=CASINO, currency="EUR")
    assert Event.objects.filter(type="ledger.account_opened").count() == opened


def test_a_runner_command_reads_only_and_names_payouts_due_for_its_decision(venues):
    """`open_payouts_due=False` opens nothing; `accounts_to_open` gives the runner the terms."""
    player, other = make_player(), make_player()
    credits = credit_players({player.id: 6_000_00, other.id: 7_000_00}, currency="EUR",
                             venue=CASINO, open_payouts_due=False)
    assert not Account.objects.filter(code=payouts_due(CASINO)).exists()
    assert accounts_to_open(credits.values()) == [dict(
        code=payouts_due(CASINO), type="liability", currency="EUR",
        name=f"Wins due to players' bank accounts at {CASINO}", must_not_go_negative=True)]
    fitting = credit_players({player.id: 1_00}, currency="EUR", venue=CASINO,
                             open_payouts_due=False)
    assert accounts_to_open(fitting.values()) == []


def test_a_credit_that_fits_has_no_overflow_and_opens_nothing(venues):
    player = make_player()
    deposit(player_id=player.id, venue=CASINO, amount_minor=4_000_00, currency="EUR",
            method="cash", actor="cage")
    credit = credit_player(player_id=player.id, amount_minor=1_000_00, currency="EUR",
                           venue=CASINO)
    assert (credit.account_minor, credit.overflow_minor, credit.overflow) == (
        1_000_00, 0, None)
    assert not Account.objects.filter(code=payouts_due(CASINO)).exists()


def test_an_account_without_a_maximum_takes_the_whole_credit(venues):
    player = make_player()
    open_account(code=gaming_account(player.id), type="liability", currency="EUR",
                 must_not_go_negative=True)
    credit = credit_player(player_id=player.id, amount_minor=9_000_00, currency="EUR",
                           venue=CASINO)
    assert (credit.account_minor, credit.overflow_minor) == (9_000_00, 0)


def test_a_deposit_over_the_ceiling_is_still_refused(venues):
    """Only wins overflow: a deposit above EUR 5,000, at the casino's cage or
    online, is refused and the refusal recorded; nothing goes to payouts due."""
    player = make_player()
    deposit(player_id=player.id, venue=CASINO, amount_minor=4_999_99, currency="EUR",
            method="cash", actor="cage")
    for venue, method in ((CASINO, "cash"), ("ray-online", "bank")):
        count = Event.objects.count()
        with pytest.raises(AttemptRejected) as refused:
            deposit(player_id=player.id, venue=venue, amount_minor=2, currency="EUR",
                    method=method, actor="cage")
        assert refused.value.details["rule"] == "compliance.account_ceiling"
        assert Event.objects.count() == count + 1     # the recorded refusal only
    assert Account.objects.get(code=gaming_account(player.id)).balance_minor == 4_999_99
    assert not Account.objects.filter(code=payouts_due(CASINO)).exists()
