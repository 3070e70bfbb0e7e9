"""Cashier windows: a shift opens with a counted bank, takes transfers signed
by two, closes with a count against the expected amount; the over/short needs
a reason and a short above the rulebook's threshold raises an alert (issue 17
item 2; decision cashier.short.alert_threshold, asked by 002:L1551)."""

from __future__ import annotations

import pytest

from casino.cashier.commands import close_shift, hand_over, open_shift, transfer
from casino.cashier.errors import CashierError
from casino.cashier.models import Shift, ShiftState, Transfer
from casino.compliance.models import Alert
from casino.error_table import status_for
from ledger.models import Account, Event

VENUE = "casino-helsinki"
BANK = {"5000": 20, "2000": 25, "1000": 50}          # EUR 1,000 + 500 + 500
TWO_THOUSAND = 2_000_00


def balance(code: str) -> int:
    account = Account.objects.filter(code=code).first()
    return account.balance_minor if account else 0


def test_a_shift_opens_with_its_bank_from_the_vault(venues):
    """The bank is counted by denomination; window +B, vault -B."""
    shift = open_shift(venue=VENUE, window="w1", bank=BANK, actor="cara",
                       idempotency_key="open-1")
    assert (shift.state, shift.cashier, shift.bank_minor) == (ShiftState.OPEN, "cara",
                                                              TWO_THOUSAND)
    assert shift.bank == {"5000": 20, "2000": 25, "1000": 50}
    assert balance(f"cage/{VENUE}/windows/w1") == TWO_THOUSAND
    assert balance(f"cage/{VENUE}/vault") == -TWO_THOUSAND


def test_a_window_holds_one_open_shift(venues):
    open_shift(venue=VENUE, window="w1", bank=BANK, actor="cara")
    events = Event.objects.count()
    with pytest.raises(CashierError) as refused:
        open_shift(venue=VENUE, window="w1", bank=BANK, actor="cecil")
    assert refused.value.code == "cashier.window_busy"
    assert status_for(refused.value.code) == 409
    assert Event.objects.count() == events


def test_an_exact_count_closes_without_a_reason_and_returns_the_cash(venues):
    open_shift(venue=VENUE, window="w1", bank=BANK, actor="cara")
    shift = close_shift(venue=VENUE, window="w1", count=BANK, actor="cara")
    assert (shift.state, shift.expected_minor, shift.counted_minor,
            shift.over_short_minor) == (ShiftState.CLOSED, TWO_THOUSAND, TWO_THOUSAND, 0)
    assert balance(f"cage/{VENUE}/windows/w1") == 0
    assert balance(f"cage/{VENUE}/vault") == 0


def test_a_short_needs_a_reason(venues):
    """Over/short with a required reason; refused without one, nothing written."""
    open_shift(venue=VENUE, window="w1", bank=BANK, actor="cara")
    events = Event.objects.count()
    short = {**BANK, "1000": 49}
    with pytest.raises(CashierError) as refused:
        close_shift(venue=VENUE, window="w1", count=short, actor="cara")
    assert refused.value.code == "cashier.reason_required"
    assert refused.value.details["over_short_minor"] == -10_00
    assert Event.objects.count() == events
    shift = close_shift(venue=VENUE, window="w1", count=short, actor="cara",
                        reason="EUR 10 note paid twice at 14:10")
    assert (shift.over_short_minor, shift.reason) == (-10_00, "EUR 10 note paid twice at 14:10")
    assert balance(f"cage/{VENUE}/over_short") == 10_00
    assert balance(f"cage/{VENUE}/windows/w1") == 0
    assert not Alert.objects.filter(kind="cash_short").exists()


