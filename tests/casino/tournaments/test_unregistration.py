"""Withdrawing a registration before the start (issue 14 items 14 and 18).

001:L310-312: online, a registration may be withdrawn before the start; the
buy-in comes back by the means it was paid (the account or a ticket), and a
seat won in a satellite comes back as a tournament ticket. 003:L174: in
Tallinn only with the poker manager's approval. Elsewhere the rulebooks
offer no withdrawal (decision tournaments.unregistration).
"""

from __future__ import annotations

import pytest

from casino.accounts import gaming_account
from casino.rules.commands import register_venue
from casino.tournaments import commands
from casino.tournaments.errors import TournamentError
from casino.tournaments.events import PLAYER_UNREGISTERED, prize_pool, tournament_fees
from casino.tournaments.events import tournament_tickets
from casino.tournaments.models import Entrant, Tournament
from ledger import rebuild_projections
from ledger.models import Event
from tests.casino.api.conftest import client_for, post

from .conftest import balance, funded_player, key

ONLINE = "poker-online"
ENTRY = {"prize_minor": 10_00, "fee_minor": 1_00}


@pytest.fixture
def online(venues):
    register_venue(code=ONLINE, name=ONLINE, rulebook_id="veikkaus-online-poker")
    return ONLINE


def _announce(venue: str, **settings) -> str:
    t = commands.announce(venue=venue, name="Freezeout", format="freezeout",
                          entry=settings.pop("entry", ENTRY), actor="td",
                          idempotency_key=key("announce"), **settings).tournament_id
    commands.open_registration(tournament_id=t, actor="td", idempotency_key=key())
    return t


def _register(t: str, player, **kwargs):
    return commands.register(tournament_id=t, player_id=player.id, actor="cage",
                             idempotency_key=key(), **kwargs)


def test_online_withdrawal_refunds_the_whole_buy_in_to_the_account(online):
    """001:L310-312: before the start the entry (prize part and fee) comes
    back to the gaming account; the player is no longer an entrant, and the
    rebuilt projections agree."""
    t = _announce(ONLINE)
    player, other = funded_player(), funded_player()
    _register(t, player)
    _register(t, other)
    assert Tournament.objects.get(id=t).config["unregistration"] == "open"
    result = commands.unregister(tournament_id=t, player_id=player.id, actor="cage",
                                 idempotency_key=key())
    assert balance(gaming_account(player.id)) == 1_000_00
    assert balance(prize_pool(t)) == 10_00
    assert balance(tournament_fees(ONLINE)) == 1_00
    assert {tr["reason"] for tr in result.transfers} == {"unregistered"}
    row = Tournament.objects.get(id=t)
    assert (row.entries, row.pool_minor) == (1, 10_00)
    assert list(Entrant.objects.filter(tournament_id=t).values_list("player_id", flat=True)
                ) == [other.id]
    live = (list(Tournament.objects.filter(id=t).values()),
            list(Entrant.objects.filter(tournament_id=t).values()))
    rebuild_projections()
    assert (list(Tournament.objects.filter(id=t).values()),
            list(Entrant.objects.filter(tournament_id=t).values())) == live
    # Registered again, the player pays again.
    _register(t, player)
    assert balance(gaming_account(player.id)) == 1_000_00 - 11_00


