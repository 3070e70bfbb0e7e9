"""The games' writes go through the one command runner (casino.runner.run)."""

from __future__ import annotations

import ast
import dataclasses
import datetime as dt
import inspect

import pytest

from casino.compliance.pipeline import venue_day
from casino.games import commands
from casino.games.errors import GamesError
from casino.games.events import BET_REJECTED
from casino.games.models import Bet
from casino.rules import queries as rules
from casino.runner import RunnerError
from ledger.crossbook import CROSSBOOK_LEG
from ledger.models import Event

from tests.casino.conftest import NOON

from .conftest import funded_player, key
from .test_commands import open_round, roulette_table


def test_a_key_reused_for_another_request_is_409_and_never_a_replay(venues):
    table = roulette_table()
    player = funded_player()
    r = open_round(table.table_id)
    k = key("bet")
    commands.place_bet(round_id=r.round_id, player_id=player.id, kind="red", spec={},
                       stake_minor=10_00, actor="floor", idempotency_key=k)
    with pytest.raises(RunnerError) as error:
        commands.place_bet(round_id=r.round_id, player_id=player.id, kind="black", spec={},
                           stake_minor=10_00, actor="floor", idempotency_key=k)
    assert (error.value.code, error.value.status) == ("request.idempotency_key_reused", 409)
    # Another operation under the same key is another request too.
    with pytest.raises(RunnerError) as error:
        commands.close_betting(round_id=r.round_id, actor="floor", idempotency_key=k)
    assert error.value.code == "request.idempotency_key_reused"
    assert Bet.objects.count() == 1


def test_a_recorded_game_refusal_is_raised_again_on_replay_without_a_second_record(venues):
    table = roulette_table()
    player = funded_player()
    r = open_round(table.table_id)
    k = key("low")
    for _ in range(2):
        with pytest.raises(GamesError) as error:
            commands.place_bet(round_id=r.round_id, player_id=player.id, kind="red", spec={},
                               stake_minor=50, actor="floor", idempotency_key=k)
        assert error.value.code == "games.stake_below_minimum"
    assert Event.objects.filter(type=BET_REJECTED).count() == 1


def test_a_round_that_changes_on_every_attempt_is_a_concurrent_update(venues, monkeypatch):
    table = roulette_table()
    r = open_round(table.table_id)
    real = commands._load_round

    def stale(round_id, at):  # the round read at version 0: always stale
        return dataclasses.replace(real(round_id, at), version=0)

    monkeypatch.setattr(commands, "_load_round", stale)
    with pytest.raises(RunnerError) as error:
        commands.close_betting(round_id=r.round_id, actor="floor", idempotency_key=key())
    assert (error.value.code, error.value.status) == ("request.concurrent_update", 409)


def test_every_event_carries_the_venues_gaming_day_not_the_utc_date(venues):
    """At 02:30 in Helsinki (23:30 UTC the day before) each event's gaming day is
    the venue's own (its zone and day boundary), whatever the ledger's default."""
    late = NOON.replace(hour=2, minute=30) + dt.timedelta(days=1)
    table = commands.open_table(venue="casino-helsinki", game="roulette", stake_minor_min=100,
                                stake_minor_max=10_000_00, actor="floor",
                                idempotency_key=key(), at=late)
    player = funded_player()
    r = commands.open_round(table_id=table.table_id, actor="floor", idempotency_key=key(),
                            at=late)
    commands.place_bet(round_id=r.round_id, player_id=player.id, kind="red", spec={},
                       stake_minor=10_00, actor="floor", idempotency_key=key(), at=late)
    commands.void_round(round_id=r.round_id, reason="no spin", actor="floor",
                        idempotency_key=key(), at=late)
    place = rules.venue("casino-helsinki")
    events = Event.objects.filter(occurred_at=late)
    # The four commands' own events; with venue books (issue 19) the bet's and the
    # void's postings to the player's account add companion legs on the main book,
    # which must carry the venue's gaming day as well.
    assert events.exclude(type=CROSSBOOK_LEG).count() == 4
    assert {e.gaming_day for e in events} == {venue_day(place, late)}


def test_the_commands_module_appends_only_through_the_runner():
    tree = ast.parse(inspect.getsource(commands))
    imported = {alias.name for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)
                for alias in node.names}
    assert not imported & {"append", "open_account", "recorded_result", "StaleVersion",
                           "IdempotencyConflict", "AccountExists"}
