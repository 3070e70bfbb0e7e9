"""Satellites award real seats in their target tournament (000:L3344-3345,
002:L2993, 002:L3293, 003:L145); a seat that cannot be used is kept as the
winner's ticket (decision tournaments.satellite.ticket), paid in cash only in
Tallinn (003:L175, decision tournaments.satellite.already_registered)."""

from __future__ import annotations

import pytest
from django.db.models import Sum

from casino.accounts import gaming_account
from casino.tournaments import commands
from casino.tournaments.errors import TournamentError
from casino.tournaments.events import (
    PLAYER_ENTERED,
    prize_pool,
    tournament_fees,
    tournament_tickets,
)
from casino.tournaments.models import Entrant, Tournament
from ledger import rebuild_projections, verify_chain
from ledger.models import Account, Event, Posting, natural_sign

from .conftest import balance, funded_player, key

ROOM = "poker-helsinki"
TARGET_ENTRY = {"prize_minor": 100_00, "fee_minor": 10_00}   # seat value 110.00
SATELLITE_ENTRY = {"prize_minor": 20_00, "fee_minor": 2_00}


def announce_target(open_it: bool = True) -> str:
    t = commands.announce(venue=ROOM, name="Main event", format="freezeout",
                          entry=TARGET_ENTRY, actor="td",
                          idempotency_key=key("announce")).tournament_id
    if open_it:
        commands.open_registration(tournament_id=t, actor="td", idempotency_key=key())
    return t


def announce_satellite(target: str, **overrides):
    settings = dict(venue=ROOM, name="Satellite", format="satellite", entry=SATELLITE_ENTRY,
                    target_tournament_id=target, actor="td",
                    idempotency_key=key("announce"))
    settings.update(overrides)
    return commands.announce(**settings)


def register(t: str, player) -> None:
    commands.register(tournament_id=t, player_id=player.id, actor="cage",
                      idempotency_key=key())


def play_satellite(sat: str, players) -> str:
    """12 entrants (pool 240.00: two seats and 20.00 cash); players[0] wins,
    players[1] is second, players[2] third, the rest go out in one hand."""
    commands.start(tournament_id=sat, actor="td", idempotency_key=key())
    commands.fix_prize_pool(tournament_id=sat, actor="td", idempotency_key=key())
    commands.eliminate(tournament_id=sat, outs=[
        {"player_id": p.id, "stack": 100 - i} for i, p in enumerate(players[3:])],
        actor="td", idempotency_key=key())
    finish_key = key()
    commands.finish(tournament_id=sat, final_stacks={players[0].id: 3000,
                                                     players[1].id: 2000,
                                                     players[2].id: 1000},
                    actor="td", idempotency_key=finish_key)
    return finish_key


def ledger_sums_to_zero() -> bool:
    """The trial balance: every account's balance, debit positive, adds up to 0,
    and so do the postings of each seat entry on its own."""
    debits = sum(natural_sign(a.type) * a.balance_minor
                 for a in Account.objects.filter(currency="EUR"))
    unbalanced = (Posting.objects.filter(event__payload__has_key="paid_by")
                  .values("event").annotate(s=Sum("amount_minor")).exclude(s=0))
    return debits == 0 and not unbalanced.exists()


def test_two_seats_register_the_winners_in_the_target_paid_from_the_pool(venues):
    """000:L3344-3345, 002:L3293: the seats are entries into the target paid by the
    satellite's pool; the winners' gaming accounts are untouched."""
    target = announce_target()
    regulars = [funded_player() for _ in range(2)]
    for p in regulars:
        register(target, p)
    sat = announce_satellite(target).tournament_id
    assert Tournament.objects.get(id=sat).config["satellite_seat_minor"] == 110_00
    commands.open_registration(tournament_id=sat, actor="td", idempotency_key=key())
    players = [funded_player() for _ in range(12)]
    for p in players:
        register(sat, p)
    before = {p.id: balance(gaming_account(p.id)) for p in players}
    pool_before, fees_before = balance(prize_pool(target)), balance(tournament_fees(ROOM))
    count = Event.objects.count()

    finish_key = play_satellite(sat, players)

    winners = players[:2]
    row = Tournament.objects.get(id=target)
    assert row.entries == 4
    assert set(Entrant.objects.filter(tournament=row).values_list("player_id", flat=True)
               ) == {p.id for p in [*regulars, *winners]}
    # The target's pool and the house's fees grow by exactly the two seats' value.
    assert balance(prize_pool(target)) - pool_before == 2 * 100_00
    assert balance(tournament_fees(ROOM)) - fees_before == 2 * 10_00
    assert row.pool_minor == 4 * 100_00
    assert all(balance(gaming_account(p.id)) == before[p.id] for p in winners)
    # The remainder after the last seat is cash to the next place.
    assert balance(gaming_account(players[2].id)) == before[players[2].id] + 20_00
    assert balance(prize_pool(sat)) == 0
    seat_events = Event.objects.filter(stream=f"tournament/{target}", type=PLAYER_ENTERED,
                                       payload__paid_by=f"satellite:{sat}")
    assert sorted(e.payload["player_id"] for e in seat_events) == sorted(p.id for p in winners)
    finished = Event.objects.get(stream=f"tournament/{sat}", type__endswith="finished")
    # One append: the finish and both seats share its idempotency key.
    assert {e.idempotency_key for e in seat_events} == {finished.idempotency_key}
    assert [a["awarded"] for a in finished.payload["seats_awarded"]] == ["entry", "entry"]
    assert ledger_sums_to_zero()
    assert verify_chain().ok

    # A replay of the finish writes nothing more; the seat winners cannot be entered twice.
    events = Event.objects.count()
    replayed = commands.finish(tournament_id=sat, final_stacks={players[0].id: 3000,
                                                                players[1].id: 2000,
                                                                players[2].id: 1000},
                               actor="td", idempotency_key=finish_key)
    assert replayed.replayed and Event.objects.count() == events > count
    with pytest.raises(TournamentError) as twice:
        register(target, winners[0])
    assert twice.value.code == "tournaments.already_registered"

    def snapshot():
        return (list(Tournament.objects.order_by("id").values()),
                list(Entrant.objects.order_by("key").values()))

    live = snapshot()
    rebuild_projections()
    assert snapshot() == live


