"""Tournament commands against the ledger: postings, caps, state machine, rebuild."""

from __future__ import annotations

import pytest

from casino.accounts import gaming_account
from casino.compliance.errors import AttemptRejected
from casino.tournaments import commands
from casino.tournaments.errors import TournamentError
from casino.tournaments.events import bounties, prize_pool, tournament_fees
from casino.tournaments.models import Entrant, Tournament
from ledger import rebuild_projections, verify_chain
from ledger.models import Event

from .conftest import balance, funded_player, key

ROOM = "poker-helsinki"


def announce(venue=ROOM, **overrides):
    settings = dict(venue=venue, name="Monday bounty", format="progressive_bounty",
                    entry={"prize_minor": 40000, "fee_minor": 7000, "bounty_minor": 20000},
                    re_entry=True, entries_per_player_max=2, actor="td",
                    idempotency_key=key("announce"))
    settings.update(overrides)
    return commands.announce(**settings)


def test_progressive_bounty_600_plus_70_moves_money_by_postings(venues):
    """000:L3374-3377: 600 + 70 -> pool 400, bounty 200, fee 70; the eliminator
    is paid 100 and 100 goes onto their own bounty. Three players: a room
    tournament starts with three at a table (000:L3240)."""
    t = announce().tournament_id
    commands.open_registration(tournament_id=t, actor="td", idempotency_key=key())
    a, b, c = funded_player(), funded_player(), funded_player()
    for p in (a, b, c):
        commands.register(tournament_id=t, player_id=p.id, actor="cage",
                          idempotency_key=key())
    assert balance(gaming_account(a.id)) == 1_000_00 - 670_00
    assert (balance(prize_pool(t)), balance(bounties(t)), balance(tournament_fees(ROOM))) == (
        1_200_00, 600_00, 210_00)
    commands.start(tournament_id=t, actor="td", idempotency_key=key())
    commands.eliminate(tournament_id=t, outs=[{"player_id": b.id, "stack": 100}],
                       eliminators={b.id: [a.id]}, actor="td", idempotency_key=key())
    assert balance(gaming_account(a.id)) == 1_000_00 - 670_00 + 100_00
    assert Entrant.objects.get(player_id=a.id).bounty_minor == 300_00
    commands.eliminate(tournament_id=t, outs=[{"player_id": c.id, "stack": 100}],
                       eliminators={c.id: [a.id]}, actor="td", idempotency_key=key())
    assert Entrant.objects.get(player_id=a.id).bounty_minor == 400_00
    commands.fix_prize_pool(tournament_id=t, actor="td", idempotency_key=key())
    result = commands.finish(tournament_id=t, actor="td", idempotency_key=key())
    assert result.state == "finished"
    # The winner takes the pool of 1,200 and their own bounty of 400.
    assert balance(gaming_account(a.id)) == (1_000_00 - 670_00 + 2 * 100_00 + 1_200_00
                                             + 400_00)
    assert balance(prize_pool(t)) == 0 and balance(bounties(t)) == 0
    assert Entrant.objects.get(player_id=a.id).place == 1
    assert verify_chain().ok


def test_entry_over_the_venue_cap_is_refused_and_recorded(venues):
    """002:L3349: a RAY hall caps a poker tournament entry at EUR 50."""
    t = announce(venue="hall-helsinki", format="freezeout",
                 entry={"prize_minor": 5000, "fee_minor": 500}, re_entry=False,
                 entries_per_player_max=1).tournament_id
    commands.open_registration(tournament_id=t, actor="td", idempotency_key=key())
    player = funded_player(venue="hall-helsinki")
    before = Event.objects.count()
    with pytest.raises(AttemptRejected) as refused:
        commands.register(tournament_id=t, player_id=player.id, actor="cage",
                          idempotency_key=key())
    assert refused.value.failure.code == "compliance.max_stake"
    assert Event.objects.count() == before + 1  # the rejection only
    assert balance(gaming_account(player.id)) == 1_000_00


