"""Section 11's maximum win on player-vs-player poker pots (issue 14 item 2).

002:L3489-3499: the largest win of RAY's games is EUR 10,000 at partner
premises, EUR 100,000 in halls, EUR 1 million online and EUR 10 million at
the casino. Decision poker_pvp.max_win: a pot is a win (only tournament
poker's win is the announced prize, 002:L3349, L3367); what counts is what a
player gains, and since a pot cannot be cut after the hand, a hand in which
one player could gain more than the cap is not dealt.
"""

from __future__ import annotations

import pytest

from casino.compliance.errors import AttemptRejected
from casino.poker import commands
from casino.poker.commands.base import OpeningStake, max_win_check, opening_stake_check
from casino.poker.models import Hand
from ledger.models import Event
from tests.casino.conftest import make_player

from .conftest import key

PARTNER = "partner-kioski"


def _partner_table():
    return commands.open_table(
        venue=PARTNER, variant="holdem", structure="no_limit", small_blind_minor=100,
        big_blind_minor=200, seats_max=9, buy_in_minor_min=10_000,
        buy_in_minor_max=700_000, rake="house_fee", rake_percent_basis_points=500,
        actor="floor", idempotency_key=key("table"))


def _seat_in_cash(table_id: str, stacks: dict[int, int]) -> None:
    for seat, amount in stacks.items():
        commands.buy_in(table_id=table_id, seat=seat, player_id=make_player().id,
                        amount_minor=amount, paid_with="cash", actor="floor",
                        idempotency_key=key("buy-in"))


def test_a_hand_one_player_could_win_over_ten_thousand_is_not_dealt(venues):
    """002:L3493: at partner premises three stacks of EUR 6,000 would let one
    player gain EUR 12,000, over the EUR 10,000 maximum win: the deal is
    refused with compliance.max_win and recorded; two such stacks (a gain of
    at most EUR 6,000) are dealt."""
    table = _partner_table()
    _seat_in_cash(table.table_id, {1: 600_000, 2: 600_000, 3: 600_000})
    with pytest.raises(AttemptRejected) as refused:
        commands.start_hand(table_id=table.table_id, button=1, actor="dealer",
                            idempotency_key=key())
    failure = refused.value.failure
    assert (failure.code, failure.limit_minor, failure.amount_minor, failure.cite) == (
        "compliance.max_win", 1_000_000, 1_200_000, "002:L3493")
    assert Hand.objects.filter(table_id=table.table_id).count() == 0
    [recorded] = Event.objects.filter(stream=f"venue/{PARTNER}",
                                      type="compliance.attempt_rejected")
    assert recorded.payload["attempt"]["kind"] == "win"

    commands.cash_out(table_id=table.table_id, seat=3,
                      player_id=commands.load_table(table.table_id).seats[3].player_id,
                      paid_to="cash", actor="floor", idempotency_key=key())
    dealt = commands.start_hand(table_id=table.table_id, button=1, actor="dealer",
                                idempotency_key=key())
    assert dealt.number == 1


@pytest.mark.parametrize(("venue", "stacks", "allowed"), [
    pytest.param("hall-helsinki", [5_000_000, 5_000_000, 10_000], True,
                 id="hall_gain_50_010_case"),
    pytest.param("hall-helsinki", [5_000_001, 5_000_001, 5_000_001], False,
                 id="hall_gain_over_100_000_case"),
    pytest.param("partner-kioski", [1_000_000, 2_000_000], True, id="partner_at_cap_case"),
    pytest.param("partner-kioski", [1_000_001, 2_000_000], False,
                 id="partner_one_cent_over_case"),
])
def test_the_most_a_player_could_gain_is_checked_against_section_11(venues, venue, stacks,
                                                                    allowed):
    """002:L3493, L3495: the largest gain is the sum of the others' stacks
    each up to the player's own; exactly the cap is allowed."""
    from casino import clock

    opening = opening_stake_check(venue=venue, currency="EUR", at=clock.now(),
                                  forced_bets_minor=[100, 200])
    assert isinstance(opening, OpeningStake)
    checked = max_win_check(opening, stacks)
    if allowed:
        assert checked is None
    else:
        assert checked.verdict.failure.code == "compliance.max_win"
