"""A win above the gaming account's ceiling goes to the bank only where the rulebook says so.

002:L3068 "Voitto maksetaan pelaajan pelitilille tai pankkitilille." (a win is
paid to the player's gaming account or bank account): ray-online's
`online.winnings.payout_to_bank_allowed = true` is what lets casino.wallet
owe the part above the EUR 5,000 ceiling (002:L3070) on
bank/<venue>/payouts_due. Switched off, that part has nowhere to go: the
credit is refused (`cage.account_ceiling`) and nothing is posted.
"""

import pytest

from casino import wallet
from casino.accounts import gaming_account, payouts_due
from casino.games import commands
from casino.rules import cache
from casino.rules.models import Figure as RuleFigure
from ledger.models import Event
from tests.casino.games.conftest import balance, funded_player
from tests.casino.games.test_account_ceiling import roulette_round

VENUE = "casino-helsinki"


@pytest.fixture
def fresh_rules_cache():
    cache.invalidate()
    yield
    cache.invalidate()


def _bank_payouts(allowed: bool) -> None:
    assert RuleFigure.objects.filter(
        rulebook__rulebook_id="ray-online",
        figure_key="online.winnings.payout_to_bank_allowed").update(value=allowed) == 1
    cache.invalidate()


def test_the_overflow_goes_to_the_bank_only_while_the_rulebook_allows_it(
        venues, fresh_rules_cache):
    """EUR 4,950.37 held, EUR 100 on 17 wins EUR 3,600 (002:L1590). Allowed
    (shipped): EUR 149.63 to the account, the rest owed to the bank. Not
    allowed: the settlement is refused and nothing is written; allowed again,
    it settles as before."""
    player = funded_player(4_950_37)
    round_id = roulette_round(player)
    commands.record_outcome(round_id=round_id, outcome={"number": 17}, actor="floor",
                            idempotency_key="outcome")
    _bank_payouts(False)
    before = Event.objects.count()
    with pytest.raises(wallet.WalletError) as refused:
        commands.settle_round(round_id=round_id, actor="floor", idempotency_key="settle")
    assert refused.value.code == "cage.account_ceiling"
    assert refused.value.status == 422
    assert refused.value.details["overflow_minor"] == 3_450_37
    assert Event.objects.count() == before
    assert balance(gaming_account(player.id)) == 4_850_37
    _bank_payouts(True)
    commands.settle_round(round_id=round_id, actor="floor", idempotency_key="settle-again")
    assert balance(gaming_account(player.id)) == 5_000_00
    assert balance(payouts_due(VENUE)) == 3_450_37


def test_a_credit_under_the_ceiling_needs_no_bank(venues, fresh_rules_cache):
    """No overflow, no bank: the switch does not matter."""
    _bank_payouts(False)
    credit = wallet.credit_players({"nobody": 100_00}, currency="EUR", venue=VENUE)["nobody"]
    assert (credit.account_minor, credit.overflow_minor) == (100_00, 0)