def already_registered_winner(venue: str):
    """Play a satellite at `venue` whose winner bought into the target already."""
    target = commands.announce(venue=venue, name="Main event", format="freezeout",
                               entry=TARGET_ENTRY, actor="td",
                               idempotency_key=key("announce")).tournament_id
    commands.open_registration(tournament_id=target, actor="td", idempotency_key=key())
    sat = announce_satellite(target, venue=venue).tournament_id
    commands.open_registration(tournament_id=sat, actor="td", idempotency_key=key())
    players = [funded_player() for _ in range(12)]
    for p in players:
        register(sat, p)
    register(target, players[0])  # the future winner bought in already
    before = {p.id: balance(gaming_account(p.id)) for p in players}
    pool_before = balance(prize_pool(target))
    play_satellite(sat, players)
    assert balance(gaming_account(players[1].id)) == before[players[1].id]
    assert Tournament.objects.get(id=target).entries == 2
    assert Entrant.objects.get(tournament_id=target, player_id=players[0].id).entries == 1
    assert balance(prize_pool(target)) - pool_before == 100_00
    assert balance(prize_pool(sat)) == 0
    assert ledger_sums_to_zero()
    assert verify_chain().ok
    finished = Event.objects.get(stream=f"tournament/{sat}", type__endswith="finished")
    return target, players, before, finished


def test_a_tallinn_winner_already_registered_gets_the_seat_in_cash(venues):
    """003:L175 (figure tournament.satellite.seat_not_used, decision
    tournaments.satellite.already_registered): in Tallinn the ticket value is paid
    out in cash; the other seat is still an entry."""
    target, players, before, finished = already_registered_winner("olympic-tallinn")
    assert balance(gaming_account(players[0].id)) == before[players[0].id] + 110_00
    assert balance(tournament_tickets(players[0].id)) == 0
    assert finished.payload["seats_awarded"][0] == {
        "player_id": players[0].id, "target_tournament_id": target, "seat_minor": 110_00,
        "awarded": "cash", "reason": "already_registered"}


def test_a_room_winner_already_registered_keeps_the_seat_as_a_ticket(venues):
    """000:L3344-3345 (decision tournaments.satellite.ticket): a seat is an entry
    right used personally, never cash outside Tallinn (003:L175): the seat not used
    is kept as the player's ticket, which pays a later entry of theirs alone."""
    target, players, before, finished = already_registered_winner(ROOM)
    winner = players[0]
    assert balance(gaming_account(winner.id)) == before[winner.id]
    assert balance(tournament_tickets(winner.id)) == 110_00
    assert finished.payload["seats_awarded"][0] == {
        "player_id": winner.id, "target_tournament_id": target, "seat_minor": 110_00,
        "awarded": "ticket", "reason": "already_registered"}
    other = announce_target()
    commands.register(tournament_id=other, player_id=winner.id, payment="ticket",
                      actor="cage", idempotency_key=key())
    assert balance(tournament_tickets(winner.id)) == 0
    assert balance(gaming_account(winner.id)) == before[winner.id]
    assert balance(prize_pool(other)) == 100_00
    with pytest.raises(TournamentError) as refused:
        commands.register(tournament_id=other, player_id=players[1].id, payment="ticket",
                          actor="cage", idempotency_key=key())
    assert refused.value.code == "tournaments.insufficient_funds"
    assert ledger_sums_to_zero()


