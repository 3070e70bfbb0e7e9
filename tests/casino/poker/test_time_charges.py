"""Time charges: rake and jackpot fee by time instead of by pot."""

from __future__ import annotations

import pytest

from casino.poker import commands
from casino.poker.errors import PokerError
from casino.poker.events import house_rake, jackpot_pending
from casino.roles import Role
from ledger.models import Event
from tests.casino.api.conftest import client_for, post
from tests.casino.poker.conftest import (
    assert_table_balanced,
    balance,
    key,
    seat_players,
    seat_stacks,
)


def _open(venue, **options):
    return commands.open_table(
        venue=venue, variant="holdem", structure="no_limit", small_blind_minor=100,
        big_blind_minor=200, seats_max=9, buy_in_minor_min=10_000, buy_in_minor_max=40_000,
        actor="floor", idempotency_key=key(), **options)


def _charge(table_id, players=()):
    return commands.charge_time(table_id=table_id, consenting_players=list(players),
                                actor="floor", idempotency_key=key())


def test_tallinn_time_rake_is_thirty_euros_a_half_hour_shared(venues):
    """003:L140: EUR 30 per 30 minutes, shared equally, three players or fewer,
    by the players' agreement (decision time_rake.basis: per table)."""
    table = _open("olympic-tallinn", rake="time_rake")
    players = seat_players(table.table_id, {1: 20_000, 2: 20_000, 3: 20_000})
    house = balance(house_rake("olympic-tallinn"))
    result = _charge(table.table_id, players.values())
    assert (result.rake_minor, result.jackpot_minor, result.period_minutes) == (3_000, 0, 30)
    assert seat_stacks(table.table_id) == {1: 19_000, 2: 19_000, 3: 19_000}
    assert balance(house_rake("olympic-tallinn")) - house == 3_000
    assert_table_balanced(table.table_id)


def test_tallinn_time_rake_refuses_a_fourth_player_and_a_missing_consent(venues):
    table = _open("olympic-tallinn", rake="time_rake")
    players = seat_players(table.table_id, {1: 20_000, 2: 20_000, 3: 20_000})
    with pytest.raises(PokerError) as caught:
        _charge(table.table_id, list(players.values())[:2])
    assert caught.value.code == "poker.time_charge_consent_missing"
    assert caught.value.details["missing"] == [players[3]]
    fourth = seat_players(table.table_id, {4: 20_000})
    with pytest.raises(PokerError) as caught:
        _charge(table.table_id, [*players.values(), *fourth.values()])
    assert caught.value.code == "poker.time_charge_not_allowed"
    assert Event.objects.filter(type="poker.time_charge_rejected").count() == 2
    assert seat_stacks(table.table_id) == {1: 20_000, 2: 20_000, 3: 20_000, 4: 20_000}


def test_a_time_charged_room_table_takes_no_pot_rake(venues):
    """000:L464-465: the rake may be a charge by time played instead."""
    table = _open("poker-helsinki", rake="time_charge", time_charge_minor=600,
                  time_charge_period_minutes=30)
    seat_players(table.table_id, {1: 20_000, 2: 20_000})
    assert _charge(table.table_id).rake_minor == 1_200
    hand = commands.start_hand(table_id=table.table_id, button=1, actor="t",
                               idempotency_key=key())
    for seat, kind in ((1, "call"), (2, "check")):
        hand = commands.act(hand_id=hand.hand_id, seat=seat, kind=kind, actor="t",
                            idempotency_key=key())
    for _ in range(3):
        for seat in (2, 1):
            hand = commands.act(hand_id=hand.hand_id, seat=seat, kind="check", actor="t",
                                idempotency_key=key())
    hand = commands.showdown(hand_id=hand.hand_id, board="2c 7d 9h Js 4c",
                             hands={1: "As Ah", 2: "Kd Kc"}, claimed_awards={1: 400},
                             actor="t", idempotency_key=key())
    assert (hand.state, hand.rake_minor) == ("settled", 0)
    assert seat_stacks(table.table_id) == {1: 19_600, 2: 19_200}


