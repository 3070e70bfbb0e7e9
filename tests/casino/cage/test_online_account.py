"""The online gaming account: transfer blackout, ceiling, no credit (002 §7.4)."""

import datetime as dt

import pytest

from casino.cage.commands import buy_chips, deposit, redeem_chips, withdraw
from casino.cage.errors import CageError, CageErrorCode
from casino.compliance.errors import AttemptRejected
from ledger.models import Account, Event
from tests.casino.conftest import HELSINKI, NOON, make_player

from .conftest import event_count, rejection, request_event_count

ONLINE = "ray-online"
CASINO = "casino-helsinki"


def _helsinki(day: int, hour: int, minute: int) -> dt.datetime:
    return dt.datetime(2026, 6, day, hour, minute, tzinfo=HELSINKI)


@pytest.mark.parametrize(
    "at, allowed",
    [
        (_helsinki(16, 23, 59), True),
        (_helsinki(17, 0, 0), False),
        (_helsinki(17, 5, 59), False),
        (_helsinki(17, 6, 0), True),
    ],
    ids=["23:59_case", "00:00_case", "05:59_case", "06:00_case"],
)
def test_deposits_stop_between_midnight_and_six_helsinki_time(venues, at, allowed):
    """002:L3072: no transfers to the gaming account from 24:00 to 06:00."""
    player = make_player()
    before = event_count()
    if allowed:
        before = request_event_count()
        result = deposit(player_id=player.id, venue=ONLINE, amount_minor=10_000,
                         currency="EUR", method="bank", actor="web", at=at)
        assert result.account_balance_minor == 10_000
        # The deposit; bank clearing and account open (venue books: and the
        # companion and clearing between books, not counted).
        assert request_event_count() == before + 1 + 2
        return
    with pytest.raises(AttemptRejected) as refused:
        deposit(player_id=player.id, venue=ONLINE, amount_minor=10_000, currency="EUR",
                method="bank", actor="web", at=at)
    assert refused.value.status == 422
    assert refused.value.details["rule"] == "compliance.transfer_blackout"
    assert refused.value.details["cite"] == "002:L3072"
    assert refused.value.message == ("no transfers to or from the gaming account between"
                                     " 00:00 and 06:00 Europe/Helsinki time")
    assert event_count() == before + 1
    assert Event.objects.last().type == "compliance.attempt_rejected"
    assert not Account.objects.filter(code=f"player/{player.id}/account").exists()


def test_withdrawals_stop_in_the_blackout_too(player):
    """The ban names both directions (ray-online decision transfer_blackout)."""
    deposit(player_id=player.id, venue=ONLINE, amount_minor=10_000, currency="EUR",
            method="bank", actor="web", at=NOON)
    before = event_count()
    with pytest.raises(AttemptRejected) as refused:
        withdraw(player_id=player.id, venue=ONLINE, amount_minor=5_000, currency="EUR",
                 method="bank", actor="web", at=_helsinki(17, 3, 0))
    assert refused.value.details["rule"] == "compliance.transfer_blackout"
    assert event_count() == before + 1
    assert Account.objects.get(code=f"player/{player.id}/account").balance_minor == 10_000


def test_a_deposit_up_to_the_ceiling_is_accepted_and_one_cent_more_refused(player):
    """002:L3070: the balance may reach EUR 5,000.00 and no more."""
    at_ceiling = deposit(player_id=player.id, venue=ONLINE, amount_minor=500_000,
                         currency="EUR", method="bank", actor="web", at=NOON)
    assert at_ceiling.account_balance_minor == 500_000
    before = event_count()
    with pytest.raises(AttemptRejected) as refused:
        deposit(player_id=player.id, venue=ONLINE, amount_minor=1, currency="EUR",
                method="bank", actor="web", at=NOON)
    details = refused.value.details
    assert (details["rule"], details["limit_minor"], details["amount_minor"], details["cite"],
            details["rulebook"]) == ("compliance.account_ceiling", 500_000, 1, "002:L3070",
                                     "ray-online@1")
    assert refused.value.message == ("the deposit would take the gaming account over"
                                     " EUR 5,000.00")
    assert event_count() == before + 1
    assert Account.objects.get(code=f"player/{player.id}/account").balance_minor == 500_000


def test_a_deposit_that_would_cross_the_ceiling_is_refused(player):
    """EUR 4,999.99 held: a deposit of two cents goes over and is refused."""
    deposit(player_id=player.id, venue=ONLINE, amount_minor=499_999, currency="EUR",
            method="bank", actor="web", at=NOON)
    with pytest.raises(AttemptRejected) as refused:
        deposit(player_id=player.id, venue=ONLINE, amount_minor=2, currency="EUR",
                method="bank", actor="web", at=NOON)
    assert refused.value.details["rule"] == "compliance.account_ceiling"
    one_cent = deposit(player_id=player.id, venue=ONLINE, amount_minor=1, currency="EUR",
                       method="bank", actor="web", at=NOON)
    assert one_cent.account_balance_minor == 500_000


