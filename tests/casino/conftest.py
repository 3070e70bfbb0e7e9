"""Fixtures shared by the casino apps' tests: rulebooks, venues, players."""

import datetime as dt
from zoneinfo import ZoneInfo

import pytest

from casino.players.commands import register_player, set_limit, verify_identity
from casino.roles import ensure_role_groups
from casino.rules.commands import load_shipped_rulebooks, register_venue

HELSINKI = ZoneInfo("Europe/Helsinki")
# A Tuesday afternoon outside every blackout, in the rulebooks' first year.
NOON = dt.datetime(2026, 6, 16, 12, 0, tzinfo=HELSINKI)

VENUES = {
    "ray-gaming-hall": "hall-helsinki",
    "ray-partner-premises": "partner-kioski",
    "ray-casino": "casino-helsinki",
    "ray-online": "ray-online",
    "veikkaus-poker-room": "poker-helsinki",
    "olympic-tallinn": "olympic-tallinn",
}


@pytest.fixture(autouse=True)
def business_clock(monkeypatch):
    """Pin the business clock to NOON so time rules do not depend on when
    the suite runs (a run at 02:00 would meet the transfer blackout)."""
    monkeypatch.setattr("casino.clock.now", lambda: NOON)
    return NOON


@pytest.fixture
def venues(db):
    """The shipped rulebooks and one venue under each (code by rulebook id)."""
    load_shipped_rulebooks()
    ensure_role_groups()
    for rulebook_id, code in VENUES.items():
        register_venue(code=code, name=code, rulebook_id=rulebook_id)
    return VENUES


_documents = iter(range(10_000_000, 99_999_999))


def make_player(*, born=dt.date(1990, 5, 1), verified=True, limits=True, at=NOON,
                daily=10_000_000_00, monthly=10_000_000_00):
    """A registered player: verified and with spending limits by default."""
    player = register_player(
        given_name="Test", family_name="Player", date_of_birth=born, nationality="FI",
        document_type="passport", document_number=f"P{next(_documents)}", actor="test",
        at=at - dt.timedelta(days=30),
    )
    if verified:
        verify_identity(player_id=player.id, method="bank_id", actor="test",
                        at=at - dt.timedelta(days=30))
    if limits:
        for kind, value in (("daily_spend", daily), ("monthly_spend", monthly)):
            set_limit(player_id=player.id, kind=kind, value=value, venue_code="ray-online",
                      actor="test", at=at - dt.timedelta(days=30))
    return player


@pytest.fixture
def player(venues):
    return make_player()
