"""A poker buy-in paid from the gaming account meets the account's rules.

Chips bought from the gaming account at a land table are a transfer out of
it: from 00:00 to 06:00 Helsinki time the account moves no money
(002:L3072), or account -> chips -> cash at the cage would withdraw during
the ban. A self-excluded player (pelikielto, 002:L3086) buys in neither from
the account nor with cash. Online a buy-in is play from the account, not a
transfer, so the ban does not stop it.
"""

from __future__ import annotations

import datetime as dt

import pytest

from casino.compliance.errors import AttemptRejected
from casino.players.commands import self_exclude
from casino.poker import commands
from casino.poker.models import Seat
from casino.rules.commands import register_venue
from ledger.models import Event
from tests.casino.conftest import HELSINKI, NOON

from .conftest import balance, funded_player, key, seat_stacks

NIGHT = dt.datetime(2026, 6, 17, 1, 0, tzinfo=HELSINKI)


def _hall_table():
    return commands.open_table(
        venue="hall-helsinki", variant="holdem", structure="no_limit",
        small_blind_minor=100, big_blind_minor=200, seats_max=9, buy_in_minor_min=10_000,
        buy_in_minor_max=40_000, rake="house_fee", rake_percent_basis_points=500,
        actor="floor", idempotency_key=key("table"), at=NOON)


def _buy_in(table_id, player_id, *, paid_with, at, seat=1):
    return commands.buy_in(table_id=table_id, seat=seat, player_id=player_id,
                           amount_minor=20_000, paid_with=paid_with, actor="floor",
                           idempotency_key=key("buy-in"), at=at)


def _rejections(player_id):
    return [e for e in Event.objects.filter(type="compliance.attempt_rejected")
            if e.payload["attempt"].get("player_id") == player_id]


@pytest.mark.parametrize(("at", "allowed"), [
    pytest.param(NIGHT.replace(hour=0, minute=0), False, id="00:00_case"),
    pytest.param(NIGHT.replace(hour=5, minute=59), False, id="05:59_case"),
    pytest.param(NIGHT.replace(hour=6, minute=0), True, id="06:00_case"),
])
def test_buy_in_from_the_account_at_a_land_table_stops_in_the_transfer_ban(venues, at,
                                                                           allowed):
    """002:L3072: from 00:00 to 06:00 no chips are bought from the gaming
    account at a hall table; the refusal is recorded and no one is seated."""
    table = _hall_table()
    player = funded_player(100_000)
    if allowed:
        assert _buy_in(table.table_id, player.id, paid_with="account", at=at).stack_minor \
            == 20_000
        return
    with pytest.raises(AttemptRejected) as refused:
        _buy_in(table.table_id, player.id, paid_with="account", at=at)
    assert refused.value.failure.code == "compliance.transfer_blackout"
    assert refused.value.failure.cite == "002:L3072"
    [recorded] = _rejections(player.id)
    assert recorded.payload["attempt"]["kind"] == "buy_in"
    assert not Seat.objects.filter(table_id=table.table_id, player_id=player.id).exists()


def test_buy_in_with_cash_is_no_account_transfer(venues):
    """002:L3072 names the gaming account: cash at the table at 01:00 buys in."""
    table = _hall_table()
    player = funded_player(100_000)
    assert _buy_in(table.table_id, player.id, paid_with="cash", at=NIGHT).stack_minor \
        == 20_000


def test_online_buy_in_from_the_account_is_play_not_a_transfer(venues):
    """Decision online.account.scope: online poker is played from the account
    at any hour; only money moved to or from it outside play is banned."""
    register_venue(code="veikkaus-online", name="veikkaus-online",
                   rulebook_id="veikkaus-online-poker")
    table = commands.open_table(
        venue="veikkaus-online", variant="holdem", structure="no_limit",
        small_blind_minor=5, big_blind_minor=10, seats_max=6, buy_in_minor_min=200,
        buy_in_minor_max=1_000, actor="floor", idempotency_key=key("table"), at=NOON)
    player = funded_player(100_000)
    result = commands.buy_in(table_id=table.table_id, seat=1, player_id=player.id,
                             amount_minor=1_000, paid_with="account", actor="web",
                             idempotency_key=key("buy-in"), at=NIGHT)
    assert result.stack_minor == 1_000


