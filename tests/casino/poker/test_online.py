"""Online cash tables at a veikkaus-online-poker venue: the rake table by stake.

The rake is a percentage of the whole pot with a cap per stake level, rounded
to the nearest cent (halves up), at least one cent, and nothing when the hand
ends before the flop (001:L721-743); a hand dealt to three players or fewer
has the lower short-handed cap (001:L743). Tables are 6-max (001:L30).
"""

from __future__ import annotations

import pytest

from casino.poker import commands
from casino.poker.errors import PokerError
from casino.poker.events import house_rake, table_stacks
from casino.rules.commands import register_venue
from tests.casino.poker.conftest import assert_table_balanced, balance, key, seat_players

VENUE = "veikkaus-online"


@pytest.fixture
def online(venues):
    register_venue(code=VENUE, name="Veikkaus online poker",
                   rulebook_id="veikkaus-online-poker")
    return VENUE


def open_online_table(*, variant="holdem", structure="no_limit", small_blind_minor=50,
                      big_blind_minor=100, seats_max=6, jackpot=False):
    return commands.open_table(
        venue=VENUE, variant=variant, structure=structure,
        small_blind_minor=small_blind_minor, big_blind_minor=big_blind_minor,
        seats_max=seats_max, buy_in_minor_min=40 * big_blind_minor,
        buy_in_minor_max=100 * big_blind_minor, jackpot=jackpot, actor="floor",
        idempotency_key=key("table"))


def _act(hand_id: str, seat: int, kind: str, amount_minor: int | None = None):
    return commands.act(hand_id=hand_id, seat=seat, kind=kind, amount_minor=amount_minor,
                        actor="dealer", idempotency_key=key("act"))


def _street(hand_id: str, *, bet_minor: int | None = None, others: str = "call"):
    """Play one street: the first to act bets (or checks), the rest call (or fold)."""
    state = commands.load_hand(hand_id).state
    street = state.street
    result = None
    if bet_minor is not None:
        result = _act(hand_id, state.to_act, "bet", bet_minor)
    while True:
        state = commands.load_hand(hand_id).state
        if state.is_over or state.street != street:
            return result
        p = state.player(state.to_act)
        facing = p.bet_minor < state.high_bet_minor
        kind = (others if facing else "check")
        result = _act(hand_id, p.seat, kind)


def _pot_to_the_river(table_id: str, players: int, big_blind_minor: int):
    """Every player limps, then calls a pot-sized bet on the flop and on the turn;
    the river bet is not called. With n players the pot is n + 5n^2 big blinds."""
    seat_players(table_id, {s: 100 * big_blind_minor for s in range(1, players + 1)})
    hand = commands.start_hand(table_id=table_id, button=1, actor="dealer",
                               idempotency_key=key())
    _street(hand.hand_id)                                           # n BB
    _street(hand.hand_id, bet_minor=players * big_blind_minor)      # + n^2 BB
    _street(hand.hand_id, bet_minor=4 * players * big_blind_minor)  # + 4n^2 BB
    return _street(hand.hand_id, bet_minor=big_blind_minor, others="fold")


# One row per line of the rake table (001:L725-733): the blinds, the
# percentage and cap, and the rake of a four-handed pot of 84 big blinds.
RAKE_TABLE = [
    ("holdem", "no_limit", 2, 4, 100, 100, 3),          # 3.36 -> 3
    ("holdem", "no_limit", 5, 10, 300, 200, 25),        # 25.2 -> 25
    ("holdem", "no_limit", 10, 25, 500, 300, 105),
    ("holdem", "no_limit", 25, 50, 550, 300, 231),
    ("holdem", "no_limit", 50, 100, 600, 300, 300),     # 504, capped
    ("holdem", "no_limit", 100, 200, 600, 300, 300),
    ("holdem", "no_limit", 200, 400, 600, 300, 300),
    ("omaha", "pot_limit", 2, 4, 100, 100, 3),
    ("omaha", "pot_limit", 5, 10, 300, 200, 25),
    ("omaha", "pot_limit", 10, 25, 300, 300, 63),
    ("omaha", "pot_limit", 25, 50, 350, 300, 147),
    ("omaha", "pot_limit", 50, 100, 600, 300, 300),     # 504, capped
    ("omaha", "pot_limit", 100, 200, 600, 300, 300),
    ("omaha", "pot_limit", 200, 400, 600, 300, 300),
]
ROW_IDS = [f"{'nl' if v == 'holdem' else 'pl'}{bb}_case" for v, _, _, bb, *_ in RAKE_TABLE]


