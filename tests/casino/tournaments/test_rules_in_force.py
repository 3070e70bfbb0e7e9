"""Tournament figures the code reads (issue 14 item 21): each changes behaviour.

001:L306 one entry per player unless re-entry is offered; 001:L458 a HexaPro
game seats three; 004:L19 deals allowed; 003:L175 a satellite ticket for an
entry already paid is paid in cash; and the rules the engine applies as the
seeds state them (004:L78, L175, L177; 000:L3326-3328, L3577-3578; 003:L170),
which a rulebook may not silently contradict.
"""

from __future__ import annotations

import datetime as dt

import pytest

from casino.rules.commands import register_venue
from casino.tournaments import commands
from casino.tournaments.commands import SUPPORTED_RULES, _check_supported_rules, seat_not_used
from casino.tournaments.engine import EngineError
from casino.tournaments.engine import Tournament as Engine
from casino.tournaments.errors import TournamentError
from casino.tournaments.models import Tournament
from casino.tournaments.replay import config_from

from .conftest import funded_player, key

ONLINE = "poker-online"


@pytest.fixture
def online(venues):
    register_venue(code=ONLINE, name=ONLINE, rulebook_id="veikkaus-online-poker")
    register_venue(code="pslive-ljubljana", name="pslive", rulebook_id="pslive-tournaments")
    return ONLINE


def _announce(venue=ONLINE, **settings):
    settings.setdefault("entry", {"prize_minor": 10_00, "fee_minor": 1_00})
    return commands.announce(venue=venue, name="T", actor="td",
                             idempotency_key=key("announce"), **settings).tournament_id


def test_online_one_entry_per_player_unless_re_entry_is_offered(online):
    """001:L306 (figure tournament.entries_per_player = 1): two entries per
    player are refused for a freezeout; a re-entry tournament may offer them."""
    with pytest.raises(TournamentError) as refused:
        _announce(format="freezeout", entries_per_player_max=2)
    assert refused.value.details["cite"] == "001:L306"
    assert not Tournament.objects.exists()
    t = _announce(format="re_entry", re_entry=True, entries_per_player_max=2)
    assert Tournament.objects.get(id=t).config["entries_per_player_max"] == 2


def test_a_hexapro_game_seats_the_rulebooks_number(online):
    """001:L458 (figure hexapro.players = 3): the announce freezes three seats
    and a fourth entry is refused; a configuration with four takes four."""
    t = _announce(format="hexapro", seats_per_table=3,
                  entry={"prize_minor": 1_00, "fee_minor": 0})
    config = Tournament.objects.get(id=t).config
    assert config["hexapro_players"] == 3
    commands.open_registration(tournament_id=t, actor="td", idempotency_key=key())
    for _ in range(3):
        commands.register(tournament_id=t, player_id=funded_player().id, actor="web",
                          idempotency_key=key())
    with pytest.raises(TournamentError) as refused:
        commands.register(tournament_id=t, player_id=funded_player().id, actor="web",
                          idempotency_key=key())
    assert refused.value.code == "tournaments.tournament_full"
    four = Engine(config_from({**config, "hexapro_players": 4}))
    four.open_registration()
    for n in range(4):
        four.enter(f"p{n}")
    assert len(four.players) == 4


def test_deals_follow_the_rulebooks_switch(online):
    """004:L19 (figure deals.allowed): PokerStars Live allows deals, frozen
    into the announcement; with the switch off a deal is refused."""
    t = _announce(venue="pslive-ljubljana", format="freezeout")
    config = Tournament.objects.get(id=t).config
    assert config["deals_allowed"] is True
    engine = Engine(config_from({**config, "deals_allowed": False}))
    engine.open_registration()
    for player in ("a", "b", "c"):
        engine.enter(player)
    engine.start()
    engine.fix_pool()
    with pytest.raises(EngineError) as refused:
        engine.record_deal({"a": 15_00, "b": 15_00, "c": 0}, ["a", "b", "c"])
    assert refused.value.code == "deals_not_allowed"


@pytest.mark.parametrize("figure_key", sorted(SUPPORTED_RULES))
def test_a_rulebook_contradicting_an_applied_rule_announces_nothing(venues, figure_key):
    """004:L78, L175, L177; 000:L3326-3328, L3577-3578; 003:L170: the engine
    applies these as the seeds state them; a version that says otherwise is
    refused at announce (tournaments.rule_not_applied), and the shipped
    values pass."""
    from casino.rules import queries as rules

    applied, cite = SUPPORTED_RULES[figure_key]
    other = "other" if isinstance(applied, str) else not applied
    version = rules.rulebook_in_force("pslive-tournaments", dt.date(2026, 6, 16))
    with pytest.raises(TournamentError) as refused:
        _check_supported_rules(version, lambda key, default=None: (
            other if key == figure_key else default))
    assert (refused.value.code, refused.value.details["cite"]) == (
        "tournaments.rule_not_applied", cite)
    for rulebook_id in ("pslive-tournaments", "veikkaus-poker-room", "olympic-tallinn"):
        shipped = rules.rulebook_in_force(rulebook_id, dt.date(2026, 6, 16))

        def figure(key, default=None, shipped=shipped):
            row = rules.figure(shipped, key)
            return row.value if row is not None else default

        _check_supported_rules(shipped, figure)


@pytest.mark.parametrize(("figures", "expected"), [
    pytest.param({"tournament.satellite_ticket_for_paid_entry.paid_in_cash": True}, "cash",
                 id="paid_in_cash_case"),
    pytest.param({}, "ticket", id="silent_rulebook_case"),
    pytest.param({"tournament.satellite_ticket_for_paid_entry.paid_in_cash": True,
                  "tournament.satellite.seat_not_used": "ticket"}, "ticket",
                 id="explicit_figure_wins_case"),
])
def test_a_seat_won_for_an_entry_already_paid(figures, expected):
    """003:L175: where the rulebook pays a satellite ticket for an entry
    already paid in cash, a seat that cannot be used is paid in cash."""
    assert seat_not_used(lambda key, default=None: figures.get(key, default)) == expected
