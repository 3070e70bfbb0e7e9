"""The gaming account's own rules apply to its money only (issue 14 item 3).

Ray-online decision online.account.scope: the EUR 5,000 ceiling (002:L3070)
and the 00:00-06:00 transfer ban (002:L3072) belong to the RAY online gaming
account. They meet every movement of its money wherever it is asked for,
chips bought from it and redeemed into it included, on the Helsinki clock;
chips bought or redeemed for cash at a land cage meet neither.
"""

import datetime as dt
from zoneinfo import ZoneInfo

import pytest

from casino.cage.commands import buy_chips, deposit, redeem_chips, withdraw
from casino.compliance.errors import AttemptRejected
from casino.rules.commands import register_venue
from ledger.models import Account, Event
from tests.casino.conftest import HELSINKI, NOON

from .conftest import event_count, rejection

CASINO = "casino-helsinki"
TALLINN = "olympic-tallinn"
LJUBLJANA = "pslive-ljubljana"
NIGHT = dt.datetime(2026, 6, 17, 1, 0, tzinfo=HELSINKI)


def _last_rejection(refused) -> dict:
    return rejection(refused).payload


@pytest.fixture
def ljubljana(venues):
    register_venue(code=LJUBLJANA, name="PokerStars Live Ljubljana",
                   rulebook_id="pslive-tournaments")
    return LJUBLJANA


def test_chips_bought_from_the_account_in_the_ban_are_refused_and_recorded(player):
    """002:L3072: at 01:00 chips paid from the gaming account would take its
    money out during the ban (account -> chips -> cash)."""
    deposit(player_id=player.id, venue=CASINO, method="cash", amount_minor=100_000,
            currency="EUR", actor="cashier", at=NOON)
    before = event_count()
    with pytest.raises(AttemptRejected) as refused:
        buy_chips(player_id=player.id, venue=CASINO, paid_with="account", amount_minor=50_000,
                  currency="EUR", actor="cashier", at=NIGHT)
    assert (refused.value.failure.code, refused.value.failure.cite) == (
        "compliance.transfer_blackout", "002:L3072")
    assert event_count() == before + 1
    assert _last_rejection(refused)["attempt"]["kind"] == "chip_purchase"
    assert Account.objects.get(code=f"player/{player.id}/account").balance_minor == 100_000
    assert not Account.objects.filter(code=f"cage/{CASINO}/chips").exists()


def test_chips_redeemed_into_the_account_in_the_ban_are_refused_and_recorded(player):
    """002:L3072: chips redeemed into the gaming account at 01:00 pay into it
    during the ban; redeemed for cash they leave it alone and are paid."""
    buy_chips(player_id=player.id, venue=CASINO, paid_with="cash", amount_minor=50_000,
              currency="EUR", actor="cashier", at=NOON)
    before = event_count()
    with pytest.raises(AttemptRejected) as refused:
        redeem_chips(player_id=player.id, venue=CASINO, paid_to="account",
                     amount_minor=20_000, currency="EUR", actor="cashier", at=NIGHT)
    assert refused.value.failure.code == "compliance.transfer_blackout"
    assert event_count() == before + 1
    assert _last_rejection(refused)["attempt"]["kind"] == "chip_redemption"
    assert not Account.objects.filter(code=f"player/{player.id}/account").exists()
    paid = redeem_chips(player_id=player.id, venue=CASINO, paid_to="cash",
                        amount_minor=20_000, currency="EUR", actor="cashier", at=NIGHT)
    assert paid.chips_outstanding_minor == 30_000


def test_account_chips_outside_the_ban_are_fine(player):
    """06:00 Helsinki time ends the ban for chips paid from the account too."""
    deposit(player_id=player.id, venue=CASINO, method="cash", amount_minor=100_000,
            currency="EUR", actor="cashier", at=NOON)
    six = dt.datetime(2026, 6, 17, 6, 0, tzinfo=HELSINKI)
    result = buy_chips(player_id=player.id, venue=CASINO, paid_with="account",
                       amount_minor=50_000, currency="EUR", actor="cashier", at=six)
    assert (result.account_balance_minor, result.chips_outstanding_minor) == (50_000, 50_000)


