"""Minimum age at every venue, failing closed (issue 14 item 5).

Seeds 003 (Tallinn) and 004 (Ljubljana) state no age; each rulebook carries
its country's legal minimum as a decision row citing the law: Estonia 21
(Hasartmänguseadus § 34(2)), Slovenia 18 (Zakon o igrah na srečo). A
rulebook in force with no `age.min` admits nobody:
`compliance.age_limit_missing`, recorded like any refusal.
"""

import datetime as dt

import pytest

from casino.cage.commands import buy_chips
from casino.compliance.checks import AttemptContext, of_age
from casino.compliance.errors import AttemptRejected
from casino.rules import cache
from casino.rules.commands import register_venue
from casino.rules.models import Figure as RuleFigure
from ledger.models import Event
from tests.casino.conftest import NOON, make_player

TALLINN = "olympic-tallinn"
LJUBLJANA = "pslive-ljubljana"
TODAY = NOON.date()


@pytest.fixture
def ljubljana(venues):
    register_venue(code=LJUBLJANA, name="PokerStars Live Ljubljana",
                   rulebook_id="pslive-tournaments")
    return LJUBLJANA


def _born_aged(years: int) -> dt.date:
    """A date of birth that makes a player exactly `years` old today."""
    return TODAY.replace(year=TODAY.year - years)


def _buy(player, venue):
    return buy_chips(player_id=player.id, venue=venue, paid_with="cash", amount_minor=10_000,
                     currency="EUR", actor="cashier", at=NOON)


@pytest.mark.parametrize("venue, age, allowed, rulebook", [
    (TALLINN, 20, False, "olympic-tallinn"),
    (TALLINN, 21, True, "olympic-tallinn"),
    (LJUBLJANA, 17, False, "pslive-tournaments"),
    (LJUBLJANA, 18, True, "pslive-tournaments"),
], ids=["tallinn_20_case", "tallinn_21_case", "ljubljana_17_case", "ljubljana_18_case"])
def test_tallinn_admits_from_21_and_ljubljana_from_18(ljubljana, venue, age, allowed,
                                                      rulebook):
    """olympic-tallinn decision age.min (Hasartmänguseadus § 34(2): 21) and
    pslive-tournaments decision age.min (ZIS: 18); the refusal cites the
    decision, as no seed line holds the age."""
    player = make_player(born=_born_aged(age))
    if allowed:
        assert _buy(player, venue).chips_outstanding_minor == 10_000
        return
    before = Event.objects.count()
    with pytest.raises(AttemptRejected) as refused:
        _buy(player, venue)
    assert (refused.value.failure.code, refused.value.failure.cite) == (
        "compliance.underage", f"{rulebook} decision age.min")
    assert Event.objects.count() == before + 1
    assert Event.objects.order_by("-position").first().payload["rule"] == "compliance.underage"


@pytest.fixture
def fresh_rules_cache():
    """Forget cached figures before and after a test that edits them."""
    cache.invalidate()
    yield
    cache.invalidate()


def test_a_venue_without_a_minimum_age_in_force_refuses_play(ljubljana, fresh_rules_cache):
    """Fail closed: with age.min gone from the rulebook a 40-year-old is
    refused too, and the refusal is recorded."""
    RuleFigure.objects.filter(rulebook__rulebook_id="pslive-tournaments",
                              figure_key="age.min").delete()
    player = make_player(born=_born_aged(40))
    before = Event.objects.count()
    with pytest.raises(AttemptRejected) as refused:
        _buy(player, LJUBLJANA)
    assert refused.value.failure.code == "compliance.age_limit_missing"
    assert refused.value.message == ("pslive-tournaments@1 states no minimum age, so no player"
                                     " can be admitted")
    assert Event.objects.count() == before + 1
    recorded = Event.objects.order_by("-position").first()
    assert (recorded.type, recorded.payload["rule"]) == ("compliance.attempt_rejected",
                                                         "compliance.age_limit_missing")


def test_the_age_check_fails_closed_without_a_figure():
    """of_age with no age.min refuses; a deposit-free attempt without a
    player (a venue-level check) is not its concern."""
    context = AttemptContext(kind="stake", amount_minor=100, currency="EUR", at=NOON,
                             venue="v", venue_local=NOON, venue_day=TODAY, rulebook="x@1",
                             player_id="p", player_verified=True, player_age=40)
    assert of_age(context).code == "compliance.age_limit_missing"
    assert of_age(AttemptContext(**{**_fields(context), "player_id": None})) is None


def _fields(context: AttemptContext) -> dict:
    return {name: getattr(context, name) for name in AttemptContext.__slots__}