@pytest.mark.parametrize("venue, method", [(CASINO, "cash"), (ONLINE, "bank")],
                         ids=["land_cage_case", "online_case"])
def test_a_deposit_over_the_ceiling_is_refused_and_recorded_anywhere(player, venue, method):
    """The ceiling goes with the gaming account (002:L3070), so a land cage
    meets it too, and a first deposit counts from zero: the pipeline refuses
    and records it, and nothing else is written."""
    before = event_count()
    with pytest.raises(AttemptRejected) as refused:
        deposit(player_id=player.id, venue=venue, amount_minor=500_001, currency="EUR",
                method=method, actor="cashier", at=NOON)
    assert refused.value.failure.code == "compliance.account_ceiling"
    assert (refused.value.failure.limit_minor, refused.value.failure.cite) == (500_000,
                                                                              "002:L3070")
    assert event_count() == before + 1
    assert rejection(refused).type == "compliance.attempt_rejected"
    assert not Account.objects.filter(code=f"player/{player.id}/account").exists()


def test_chips_redeemed_into_the_account_over_the_ceiling_are_refused_and_recorded(player):
    """002:L3070 (ray-online decision online.account.scope): chips redeemed
    into the gaming account are money paid into it, so the pipeline refuses
    and records one over the ceiling, as it does a deposit."""
    deposit(player_id=player.id, venue=CASINO, method="cash", amount_minor=450_000,
            currency="EUR", actor="cashier", at=NOON)
    buy_chips(player_id=player.id, venue=CASINO, paid_with="cash", amount_minor=60_000,
              currency="EUR", actor="cashier", at=NOON)
    before = event_count()
    with pytest.raises(AttemptRejected) as refused:
        redeem_chips(player_id=player.id, venue=CASINO, paid_to="account",
                     amount_minor=50_001, currency="EUR", actor="cashier", at=NOON)
    assert (refused.value.failure.code, refused.value.failure.limit_minor,
            refused.value.failure.cite) == ("compliance.account_ceiling", 500_000, "002:L3070")
    assert refused.value.message == ("the redemption would take the gaming account over"
                                     " EUR 5,000.00")
    assert event_count() == before + 1
    assert rejection(refused).type == "compliance.attempt_rejected"
    assert Account.objects.get(code=f"player/{player.id}/account").balance_minor == 450_000


def test_the_online_account_never_goes_negative(player):
    """002:L3033: no credit; the whole balance can be withdrawn, not a cent more."""
    deposit(player_id=player.id, venue=ONLINE, amount_minor=20_000, currency="EUR",
            method="bank", actor="web", at=NOON)
    before = event_count()
    with pytest.raises(CageError) as refused:
        withdraw(player_id=player.id, venue=ONLINE, amount_minor=20_001, currency="EUR",
                 method="bank", actor="web", at=NOON)
    assert refused.value.code == CageErrorCode.INSUFFICIENT_FUNDS
    assert event_count() == before
    result = withdraw(player_id=player.id, venue=ONLINE, amount_minor=20_000, currency="EUR",
                      method="bank", actor="web", at=NOON)
    assert result.account_balance_minor == 0


def test_one_gaming_account_serves_every_venue(player):
    """002:L3064: money paid in online can be drawn in cash at the casino cage."""
    deposit(player_id=player.id, venue=ONLINE, amount_minor=30_000, currency="EUR",
            method="bank", actor="web", at=NOON)
    result = withdraw(player_id=player.id, venue=CASINO, amount_minor=12_500, currency="EUR",
                      method="cash", actor="cashier", at=NOON)
    assert result.account_balance_minor == 17_500
    assert result.cage_cash_minor == -12_500
    assert Account.objects.filter(code__startswith=f"player/{player.id}/").count() == 1


def test_the_account_blackout_holds_at_a_land_cage_too(player):
    """002:L3072 goes with the gaming account: no cash into it at 02:00 at the
    casino cage, while chips for cash, which leave the account alone, are fine."""
    night = dt.datetime(2026, 6, 17, 2, 0, tzinfo=HELSINKI)
    with pytest.raises(AttemptRejected) as refused:
        deposit(player_id=player.id, venue=CASINO, method="cash", amount_minor=10_000,
                currency="EUR", actor="cashier", at=night)
    assert refused.value.failure.code == "compliance.transfer_blackout"
    buy_chips(player_id=player.id, venue=CASINO, paid_with="cash", amount_minor=10_000,
              currency="EUR", actor="cashier", at=night)
    assert Account.objects.get(code=f"cage/{CASINO}/chips").balance_minor == 10_000