def test_chips_for_cash_above_the_online_ceiling_are_sold_at_the_casino(player):
    """002:L3421 lets a punto banco placement take EUR 7,000, over the online
    account's EUR 5,000 (002:L3070): chips for cash never touch the account,
    so no ceiling refuses them, and no gaming account is opened."""
    result = buy_chips(player_id=player.id, venue=CASINO, paid_with="cash",
                       amount_minor=700_000, currency="EUR", actor="cashier", at=NOON)
    assert result.chips_outstanding_minor == 700_000
    assert result.cage_cash_minor == 700_000
    assert not Account.objects.filter(code=f"player/{player.id}/account").exists()
    verdict = Event.objects.get(position=result.position).payload["verdict"]
    assert verdict["rulebook"] == "ray-casino@1"


@pytest.mark.parametrize("at", [
    dt.datetime(2026, 6, 17, 1, 0, tzinfo=ZoneInfo("Europe/Tallinn")),
    dt.datetime(2026, 6, 17, 0, 30, tzinfo=ZoneInfo("Europe/Ljubljana")),
], ids=["tallinn_01_00_case", "ljubljana_00_30_case"])
def test_chips_for_cash_at_night_are_sold_at_other_operators_cages(player, ljubljana, at):
    """The ban is the RAY account's (002:L3072), not a land cage's: chips for
    cash at night in Tallinn or Ljubljana are sold."""
    venue = TALLINN if at.tzinfo.key == "Europe/Tallinn" else LJUBLJANA
    result = buy_chips(player_id=player.id, venue=venue, paid_with="cash", amount_minor=20_000,
                       currency="EUR", actor="cashier", at=at)
    assert result.chips_outstanding_minor == 20_000


@pytest.mark.parametrize("operation, method_field, method", [
    pytest.param(deposit, "method", "cash", id="deposit_cash_case"),
    pytest.param(withdraw, "method", "cash", id="withdraw_cash_case"),
    pytest.param(buy_chips, "paid_with", "account", id="chips_from_account_case"),
    pytest.param(redeem_chips, "paid_with", "account", id="chips_into_account_case"),
])
@pytest.mark.parametrize("venue", [TALLINN, LJUBLJANA])
def test_other_operators_cages_do_not_touch_the_gaming_account(player, ljubljana, venue,
                                                               operation, method_field,
                                                               method):
    """002:L3062-3066 (decision cage.gaming_account.offered): the gaming
    account is the RAY online service's; the Tallinn and Ljubljana cages move
    none of its money, at any hour. The refusal is recorded and the account
    is not touched."""
    deposit(player_id=player.id, venue=CASINO, method="cash", amount_minor=50_000,
            currency="EUR", actor="cashier", at=NOON)
    if operation is redeem_chips:
        buy_chips(player_id=player.id, venue=venue, paid_with="cash", amount_minor=10_000,
                  currency="EUR", actor="cashier", at=NOON)
    field = "paid_to" if operation is redeem_chips else method_field
    before = event_count()
    with pytest.raises(AttemptRejected) as refused:
        operation(player_id=player.id, venue=venue, amount_minor=10_000, currency="EUR",
                  actor="cashier", at=NOON, **{field: method})
    assert refused.value.failure.code == "compliance.gaming_account_not_offered"
    assert refused.value.status == 422
    assert event_count() == before + 1
    assert _last_rejection(refused)["rule"] == "compliance.gaming_account_not_offered"
    assert Account.objects.get(code=f"player/{player.id}/account").balance_minor == 50_000


@pytest.mark.parametrize("local, allowed", [
    (dt.time(23, 30), False),   # 00:30 in Helsinki: in the ban
    (dt.time(5, 30), True),     # 06:30 in Helsinki: after it
], ids=["ljubljana_23_30_case", "ljubljana_05_30_case"])
def test_the_ban_runs_on_helsinki_time_at_a_ljubljana_cage(player, ljubljana, local, allowed):
    """002:L3072 is read on the ray-online rulebook's clock (Europe/Helsinki),
    one hour ahead of Ljubljana: venue time would get both cases wrong. (The
    Ljubljana cage itself moves no account money, decision
    cage.gaming_account.offered, so the pipeline is asked directly.)"""
    from casino.compliance.pipeline import Attempt, check

    at = dt.datetime.combine(dt.date(2026, 6, 16), local, tzinfo=ZoneInfo("Europe/Ljubljana"))
    verdict = check(Attempt(kind="deposit", venue=LJUBLJANA, amount_minor=10_000,
                            currency="EUR", player_id=player.id,
                            account=f"player/{player.id}/account", at=at))
    assert verdict.allowed is allowed
    if not allowed:
        assert (verdict.failure.code, verdict.failure.rulebook) == (
            "compliance.transfer_blackout", "pslive-tournaments@1")
