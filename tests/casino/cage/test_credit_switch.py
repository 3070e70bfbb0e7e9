"""No play and no chips on credit, read from the rulebooks' `credit.allowed` (issue 14).

- 002:L3033 "Internetpelejä ei saa pelata luotolla." (online games may not be
  played on credit): ray-online's `credit.allowed = false` is what opens a
  gaming account that never goes below zero (with its ceiling, from the same
  rulebook: casino.wallet.account_credit_allowed).
- 002:L1541 (casino) and 002:L135 (halls) "Pelimerkkejä ei myydä velaksi
  eikä luotolla." (chips are not sold on debt or on credit): the venue's own
  `credit.allowed = false` refuses chips paid from the gaming account for more
  than it holds, citing the venue's line, whatever the account allows.

Each test flips the loaded figure; nothing else changes.
"""

import pytest

from casino.cage.commands import buy_chips, deposit, withdraw
from casino.cage.errors import CageError, CageErrorCode
from casino.rules import cache
from casino.rules.models import Figure as RuleFigure
from ledger.models import Account
from tests.casino.conftest import NOON, make_player

from .conftest import event_count

CASINO = "casino-helsinki"
ONLINE = "ray-online"


@pytest.fixture
def fresh_rules_cache():
    cache.invalidate()
    yield
    cache.invalidate()


def _credit(rulebook_id: str, allowed: bool) -> None:
    assert RuleFigure.objects.filter(rulebook__rulebook_id=rulebook_id,
                                     figure_key="credit.allowed").update(value=allowed) == 1
    cache.invalidate()


def test_a_gaming_account_opens_without_credit_as_the_online_rulebook_says(
        venues, fresh_rules_cache):
    """Shipped (002:L3033): the account may not go below zero and one cent more than
    the balance is refused. A rulebook allowing credit opens an account that may."""
    player = make_player()
    deposit(player_id=player.id, venue=ONLINE, amount_minor=100_00, currency="EUR",
            method="bank", actor="web", at=NOON)
    account = Account.objects.get(code=f"player/{player.id}/account")
    assert account.must_not_go_negative is True
    with pytest.raises(CageError) as refused:
        withdraw(player_id=player.id, venue=ONLINE, amount_minor=100_01, currency="EUR",
                 method="bank", actor="web", at=NOON)
    assert (refused.value.code, refused.value.details["cite"]) == (
        CageErrorCode.INSUFFICIENT_FUNDS, "002:L3033")

    _credit("ray-online", True)
    borrower = make_player()
    deposit(player_id=borrower.id, venue=ONLINE, amount_minor=100_00, currency="EUR",
            method="bank", actor="web", at=NOON)
    assert Account.objects.get(code=f"player/{borrower.id}/account").must_not_go_negative is False
    result = withdraw(player_id=borrower.id, venue=ONLINE, amount_minor=150_00,
                      currency="EUR", method="bank", actor="web", at=NOON)
    assert result.account_balance_minor == -50_00


def test_chips_are_not_sold_on_credit_where_the_venue_says_so(venues, fresh_rules_cache):
    """002:L1541: at the casino chips from an account short of the price are refused
    and nothing is written, even from an account that would allow credit; with the
    casino's switch on, the account's own terms decide."""
    _credit("ray-online", True)
    player = make_player()
    deposit(player_id=player.id, venue=CASINO, amount_minor=20_00, currency="EUR",
            actor="cashier", at=NOON)
    before = event_count()
    with pytest.raises(CageError) as refused:
        buy_chips(player_id=player.id, venue=CASINO, amount_minor=20_01, currency="EUR",
                  paid_with="account", actor="cashier", at=NOON)
    assert (refused.value.code, refused.value.details["cite"],
            refused.value.details["balance_minor"]) == (
        CageErrorCode.INSUFFICIENT_FUNDS, "002:L1541", 20_00)
    assert event_count() == before
    _credit("ray-casino", True)
    bought = buy_chips(player_id=player.id, venue=CASINO, amount_minor=20_01, currency="EUR",
                       paid_with="account", actor="cashier", at=NOON)
    assert bought.account_balance_minor == -1
