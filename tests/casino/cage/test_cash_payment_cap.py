"""The EU cash payment cap at the cage (issue 14 item 4).

EU 2024/1624 art. 80: from 2027-07-10 a cash payment may be accepted or
made only up to EUR 10,000 (`aml.cash_payment.max` of the venue's rulebook,
dated by its effective_from). Exactly EUR 10,000.00 is paid; EUR 10,000.01
is refused and the refusal recorded. Chips for cash both ways are the cash
payments above the online ceiling a cage can see (a cash deposit that large
is refused first by the account ceiling, 002:L3070).
"""

import datetime as dt

import pytest

from casino.cage.commands import buy_chips, redeem_chips
from casino.compliance.errors import AttemptRejected
from ledger.models import Account, Event
from tests.casino.conftest import HELSINKI, make_player

from .conftest import event_count, rejection

CASINO = "casino-helsinki"
CAP = 1_000_000
BEFORE_CAP = dt.datetime(2027, 7, 9, 23, 59, tzinfo=HELSINKI)
FROM_CAP = dt.datetime(2027, 7, 10, 0, 0, tzinfo=HELSINKI)


def _chips(code: str = f"cage/{CASINO}/chips") -> int:
    account = Account.objects.filter(code=code).first()
    return account.balance_minor if account else 0


@pytest.mark.parametrize("at, amount_minor, allowed", [
    (BEFORE_CAP, CAP + 1, True),
    (FROM_CAP, CAP, True),
    (FROM_CAP, CAP + 1, False),
], ids=["day_before_over_case", "from_date_at_cap_case", "from_date_one_cent_over_case"])
def test_chips_bought_for_cash_are_capped_from_2027_07_10(venues, at, amount_minor, allowed):
    """EU 2024/1624 art. 80: no cash payment exceeding EUR 10,000 accepted."""
    player = make_player(at=at)
    before = event_count()
    if allowed:
        result = buy_chips(player_id=player.id, venue=CASINO, paid_with="cash",
                           amount_minor=amount_minor, currency="EUR", actor="cashier", at=at)
        assert result.chips_outstanding_minor == amount_minor
        return
    with pytest.raises(AttemptRejected) as refused:
        buy_chips(player_id=player.id, venue=CASINO, paid_with="cash",
                  amount_minor=amount_minor, currency="EUR", actor="cashier", at=at)
    failure = refused.value.failure
    assert (failure.code, failure.limit_minor, failure.amount_minor, failure.cite,
            failure.rulebook) == ("compliance.cash_payment_cap", CAP, CAP + 1,
                                  "EU 2024/1624 art. 80", "ray-casino@1")
    assert refused.value.message == ("a cash payment of EUR 10,000.01 is over the cash"
                                     " payment cap EUR 10,000.00")
    assert event_count() == before + 1
    recorded = Event.objects.order_by("-position").first()
    assert recorded.type == "compliance.attempt_rejected"
    assert (recorded.payload["rule"], recorded.payload["limit_minor"]) == (
        "compliance.cash_payment_cap", CAP)
    assert _chips() == 0


@pytest.mark.parametrize("at, allowed", [(BEFORE_CAP, True), (FROM_CAP, False)],
                         ids=["day_before_case", "from_date_case"])
def test_chips_redeemed_for_cash_are_capped_from_2027_07_10(venues, at, allowed):
    """EU 2024/1624 art. 80 caps cash paid out too: EUR 10,000.01 in cash for
    chips is refused and recorded from the date, EUR 10,000.00 is paid."""
    player = make_player(at=at)
    for amount in (CAP, 1):
        buy_chips(player_id=player.id, venue=CASINO, paid_with="cash", amount_minor=amount,
                  currency="EUR", actor="cashier", at=at)
    before = event_count()
    if allowed:
        result = redeem_chips(player_id=player.id, venue=CASINO, paid_to="cash",
                              amount_minor=CAP + 1, currency="EUR", actor="cashier", at=at)
        assert result.chips_outstanding_minor == 0
        return
    with pytest.raises(AttemptRejected) as refused:
        redeem_chips(player_id=player.id, venue=CASINO, paid_to="cash", amount_minor=CAP + 1,
                     currency="EUR", actor="cashier", at=at)
    assert refused.value.failure.code == "compliance.cash_payment_cap"
    assert event_count() == before + 1
    assert rejection(refused).type == "compliance.attempt_rejected"
    assert _chips() == CAP + 1
    paid = redeem_chips(player_id=player.id, venue=CASINO, paid_to="cash", amount_minor=CAP,
                        currency="EUR", actor="cashier", at=at)
    assert paid.chips_outstanding_minor == 1
