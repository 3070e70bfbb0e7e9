"""Poker never imports the jackpots app: what both need is shared or held equal here."""

from casino import accounts
from casino.jackpots import accounts as jackpot_accounts
from casino.jackpots.engine import VARIANT_CRITERIA
from casino.poker import commands
from casino.poker.events import jackpot_pending


def test_poker_charges_a_jackpot_drop_exactly_where_the_jackpots_have_criteria():
    assert commands.JACKPOT_VARIANTS == frozenset(VARIANT_CRITERIA)


def test_the_drop_account_poker_posts_to_is_the_jackpots_pending_account():
    assert jackpot_pending("poker-helsinki") == jackpot_accounts.pending_account(
        "poker-helsinki", jackpot_accounts.BAD_BEAT)
    for name in ("pending_account", "pool_account"):
        assert getattr(accounts, name)("v", "k") == getattr(jackpot_accounts, name)("v", "k")
    assert accounts.funding_account("v") == jackpot_accounts.funding_account("v")
    assert accounts.BAD_BEAT == jackpot_accounts.BAD_BEAT