def test_self_excluded_or_unverified_player_cannot_register(venues):
    """002:L3031: identity before play; the pipeline refuses and records it."""
    from tests.casino.conftest import make_player

    t = announce().tournament_id
    commands.open_registration(tournament_id=t, actor="td", idempotency_key=key())
    stranger = make_player(verified=False)
    with pytest.raises(AttemptRejected) as refused:
        commands.register(tournament_id=t, player_id=stranger.id, actor="cage",
                          idempotency_key=key())
    assert refused.value.failure.code == "compliance.identity_unverified"


def test_tallinn_six_entrants_cancel_and_refund_at_start(venues):
    """003:L163, L173: fewer than 7 entrants at the start: refund."""
    t = announce(venue="olympic-tallinn", format="freezeout",
                 entry={"prize_minor": 5000, "fee_minor": 500}, re_entry=False,
                 entries_per_player_max=1).tournament_id
    commands.open_registration(tournament_id=t, actor="td", idempotency_key=key())
    players = [funded_player() for _ in range(6)]
    for p in players:
        commands.register(tournament_id=t, player_id=p.id, actor="cage",
                          idempotency_key=key())
    result = commands.start(tournament_id=t, actor="td", idempotency_key=key())
    assert result.state == "cancelled"
    assert all(balance(gaming_account(p.id)) == 1_000_00 for p in players)
    assert balance(tournament_fees("olympic-tallinn")) == 0


def test_rule_refusal_is_recorded_then_raised_and_replays(venues):
    """A wrong-phase request is refused with a coded error and recorded once."""
    t = announce().tournament_id
    request_key = key()
    with pytest.raises(TournamentError) as refused:
        commands.start(tournament_id=t, actor="td", idempotency_key=request_key)
    assert refused.value.code == "tournaments.wrong_phase"
    count = Event.objects.count()
    with pytest.raises(TournamentError):
        commands.start(tournament_id=t, actor="td", idempotency_key=request_key)
    assert Event.objects.count() == count


def test_insufficient_funds_writes_nothing(venues):
    """002:L3033: no credit: a purchase above the balance is refused."""
    t = announce().tournament_id
    commands.open_registration(tournament_id=t, actor="td", idempotency_key=key())
    poor = funded_player(100_00)
    count = Event.objects.count()
    with pytest.raises(TournamentError) as refused:
        commands.register(tournament_id=t, player_id=poor.id, actor="cage",
                          idempotency_key=key())
    assert refused.value.code == "tournaments.insufficient_funds"
    assert Event.objects.count() == count


def test_rebuild_reproduces_the_projection(venues):
    """L9: the tournament rows are a function of the log."""
    t = announce().tournament_id
    commands.open_registration(tournament_id=t, actor="td", idempotency_key=key())
    players = [funded_player() for _ in range(3)]
    for p in players:
        commands.register(tournament_id=t, player_id=p.id, actor="cage",
                          idempotency_key=key())
    commands.start(tournament_id=t, actor="td", idempotency_key=key())
    commands.eliminate(tournament_id=t, outs=[{"player_id": players[2].id, "stack": 5}],
                       eliminators={players[2].id: [players[0].id]}, actor="td",
                       idempotency_key=key())

    def snapshot():
        row = Tournament.objects.values().get(id=t)
        return row, list(Entrant.objects.filter(tournament_id=t).values())

    live = snapshot()
    rebuild_projections()
    assert snapshot() == live


def test_a_key_reused_for_another_request_is_refused_and_writes_nothing(venues):
    """One write path (casino.runner): the same key with another request is 409
    `idempotency_key_reused`, never the first answer."""
    from casino.runner import RunnerError

    t = announce().tournament_id
    commands.open_registration(tournament_id=t, actor="td", idempotency_key=key())
    a, b = funded_player(), funded_player()
    shared = key()
    first = commands.register(tournament_id=t, player_id=a.id, actor="cage",
                              idempotency_key=shared)
    again = commands.register(tournament_id=t, player_id=a.id, actor="cage",
                              idempotency_key=shared)
    assert again.replayed and again.positions == first.positions
    count = Event.objects.count()
    with pytest.raises(RunnerError) as reused:
        commands.register(tournament_id=t, player_id=b.id, actor="cage",
                          idempotency_key=shared)
    assert (reused.value.code, reused.value.status) == ("request.idempotency_key_reused", 409)
    assert Event.objects.count() == count
    assert balance(gaming_account(b.id)) == 1_000_00


