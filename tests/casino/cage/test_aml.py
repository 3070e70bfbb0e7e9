"""AML: cash summed per player, venue and gaming day; threshold and structuring alerts."""

import datetime as dt

import pytest

from casino.cage.commands import buy_chips, deposit, redeem_chips, withdraw
from casino.compliance.models import Alert, CashActivity
from ledger.models import Event
from tests.casino.conftest import NOON, make_player

from .conftest import request_events

CASINO = "casino-helsinki"
POKER = "poker-helsinki"
ONLINE = "ray-online"


def _cash(command, player, amount_minor, *, at=NOON, venue=CASINO, **method):
    return command(player_id=player.id, venue=venue, amount_minor=amount_minor,
                   currency="EUR", actor="cashier", at=at, **method)


def _alerts(kind: str) -> list[Alert]:
    return list(Alert.objects.filter(kind=kind).order_by("raised_position"))


def test_cash_crossing_the_threshold_over_a_gaming_day_raises_one_alert(player):
    """Below EUR 2,000 each, together over it: exactly one aml_threshold alert.

    EU 2015/849 art. 11(d): operations that appear linked count together; in
    and out both count.
    """
    first = _cash(deposit, player, 80_000)
    second = _cash(buy_chips, player, 70_000)
    crossing = _cash(redeem_chips, player, 60_000)
    after = _cash(withdraw, player, 50_000)
    assert (first.alerts, second.alerts, crossing.alerts, after.alerts) == (
        (), (), ("aml_threshold",), ())
    (alert,) = _alerts("aml_threshold")
    assert crossing.positions == (crossing.position, crossing.position + 1)
    assert alert.raised_position == crossing.position + 1
    assert (alert.player_id, alert.venue) == (player.id, CASINO)
    assert alert.summary == ("cash of EUR 2,100.00 at casino-helsinki on 2026-06-16 reached"
                             " the due diligence threshold EUR 2,000.00"
                             " (EU 2015/849 art. 11)")
    assert alert.details == {
        "gaming_day": "2026-06-16", "amount_minor": 60_000, "currency": "EUR",
        "threshold_minor": 200_000, "total_minor": 210_000, "transactions": 3,
        "rulebook": "ray-casino@1", "cite": "EU 2015/849 art. 11",
        "cdd_required": True, "identity_verified": True,
        "hint": ("Customer due diligence is required: confirm the identity and record"
                 " the purpose and source of the funds; screen for sanctions and"
                 " politically exposed persons."),
    }
    row = CashActivity.objects.get(player_id=player.id, gaming_day=dt.date(2026, 6, 16))
    assert (row.total_minor, row.transactions) == (260_000, 4)


def test_the_alert_is_on_the_player_stream_in_the_same_append(player):
    """The cage event and its alert share one request: one key, consecutive versions."""
    _cash(deposit, player, 150_000)
    crossing = deposit(player_id=player.id, venue=CASINO, amount_minor=50_000, currency="EUR",
                       actor="cashier", idempotency_key="dep-aml", at=NOON)
    cage_event, alert_event = request_events("dep-aml")
    assert (cage_event.type, alert_event.type) == ("cage.cash_deposited",
                                                   "compliance.alert_raised")
    assert cage_event.stream == alert_event.stream == f"player/{player.id}"
    assert alert_event.version == cage_event.version + 1
    replayed = deposit(player_id=player.id, venue=CASINO, amount_minor=50_000, currency="EUR",
                       actor="cashier", idempotency_key="dep-aml", at=NOON)
    assert replayed.alerts == crossing.alerts == ("aml_threshold",)
    assert len(_alerts("aml_threshold")) == 1


def test_reaching_the_threshold_exactly_raises_the_alert(player):
    """From EUR 2,000 (aml.cdd.transaction_threshold) CDD applies: at it, not above it."""
    below = _cash(deposit, player, 199_999)
    at_threshold = _cash(deposit, player, 1)
    assert (below.alerts, at_threshold.alerts) == ((), ("aml_threshold",))


def test_one_transaction_of_the_threshold_raises_the_alert_alone(player):
    """A single EUR 2,000 cash purchase needs no aggregation to count."""
    assert _cash(buy_chips, player, 200_000).alerts == ("aml_threshold",)


