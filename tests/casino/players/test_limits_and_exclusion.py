"""Player-set limits, the fixed loss caps, days across DST, self-exclusion.

Figures come from the ray-online rulebook: cooling-off 24 hours (daily) and
7 days (monthly) for a raise, a decrease at once (decision
online.limits.cooling_off, 002:L3078); EUR 500 daily loss caps for slots and
for casino games against the house (002:L3082); self-exclusion up to 12
months, not revocable (002:L3086).
"""

import datetime as dt

import pytest

from casino.compliance.models import Alert
from casino.compliance.pipeline import Attempt, authorize, check, venue_day
from casino.compliance.errors import AttemptRejected
from casino.players.commands import self_exclude, set_limit
from casino.players.errors import PlayerError, PlayerErrorCode
from casino.rules.models import Venue
from ledger import NewEvent, append
from ledger.models import Event
from tests.casino.conftest import HELSINKI, NOON, make_player


# An online game per wager category, with its Part IV cap: slots EUR 20 a
# round (002:L3477), card games against the house EUR 500 (002:L3461), poker
# against players EUR 1,000 opening stake (002:L3467).
GAME_OF = {
    "slots": ("slot_game", "round_total"),
    "casino_vs_house": ("card_vs_house", "betting_option"),
    "pvp": ("poker_pvp", "opening_stake"),
}


def _stake(player, amount_minor, at, category="pvp", venue="ray-online"):
    game, bet_unit = GAME_OF[category]
    return check(Attempt(kind="stake", venue=venue, currency="EUR", player_id=player.id,
                         game=game, bet_unit=bet_unit, category=category,
                         amount_minor=amount_minor, at=at))


def _settled_wager(player, staked_minor, won_minor, at, category="slots"):
    """Record a settled online wager the way game apps do: an activity block."""
    day = venue_day(Venue.objects.get(code="ray-online"), at)
    append([NewEvent(stream=f"test-wagers/{player.id}", type="test.wager_settled",
                     occurred_at=at,
                     payload={"activity": {"player": player.id, "venue": "ray-online",
                                           "day": day.isoformat(), "category": category,
                                           "staked_minor": staked_minor,
                                           "won_minor": won_minor}})])


def test_lowering_a_limit_applies_at_once(venues):
    """A decrease is in force immediately (002:L3078, decision cooling_off)."""
    player = make_player(daily=100_00)
    set_limit(player_id=player.id, kind="daily_spend", value=50_00, venue_code="ray-online",
              actor="test", at=NOON)
    assert _stake(player, 50_00, NOON + dt.timedelta(seconds=1)).allowed
    refused = _stake(player, 50_01, NOON + dt.timedelta(seconds=1))
    assert (refused.failure.code, refused.failure.limit_minor) == ("compliance.daily_spend_limit", 50_00)


def test_raising_a_limit_waits_for_the_cooling_off(venues):
    """A raise of the daily limit takes effect 24 hours later, not before."""
    player = make_player(daily=100_00)
    limit = set_limit(player_id=player.id, kind="daily_spend", value=300_00,
                      venue_code="ray-online", actor="test", at=NOON)
    assert (limit.value, limit.pending_value) == (100_00, 300_00)
    assert limit.pending_effective_at == NOON + dt.timedelta(hours=24)
    just_before = NOON + dt.timedelta(hours=23, minutes=59, seconds=59)
    assert _stake(player, 200_00, just_before).failure.code == "compliance.daily_spend_limit"
    assert _stake(player, 200_00, NOON + dt.timedelta(hours=24)).allowed


def test_monthly_raise_waits_seven_days(venues):
    """The monthly limit's raise waits 7 days (ray-online figure)."""
    player = make_player(daily=1_000_00, monthly=200_00)
    set_limit(player_id=player.id, kind="monthly_spend", value=900_00, venue_code="ray-online",
              actor="test", at=NOON)
    day_six = NOON + dt.timedelta(days=6, hours=23)
    assert _stake(player, 300_00, day_six, category="pvp").failure.code == (
        "compliance.monthly_spend_limit")
    assert _stake(player, 300_00, NOON + dt.timedelta(days=7), category="pvp").allowed


def test_a_decrease_cancels_a_raise_still_waiting(venues):
    """Lowering while a raise waits leaves only the lower limit."""
    player = make_player(daily=100_00)
    set_limit(player_id=player.id, kind="daily_spend", value=500_00, venue_code="ray-online",
              actor="test", at=NOON)
    limit = set_limit(player_id=player.id, kind="daily_spend", value=80_00,
                      venue_code="ray-online", actor="test", at=NOON + dt.timedelta(hours=1))
    assert (limit.value, limit.pending_value) == (80_00, None)
    assert _stake(player, 80_01, NOON + dt.timedelta(days=2)).failure.limit_minor == 80_00