def test_a_replayed_rule_refusal_keeps_its_status(venues):
    """A recorded wrong-phase refusal answers 409 again, as it did the first time."""
    t = announce().tournament_id
    request_key = key()
    with pytest.raises(TournamentError) as first:
        commands.fix_prize_pool(tournament_id=t, actor="td", idempotency_key=request_key)
    with pytest.raises(TournamentError) as replayed:
        commands.fix_prize_pool(tournament_id=t, actor="td", idempotency_key=request_key)
    assert (replayed.value.code, replayed.value.status) == (
        first.value.code, first.value.status) == ("tournaments.wrong_phase", 409)


def test_a_start_that_cancelled_replays_as_the_cancellation(venues):
    """003:L163: the start with too few entrants cancels; its retry answers that."""
    t = announce(venue="olympic-tallinn", format="freezeout",
                 entry={"prize_minor": 5000, "fee_minor": 500}, re_entry=False,
                 entries_per_player_max=1).tournament_id
    commands.open_registration(tournament_id=t, actor="td", idempotency_key=key())
    player = funded_player()
    commands.register(tournament_id=t, player_id=player.id, actor="cage",
                      idempotency_key=key())
    start_key = key()
    first = commands.start(tournament_id=t, actor="td", idempotency_key=start_key)
    count = Event.objects.count()
    again = commands.start(tournament_id=t, actor="td", idempotency_key=start_key)
    assert (first.state, again.state) == ("cancelled", "cancelled")
    assert again.replayed and again.positions == first.positions
    assert Event.objects.count() == count
    assert balance(gaming_account(player.id)) == 1_000_00


def test_every_event_carries_the_venues_gaming_day(venues):
    """The venue's own day boundary and zone date each event, refusals included."""
    import datetime as dt

    from casino.compliance.pipeline import venue_day
    from casino.rules.queries import venue

    at = dt.datetime(2026, 6, 16, 0, 30, tzinfo=dt.timezone.utc)
    t = announce(at=at).tournament_id
    commands.open_registration(tournament_id=t, actor="td", idempotency_key=key(), at=at)
    with pytest.raises(TournamentError):
        commands.finish(tournament_id=t, actor="td", idempotency_key=key(), at=at)
    day = venue_day(venue(ROOM), at)
    written = Event.objects.filter(stream__startswith=f"tournament/{t}")
    assert written.count() == 3
    assert set(written.values_list("gaming_day", flat=True)) == {day}


def test_online_winnings_are_credited_when_the_player_busts(venues):
    """001:L366 (figure tournament.prizes.paid_at): online, a player busting in a
    paid place is credited that prize at once, in the elimination's event; the
    finish pays the rest; the rebuilt state agrees."""
    from casino.rules.commands import register_venue

    register_venue(code="poker-online", name="poker-online",
                   rulebook_id="veikkaus-online-poker")
    t = commands.announce(venue="poker-online", name="Online freezeout", format="freezeout",
                          entry={"prize_minor": 10_00, "fee_minor": 1_00}, actor="td",
                          idempotency_key=key("announce")).tournament_id
    assert Tournament.objects.get(id=t).config["prizes_paid_at"] == "bust"
    commands.open_registration(tournament_id=t, actor="td", idempotency_key=key())
    players = [funded_player() for _ in range(6)]    # pool 60.00: 65 % / 35 %
    for p in players:
        commands.register(tournament_id=t, player_id=p.id, actor="cage",
                          idempotency_key=key())
    commands.start(tournament_id=t, actor="td", idempotency_key=key())
    commands.fix_prize_pool(tournament_id=t, actor="td", idempotency_key=key())
    commands.eliminate(tournament_id=t, outs=[{"player_id": p.id, "stack": 10 - i}
                                              for i, p in enumerate(players[2:])],
                       actor="td", idempotency_key=key())
    assert all(balance(gaming_account(p.id)) == 1_000_00 - 11_00 for p in players[2:])
    result = commands.eliminate(tournament_id=t, outs=[{"player_id": players[1].id,
                                                        "stack": 10}],
                                actor="td", idempotency_key=key())
    assert result.state != "finished"
    assert balance(gaming_account(players[1].id)) == 1_000_00 - 11_00 + 21_00
    assert {"from": "pool", "to": f"player:{players[1].id}", "amount_minor": 21_00,
            "reason": "prize"} in result.transfers
    assert balance(prize_pool(t)) == 39_00
    commands.finish(tournament_id=t, actor="td", idempotency_key=key())
    assert balance(gaming_account(players[0].id)) == 1_000_00 - 11_00 + 39_00
    assert balance(gaming_account(players[1].id)) == 1_000_00 - 11_00 + 21_00
    assert balance(prize_pool(t)) == 0
    assert verify_chain().ok
    live = list(Tournament.objects.filter(id=t).values())
    rebuild_projections()
    assert list(Tournament.objects.filter(id=t).values()) == live


