"""Tallinn cash tables: cash buy-ins under EUR 100 (003:L110), and a player
back within the hour brings the stack they left with (003:L129).

The room moves no gaming-account money (decision cage.gaming_account.offered):
buy-ins over the cash limit are in the venue's chips bought at its cage
("plaques or cash chips", 003:L110), and cash-outs are in chips."""

from __future__ import annotations

import datetime as dt

import pytest

from casino.cage.commands import deposit
from casino.poker import commands
from casino.poker.errors import PokerError
from casino.poker.models import Seat
from ledger.models import Event
from tests.casino.conftest import NOON
from tests.casino.poker.conftest import chips_for, funded_player, key

VENUE = "olympic-tallinn"


def _open():
    return commands.open_table(
        venue=VENUE, variant="holdem", structure="no_limit", small_blind_minor=100,
        big_blind_minor=200, seats_max=9, buy_in_minor_min=5_000, buy_in_minor_max=40_000,
        actor="floor", idempotency_key=key()).table_id


def _buy_in(table_id, player_id, amount_minor, paid_with="chips", at=NOON, seat=1):
    if paid_with == "chips":
        chips_for(player_id, VENUE, amount_minor)
    return commands.buy_in(table_id=table_id, seat=seat, player_id=player_id,
                           amount_minor=amount_minor, paid_with=paid_with, actor="floor",
                           idempotency_key=key(), at=at)


def _refusals(table_id):
    return [e.payload["code"] for e in Event.objects.filter(
        stream=f"table/{table_id}", type="poker.buy_in_rejected")]


@pytest.mark.parametrize(("amount_minor", "code"), [
    pytest.param(9_999, None, id="cash_under_limit_case"),
    pytest.param(10_000, "poker.cash_buy_in_too_large", id="cash_at_limit_case"),
    pytest.param(20_000, "poker.cash_buy_in_too_large", id="cash_over_limit_case"),
])
def test_cash_buy_in_is_under_one_hundred_euros(venues, amount_minor, code):
    """003:L110: a buy-in in banknotes is under EUR 100; EUR 100 or more is
    refused, recorded, and nothing is bought."""
    table_id = _open()
    player = funded_player()
    if code is None:
        assert _buy_in(table_id, player.id, amount_minor, "cash").stack_minor == amount_minor
        return
    with pytest.raises(PokerError) as refused:
        _buy_in(table_id, player.id, amount_minor, "cash")
    assert refused.value.code == code
    assert refused.value.details["limit_minor"] == 10_000
    assert refused.value.details["cite"] == "003:L110"
    assert _refusals(table_id) == [code]
    assert not Seat.objects.filter(table_id=table_id, player_id=player.id).exists()


def test_chip_buy_in_over_one_hundred_euros_is_not_a_cash_buy_in(venues):
    """003:L110 limits banknotes only: EUR 200 in cash chips is bought."""
    table_id = _open()
    player = funded_player()
    assert _buy_in(table_id, player.id, 20_000).stack_minor == 20_000


@pytest.mark.parametrize(("minutes_away", "amount_minor", "code"), [
    pytest.param(59, 29_999, "poker.return_stack_too_small", id="back_short_in_hour_case"),
    pytest.param(59, 30_000, None, id="back_with_same_stack_case"),
    pytest.param(59, 35_000, None, id="back_with_more_case"),
    pytest.param(60, 5_000, None, id="back_after_the_hour_case"),
])
def test_player_back_within_the_hour_brings_the_stack_they_left_with(
        venues, minutes_away, amount_minor, code):
    """003:L129: a player who left with EUR 300 and sits at the same table
    less than an hour later buys in for at least EUR 300 (decision
    comeback.last_move); an hour or more later the table's range applies."""
    table_id = _open()
    player = funded_player()
    left_at = NOON - dt.timedelta(hours=2)
    _buy_in(table_id, player.id, 30_000, at=left_at - dt.timedelta(minutes=30))
    commands.cash_out(table_id=table_id, seat=1, player_id=player.id, actor="floor",
                      paid_to="chips", idempotency_key=key(), at=left_at)
    back = left_at + dt.timedelta(minutes=minutes_away)
    if code is None:
        assert _buy_in(table_id, player.id, amount_minor, at=back).stack_minor == amount_minor
        return
    with pytest.raises(PokerError) as refused:
        _buy_in(table_id, player.id, amount_minor, at=back)
    assert refused.value.code == code
    assert refused.value.details["required_minor"] == 30_000
    assert refused.value.details["cite"] == "003:L129"
    assert _refusals(table_id) == [code]


def test_back_at_another_table_within_the_hour_starts_afresh(venues):
    """003:L129 speaks of the same table: another table's minimum applies."""
    first, second = _open(), _open()
    player = funded_player()
    left_at = NOON - dt.timedelta(hours=2)
    _buy_in(first, player.id, 30_000, at=left_at - dt.timedelta(minutes=30))
    commands.cash_out(table_id=first, seat=1, player_id=player.id, actor="floor",
                      paid_to="chips", idempotency_key=key(), at=left_at)
    assert _buy_in(second, player.id, 5_000,
                   at=left_at + dt.timedelta(minutes=10)).stack_minor == 5_000


def test_back_within_the_hour_may_bring_more_than_the_table_maximum(venues):
    """003:L129: a player who left with more than the maximum buy-in comes
    back with that stack, which the maximum does not refuse."""
    table_id = _open()
    player = funded_player()
    opponent = funded_player()
    _buy_in(table_id, player.id, 40_000, at=NOON - dt.timedelta(hours=3))
    _buy_in(table_id, opponent.id, 40_000, seat=2, at=NOON - dt.timedelta(hours=3))
    Seat.objects.filter(table_id=table_id, number=1).update(stack_minor=45_000)
    Seat.objects.filter(table_id=table_id, number=2).update(stack_minor=35_000)
    left_at = NOON - dt.timedelta(hours=2)
    commands.cash_out(table_id=table_id, seat=1, player_id=player.id, actor="floor",
                      paid_to="chips", idempotency_key=key(), at=left_at)
    assert _buy_in(table_id, player.id, 45_000,
                   at=left_at + dt.timedelta(minutes=30)).stack_minor == 45_000
