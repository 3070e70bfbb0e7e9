"""A free entry still passes the player checks (issue 14, freerolls).

002:L3086: a self-exclusion (up to 12 months) cannot be lifted while it
runs; it bars every game, a freeroll's free entry (001:L602) included.
Decision tournaments.freeroll: the entry is a `buy_in` attempt of no amount
through the compliance pipeline, so the player checks run and a refusal is
recorded; the stake checks do not.
"""

from __future__ import annotations

import pytest

from casino.accounts import gaming_account
from casino.compliance.errors import AttemptRejected
from casino.players.commands import self_exclude
from casino.rules.commands import register_venue
from casino.tournaments import commands
from casino.tournaments.events import PLAYER_ENTERED
from casino.tournaments.models import Entrant
from ledger.models import Event

from .conftest import balance, funded_player, key

ONLINE = "poker-online"


@pytest.fixture
def freeroll(venues):
    register_venue(code=ONLINE, name=ONLINE, rulebook_id="veikkaus-online-poker")
    t = commands.announce(venue=ONLINE, name="Freeroll", format="freezeout", actor="td",
                          entry={"prize_minor": 0, "fee_minor": 0},
                          guaranteed_pool_minor=50_00,
                          idempotency_key=key("announce")).tournament_id
    commands.open_registration(tournament_id=t, actor="td", idempotency_key=key())
    return t


def test_a_self_excluded_player_cannot_take_a_free_entry_002_L3086(freeroll):
    """002:L3086: the self-excluded player's free entry is refused as
    compliance.self_excluded, the refusal is on the player's stream with the
    no-amount buy-in attempt, and no entrant is written."""
    player = funded_player()
    self_exclude(player_id=player.id, months=1, venue_code="ray-online", actor="test")
    with pytest.raises(AttemptRejected) as refused:
        commands.register(tournament_id=freeroll, player_id=player.id, actor="web",
                          idempotency_key=key())
    assert refused.value.failure.code == "compliance.self_excluded"
    event = Event.objects.get(stream=f"player/{player.id}",
                              type="compliance.attempt_rejected")
    assert event.payload["rule"] == "compliance.self_excluded"
    assert event.payload["cite"] == "002:L3086"
    assert event.payload["attempt"]["kind"] == "buy_in"
    assert event.payload["attempt"]["amount_minor"] == 0
    assert not Entrant.objects.filter(tournament_id=freeroll, player_id=player.id).exists()
    assert balance(gaming_account(player.id)) == 1_000_00


def test_an_unverified_player_cannot_take_a_free_entry_002_L3031(freeroll):
    """002:L3031: the identity check runs on a free entry too."""
    from tests.casino.conftest import make_player

    player = make_player(verified=False)
    with pytest.raises(AttemptRejected) as refused:
        commands.register(tournament_id=freeroll, player_id=player.id, actor="web",
                          idempotency_key=key())
    assert refused.value.failure.code == "compliance.identity_unverified"


def test_a_free_entry_records_the_player_checks_it_passed(freeroll):
    """A player in good standing enters free, nothing is charged, and the
    entry records the player checks it passed."""
    player = funded_player()
    commands.register(tournament_id=freeroll, player_id=player.id, actor="web",
                      idempotency_key=key())
    entered = Event.objects.get(stream=f"tournament/{freeroll}", type=PLAYER_ENTERED)
    assert entered.payload["verdict"]["checks_passed"][:3] == [
        "compliance.identity_unverified", "compliance.underage", "compliance.self_excluded"]
    assert balance(gaming_account(player.id)) == 1_000_00