def test_a_self_excluded_winner_is_not_seated_and_gets_the_seat_in_cash(venues):
    """002:L3086 (decision tournaments.satellite.not_seated): seating passes the
    compliance pipeline; a self-excluded winner is not seated, the refusal is
    recorded and the seat kept as a ticket; the other seat is an entry."""
    from casino.players.commands import self_exclude

    target = announce_target()
    sat = announce_satellite(target).tournament_id
    commands.open_registration(tournament_id=sat, actor="td", idempotency_key=key())
    players = [funded_player() for _ in range(12)]
    for p in players:
        register(sat, p)
    self_exclude(player_id=players[0].id, months=1, venue_code="ray-online", actor="test")
    before = {p.id: balance(gaming_account(p.id)) for p in players}
    pool_before = balance(prize_pool(target))

    play_satellite(sat, players)

    assert not Entrant.objects.filter(tournament_id=target, player_id=players[0].id).exists()
    assert Entrant.objects.filter(tournament_id=target, player_id=players[1].id).exists()
    assert balance(gaming_account(players[0].id)) == before[players[0].id]
    assert balance(tournament_tickets(players[0].id)) == 110_00
    assert balance(prize_pool(target)) - pool_before == 100_00
    finished = Event.objects.get(stream=f"tournament/{sat}", type__endswith="finished")
    assert finished.payload["seats_awarded"][0] == {
        "player_id": players[0].id, "target_tournament_id": target, "seat_minor": 110_00,
        "awarded": "ticket", "reason": "compliance.self_excluded"}
    assert finished.payload["seats_awarded"][1]["awarded"] == "entry"
    refused = Event.objects.get(stream=f"player/{players[0].id}",
                                type="compliance.attempt_rejected")
    assert refused.payload["rule"] == "compliance.self_excluded"
    # One request: across books (venue books) each part is recorded under the
    # request's key or `<key>#<book>`.
    assert (refused.idempotency_key.split("#", 1)[0]
            == finished.idempotency_key.split("#", 1)[0])
    seated = Event.objects.get(stream=f"tournament/{target}", type=PLAYER_ENTERED,
                               payload__player_id=players[1].id)
    assert seated.payload["verdict"]["checks_passed"]
    assert balance(prize_pool(sat)) == 0
    assert ledger_sums_to_zero()
    assert verify_chain().ok


def test_a_target_not_registering_refuses_the_satellite(venues):
    """003:L145: the target is pre-announced and must be taking entries."""
    target = announce_target(open_it=False)
    count = Event.objects.count()
    with pytest.raises(TournamentError) as refused:
        announce_satellite(target, tournament_id="sat-closed")
    assert refused.value.code == "tournaments.satellite_target_not_registering"
    assert refused.value.status == 409
    assert refused.value.details["target_state"] == "announced"
    assert Event.objects.count() == count
    assert not Tournament.objects.filter(id="sat-closed").exists()


@pytest.mark.parametrize("overrides, status", [
    ({"target_tournament_id": "nowhere"}, 422),
    ({"satellite_seat_minor": 100_00}, 422),        # the fee left out of the seat
    ({"format": "freezeout"}, 400),
])
def test_a_bad_target_refuses_the_satellite(venues, overrides, status):
    target = announce_target()
    with pytest.raises(TournamentError) as refused:
        announce_satellite(target, **overrides)
    assert refused.value.status == status


def test_a_target_in_another_currency_refuses_the_satellite(venues):
    """Seats are paid pool to pool: one currency only."""
    target = announce_target()
    Tournament.objects.filter(id=target).update(currency="SEK")  # a read model stand-in
    with pytest.raises(TournamentError) as refused:
        announce_satellite(target)
    assert refused.value.code == "tournaments.invalid_satellite_target"
    assert refused.value.details["target_currency"] == "SEK"


def test_engine_a_seat_entry_is_paid_by_the_satellite_and_never_a_re_entry():
    """002:L3293: the seat enters without a separate fee from the player; the
    money property holds on the target: what its entries paid = pool + fees."""
    from casino.tournaments.engine import EngineError, Tournament as State

    from .test_engine_examples import room_config

    t = State(room_config(format="re_entry", re_entry=True, entries_per_player_max=2))
    t.open_registration()
    moved = t.enter("w", "entry", paid_by="satellite:s1")
    assert {m.source for m in moved} == {"satellite:s1"}
    assert sum(m.amount_minor for m in moved) == t.pool_minor + t.fees_minor
    t.enter("v")
    t.start()
    for kind, paid_by in (("re_entry", "satellite:s1"), ("late_entry", "player:y")):
        with pytest.raises(EngineError) as refused:
            t.enter("w", kind, paid_by=paid_by)
        assert refused.value.code == "invalid_operation"
    assert [m.source for m in t.enter("x", "late_entry", paid_by="satellite:s1")] == [
        "satellite:s1", "satellite:s1"]
