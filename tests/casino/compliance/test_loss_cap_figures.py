"""The fixed daily loss caps read their rulebook's switches (issue 14, 002:L3082).

002:L3082: "Raha-automaattiyhdistyksen nettiraha-automaattipeleissä
vuorokautinen häviämisrajoitus on 500 € Yksin pelattavissa nettikasinopeleissä
vuorokautinen häviämisrajoitus on 500 € Toisia vastaan pelattavissa
nettikasinopeleissä ei kuitenkaan ole vuorokautista pelaamisrajoitusta."
ray-online carries it as `online.loss_cap.casino_pvp.applies = false`, the
loss basis `stakes_minus_wins` (decision online.loss_cap.loss_basis) and the
day's start `00:00` (decision online.day). Each test flips one figure in the
loaded rulebook and shows the check follows it.
"""

import datetime as dt

import pytest

from casino.compliance.checks import AttemptContext, Figure, within_loss_cap
from casino.compliance.pipeline import Attempt, check, venue_day
from casino.rules import cache
from casino.rules.models import Figure as RuleFigure, Venue
from ledger import NewEvent, append
from tests.casino.conftest import NOON, make_player

GAME_OF = {
    "slots": ("slot_game", "round_total"),           # EUR 20 a round, 002:L3477
    "casino_vs_house": ("card_vs_house", "betting_option"),
    "pvp": ("poker_pvp", "opening_stake"),            # EUR 1,000, 002:L3467
}


@pytest.fixture
def fresh_rules_cache():
    cache.invalidate()
    yield
    cache.invalidate()


def _set(key: str, value) -> None:
    updated = RuleFigure.objects.filter(rulebook__rulebook_id="ray-online",
                                        figure_key=key).update(value=value)
    assert updated == 1, key
    cache.invalidate()


def _add(key: str, value, unit: str, cite: str) -> None:
    version = RuleFigure.objects.filter(rulebook__rulebook_id="ray-online").first().rulebook
    RuleFigure.objects.create(key=f"{version.key}/{key}", rulebook=version, figure_key=key,
                              value=value, unit=unit, cite=cite)
    cache.invalidate()


def _stake(player, amount_minor, category, at=NOON):
    game, bet_unit = GAME_OF[category]
    return check(Attempt(kind="stake", venue="ray-online", currency="EUR", player_id=player.id,
                         game=game, bet_unit=bet_unit, category=category,
                         amount_minor=amount_minor, at=at))


def _settled(player, staked_minor, won_minor, category, at=NOON):
    day = venue_day(Venue.objects.get(code="ray-online"), at)
    append([NewEvent(stream=f"test-wagers/{player.id}", type="test.wager_settled",
                     occurred_at=at,
                     payload={"activity": {"player": player.id, "venue": "ray-online",
                                           "day": day.isoformat(), "category": category,
                                           "staked_minor": staked_minor,
                                           "won_minor": won_minor}})])


def test_games_against_other_players_have_no_cap_until_the_switch_says_so(
        venues, fresh_rules_cache):
    """002:L3082: no daily cap for online casino games against other players.

    Shipped (applies = false) a EUR 600 PvP loss does not stop a EUR 1,000
    stake. Switched on with a EUR 500 cap, the same stake is refused; switched
    on without a cap, it is refused too (fail closed).
    """
    player = make_player()
    _settled(player, staked_minor=600_00, won_minor=0, category="pvp")
    assert _stake(player, 1_000_00, "pvp").allowed
    _set("online.loss_cap.casino_pvp.applies", True)
    refused = _stake(player, 1_00, "pvp")
    assert (refused.failure.code, refused.failure.cite) == ("compliance.loss_cap", "002:L3082")
    assert "states none" in refused.failure.message
    _add("online.loss_cap.casino_pvp.daily_max", 700_00, "minor", "002:L3082")
    assert _stake(player, 100_00, "pvp").allowed
    over = _stake(player, 100_01, "pvp")
    assert (over.failure.code, over.failure.limit_minor) == ("compliance.loss_cap", 700_00)


def test_the_loss_basis_is_the_rulebook_figure(venues, fresh_rules_cache):
    """Decision online.loss_cap.loss_basis (002:L3082): stakes minus wins.

    EUR 490 staked and EUR 490 won on slots is no loss, so a EUR 20 round is
    allowed; counted as stakes alone it would take the day to EUR 510, over
    the EUR 500 cap.
    """
    player = make_player()
    _settled(player, staked_minor=490_00, won_minor=490_00, category="slots")
    assert _stake(player, 20_00, "slots").allowed
    _set("online.loss_cap.loss_basis", "stakes")
    refused = _stake(player, 20_00, "slots")
    assert (refused.failure.code, refused.failure.limit_minor) == ("compliance.loss_cap", 500_00)
    _set("online.loss_cap.loss_basis", "turnover_squared")
    unknown = _stake(player, 1_00, "slots")
    assert unknown.failure.code == "compliance.loss_cap"
    assert "not known" in unknown.failure.message


def test_the_loss_cap_day_must_start_when_the_venue_day_does(venues, fresh_rules_cache):
    """Decision online.day (002:L3082 'vuorokautinen'): the cap's day starts at 00:00.

    The venue's activity is kept by its own day (00:00 at ray-online), so the
    shipped figure counts today's loss; a rulebook whose cap day starts at
    06:00 cannot be counted from it and the stake is refused, not counted
    over the wrong day.
    """
    player = make_player()
    assert _stake(player, 20_00, "slots").allowed
    _set("online.loss_cap.day_start", "06:00")
    refused = _stake(player, 20_00, "slots")
    assert refused.failure.code == "compliance.loss_cap"
    assert "starts at 06:00" in refused.failure.message
    # A category with no cap is not concerned by the cap's day.
    assert _stake(player, 20_00, "pvp").allowed


def test_the_switch_alone_decides_for_a_pure_context():
    """The check is a pure function of its figures: applies=false lets a PvP stake
    over any stated cap through; applies=true enforces it."""
    base = dict(kind="stake", amount_minor=100_00, currency="EUR", at=NOON, venue="v",
                venue_local=NOON, venue_day=NOON.date(), rulebook="x@1", category="pvp",
                loss_today_by_category={"pvp": 450_00}, day_start="00:00")
    cap = Figure(500_00, "002:L3082")
    off = AttemptContext(**base, figures={"online.loss_cap.casino_pvp.daily_max": cap,
                                          "online.loss_cap.casino_pvp.applies":
                                          Figure(False, "002:L3082")})
    on = AttemptContext(**base, figures={"online.loss_cap.casino_pvp.daily_max": cap,
                                         "online.loss_cap.casino_pvp.applies":
                                         Figure(True, "002:L3082")})
    assert within_loss_cap(off) is None
    assert within_loss_cap(on).limit_minor == 500_00