def test_stakes_need_daily_and_monthly_limits_online(venues):
    """No online stake before both spending limits exist (002:L3078)."""
    player = make_player(limits=False)
    verdict = _stake(player, 1_00, NOON, category="slots")
    assert verdict.failure.code == "compliance.limits_required"


def test_a_stake_that_could_cross_the_daily_loss_cap_is_refused(venues):
    """EUR 490 lost on slots today: EUR 10 more is allowed, EUR 10.01 is not."""
    player = make_player()
    _settled_wager(player, staked_minor=600_00, won_minor=110_00, at=NOON)
    later = NOON + dt.timedelta(minutes=5)
    assert _stake(player, 10_00, later, category="slots").allowed
    refused = _stake(player, 10_01, later, category="slots")
    assert (refused.failure.code, refused.failure.limit_minor, refused.failure.cite) == (
        "compliance.loss_cap", 500_00, "002:L3082")


def test_loss_caps_are_separate_and_pvp_has_none(venues):
    """Slots losses do not count against the house-games cap; PvP has no cap."""
    player = make_player()
    _settled_wager(player, staked_minor=500_00, won_minor=0, at=NOON)
    assert _stake(player, 1_00, NOON, category="slots").failure.code == "compliance.loss_cap"
    assert _stake(player, 500_00, NOON, category="casino_vs_house").allowed
    assert _stake(player, 1_000_00, NOON, category="pvp").allowed


@pytest.mark.parametrize(
    "loss_at, stake_at, same_day",
    [
        # Spring forward, 29 March 2026: 03:00 EET becomes 04:00 EEST; the day
        # is 23 hours long.
        (dt.datetime(2026, 3, 28, 23, 30), dt.datetime(2026, 3, 29, 0, 0), False),
        (dt.datetime(2026, 3, 29, 0, 0), dt.datetime(2026, 3, 29, 23, 59, 59), True),
        (dt.datetime(2026, 3, 29, 2, 59), dt.datetime(2026, 3, 29, 4, 0), True),
        (dt.datetime(2026, 3, 29, 23, 59), dt.datetime(2026, 3, 30, 0, 0), False),
        # Fall back, 25 October 2026: 04:00 EEST becomes 03:00 EET; the day is
        # 25 hours long.
        (dt.datetime(2026, 10, 24, 23, 59), dt.datetime(2026, 10, 25, 0, 0), False),
        (dt.datetime(2026, 10, 25, 0, 0), dt.datetime(2026, 10, 25, 23, 59, 59), True),
        (dt.datetime(2026, 10, 25, 3, 30, fold=0), dt.datetime(2026, 10, 25, 3, 30, fold=1), True),
        (dt.datetime(2026, 10, 25, 23, 59), dt.datetime(2026, 10, 26, 0, 0), False),
    ],
    ids=["spring-midnight", "spring-whole-day", "spring-gap", "spring-next-day",
         "autumn-midnight", "autumn-whole-day", "autumn-repeated-hour", "autumn-next-day"],
)
def test_the_loss_cap_day_follows_helsinki_midnight_across_dst(venues, loss_at, stake_at,
                                                                 same_day):
    """A EUR 500 slots loss blocks further stakes until Helsinki midnight."""
    player = make_player(at=dt.datetime(2026, 3, 1, 12, tzinfo=HELSINKI))
    _settled_wager(player, staked_minor=500_00, won_minor=0,
                   at=loss_at.replace(tzinfo=HELSINKI))
    verdict = _stake(player, 1_00, stake_at.replace(tzinfo=HELSINKI), category="slots")
    assert verdict.allowed is not same_day
    if same_day:
        assert verdict.failure.code == "compliance.loss_cap"


def test_self_exclusion_starts_at_once_and_cannot_be_lifted(venues):
    """Excluded for 3 months from now: stakes refused and recorded; no early end."""
    player = make_player()
    excluded = self_exclude(player_id=player.id, months=3, venue_code="ray-online", actor="test",
                            at=NOON)
    assert excluded.self_excluded_until == dt.datetime(2026, 9, 16, 12, 0, tzinfo=HELSINKI)
    attempt = Attempt(kind="stake", venue="ray-online", currency="EUR", player_id=player.id,
                      game="slot_game", bet_unit="round_total", amount_minor=1_00,
                      at=NOON + dt.timedelta(seconds=1))
    before = Event.objects.count()
    with pytest.raises(AttemptRejected) as caught:
        authorize(attempt, actor="test")
    assert caught.value.failure.code == "compliance.self_excluded"
    rejection = Event.objects.get(position=caught.value.details["rejection_position"])
    assert rejection.type == "compliance.attempt_rejected"
    assert rejection.payload["rule"] == "compliance.self_excluded"
    assert Event.objects.count() == before + 1
    assert Alert.objects.filter(player_id=player.id, kind="rejected_attempt").count() == 1
    with pytest.raises(PlayerError) as refused:
        self_exclude(player_id=player.id, months=1, venue_code="ray-online", actor="test",
                     at=NOON + dt.timedelta(days=1))
    assert refused.value.code == PlayerErrorCode.SELF_EXCLUSION_ACTIVE
    after_end = dt.datetime(2026, 9, 16, 12, 0, tzinfo=HELSINKI)
    assert check(Attempt(kind="stake", venue="ray-online", currency="EUR", player_id=player.id,
                         game="slot_game", bet_unit="round_total", amount_minor=1_00,
                         at=after_end)).allowed