def test_a_room_tournament_still_pays_its_prizes_at_the_finish(venues):
    """Decision tournaments.prizes.paid_at_end: the room pays no prize at a bust."""
    t = announce(format="freezeout", entry={"prize_minor": 10_00, "fee_minor": 1_00},
                 re_entry=False, entries_per_player_max=1).tournament_id
    assert Tournament.objects.get(id=t).config["prizes_paid_at"] == "end"
    commands.open_registration(tournament_id=t, actor="td", idempotency_key=key())
    players = [funded_player() for _ in range(3)]
    for p in players:
        commands.register(tournament_id=t, player_id=p.id, actor="cage",
                          idempotency_key=key())
    commands.start(tournament_id=t, actor="td", idempotency_key=key())
    commands.fix_prize_pool(tournament_id=t, actor="td", idempotency_key=key())
    result = commands.eliminate(tournament_id=t, outs=[{"player_id": players[2].id,
                                                        "stack": 10}],
                                actor="td", idempotency_key=key())
    assert not any(tr["reason"] == "prize" for tr in result.transfers)


def test_announce_freezes_the_rulebooks_cancellation_shares(venues):
    """001:L425-426, L441: the online rulebook's interruption shares are frozen into
    the config and used by the engine; a rulebook without them uses the online
    policy (decision tournaments.cancel.policy)."""
    from casino.rules.commands import register_venue
    from casino.tournaments.engine import CancellationTerms
    from casino.tournaments.replay import config_from

    register_venue(code="poker-online", name="poker-online",
                   rulebook_id="veikkaus-online-poker")
    online = commands.announce(venue="poker-online", name="Online", format="freezeout",
                               entry={"prize_minor": 10_00, "fee_minor": 1_00}, actor="td",
                               idempotency_key=key("announce")).tournament_id
    config = Tournament.objects.get(id=online).config
    assert config["cancellation"] == {
        "tournament.cancel.before_itm.equal_split": 5000,
        "tournament.cancel.before_itm.chip_split": 5000,
        "hexapro.cancel.share_per_remaining_player": 1000,
        "tournament.cancel.refund_item": "fee_part"}
    assert config_from(config).cancellation == CancellationTerms(5000, 5000, 1000)
    changed = {**config, "cancellation": {
        **config["cancellation"], "tournament.cancel.before_itm.equal_split": 3000,
        "tournament.cancel.before_itm.chip_split": 7000}}
    assert config_from(changed).cancellation == CancellationTerms(3000, 7000, 1000)
    room = announce(format="freezeout", entry={"prize_minor": 10_00, "fee_minor": 1_00},
                    re_entry=False, entries_per_player_max=1).tournament_id
    assert Tournament.objects.get(id=room).config["cancellation"] is None
    assert config_from(Tournament.objects.get(id=room).config).cancellation is None
