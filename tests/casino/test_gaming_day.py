"""Every venue event is dated by the venue's own gaming day, on DST nights too.

The poker room's day starts at 06:00 local (its rulebook's
`gaming_day.boundary`, a recorded decision): a chip purchase at 05:59:59
belongs to the day before, one at 06:00:00 to the day itself. The two DST
nights of 2026 in Helsinki (29 March, clocks 03:00 -> 04:00; 25 October,
04:00 -> 03:00) fall inside the night before the boundary, so the 23- and
25-hour gaming days must still end exactly at 06:00 local. The ledger no
longer dates anything itself: money without a gaming day is refused.
"""

import datetime as dt

import pytest

from casino.cage.commands import buy_chips
from ledger import NewEvent, Posting, append
from ledger.errors import InvalidEvent
from ledger.models import Event
from tests.casino.conftest import HELSINKI, make_player

POKER_ROOM = "poker-helsinki"


@pytest.mark.parametrize("night", [dt.date(2026, 3, 29), dt.date(2026, 10, 25),
                                   dt.date(2026, 6, 16)], ids=["spring", "autumn", "summer"])
@pytest.mark.parametrize("clock, offset_days", [(dt.time(5, 59, 59), -1), (dt.time(6), 0)],
                         ids=["05:59:59", "06:00:00"])
def test_a_chip_purchase_is_dated_by_the_venue_day(venues, night, clock, offset_days):
    """05:59:59 belongs to the previous gaming day, 06:00:00 to the new one."""
    player = make_player()
    at = dt.datetime.combine(night, clock, tzinfo=HELSINKI)
    result = buy_chips(player_id=player.id, venue=POKER_ROOM, amount_minor=5_000,
                       currency="EUR", actor="cashier", at=at)
    event = Event.objects.get(position=result.position)
    assert event.gaming_day == night + dt.timedelta(days=offset_days)
    assert result.gaming_day == event.gaming_day


def test_the_gaming_days_around_a_dst_night_are_23_and_25_hours_long(venues):
    """From 06:00 to 06:00 local across the spring night is 23 hours, across the
    autumn night 25: both purchases an hour apart in UTC land one day apart."""
    from casino.rules.queries import venue, venue_day

    room = venue(POKER_ROOM)
    # Elapsed time is counted in UTC (an aware datetime plus a timedelta in
    # its own zone would move the wall clock instead).
    spring_start = dt.datetime(2026, 3, 28, 6, tzinfo=HELSINKI).astimezone(dt.timezone.utc)
    autumn_start = dt.datetime(2026, 10, 24, 6, tzinfo=HELSINKI).astimezone(dt.timezone.utc)
    just_before = dt.timedelta(hours=23) - dt.timedelta(seconds=1)
    assert venue_day(room, spring_start + just_before) == dt.date(2026, 3, 28)
    assert venue_day(room, spring_start + dt.timedelta(hours=23)) == dt.date(2026, 3, 29)
    just_before = dt.timedelta(hours=25) - dt.timedelta(seconds=1)
    assert venue_day(room, autumn_start + just_before) == dt.date(2026, 10, 24)
    assert venue_day(room, autumn_start + dt.timedelta(hours=25)) == dt.date(2026, 10, 25)


def test_money_without_a_gaming_day_is_refused(db):
    """The ledger does not guess a business day from the calendar."""
    from ledger import open_account

    open_account(code="test/a", type="asset", currency="EUR")
    open_account(code="test/b", type="asset", currency="EUR")
    before = Event.objects.count()
    with pytest.raises(InvalidEvent, match="must carry its gaming day"):
        append([NewEvent(stream="test/1", type="test.moved", payload={},
                         postings=(Posting("test/a", 1, "EUR"), Posting("test/b", -1, "EUR")))])
    assert Event.objects.count() == before