def test_self_exclusion_is_lengthened_within_twelve_continuous_months(venues):
    """002:L3086 (decision online.self_exclusion.term): a running exclusion may be
    lengthened, the new term from the request, ending within 12 months of its start."""
    player = make_player()
    self_exclude(player_id=player.id, months=3, venue_code="ray-online", actor="test",
                 at=NOON)
    month_later = NOON + dt.timedelta(days=30)
    lengthened = self_exclude(player_id=player.id, months=6, venue_code="ray-online",
                              actor="test", at=month_later)
    assert lengthened.self_excluded_from == NOON
    assert lengthened.self_excluded_until == dt.datetime(2027, 1, 16, 12, 0,
                                                         tzinfo=HELSINKI)
    event = Event.objects.filter(stream=f"player/{player.id}").order_by(
        "-position").first()
    assert event.type == "players.self_excluded"
    assert dt.datetime.fromisoformat(event.payload["lengthens_until"]) == dt.datetime(
        2026, 9, 16, 12, 0, tzinfo=HELSINKI)
    assert event.payload["cite"] == "002:L3086"


@pytest.mark.parametrize("months, reason_case", [
    (12, "beyond_max"),     # 12 months from a month in: 13 continuous months
    (2, "not_later"),       # ends before the running term: a shortening
])
def test_self_exclusion_lengthening_refusals_are_recorded(venues, months, reason_case):
    """002:L3086: never shortened, never beyond 12 continuous months; the refusal is
    recorded on the player's rejections and nothing else is written."""
    player = make_player()
    self_exclude(player_id=player.id, months=3, venue_code="ray-online", actor="test",
                 at=NOON)
    before = Event.objects.count()
    with pytest.raises(PlayerError) as refused:
        self_exclude(player_id=player.id, months=months, venue_code="ray-online",
                     actor="test", at=NOON + dt.timedelta(days=30),
                     idempotency_key=f"lengthen-{reason_case}")
    assert refused.value.code == PlayerErrorCode.SELF_EXCLUSION_ACTIVE
    assert refused.value.details["reason"] == reason_case
    assert refused.value.details["cite"] == "002:L3086"
    assert Event.objects.count() == before + 1
    rejection = Event.objects.get(position=refused.value.details["rejection_position"])
    assert rejection.type == "players.self_exclusion_rejected"
    assert rejection.payload["rule"] == "players.self_exclusion_active"
    player.refresh_from_db()
    assert player.self_excluded_until == dt.datetime(2026, 9, 16, 12, 0, tzinfo=HELSINKI)
    with pytest.raises(PlayerError) as replayed:
        self_exclude(player_id=player.id, months=months, venue_code="ray-online",
                     actor="test", at=NOON + dt.timedelta(days=30),
                     idempotency_key=f"lengthen-{reason_case}")
    assert replayed.value.details["reason"] == reason_case
    assert Event.objects.count() == before + 1


@pytest.mark.parametrize("months", [0, 13, -1])
def test_self_exclusion_term_is_one_to_twelve_months(venues, months):
    """002:L3086: at most 12 months in one go."""
    player = make_player()
    with pytest.raises(PlayerError) as caught:
        self_exclude(player_id=player.id, months=months, venue_code="ray-online", actor="test",
                     at=NOON)
    assert caught.value.code == PlayerErrorCode.INVALID_SELF_EXCLUSION


def test_under_eighteen_and_unverified_players_cannot_stake(venues):
    """Age 18 (002:L3031) and verified identity guard every stake."""
    minor = make_player(born=dt.date(2008, 6, 17))
    unverified = make_player(verified=False)
    assert _stake(minor, 1_00, NOON).failure.code == "compliance.underage"
    assert _stake(unverified, 1_00, NOON).failure.code == "compliance.identity_unverified"
    eighteen_today = make_player(born=dt.date(2008, 6, 16))
    assert _stake(eighteen_today, 1_00, NOON).allowed
    assert _stake(minor, 1_00, NOON).checks_passed == ("compliance.identity_unverified",)


def test_a_refused_request_retried_under_its_key_is_recorded_once(venues):
    """The same key returns the same refusal without a second record."""
    player = make_player(verified=False)
    attempt = Attempt(kind="stake", venue="ray-online", currency="EUR", player_id=player.id,
                      game="slot_game", bet_unit="round_total", amount_minor=1_00, at=NOON)
    for _ in range(2):
        with pytest.raises(AttemptRejected):
            authorize(attempt, actor="test", idempotency_key="retry-1")
    assert Event.objects.filter(type="compliance.attempt_rejected").count() == 1
