"""Rounds, bets through compliance, settlement postings, voids and disputes."""

from __future__ import annotations

import pytest

from casino.accounts import gaming_account
from casino.compliance.errors import AttemptRejected
from casino.compliance.models import Alert, AlertKind
from casino.games import commands
from casino.games.errors import GamesError
from casino.games.events import (
    BET_REJECTED,
    OUTCOME_REJECTED,
    house_commission,
    house_games,
    table_stakes,
)
from casino.games.models import Bet, GameTable, Round
from ledger import rebuild_projections
from ledger.models import Event

from .conftest import balance, funded_player, key, officer


def roulette_table(venue="casino-helsinki", **kwargs):
    return commands.open_table(venue=venue, game="roulette", stake_minor_min=100,
                               stake_minor_max=kwargs.pop("stake_minor_max", 10_000_00),
                               actor="floor", idempotency_key=key("table"), **kwargs)


def open_round(table_id):
    return commands.open_round(table_id=table_id, actor="floor", idempotency_key=key("round"))


def bet(round_id, player_id, kind, spec, stake, **kw):
    return commands.place_bet(round_id=round_id, player_id=player_id, kind=kind, spec=spec,
                              stake_minor=stake, actor="floor", idempotency_key=key("bet"), **kw)


def spin(round_id, number):
    commands.close_betting(round_id=round_id, actor="floor", idempotency_key=key("close"))
    return commands.record_outcome(round_id=round_id, outcome={"number": number},
                                   actor="floor", idempotency_key=key("outcome"))


def test_a_roulette_round_settles_from_the_pay_table_and_reconciles(venues):
    """Stakes leave the accounts; winners are paid 35:1; the house keeps the rest."""
    table = roulette_table()
    alice, bob = funded_player(), funded_player()
    r = open_round(table.table_id)
    bet(r.round_id, alice.id, "straight", {"numbers": [17]}, 10_00)
    bet(r.round_id, bob.id, "black", {}, 50_00)
    bet(r.round_id, bob.id, "dozen", {"which": 3}, 20_00)
    assert balance(table_stakes(table.table_id)) == 80_00
    assert balance(gaming_account(alice.id)) == (1_000_00 - 10_00)
    spin(r.round_id, 17)
    result = commands.settle_round(round_id=r.round_id, actor="floor",
                                   idempotency_key=key("settle"))
    assert result.state == "settled"
    assert balance(gaming_account(alice.id)) == (1_000_00 + 350_00)
    assert balance(gaming_account(bob.id)) == (1_000_00 - 20_00 + 50_00)  # black won, dozen lost
    assert balance(table_stakes(table.table_id)) == 0
    assert balance(house_games("casino-helsinki", "roulette")) == -(350_00 + 50_00 - 20_00)
    bets = {b.kind: b for b in Bet.objects.filter(round_id=r.round_id)}
    assert (bets["straight"].returned_minor, bets["straight"].row,
            bets["straight"].cite) == (360_00, "straight", "002:L1590")
    assert bets["dozen"].result == "lose"
    assert Round.objects.get(id=r.round_id).house_minor == -380_00


def test_the_stake_above_the_cap_is_void_and_stays_in_the_account(venues):
    """Decision games.stake_above_maximum: hall cap EUR 4 on the number field."""
    table = roulette_table(venue="hall-helsinki")
    player = funded_player(venue="hall-helsinki")
    r = open_round(table.table_id)
    placed = bet(r.round_id, player.id, "straight", {"numbers": [5]}, 10_00)
    assert (placed.stake_minor, placed.void_minor, placed.cap_minor) == (4_00, 6_00, 4_00)
    assert balance(gaming_account(player.id)) == (1_000_00 - 4_00)


def test_a_players_stakes_on_one_position_count_together_against_the_cap(venues):
    """Decision games.pooling: a second chip on the same number is void above the room left."""
    table = roulette_table(venue="hall-helsinki")
    player, other = funded_player(venue="hall-helsinki"), funded_player(venue="hall-helsinki")
    r = open_round(table.table_id)
    bet(r.round_id, player.id, "straight", {"numbers": [5]}, 3_00)
    second = bet(r.round_id, player.id, "straight", {"numbers": [5]}, 3_00)
    assert (second.stake_minor, second.void_minor) == (1_00, 2_00)
    assert bet(r.round_id, other.id, "straight", {"numbers": [5]}, 4_00).stake_minor == 4_00
    before = Event.objects.count()
    with pytest.raises(GamesError) as error:
        bet(r.round_id, player.id, "straight", {"numbers": [5]}, 1_00)
    assert error.value.code == "games.stake_above_maximum"
    assert Event.objects.count() == before + 1
    assert Event.objects.order_by("-position").first().type == BET_REJECTED


def test_a_compliance_refusal_is_recorded_and_takes_nothing(venues):
    table = roulette_table()
    player = funded_player(daily=5_00)
    r = open_round(table.table_id)
    with pytest.raises(AttemptRejected) as error:
        bet(r.round_id, player.id, "red", {}, 10_00)
    assert error.value.failure.code == "compliance.daily_spend_limit"
    assert balance(gaming_account(player.id)) == 1_000_00
    assert not Bet.objects.exists()


