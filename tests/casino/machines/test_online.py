"""Online slots and solo casino games: the gaming account, the online caps, the two loss caps."""

from __future__ import annotations

import pytest

from casino.cage.commands import deposit
from casino.compliance.models import PlayerActivity
from casino.machines import commands
from casino.machines.errors import MachinesError, RoundRejected
from casino.machines.events import coin_in_account, coin_out_account
from tests.casino.conftest import make_player

from .conftest import HALL, ONLINE, balance, key, machine

pytestmark = pytest.mark.django_db


def _funded(amount_minor: int = 3_000_00, **limits):
    player = make_player(**limits)
    deposit(player_id=player.id, venue=ONLINE, amount_minor=amount_minor, currency="EUR",
            method="bank", actor="cage", idempotency_key=key("dep"))
    return player


def _online(kind: str = "online_slot", **terms) -> str:
    machine_id = key("om")
    commands.register_machine(machine_id=machine_id, venue=ONLINE, kind=kind,
                              games=["game"], actor="officer", idempotency_key=key(), **terms)
    return machine_id


def _play(machine_id, player, stakes, win=0, unit=None):
    return commands.play_round(
        machine_id=machine_id, round_id=key("r"), player_id=player.id,
        stakes=[{"option": f"o{i}", "unit": unit, "amount_minor": s}
                for i, s in enumerate(stakes)],
        total_minor=sum(stakes), win_minor=win, actor="ctl")


def test_online_slot_plays_from_the_gaming_account(venues):
    player = _funded()
    machine_id = _online()
    _play(machine_id, player, [500, 500], win=300)
    assert balance(f"player/{player.id}/account") == 3_000_00 - 1_000 + 300
    assert balance(coin_in_account(machine_id)) == 1_000
    assert balance(coin_out_account(machine_id)) == 300
    activity = PlayerActivity.objects.get(player_id=player.id, category="slots")
    assert (activity.staked_minor, activity.won_minor) == (1_000, 300)


@pytest.mark.parametrize("long_rounds, at_cap, cite", [(False, 20_00, "002:L3477"),
                                                       (True, 100_00, "002:L3479")])
def test_online_round_cap_and_the_long_interactive_flag(venues, long_rounds, at_cap, cite):
    """002:L3477 EUR 20 a round; L3479 EUR 100 in a game flagged long and interactive."""
    player = _funded()
    machine_id = _online(long_interactive_rounds=long_rounds)
    _play(machine_id, player, [at_cap])
    with pytest.raises(RoundRejected) as refused:
        _play(machine_id, player, [at_cap + 1])
    assert (refused.value.details["rule"], refused.value.details["cite"]) == (
        "compliance.max_stake", cite)


def test_the_long_rounds_flag_is_for_online_slots_only(venues):
    """002:L3479 is the only rule that allows the flag."""
    with pytest.raises(MachinesError) as refused:
        commands.register_machine(machine_id="hall-long", venue=HALL, kind="slot",
                                  games=["g"], long_interactive_rounds=True, actor="officer",
                                  idempotency_key=key())
    assert refused.value.details["cite"] == "002:L3479"


def test_two_separate_daily_loss_caps(venues):
    """002:L3082: EUR 500 a day lost on slots, and a separate EUR 500 on solo casino games."""
    player = _funded(5_000_00)
    slot = _online()
    solo = _online("online_solo_game", online_game="card_vs_house")
    for _ in range(25):
        _play(slot, player, [20_00])    # EUR 500 lost on slots
    with pytest.raises(RoundRejected) as refused:
        _play(slot, player, [1])
    assert (refused.value.details["rule"], refused.value.details["cite"]) == (
        "compliance.loss_cap", "002:L3082")
    # The casino-games counter is separate: EUR 500 more there, then no more.
    _play(solo, player, [250_00, 250_00])
    with pytest.raises(RoundRejected) as refused:
        _play(solo, player, [1])
    assert refused.value.details["rule"] == "compliance.loss_cap"
    losses = {a.category: a.loss_minor for a in PlayerActivity.objects.filter(
        player_id=player.id)}
    assert losses == {"slots": 500_00, "casino_vs_house": 500_00}


def test_a_win_brings_the_loss_back_under_the_cap(venues):
    """Decision online.loss_cap.loss_basis: the loss is stakes less wins."""
    player = _funded()
    slot = _online()
    for _ in range(24):
        _play(slot, player, [20_00])
    _play(slot, player, [20_00], win=40_00)     # lost 480 - 20 = EUR 460
    _play(slot, player, [20_00])
    _play(slot, player, [20_00])
    with pytest.raises(RoundRejected):
        _play(slot, player, [1])


def test_solo_game_stakes_are_capped_per_option(venues):
    """002:L3461: EUR 500 per betting option in a card game against the house."""
    player = _funded(5_000_00)
    solo = _online("online_solo_game", online_game="card_vs_house")
    with pytest.raises(RoundRejected) as refused:
        _play(solo, player, [500_01])
    assert refused.value.details["cite"] == "002:L3461"


def test_the_players_own_daily_limit_applies(venues):
    player = _funded(daily=50_00, monthly=1_000_00)
    slot = _online()
    _play(slot, player, [20_00])
    _play(slot, player, [20_00])
    with pytest.raises(RoundRejected) as refused:
        _play(slot, player, [10_01])
    assert refused.value.details["rule"] == "compliance.daily_spend_limit"


def test_online_round_above_the_account_is_refused(venues):
    player = _funded(10_00)
    slot = _online()
    with pytest.raises(RoundRejected) as refused:
        _play(slot, player, [10_01])
    assert refused.value.details["rule"] == "machines.insufficient_credit"


def test_an_online_machine_takes_no_cash(venues):
    slot = _online()
    with pytest.raises(MachinesError) as refused:
        commands.insert_cash(machine_id=slot, amount_minor=100, actor="ctl",
                             idempotency_key=key())
    assert refused.value.code == "machines.online_play_unavailable"