@pytest.mark.parametrize("variant, structure, small_blind, big_blind, percent, cap, rake",
                         RAKE_TABLE, ids=ROW_IDS)
def test_online_rake_table_row(online, variant, structure, small_blind, big_blind,
                               percent, cap, rake):
    """001:L725-733: the table takes its row's percentage and cap; a pot of 84
    big blinds four-handed pays the row's rake to the house."""
    table = open_online_table(variant=variant, structure=structure,
                              small_blind_minor=small_blind, big_blind_minor=big_blind)
    assert table.rulebook.startswith("veikkaus-online-poker")
    assert table.seats_max == 6
    assert (table.rake["kind"], table.rake["percent_basis_points"], table.rake["cap_minor"],
            table.rake["rake_minor_min"], table.rake["no_flop_no_drop"]) == (
        "percent", percent, cap, 1, True)
    assert table.drop is None
    result = _pot_to_the_river(table.table_id, 4, big_blind)
    assert result.state == "settled"
    assert (result.rake_minor, result.drop_minor) == (rake, 0)
    assert balance(house_rake(VENUE)) == rake
    assert balance(table_stacks(table.table_id)) == 4 * 100 * big_blind - rake
    assert_table_balanced(table.table_id)


def test_online_short_handed_hand_has_the_lower_cap(online):
    """001:L743: three players dealt at 1/2: the pot of 48 big blinds (9,600)
    would pay 576 at 6 %; the cap is EUR 1.50, not EUR 3."""
    table = open_online_table(small_blind_minor=100, big_blind_minor=200)
    assert table.rake["short_handed_players_max"] == 3
    assert table.rake["short_handed_cap_minor"] == 150
    result = _pot_to_the_river(table.table_id, 3, 200)
    assert result.rake_minor == 150


def test_online_no_flop_no_drop(online):
    """001:L741: a hand won before the flop is not raked."""
    table = open_online_table()
    seat_players(table.table_id, {1: 10_000, 2: 10_000, 3: 10_000})
    hand = commands.start_hand(table_id=table.table_id, button=1, actor="dealer",
                               idempotency_key=key())
    _act(hand.hand_id, 1, "raise", 300)
    _act(hand.hand_id, 2, "fold")
    result = _act(hand.hand_id, 3, "fold")
    assert result.state == "settled"
    assert (result.rake_minor, result.drop_minor) == (0, 0)
    assert result.stacks_minor == {1: 10_150, 2: 9_950, 3: 9_900}
    assert balance(house_rake(VENUE)) == 0


@pytest.mark.parametrize("overrides, code", [
    ({"seats_max": 7}, "poker.too_many_seats"),
    ({"jackpot": True}, "poker.rake_rule_not_offered"),
    ({"small_blind_minor": 50, "big_blind_minor": 150}, "poker.rake_rule_not_offered"),
    ({"structure": "pot_limit"}, "poker.rake_rule_not_offered"),
    ({"variant": "omaha", "structure": "no_limit"}, "poker.rake_rule_not_offered"),
], ids=["seven_seats_case", "jackpot_case", "blinds_without_a_row_case",
        "pot_limit_holdem_case", "no_limit_omaha_case"])
def test_online_table_refused(online, overrides, code):
    """6-max (001:L30); only the rake table's games and blinds (001:L721-739)."""
    with pytest.raises(PokerError) as refused:
        open_online_table(**overrides)
    assert refused.value.code == code
