"""Table sizes: the most players a cash table of a venue opens with.

RAY halls and partner premises seat 10 (002:L295), the casino 12
(002:L1814); Tallinn's cash games seat 9 at Hold'em and Crazy Pineapple and
8 at every other game (003:L28-30).
"""

from __future__ import annotations

import pytest

from casino.poker import commands
from casino.poker.errors import PokerError
from casino.poker.models import Table
from tests.casino.poker.conftest import key


def _open(venue, seats_max, variant="holdem", **options):
    terms = dict(venue=venue, variant=variant, structure="no_limit", small_blind_minor=100,
                 big_blind_minor=200, seats_max=seats_max, buy_in_minor_min=10_000,
                 buy_in_minor_max=40_000, actor="floor", idempotency_key=key())
    if venue.startswith(("hall", "partner", "casino")):
        terms.update(rake="house_fee", rake_percent_basis_points=500,
                     small_blind_minor=50, big_blind_minor=100)
    return commands.open_table(**{**terms, **options})


@pytest.mark.parametrize(("venue", "variant", "seats_allowed", "cite"), [
    pytest.param("hall-helsinki", "holdem", 10, "002:L295", id="ray_hall_case"),
    pytest.param("partner-kioski", "holdem", 10, "002:L295", id="ray_partner_case"),
    pytest.param("casino-helsinki", "holdem", 12, "002:L1814", id="ray_casino_case"),
    pytest.param("olympic-tallinn", "holdem", 9, "003:L29", id="tallinn_holdem_case"),
    pytest.param("olympic-tallinn", "crazy_pineapple", 9, "003:L29",
                 id="tallinn_crazy_pineapple_case"),
    pytest.param("olympic-tallinn", "omaha", 8, "003:L30", id="tallinn_other_case"),
])
def test_table_opens_with_its_venue_maximum_and_not_one_more(venues, venue, variant,
                                                            seats_allowed, cite):
    """002:L295, 002:L1814, 003:L29-30: a table opens with the venue's maximum
    players for its game; one seat more is refused with the limit and its line."""
    opened = _open(venue, seats_allowed, variant=variant)
    assert opened.seats_max == seats_allowed
    tables = Table.objects.count()
    with pytest.raises(PokerError) as refused:
        _open(venue, seats_allowed + 1, variant=variant)
    assert refused.value.code == "poker.too_many_seats"
    assert refused.value.details["limit"] == seats_allowed
    assert refused.value.details["cite"] == cite
    assert Table.objects.count() == tables