def test_a_new_gaming_day_starts_from_zero_and_can_alert_again(player):
    """The next gaming day's crossing is a new alert; the same day's is not repeated."""
    _cash(deposit, player, 250_000)
    _cash(withdraw, player, 10_000)
    next_day = NOON + dt.timedelta(days=1)
    first = _cash(deposit, player, 150_000, at=next_day)
    crossing = _cash(buy_chips, player, 50_000, at=next_day)
    assert (first.alerts, crossing.alerts) == ((), ("aml_threshold",))
    alerts = _alerts("aml_threshold")
    assert [a.details["gaming_day"] for a in alerts] == ["2026-06-16", "2026-06-17"]


def test_money_not_in_cash_does_not_count(player):
    """Bank transfers and chips paid from or to the account carry no cash block."""
    deposit(player_id=player.id, venue=ONLINE, amount_minor=300_000, currency="EUR",
            method="bank", actor="web", at=NOON)
    _cash(buy_chips, player, 250_000, paid_with="account")
    _cash(redeem_chips, player, 250_000, paid_to="account")
    assert not CashActivity.objects.exists()
    assert not Alert.objects.exists()


def test_each_venue_sums_its_own_cash(player):
    """EUR 1,500 at two venues on one day stays under the threshold at each."""
    _cash(buy_chips, player, 150_000, venue=CASINO)
    _cash(buy_chips, player, 150_000, venue=POKER)
    assert not _alerts("aml_threshold")


def test_near_threshold_cash_on_consecutive_days_raises_a_structuring_alert(player):
    """Decision: 90% to 100% of the threshold twice within seven gaming days."""
    first = _cash(deposit, player, 180_000)
    second = _cash(deposit, player, 185_000, at=NOON + dt.timedelta(days=1))
    assert (first.alerts, second.alerts) == ((), ("aml_structuring",))
    (alert,) = _alerts("aml_structuring")
    assert alert.summary == ("2 cash transactions just under the threshold EUR 2,000.00"
                             " within 7 gaming days, the last at casino-helsinki on"
                             " 2026-06-17")
    assert alert.details["near_threshold_minor"] == 180_000
    assert alert.details["near_transactions"] == 2
    assert alert.details["window_days"] == 7
    assert alert.details["gaming_day"] == "2026-06-17"
    assert Event.objects.get(position=first.position).payload["cash"]["near_threshold"] is True


def test_structuring_alerts_once_per_player_venue_and_gaming_day(player):
    """Three near-threshold amounts in a day: one structuring and one threshold alert."""
    results = [_cash(buy_chips, player, 190_000) for _ in range(3)]
    assert [r.alerts for r in results] == [
        (), ("aml_threshold", "aml_structuring"), ()]
    assert len(_alerts("aml_structuring")) == 1
    assert len(_alerts("aml_threshold")) == 1


def test_structuring_counts_near_threshold_cash_at_other_venues(player):
    """Keeping under the threshold by changing venue is caught too."""
    _cash(buy_chips, player, 195_000, venue=POKER)
    second = _cash(buy_chips, player, 195_000, venue=CASINO)
    assert second.alerts == ("aml_structuring",)
    assert Alert.objects.get(kind="aml_structuring").venue == CASINO


@pytest.mark.parametrize(
    "first_minor, second_minor, days_apart",
    [
        (179_999, 190_000, 1),
        (190_000, 200_000, 1),
        (190_000, 190_000, 7),
    ],
    ids=["under_90_percent", "at_the_threshold", "eight_days_apart"],
)
def test_amounts_outside_the_structuring_rule_raise_no_structuring_alert(
        player, first_minor, second_minor, days_apart):
    """Below 90%, at the threshold itself, or more than seven gaming days apart."""
    _cash(deposit, player, first_minor)
    _cash(deposit, player, second_minor, at=NOON + dt.timedelta(days=days_apart))
    assert not _alerts("aml_structuring")


def test_cash_out_by_an_unverified_player_alerts_with_identity_unverified(venues):
    """Redemptions need no verified identity, so the alert says CDD is still due."""
    verified, unverified = make_player(), make_player(verified=False)
    _cash(buy_chips, verified, 250_000)
    result = _cash(redeem_chips, unverified, 200_000)
    assert result.alerts == ("aml_threshold",)
    alert = Alert.objects.get(kind="aml_threshold", player_id=unverified.id)
    assert alert.details["identity_verified"] is False
    assert alert.details["cdd_required"] is True