def test_below_the_table_minimum_is_refused_and_recorded(venues):
    table = roulette_table()
    player = funded_player()
    r = open_round(table.table_id)
    with pytest.raises(GamesError) as error:
        bet(r.round_id, player.id, "red", {}, 50)
    assert error.value.code == "games.stake_below_minimum"


def test_an_invalid_bet_writes_nothing(venues):
    table = roulette_table()
    player = funded_player()
    r = open_round(table.table_id)
    before = Event.objects.count()
    with pytest.raises(GamesError) as error:
        bet(r.round_id, player.id, "split", {"numbers": [1, 5]}, 10_00)
    assert (error.value.code, error.value.status) == ("games.invalid_bet", 400)
    assert Event.objects.count() == before


def test_no_bets_after_the_close_and_no_credit(venues):
    table = roulette_table()
    player = funded_player(amount_minor=5_00)
    r = open_round(table.table_id)
    with pytest.raises(GamesError) as error:
        bet(r.round_id, player.id, "red", {}, 10_00)
    assert error.value.code == "games.insufficient_funds"
    commands.close_betting(round_id=r.round_id, actor="floor", idempotency_key=key())
    with pytest.raises(GamesError) as error:
        bet(r.round_id, player.id, "red", {}, 1_00)
    assert error.value.code == "games.betting_closed"


def test_an_impossible_outcome_is_recorded_and_refused(venues):
    table = roulette_table()
    r = open_round(table.table_id)
    commands.close_betting(round_id=r.round_id, actor="floor", idempotency_key=key())
    with pytest.raises(GamesError) as error:
        commands.record_outcome(round_id=r.round_id, outcome={"number": 37}, actor="floor",
                                idempotency_key=key())
    assert error.value.code == "games.invalid_outcome"
    assert Event.objects.order_by("-position").first().type == OUTCOME_REJECTED
    assert Round.objects.get(id=r.round_id).state == "closed"


def test_a_declared_payout_that_differs_raises_an_alert_and_does_not_settle(venues):
    table = roulette_table()
    player = funded_player()
    r = open_round(table.table_id)
    placed = bet(r.round_id, player.id, "split", {"numbers": [17, 20]}, 10_00)
    spin(r.round_id, 20)
    result = commands.settle_round(round_id=r.round_id, actor="floor",
                                   declared_minor={placed.bet_id: 360_00},
                                   idempotency_key=key("settle"))
    assert result.state == "disputed"
    alert = Alert.objects.get(kind=AlertKind.PAYOUT_MISMATCH)
    assert alert.details["differing"] == {placed.bet_id: {"declared_minor": 360_00,
                                                          "computed_minor": 180_00}}
    assert balance(gaming_account(player.id)) == (1_000_00 - 10_00)
    with pytest.raises(GamesError) as error:
        commands.settle_round(round_id=r.round_id, actor="floor", idempotency_key=key())
    assert error.value.code == "games.round_disputed"
    settled = commands.settle_round(round_id=r.round_id, actor=officer(),
                                    idempotency_key=key())
    assert settled.state == "settled"
    assert balance(gaming_account(player.id)) == (1_000_00 + 170_00)


def test_a_matching_declared_payout_settles(venues):
    table = roulette_table()
    player = funded_player()
    r = open_round(table.table_id)
    placed = bet(r.round_id, player.id, "split", {"numbers": [17, 20]}, 10_00)
    spin(r.round_id, 20)
    assert commands.settle_round(round_id=r.round_id, declared_minor={placed.bet_id: 180_00},
                                 actor="floor", idempotency_key=key()).state == "settled"


def test_a_void_round_returns_every_stake(venues):
    """A no-spin (002:L1583): the round is void and every stake goes back."""
    table = roulette_table()
    alice, bob = funded_player(), funded_player()
    r = open_round(table.table_id)
    bet(r.round_id, alice.id, "red", {}, 10_00)
    bet(r.round_id, bob.id, "black", {}, 20_00)
    commands.close_betting(round_id=r.round_id, actor="floor", idempotency_key=key())
    commands.void_round(round_id=r.round_id, reason="no spin", actor="floor",
                        idempotency_key=key())
    assert balance(gaming_account(alice.id)) == 1_000_00
    assert balance(gaming_account(bob.id)) == 1_000_00
    assert balance(table_stakes(table.table_id)) == 0
    assert set(Bet.objects.values_list("result", flat=True)) == {"void"}
    with pytest.raises(GamesError):
        commands.settle_round(round_id=r.round_id, actor="floor", idempotency_key=key())


def test_a_new_round_waits_for_the_last_to_finish(venues):
    table = roulette_table()
    open_round(table.table_id)
    with pytest.raises(GamesError) as error:
        open_round(table.table_id)
    assert error.value.code == "games.round_running"


