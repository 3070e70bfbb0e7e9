"""Top-ups between hands read the rulebook (issue 14 item 21).

000:L541-543 (figure buy_in.top_up.min_stack_big_blinds = 1): with at least
one big blind left a player adds any amount; below it the minimum buy-in
applies. 000:L545-546 (buy_in.max_applies_to_top_up = true): a top-up may not
take the stack over the maximum buy-in.
"""

from __future__ import annotations

import datetime as dt

import pytest

from casino.poker import evening
from casino.poker.errors import PokerError

TABLE = evening.TableTerms(table_id="t", structure="no_limit", small_blind_minor=100,
                           big_blind_minor=200, buy_in_minor_min=10_000,
                           buy_in_minor_max=40_000, banzai=False,
                           rulebook="veikkaus-poker-room@1")
AT = dt.datetime(2026, 6, 16, 20, 0, tzinfo=dt.timezone.utc)
ROOM = {"buy_in.top_up.min_stack_big_blinds": (1, "000:L541-543"),
        "buy_in.max_applies_to_top_up": (True, "000:L545-546")}


def _top_up(figures, *, stack_minor, amount_minor):
    return evening.check_buy_in(evening.EveningRules.from_figures(figures), TABLE,
                                amount_minor=amount_minor, stack_minor=stack_minor,
                                sitting_down=False, evening=evening.Evening(),
                                banzai_tables_now=0, at=AT)


def test_a_top_up_over_the_maximum_is_refused_000_L545():
    """000:L545-546: EUR 300 on the table plus EUR 150 would pass EUR 400."""
    with pytest.raises(PokerError) as refused:
        _top_up(ROOM, stack_minor=30_000, amount_minor=15_000)
    assert refused.value.code == "poker.buy_in_above_maximum"
    assert _top_up({**ROOM, "buy_in.max_applies_to_top_up": (False, "x")},
                   stack_minor=30_000, amount_minor=15_000).short is False


def test_one_big_blind_left_tops_up_by_any_amount_000_L541():
    """000:L541-543: with one big blind (EUR 2) left EUR 10 may be added; a
    rulebook asking for three big blinds sends the same player to the minimum."""
    assert _top_up(ROOM, stack_minor=200, amount_minor=1_000).short is False
    with pytest.raises(PokerError) as refused:
        _top_up({**ROOM, "buy_in.top_up.min_stack_big_blinds": (3, "x")},
                stack_minor=200, amount_minor=1_000)
    assert refused.value.code == "poker.buy_in_below_minimum"


def test_a_stack_carried_to_other_stakes_is_bounded_by_the_maximum_000_L322():
    """000:L322-324 (buy_in.structure_change.bounded_by_table_limits): a player
    who left a EUR 2/4 no-limit table with EUR 600 brings all of it to a EUR
    1/2 one, but no more than its EUR 400 maximum; unbounded, EUR 600."""
    left = evening.Move(kind="cash_out", table_id="other", structure="no_limit",
                        small_blind_minor=200, big_blind_minor=400, banzai=False,
                        amount_minor=60_000, stack_minor=60_000, short=False,
                        at=AT - dt.timedelta(hours=1))
    tonight = evening.Evening(1, 0, {"no_limit": left})
    figures = {"buy_in.one_night_one_stack": (True, "000:L306-317")}

    def sit(figures, amount_minor):
        return evening.check_buy_in(evening.EveningRules.from_figures(figures), TABLE,
                                    amount_minor=amount_minor, stack_minor=0,
                                    sitting_down=True, evening=tonight,
                                    banzai_tables_now=0, at=AT)

    assert sit(figures, 40_000).short is False
    with pytest.raises(PokerError) as refused:
        sit({**figures, "buy_in.structure_change.bounded_by_table_limits": (False, "x")},
            40_000)
    assert refused.value.details["required_minor"] == 60_000


def test_no_chips_leave_play_during_the_evening_000_L298():
    """000:L298 (chips.removal_during_gaming_day_allowed = false): a player
    cannot take chips out of play mid-evening, so one who left a no-limit
    table with EUR 300 sits down again with it even where the rulebook has
    no one-night-one-stack figure of its own; where removal is allowed, a
    fresh EUR 100 buy-in is fine."""
    left = evening.Move(kind="cash_out", table_id="t", structure="no_limit",
                        small_blind_minor=100, big_blind_minor=200, banzai=False,
                        amount_minor=30_000, stack_minor=30_000, short=False,
                        at=AT - dt.timedelta(hours=2))
    tonight = evening.Evening(1, 0, {"no_limit": left})

    def sit(figures, amount_minor):
        return evening.check_buy_in(evening.EveningRules.from_figures(figures), TABLE,
                                    amount_minor=amount_minor, stack_minor=0,
                                    sitting_down=True, evening=tonight,
                                    banzai_tables_now=0, at=AT)

    banned = {evening.REMOVAL_FIGURE: (False, "000:L298")}
    assert evening.EveningRules.from_figures(banned).one_stack == "000:L298"
    with pytest.raises(PokerError) as refused:
        sit(banned, 10_000)
    assert refused.value.code == "poker.one_stack_per_evening"
    assert refused.value.details["required_minor"] == 30_000
    assert sit(banned, 30_000).short is False
    allowed = {evening.REMOVAL_FIGURE: (True, "x")}
    assert evening.EveningRules.from_figures(allowed).one_stack is None
    assert sit(allowed, 10_000).short is False


def test_the_room_rulebook_bans_taking_chips_out_of_play():
    """000:L298: 'Pelaaja ei voi kesken illan (pelipäivän) poistaa merkkejä pelistä.'"""
    from tests.casino.tournaments.rulebook_data import figure

    assert figure("veikkaus-poker-room", evening.REMOVAL_FIGURE) is False


@pytest.mark.parametrize(("stack_minor", "amount_minor", "allowed"), [
    pytest.param(200, 500, True, id="one_big_blind_left_any_amount_case"),
    pytest.param(199, 500, False, id="under_one_big_blind_case"),
    pytest.param(0, 9_999, False, id="out_of_chips_under_the_minimum_case"),
    pytest.param(0, 10_000, True, id="out_of_chips_the_minimum_case"),
])
def test_out_of_chips_a_player_buys_the_table_minimum_000_L293(stack_minor, amount_minor,
                                                                allowed):
    """000:L293-295: with chips for at least the big blind a player adds any
    amount; once the chips have run out, at least the table's minimum buy-in
    (EUR 100 here)."""
    if allowed:
        assert _top_up(ROOM, stack_minor=stack_minor, amount_minor=amount_minor).short \
            is False
        return
    with pytest.raises(PokerError) as refused:
        _top_up(ROOM, stack_minor=stack_minor, amount_minor=amount_minor)
    assert refused.value.code == "poker.buy_in_below_minimum"