@pytest.mark.parametrize(("short_minor", "alerts"), [
    (50_00, 0),     # _case at the threshold: no alert
    (100_00, 1),    # _case above it
])
def test_a_short_above_the_threshold_raises_an_alert(venues, short_minor, alerts):
    """Decision cashier.short.alert_threshold (ray-casino, EUR 50.00): more than
    the figure short raises a cash_short alert; at the figure, none."""
    open_shift(venue=VENUE, window="w1", bank=BANK, actor="cara")
    count = {**BANK, "5000": 20 - short_minor // 50_00} if short_minor % 50_00 == 0 else BANK
    close_shift(venue=VENUE, window="w1", count=count, actor="cara", reason="note missing")
    raised = Alert.objects.filter(kind="cash_short")
    assert raised.count() == alerts
    if alerts:
        alert = raised.get()
        assert alert.details["short_minor"] == short_minor
        assert alert.details["threshold_minor"] == 50_00
        assert alert.details["cite"] == "decision cashier.short.alert_threshold"


def test_transfers_need_two_different_signers(venues):
    open_shift(venue=VENUE, window="w1", bank=BANK, actor="cara")
    events = Event.objects.count()
    for signed in (["cara"], ["cara", "cara"], ["vera", "viktor"]):
        with pytest.raises(CashierError) as refused:
            transfer(venue=VENUE, source="vault", target="window:w1", count={"5000": 10},
                     signed_by=signed, actor="cara")
        assert refused.value.code == "cashier.signatures_required"
    assert Event.objects.count() == events


def test_a_transfer_moves_the_expected_amount(venues):
    """Vault -> window -> table: the window's expected amount follows."""
    open_shift(venue=VENUE, window="w1", bank=BANK, actor="cara")
    transfer(venue=VENUE, source="vault", target="window:w1", count={"5000": 10},
             signed_by=["vera", "cara"], actor="cara", idempotency_key="t-1")
    transfer(venue=VENUE, source="window:w1", target="table:bj-1", count={"2000": 5},
             signed_by=["cara", "dan"], actor="cara", idempotency_key="t-2")
    assert Transfer.objects.count() == 2
    assert (Transfer.objects.get(target="window:w1").first_signature,
            Transfer.objects.get(target="window:w1").second_signature) == ("vera", "cara")
    assert balance(f"cage/{VENUE}/trays/bj-1") == 100_00
    with pytest.raises(CashierError) as refused:
        close_shift(venue=VENUE, window="w1", count=BANK, actor="cara")
    assert refused.value.details["expected_minor"] == TWO_THOUSAND + 500_00 - 100_00
    shift = close_shift(venue=VENUE, window="w1", count={**BANK, "5000": 28},
                        actor="cara")
    assert shift.over_short_minor == 0


def test_a_transfer_to_a_window_without_a_shift_is_refused(venues):
    with pytest.raises(CashierError) as refused:
        transfer(venue=VENUE, source="vault", target="window:w9", count={"5000": 1},
                 signed_by=["vera", "cara"], actor="cara")
    assert refused.value.code == "cashier.no_open_shift"


def test_a_handover_is_a_close_and_an_open(venues):
    open_shift(venue=VENUE, window="w1", bank=BANK, actor="cara")
    closed, opened = hand_over(venue=VENUE, window="w1", count=BANK, bank=BANK,
                               to_cashier="cecil", actor="cara", idempotency_key="h-1")
    assert (closed.cashier, closed.state) == ("cara", ShiftState.CLOSED)
    assert (opened.cashier, opened.state) == ("cecil", ShiftState.OPEN)
    assert Shift.objects.count() == 2


def test_a_replayed_open_writes_once(venues):
    first = open_shift(venue=VENUE, window="w1", bank=BANK, actor="cara",
                       idempotency_key="same")
    again = open_shift(venue=VENUE, window="w1", bank=BANK, actor="cara",
                       idempotency_key="same")
    assert first.id == again.id
    assert Event.objects.filter(type="cashier.shift_opened").count() == 1


def test_a_bad_count_is_refused(venues):
    for count in ({"abc": 1}, {"5000": -1}, {"0": 3}, {"5000": 1.5}):
        with pytest.raises(CashierError) as refused:
            open_shift(venue=VENUE, window="w1", bank=count, actor="cara")
        assert refused.value.code == "cashier.invalid_request"


def test_cage_operations_at_a_window_move_its_expected_amount(venues):
    """A deposit and a withdrawal in cash naming window w1 are counted at its close."""
    from casino.cage.commands import deposit, withdraw
    from tests.casino.conftest import make_player

    player = make_player()
    open_shift(venue=VENUE, window="w1", bank=BANK, actor="cara")
    deposit(player_id=player.id, venue=VENUE, amount_minor=300_00, currency="EUR",
            method="cash", actor="cara", window="w1")
    withdraw(player_id=player.id, venue=VENUE, amount_minor=100_00, currency="EUR",
             method="cash", actor="cara", window="w1")
    assert balance(f"cage/{VENUE}/windows/w1") == TWO_THOUSAND + 200_00
    assert balance(f"cage/{VENUE}/cash") == 0
    assert Event.objects.filter(type="cage.cash_deposited").get().payload["window"] == "w1"
    with pytest.raises(CashierError) as refused:
        close_shift(venue=VENUE, window="w1", count=BANK, actor="cara")
    assert refused.value.details["expected_minor"] == TWO_THOUSAND + 200_00


def test_a_window_without_a_shift_takes_no_cash(venues):
    from casino.cage.commands import deposit
    from casino.errors import CodedError
    from tests.casino.conftest import make_player

    player = make_player()
    events = Event.objects.count()
    with pytest.raises(CodedError) as refused:
        deposit(player_id=player.id, venue=VENUE, amount_minor=300_00, currency="EUR",
                method="cash", actor="cara", window="w7")
    assert refused.value.code == "cage.window_not_open"
    assert status_for(refused.value.code) == 409
    assert Event.objects.count() == events


def test_the_api_takes_an_optional_window(venues):
    from tests.casino.api.conftest import client_for
    from tests.casino.conftest import make_player
    from casino.roles import Role

    player = make_player()
    open_shift(venue=VENUE, window="w2", bank=BANK, actor="cara")
    client = client_for(Role.CAGE)
    body = {"player_id": player.id, "venue": VENUE, "amount": "50.00", "currency": "EUR",
            "method": "cash"}
    without = client.post("/api/v1/cage/deposits", body, format="json",
                          HTTP_IDEMPOTENCY_KEY="d-1")
    at_window = client.post("/api/v1/cage/deposits", {**body, "window": "w2"}, format="json",
                            HTTP_IDEMPOTENCY_KEY="d-2")
    assert (without.status_code, at_window.status_code) == (201, 201)
    assert balance(f"cage/{VENUE}/windows/w2") == TWO_THOUSAND + 50_00
    assert balance(f"cage/{VENUE}/cash") == 50_00