def test_three_card_play_must_equal_the_ante_and_comes_after_the_close(venues):
    table = commands.open_table(venue="casino-helsinki", game="three_card_poker",
                                stake_minor_min=100, stake_minor_max=1_000_00, actor="floor",
                                idempotency_key=key())
    player = funded_player()
    r = open_round(table.table_id)
    bet(r.round_id, player.id, "ante", {"box": 1}, 10_00)
    with pytest.raises(GamesError):
        bet(r.round_id, player.id, "play", {"box": 1}, 10_00)  # not before the close
    commands.close_betting(round_id=r.round_id, actor="floor", idempotency_key=key())
    with pytest.raises(GamesError) as error:
        bet(r.round_id, player.id, "play", {"box": 1}, 5_00)
    assert error.value.code == "games.raise_not_allowed"
    bet(r.round_id, player.id, "play", {"box": 1}, 10_00)
    commands.record_outcome(round_id=r.round_id, outcome={"dealer": "Qh 5s 3d", "boxes": {
        "1": "3c 3h Ac"}}, actor="floor", idempotency_key=key())
    commands.settle_round(round_id=r.round_id, actor="floor", idempotency_key=key())
    assert balance(gaming_account(player.id)) == (1_000_00 + 20_00)


def test_banco_commission_goes_to_its_own_account(venues):
    table = commands.open_table(venue="casino-helsinki", game="punto_banco",
                                stake_minor_min=100, stake_minor_max=1_000_00, actor="floor",
                                idempotency_key=key())
    player = funded_player()
    r = open_round(table.table_id)
    bet(r.round_id, player.id, "banco", {}, 100_00)
    commands.close_betting(round_id=r.round_id, actor="floor", idempotency_key=key())
    commands.record_outcome(round_id=r.round_id, outcome={"punto": "Th Kd 2c",
                                                          "banco": "7c Ks"},
                            actor="floor", idempotency_key=key())
    commands.settle_round(round_id=r.round_id, actor="floor", idempotency_key=key())
    assert balance(gaming_account(player.id)) == (1_000_00 + 95_00)
    assert balance(house_commission("casino-helsinki", "punto_banco")) == 5_00
    assert balance(house_games("casino-helsinki", "punto_banco")) == -100_00


def test_a_game_the_venues_rulebook_lacks_is_not_offered(venues):
    with pytest.raises(GamesError) as error:
        commands.open_table(venue="hall-helsinki", game="sic_bo", stake_minor_min=100,
                            stake_minor_max=10_00, actor="floor", idempotency_key=key())
    assert error.value.code == "games.game_not_offered"
    with pytest.raises(GamesError) as error:
        commands.open_table(venue="hall-helsinki", game="blackjack", stake_minor_min=100,
                            stake_minor_max=10_00, config={"version": "f",
                                                           "blackjack_pays": "2:1"},
                            actor="floor", idempotency_key=key())
    assert error.value.code == "games.invalid_request"


def test_replays_return_the_recorded_result(venues):
    table = roulette_table()
    player = funded_player()
    r = open_round(table.table_id)
    k = key("bet")
    first = commands.place_bet(round_id=r.round_id, player_id=player.id, kind="red", spec={},
                               stake_minor=10_00, actor="floor", idempotency_key=k)
    again = commands.place_bet(round_id=r.round_id, player_id=player.id, kind="red", spec={},
                               stake_minor=10_00, actor="floor", idempotency_key=k)
    assert again.replayed and again.bet_id == first.bet_id
    assert Bet.objects.count() == 1


def test_rebuild_reproduces_the_games_projections(venues):
    table = roulette_table()
    player = funded_player()
    r = open_round(table.table_id)
    bet(r.round_id, player.id, "straight", {"numbers": [3]}, 10_00)
    spin(r.round_id, 3)
    commands.settle_round(round_id=r.round_id, actor="floor", idempotency_key=key())
    r2 = open_round(table.table_id)
    bet(r2.round_id, player.id, "odd", {}, 10_00)

    def snapshot():
        return (list(GameTable.objects.values()), list(Round.objects.values()),
                list(Bet.objects.values()))

    live = snapshot()
    rebuild_projections()
    assert snapshot() == live


def test_a_round_write_on_a_closed_gaming_day_is_refused(venues):
    """A house-game round names its venue (its table's) to the command runner, so a
    client's business time on a day the venue has closed is refused as for every other
    write (casino.runner: request.occurred_at_in_closed_day), and nothing is written."""
    import datetime as dt

    from casino.reports.commands import close_day
    from casino.runner import RunnerError, reset_client_time, set_client_time
    from tests.casino.conftest import HELSINKI

    table = roulette_table()
    alice = funded_player()
    r = open_round(table.table_id)
    close_day(venue="casino-helsinki", gaming_day=dt.date(2026, 6, 15), actor="accountant")
    before = Event.objects.count()
    set_client_time(dt.datetime(2026, 6, 15, 22, 0, tzinfo=HELSINKI))
    try:
        for write in (lambda: open_round(table.table_id),
                      lambda: bet(r.round_id, alice.id, "black", {}, 10_00)):
            with pytest.raises(RunnerError) as refused:
                write()
            assert refused.value.code == "request.occurred_at_in_closed_day"
    finally:
        reset_client_time()
    assert Event.objects.count() == before