@pytest.mark.parametrize("paid_with", ["account", "cash"])
def test_self_excluded_player_does_not_buy_in(venues, paid_with):
    """002:L3086: a player under a gaming ban (self-exclusion) buys in neither
    from the account nor with cash; the refusal is recorded."""
    table = _hall_table()
    player = funded_player(100_000)
    self_exclude(player_id=player.id, months=3, venue_code="ray-online", actor="web",
                 at=NOON)
    with pytest.raises(AttemptRejected) as refused:
        _buy_in(table.table_id, player.id, paid_with=paid_with,
                at=NOON + dt.timedelta(hours=1))
    assert refused.value.failure.code == "compliance.self_excluded"
    assert refused.value.failure.cite == "002:L3086"
    assert len(_rejections(player.id)) == 1
    assert not Seat.objects.filter(table_id=table.table_id, player_id=player.id).exists()


def _cash_out(table_id, player_id, *, paid_to, at, seat=1):
    return commands.cash_out(table_id=table_id, seat=seat, player_id=player_id,
                             paid_to=paid_to, actor="floor",
                             idempotency_key=key("cash-out"), at=at)


@pytest.mark.parametrize(("at", "allowed"), [
    pytest.param(NIGHT.replace(hour=0, minute=0), False, id="00:00_case"),
    pytest.param(NIGHT.replace(hour=5, minute=59), False, id="05:59_case"),
    pytest.param(NIGHT.replace(hour=6, minute=0), True, id="06:00_case"),
])
def test_cash_out_into_the_account_at_a_land_table_stops_in_the_transfer_ban(
        venues, at, allowed):
    """002:L3072: from 00:00 to 06:00 a hall table pays no stack into the
    gaming account (table -> account would be the transfer the ban stops);
    the refusal is recorded and the player keeps the seat and the stack."""
    table = _hall_table()
    player = funded_player(100_000)
    _buy_in(table.table_id, player.id, paid_with="account", at=NOON)
    if allowed:
        result = _cash_out(table.table_id, player.id, paid_to="account", at=at)
        assert result.stack_minor == 0
        assert balance(f"player/{player.id}/account") == 100_000
        return
    with pytest.raises(AttemptRejected) as refused:
        _cash_out(table.table_id, player.id, paid_to="account", at=at)
    assert refused.value.failure.code == "compliance.transfer_blackout"
    assert refused.value.failure.cite == "002:L3072"
    [recorded] = _rejections(player.id)
    assert recorded.payload["attempt"]["kind"] == "chip_redemption"
    assert Seat.objects.get(table_id=table.table_id, number=1).player_id == player.id
    assert seat_stacks(table.table_id) == {1: 20_000}
    assert balance(f"player/{player.id}/account") == 80_000
    assert not Event.objects.filter(type="poker.player_cashed_out").exists()


@pytest.mark.parametrize("paid_to", ["cash", "chips"])
def test_cash_out_in_cash_or_chips_is_no_account_transfer(venues, paid_to):
    """002:L3072 names the gaming account: at 01:00 the stack leaves in cash
    or in the venue's chips."""
    table = _hall_table()
    player = funded_player(100_000)
    _buy_in(table.table_id, player.id, paid_with="account", at=NOON)
    result = _cash_out(table.table_id, player.id, paid_to=paid_to, at=NIGHT)
    assert result.stack_minor == 0
    assert not _rejections(player.id)


def test_online_cash_out_into_the_account_is_play_not_a_transfer(venues):
    """Decision online.account.scope: leaving an online table at 01:00 ends
    play from the account; the ban does not stop it."""
    register_venue(code="veikkaus-online", name="veikkaus-online",
                   rulebook_id="veikkaus-online-poker")
    table = commands.open_table(
        venue="veikkaus-online", variant="holdem", structure="no_limit",
        small_blind_minor=5, big_blind_minor=10, seats_max=6, buy_in_minor_min=200,
        buy_in_minor_max=1_000, actor="floor", idempotency_key=key("table"), at=NOON)
    player = funded_player(100_000)
    commands.buy_in(table_id=table.table_id, seat=1, player_id=player.id,
                    amount_minor=1_000, paid_with="account", actor="web",
                    idempotency_key=key("buy-in"), at=NOON)
    result = _cash_out(table.table_id, player.id, paid_to="account", at=NIGHT)
    assert result.stack_minor == 0
    assert balance(f"player/{player.id}/account") == 100_000
