"""The online room's published money rules (issue 14 item 17).

001:L680-717: the usual buy-ins are split into a prize-pool part and a fee
by published tables (five-handed and heads-up Sit & Go, MTT). 001:L480-487:
HexaPro's pool is drawn by the house with published probabilities.
"""

from __future__ import annotations

import datetime as dt
from collections import Counter
from fractions import Fraction

import pytest

from casino.rules import queries as rules
from casino.rules.commands import register_venue
from casino.tournaments import commands
from casino.tournaments.commands import _draw_multiplier, fee_table_of
from casino.tournaments.engine import hexapro
from casino.tournaments.errors import TournamentError
from casino.tournaments.models import Tournament
from ledger.models import Event

from .conftest import funded_player, key

ONLINE = "poker-online"


@pytest.fixture
def online(venues):
    register_venue(code=ONLINE, name=ONLINE, rulebook_id="veikkaus-online-poker")
    return ONLINE


def _announce(**settings):
    return commands.announce(venue=settings.pop("venue", ONLINE), name="T",
                             actor="td", idempotency_key=key("announce"), **settings)


@pytest.mark.parametrize(("format", "seats", "entry", "cite"), [
    pytest.param("freezeout", 9, {"prize_minor": 9_50, "fee_minor": 50}, "001:L711",
                 id="mtt_eur10_case"),
    pytest.param("sit_and_go", 5, {"prize_minor": 9_00, "fee_minor": 1_00}, "001:L689",
                 id="sng5_eur10_case"),
    pytest.param("sit_and_go", 2, {"prize_minor": 95, "fee_minor": 5}, "001:L696",
                 id="heads_up_eur1_case"),
])
def test_a_usual_buy_in_split_otherwise_than_published_is_refused(online, format, seats,
                                                                  entry, cite):
    """001:L680-717: a EUR 10 MTT is 9.00 + 1.00, a EUR 10 five-handed Sit & Go
    9.50 + 0.50, a EUR 1 heads-up 0.97 + 0.03; another split is refused and
    nothing is announced."""
    with pytest.raises(TournamentError) as refused:
        _announce(format=format, seats_per_table=seats, entry=entry)
    assert (refused.value.code, refused.value.status) == ("tournaments.fee_split_differs",
                                                          422)
    assert refused.value.details["cite"] == cite
    assert not Tournament.objects.exists()


@pytest.mark.parametrize(("format", "seats", "entry"), [
    pytest.param("freezeout", 9, {"prize_minor": 9_00, "fee_minor": 1_00}, id="mtt_case"),
    pytest.param("sit_and_go", 5, {"prize_minor": 9_50, "fee_minor": 50}, id="sng5_case"),
    pytest.param("sit_and_go", 2, {"prize_minor": 194_00, "fee_minor": 6_00},
                 id="heads_up_eur200_case"),
    pytest.param("freezeout", 9, {"prize_minor": 180_00, "fee_minor": 20_00},
                 id="mtt_unpublished_eur200_case"),
])
def test_the_published_split_and_unpublished_amounts_are_announced(online, format, seats,
                                                                   entry):
    """001:L680-717 (and 001:L322: other amounts are the lobby's)."""
    t = _announce(format=format, seats_per_table=seats, entry=entry)
    assert Tournament.objects.get(id=t.tournament_id).config["entry"]["fee_minor"] \
        == entry["fee_minor"]


def test_the_room_rulebook_publishes_no_online_split(venues):
    """The Veikkaus room has no fee tables: its announcer sets the split."""
    assert _announce(venue="poker-helsinki", format="freezeout",
                     entry={"prize_minor": 9_50, "fee_minor": 50}).tournament_id
    assert fee_table_of("hexapro", 3) is None
    assert fee_table_of("sit_and_go", 6) is None


def test_the_tickets_of_the_draw_follow_the_published_probabilities(online):
    """001:L480-487: over the 100,000 tickets, 1,000x takes 1, 100x 5, 25x
    100, 10x 4,600, 5x 14,000, 3x 25,000 and 1.5x 56,294."""
    rulebook = rules.rulebook_in_force("veikkaus-online-poker", dt.date(2026, 6, 16))
    prefix = "hexapro.probability_per_100000."
    rows = [hexapro.PrizeRow(k.removeprefix(prefix), hexapro.multiplier_of(
        k.removeprefix(prefix)), row.value)
        for k, row in rules.figures(rulebook).items() if k.startswith(prefix)]
    counts = Counter(hexapro.row_for_ticket(rows, ticket).label
                     for ticket in range(hexapro.DRAW_DENOMINATOR))
    assert counts == {"x1000": 1, "x100": 5, "x25": 100, "x10": 4_600, "x5": 14_000,
                      "x3": 25_000, "x1_5": 56_294}
    assert hexapro.house_share(rows) == Fraction(6_853, 100_000)   # 001:L489

    class Fixed:
        def randrange(self, n):
            return n - 1      # the last ticket: the largest multiplier

    assert _draw_multiplier(rulebook, Fixed()) == ("x1000", 99_999)


def test_the_house_draws_the_hexapro_pool(online):
    """001:L480-493: with no multiplier given the house draws it; the event
    records the ticket and the prize that ticket's row pays at the buy-in."""
    t = _announce(format="hexapro", seats_per_table=3,
                  entry={"prize_minor": 1_00, "fee_minor": 0}).tournament_id
    commands.open_registration(tournament_id=t, actor="td", idempotency_key=key())
    for _ in range(3):
        commands.register(tournament_id=t, player_id=funded_player().id, actor="web",
                          idempotency_key=key())
    commands.start(tournament_id=t, actor="td", idempotency_key=key())
    commands.draw_prize_pool(tournament_id=t, actor="system", idempotency_key=key())
    [drawn] = Event.objects.filter(type="tournaments.prize_pool_drawn")
    p = drawn.payload
    assert 0 <= p["drawn"]["ticket"] < 100_000
    assert p["drawn"]["cite"] == "001:L480-487"
    multiplier = hexapro.multiplier_of(p["multiplier"])
    assert p["prize_pool_minor"] == 1_00 * multiplier