def test_the_jackpot_fee_by_time_replaces_the_drop_per_hand(venues):
    """000:L2876-2879: EUR 40 per started hour per table, every player agreeing."""
    table = _open("poker-helsinki", jackpot=True, jackpot_fee="time_60")
    assert table.drop is None and table.jackpot_time_fee["amount_minor"] == 4_000
    players = seat_players(table.table_id, {n: 20_000 for n in range(1, 6)})
    pending = balance(jackpot_pending("poker-helsinki"))
    result = _charge(table.table_id, players.values())
    assert (result.rake_minor, result.jackpot_minor) == (0, 4_000)
    assert set(seat_stacks(table.table_id).values()) == {19_200}
    assert balance(jackpot_pending("poker-helsinki")) - pending == 4_000
    with pytest.raises(PokerError) as caught:
        _charge(table.table_id)
    assert caught.value.code == "poker.time_charge_consent_missing"


def test_a_stack_short_of_its_share_or_a_running_hand_is_a_409(venues):
    table = _open("poker-helsinki", rake="time_charge", time_charge_minor=600,
                  time_charge_period_minutes=30)
    seat_players(table.table_id, {1: 20_000, 2: 20_000})
    commands.start_hand(table_id=table.table_id, button=1, actor="t", idempotency_key=key())
    with pytest.raises(PokerError) as caught:
        _charge(table.table_id)
    assert caught.value.status == 409
    pot_table = _open("poker-helsinki")
    seat_players(pot_table.table_id, {1: 20_000, 2: 20_000})
    with pytest.raises(PokerError) as caught:
        _charge(pot_table.table_id)
    assert caught.value.code == "poker.no_time_charge"


def test_time_charges_over_the_api(venues):
    client = client_for(Role.TABLE_CONTROLLER)
    response = post(client, "/api/v1/poker/tables", {
        "venue": "olympic-tallinn", "variant": "holdem", "structure": "no_limit",
        "small_blind": "1.00", "big_blind": "2.00", "seats_max": 9,
        "buy_in_min": "100.00", "buy_in_max": "400.00", "rake": "time_rake"}, key=key())
    assert response.status_code == 201, response.content
    table_id = response.json()["table_id"]
    players = seat_players(table_id, {1: 20_000, 2: 20_000})
    response = post(client, f"/api/v1/poker/tables/{table_id}/time-charges",
                    {"consenting_players": list(players.values())}, key=key())
    assert response.status_code == 201, response.content
    assert response.json()["stacks_minor"] == {"1": 18_500, "2": 18_500}
    response = post(client, f"/api/v1/poker/tables/{table_id}/time-charges",
                    {"consenting_players": []}, key=key())
    assert response.status_code == 422
    assert response.json()["code"] == "poker.time_charge_consent_missing"


def test_a_jackpot_table_of_an_unlisted_variant_is_refused(venues):
    """Sviten and unlisted games neither pay nor are charged (000:L2910, L2937-2938)."""
    with pytest.raises(PokerError) as caught:
        commands.open_table(
            venue="poker-helsinki", variant="double_flop", structure="no_limit",
            small_blind_minor=100, big_blind_minor=200, seats_max=9,
            buy_in_minor_min=10_000, buy_in_minor_max=40_000, jackpot=True,
            actor="floor", idempotency_key=key())
    assert caught.value.details["cite"] == "000:L2910, L2937-2938"
    assert _open("poker-helsinki").jackpot is None


def test_the_jackpot_fee_consent_is_the_rulebooks_000_L2876(venues, monkeypatch):
    """000:L2876 (jackpot.bad_beat.time_charge.requires_all_players_consent):
    the room's rulebook asks every player's consent, and the refusal is
    recorded; a rulebook version that did not ask would charge the fee by
    time without it."""
    import datetime as dt

    from casino.poker.commands.tables import FEE_CONSENT_FIGURE
    from casino.rules import queries as rules

    table = _open("poker-helsinki", jackpot=True, jackpot_fee="time_60")
    seat_players(table.table_id, {n: 20_000 for n in range(1, 6)})
    rulebook = rules.rulebook_in_force("veikkaus-poker-room", dt.date(2026, 6, 16))
    row = rules.figures(rulebook)[FEE_CONSENT_FIGURE]
    assert (row.value, row.cite) == (True, "000:L2876")
    with pytest.raises(PokerError) as caught:
        _charge(table.table_id)
    assert caught.value.code == "poker.time_charge_consent_missing"
    assert Event.objects.filter(type="poker.time_charge_rejected").count() == 1
    monkeypatch.setattr(row, "value", False)   # the cached row, this test only
    assert _charge(table.table_id).jackpot_minor == 4_000