def test_online_withdrawal_of_a_won_seat_gives_a_ticket(online):
    """001:L312: a seat won in a satellite, withdrawn, comes back as a
    tournament ticket of its value, never as cash; the ticket then pays an
    entry (register(payment='ticket'), also over the API)."""
    target = _announce(ONLINE, entry={"prize_minor": 100_00, "fee_minor": 10_00})
    satellite = commands.announce(
        venue=ONLINE, name="Satellite", format="satellite",
        entry={"prize_minor": 55_00, "fee_minor": 5_00}, target_tournament_id=target,
        actor="td", idempotency_key=key("announce")).tournament_id
    commands.open_registration(tournament_id=satellite, actor="td", idempotency_key=key())
    winner, loser = funded_player(), funded_player()
    for p in (winner, loser):
        _register(satellite, p)
    commands.start(tournament_id=satellite, actor="td", idempotency_key=key())
    commands.fix_prize_pool(tournament_id=satellite, actor="td", idempotency_key=key())
    commands.eliminate(tournament_id=satellite, outs=[{"player_id": loser.id, "stack": 1}],
                       actor="td", idempotency_key=key())
    commands.finish(tournament_id=satellite, actor="td", idempotency_key=key())
    seated = Event.objects.filter(stream=f"tournament/{target}", type="tournaments.player_entered",
                                  payload__player_id=winner.id)
    assert seated.count() == 1 and seated.get().payload["paid_by"] == f"satellite:{satellite}"
    account_before = balance(gaming_account(winner.id))

    commands.unregister(tournament_id=target, player_id=winner.id, actor="web",
                        idempotency_key=key())
    assert balance(tournament_tickets(winner.id)) == 110_00
    assert balance(gaming_account(winner.id)) == account_before
    assert balance(prize_pool(target)) == 0

    registered = post(client_for("cage"), f"/api/v1/tournaments/{target}/entries",
                      {"player_id": winner.id, "payment": "ticket"}, key="ticket-entry")
    assert registered.status_code == 201, registered.json()
    assert balance(tournament_tickets(winner.id)) == 0
    assert balance(prize_pool(target)) == 100_00
    assert balance(gaming_account(winner.id)) == account_before


def test_tallinn_withdrawal_needs_the_managers_approval(venues):
    """003:L174: in Tallinn the buy-in comes back before the start only with
    the poker manager's approval; without it the refusal is recorded and
    nothing moves."""
    t = _announce("olympic-tallinn")
    player = funded_player()
    _register(t, player)
    with pytest.raises(TournamentError) as refused:
        commands.unregister(tournament_id=t, player_id=player.id, actor="cage",
                            idempotency_key=key())
    assert (refused.value.code, refused.value.status) == ("tournaments.approval_required",
                                                          422)
    assert Event.objects.filter(stream=f"tournament/{t}/rejections").count() == 1
    assert balance(gaming_account(player.id)) == 1_000_00 - 11_00
    commands.unregister(tournament_id=t, player_id=player.id, approved_by="manager-liis",
                        actor="cage", idempotency_key=key())
    assert balance(gaming_account(player.id)) == 1_000_00
    [withdrawn] = Event.objects.filter(type=PLAYER_UNREGISTERED)
    assert withdrawn.payload["approved_by"] == "manager-liis"


def test_a_room_without_the_rule_offers_no_withdrawal(venues):
    """Decision tournaments.unregistration: the Veikkaus room's rules offer
    no withdrawal; the request is a recorded 422."""
    t = _announce("poker-helsinki")
    player = funded_player()
    _register(t, player)
    with pytest.raises(TournamentError) as refused:
        commands.unregister(tournament_id=t, player_id=player.id, actor="cage",
                            idempotency_key=key())
    assert refused.value.code == "tournaments.unregistration_not_offered"
    assert balance(gaming_account(player.id)) == 1_000_00 - 11_00


def test_no_withdrawal_after_the_start(online):
    """001:L323: once the tournament has started nothing is refunded."""
    t = _announce(ONLINE)
    players = [funded_player() for _ in range(2)]
    for p in players:
        _register(t, p)
    commands.start(tournament_id=t, actor="td", idempotency_key=key())
    with pytest.raises(TournamentError) as refused:
        commands.unregister(tournament_id=t, player_id=players[0].id, actor="cage",
                            idempotency_key=key())
    assert refused.value.code == "tournaments.wrong_phase"
    assert balance(gaming_account(players[0].id)) == 1_000_00 - 11_00
