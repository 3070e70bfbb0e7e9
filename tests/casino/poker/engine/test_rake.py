"""Rake, time charges and jackpot drops: each seed's worked examples.

The rules are built from the shipped rulebook figures; the online rake table
is typed here again from the digest (001:L723-739), so a wrong figure in the
data fails this test too.
"""

from __future__ import annotations

import pytest

from casino.poker.engine import (
    IllegalAction,
    Pot,
    drop_for,
    online_rake,
    rake_for,
    ray_bad_beat_drop,
    ray_house_fee,
    ray_time_charge,
    tallinn_jackpot_drop,
    tallinn_rake,
    tallinn_time_rake,
    time_charge_for,
    veikkaus_bad_beat_drop,
    veikkaus_room_rake,
    veikkaus_room_time_charge,
)


def pots(*amounts: int) -> tuple[Pot, ...]:
    """Pots in formation order; eligibility does not matter to the rake."""
    return tuple(Pot(amount, (1, 2)) for amount in amounts)


def rake(rule, *amounts, reached_flop=True, players_dealt=6):
    result = rake_for(rule, pots(*amounts), reached_flop=reached_flop, players_dealt=players_dealt)
    assert sum(result.per_pot_minor) == result.total_minor
    return result


# ---------------------------------------------------------------------------
# Veikkaus poker room (000)
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "amounts, per_pot",
    [
        ((2400, 1600), (200, 0)),
        ((1800, 600), (100, 0)),
        ((1800, 1800, 1800), (100, 100, 0)),
    ],
    ids=["main_24_side_16_case", "main_18_side_6_case", "main_18_sides_18_18_case"],
)
def test_veikkaus_room_rake_reproduces_the_seeds_three_examples(figures, amounts, per_pot):
    """EUR 1 per full EUR 20 of all pots, from the pot where each block begins
    (000:L434-448).
    """
    rule = veikkaus_room_rake(figures("veikkaus-poker-room"))
    assert (rule.block_minor, rule.per_block_minor) == (2000, 100)
    assert rake(rule, *amounts).per_pot_minor == per_pot


def test_veikkaus_room_ten_percent_rake_takes_one_euro_per_full_ten(figures):
    """The 10 % option takes EUR 1 for each full EUR 10 (000:L451-452)."""
    rule = veikkaus_room_rake(figures("veikkaus-poker-room"), alternative=True)
    assert rake(rule, 3599).per_pot_minor == (300,)


@pytest.mark.parametrize(
    "cap_minor, per_pot",
    [(300, (300,)), (250, (250,)), (None, (500,))],
    ids=["cap_3_euro_case", "cap_2_50_case", "no_cap_case"],
)
def test_veikkaus_room_rake_stops_at_the_cap_per_hand(figures, cap_minor, per_pot):
    """The rake is taken per full EUR 20 until the per-hand maximum is reached
    (000:L430-437).
    """
    rule = veikkaus_room_rake(figures("veikkaus-poker-room"), cap_minor=cap_minor)
    assert rake(rule, 10_000).per_pot_minor == per_pot


def test_veikkaus_room_block_starting_where_a_pot_ends_is_raked_from_the_next_pot(figures):
    """Decision rake.block_boundary: main 20 + side 20, the second euro from the side
    pot (000:L436-439).
    """
    rule = veikkaus_room_rake(figures("veikkaus-poker-room"))
    assert rake(rule, 2000, 2000).per_pot_minor == (100, 100)


def test_veikkaus_room_unit_larger_than_its_pot_takes_the_rest_from_the_next_pot(figures):
    """A block beginning in a pot too small for its euro takes the rest from the next
    pot.
    """
    rule = veikkaus_room_rake(figures("veikkaus-poker-room"))
    assert rake(rule, 1990, 20, 2500).per_pot_minor == (100, 20, 80)


@pytest.mark.parametrize(
    "amounts, per_pot",
    [((4000,), (100,)), ((600,), (100,)), ((60,), (60,))],
    ids=["pot_40_case", "pot_6_case", "pot_0_60_case"],
)
def test_veikkaus_room_hand_ending_before_the_flop_pays_one_euro_flat(figures, amounts, per_pot):
    """No flop: EUR 1 whatever the pot (000:L459-461); decision rake.no_flop: never more
    than the pot.
    """
    rule = veikkaus_room_rake(figures("veikkaus-poker-room"))
    result = rake(rule, *amounts, reached_flop=False)
    assert (result.per_pot_minor, result.reason) == (per_pot, "no_flop_flat")


def test_veikkaus_room_time_charge_table_pays_no_pot_rake(figures):
    """A time-charged table pays by time played, not from the pot (000:L464-465)."""
    rule = veikkaus_room_time_charge(figures("veikkaus-poker-room"), amount_minor=800, period_minutes=30)
    assert rake(rule, 10_000).per_pot_minor == (0,)
    charge = time_charge_for(rule, [4, 1, 7])
    assert (charge.per_seat_minor, charge.total_minor) == (((1, 800), (4, 800), (7, 800)), 2400)


@pytest.mark.parametrize(
    "players_dealt, rounds_reached, dropped",
    [(5, 2, 100), (9, 4, 100), (4, 4, 0), (8, 1, 0)],
    ids=["five_players_flop_case", "nine_players_river_case", "four_players_case",
         "ended_before_the_flop_case"],
)
def test_veikkaus_bad_beat_drop_needs_five_players_and_the_second_betting_round(
    figures, players_dealt, rounds_reached, dropped
):
    """EUR 1 per hand with 5+ dealt that reaches round two; none before the flop
    (000:L2869-2872, L461).
    """
    rule = veikkaus_bad_beat_drop(figures("veikkaus-poker-room"))
    result = drop_for(rule, pots(3000, 1000), players_dealt=players_dealt,
                      betting_rounds_reached=rounds_reached)
    assert result.per_pot_minor == (dropped, 0)


# ---------------------------------------------------------------------------
# Veikkaus online (001)
# ---------------------------------------------------------------------------

# (game, stake, big blind, rake basis points, cap, short-handed cap), typed from
# the digest's rake table (001:L723-739) and short-handed caps (001:L743).
ONLINE_RAKE_TABLE = [
    ("nl_holdem", "nl4", 4, 100, 100, 50),
    ("nl_holdem", "nl10", 10, 300, 200, 100),
    ("nl_holdem", "nl25", 25, 500, 300, 150),
    ("nl_holdem", "nl50", 50, 550, 300, 150),
    ("nl_holdem", "nl100", 100, 600, 300, 150),
    ("nl_holdem", "nl200", 200, 600, 300, 150),
    ("nl_holdem", "nl400", 400, 600, 300, 150),
    ("pl_omaha", "pl4", 4, 100, 100, 50),
    ("pl_omaha", "pl10", 10, 300, 200, 100),
    ("pl_omaha", "pl25", 25, 300, 300, 150),
    ("pl_omaha", "pl50", 50, 350, 300, 150),
    ("pl_omaha", "pl100", 100, 600, 300, 150),
    ("pl_omaha", "pl200", 200, 600, 300, 150),
    ("pl_omaha", "pl400", 400, 600, 300, 150),
    ("banzai_holdem", "nl1", 10, 100, 300, 100),  # decision rake.banzai_short_handed
    ("banzai_holdem", "nl5", 50, 100, 300, 150),
    ("banzai_holdem", "nl20", 200, 100, 300, 150),
]


@pytest.mark.parametrize(
    "game, stake, big_blind, basis_points, cap, short_cap",
    ONLINE_RAKE_TABLE,
    ids=[f"{game}_{stake}_case" for game, stake, *_ in ONLINE_RAKE_TABLE],
)
def test_online_rake_table_row(figures, game, stake, big_blind, basis_points, cap, short_cap):
    """Each row: the percentage of the pot up to the stake's cap, halved at 2-3 players
    (001:L721-743).
    """
    f = figures("veikkaus-online-poker")
    assert f[f"stake.{game}.{stake}.big_blind"] == big_blind
    rule = online_rake(f, game=game, stake=stake)
    assert (rule.percent_basis_points, rule.cap_minor, rule.short_handed_cap_minor) == (
        basis_points, cap, short_cap)
    # EUR 10 pot: the percentage in cents, exactly (all rows are whole cents).
    assert rake(rule, 1000).total_minor == basis_points // 10
    assert rake(rule, 1_000_000).total_minor == cap
    assert rake(rule, 1_000_000, players_dealt=3).total_minor == short_cap
    assert rake(rule, 1_000_000, players_dealt=4).total_minor == cap


@pytest.mark.parametrize(
    "stake, pot_minor, rake_minor",
    [
        ("nl4", 20, 1), ("nl4", 49, 1), ("nl4", 50, 1), ("nl4", 149, 1), ("nl4", 150, 2),
        ("nl50", 10, 1), ("nl50", 30, 2), ("nl100", 1025, 62),
    ],
    ids=["one_cent_minimum_case", "under_half_cent_minimum_case", "exact_half_cent_up_case",
         "1_49_cents_down_case", "1_5_cents_up_case", "0_55_cents_case", "1_65_cents_case",
         "61_5_cents_up_case"],
)
def test_online_rake_rounds_to_the_nearest_cent_halves_up_and_is_at_least_one_cent(
    figures, stake, pot_minor, rake_minor
):
    """Minimum 1 cent, rounded to the nearest cent; decision rake.rounding: exact halves
    up (001:L741).
    """
    rule = online_rake(figures("veikkaus-online-poker"), game="nl_holdem", stake=stake)
    assert rake(rule, pot_minor).total_minor == rake_minor


def test_online_no_flop_no_drop(figures):
    """Pots won before the flop are not raked (001:L741)."""
    rule = online_rake(figures("veikkaus-online-poker"), game="nl_holdem", stake="nl100")
    result = rake(rule, 5000, reached_flop=False)
    assert (result.total_minor, result.reason) == (0, "no_flop_no_drop")


def test_online_rake_over_main_and_side_pots_accrues_in_formation_order(figures):
    """6 % of EUR 40 + EUR 20 is 3.60, capped at 3: 2.40 from the main pot, 0.60 from
    the side pot.
    """
    rule = online_rake(figures("veikkaus-online-poker"), game="nl_holdem", stake="nl100")
    assert rake(rule, 4000, 2000).per_pot_minor == (240, 60)


# ---------------------------------------------------------------------------
# Olympic Tallinn (003)
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "amounts, per_pot",
    [((3000,), (150,)), ((999,), (0,)), ((1000,), (50,)), ((1999,), (50,)), ((20_000,), (1000,)),
     ((50_000,), (1000,)), ((2500, 1500), (150, 50))],
    ids=["pot_30_case", "pot_9_99_case", "pot_10_case", "pot_19_99_case", "pot_200_case",
         "pot_500_case", "main_25_side_15_case"],
)
def test_tallinn_rake_is_fifty_cents_per_full_ten_euros_capped_at_ten(figures, amounts, per_pot):
    """EUR 0.50 per full EUR 10, nothing under EUR 10; EUR 30 pays 1.50; EUR 10 cap from
    EUR 200 (003:L139).
    """
    rule = tallinn_rake(figures("olympic-tallinn"))
    assert rake(rule, *amounts).per_pot_minor == per_pot


def test_tallinn_no_flop_no_drop_for_rake_and_jackpot(figures):
    """A hand ending in the first betting round pays neither rake nor jackpot
    (003:L143).
    """
    f = figures("olympic-tallinn")
    result = rake(tallinn_rake(f), 5000, reached_flop=False, players_dealt=9)
    drop = drop_for(tallinn_jackpot_drop(f), pots(5000), players_dealt=9, betting_rounds_reached=1)
    assert (result.total_minor, drop.total_minor) == (0, 0)


@pytest.mark.parametrize(
    "players_dealt, per_pot",
    [(6, (100, 0)), (10, (100, 0)), (5, (0, 0))],
    ids=["six_players_case", "ten_players_case", "five_players_case"],
)
def test_tallinn_jackpot_drop_is_one_euro_from_the_main_pot_with_six_players(
    figures, players_dealt, per_pot
):
    """EUR 1 from every pot with at least 6 players, always from the main pot
    (003:L141-142).
    """
    rule = tallinn_jackpot_drop(figures("olympic-tallinn"))
    result = drop_for(rule, pots(1500, 4000), players_dealt=players_dealt, betting_rounds_reached=2)
    assert result.per_pot_minor == per_pot


def test_tallinn_drop_is_limited_to_what_the_main_pot_holds_after_its_rake(figures):
    """Decision: the drop never comes from a side pot; a main pot of 0.60 raked 0.50
    gives 0.10 (003:L142).
    """
    f = figures("olympic-tallinn")
    taken = rake(tallinn_rake(f), 60, 5000)
    drop = drop_for(tallinn_jackpot_drop(f), pots(60, 5000), players_dealt=6,
                    betting_rounds_reached=2, rake=taken)
    assert (taken.per_pot_minor, drop.per_pot_minor) == ((50, 200), (10, 0))


@pytest.mark.parametrize(
    "seats, shares",
    [((1, 5, 8), 1000), ((2, 4), 1500), ((3,), 3000)],
    ids=["three_players_case", "two_players_case", "one_player_case"],
)
def test_tallinn_time_rake_is_thirty_euros_per_half_hour_shared_equally(figures, seats, shares):
    """3 or fewer players may pay EUR 30 per 30 minutes, shared equally (003:L140)."""
    rule = tallinn_time_rake(figures("olympic-tallinn"))
    charge = time_charge_for(rule, seats)
    assert charge.per_seat_minor == tuple((seat, shares) for seat in seats)
    assert (charge.total_minor, charge.period_minutes) == (3000, 30)


def test_tallinn_time_rake_is_refused_with_four_players(figures):
    """Time rake is only for tables of three or fewer (003:L140)."""
    rule = tallinn_time_rake(figures("olympic-tallinn"))
    with pytest.raises(IllegalAction) as caught:
        time_charge_for(rule, (1, 2, 3, 4))
    assert (caught.value.code, caught.value.details["limit"]) == ("poker.time_charge_not_allowed", 3)


# ---------------------------------------------------------------------------
# RAY (002)
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "rulebook_id", ["ray-casino", "ray-gaming-hall", "ray-partner-premises"],
)
def test_ray_house_fee_is_a_percentage_of_the_round_capped(figures, rulebook_id):
    """A preset percentage of the chips wagered, capped per round; decision: rounded
    down (002:L283-285, L1734-1736).
    """
    rule = ray_house_fee(figures(rulebook_id), percent_basis_points=500, cap_minor=500)
    assert rake(rule, 1999).total_minor == 99
    assert rake(rule, 12_345).total_minor == 500
    assert rake(rule, 1999, reached_flop=False).total_minor == 99


def test_ray_time_charge_is_per_customer(figures):
    """The time charge is charged to each customer at the table (002:L287-289,
    L1738-1740).
    """
    rule = ray_time_charge(figures("ray-casino"), amount_minor=600, period_minutes=60)
    charge = time_charge_for(rule, (2, 3, 6))
    assert (charge.per_seat_minor, charge.total_minor) == (((2, 600), (3, 600), (6, 600)), 1800)


def test_ray_bad_beat_drop_needs_six_players_and_the_second_round(figures):
    """A posted amount per round with at least 6 players reaching round two (002:L1804).
    """
    rule = ray_bad_beat_drop(figures("ray-casino"), amount_minor=50)
    reached = drop_for(rule, pots(2000), players_dealt=6, betting_rounds_reached=2)
    short = drop_for(rule, pots(2000), players_dealt=5, betting_rounds_reached=4)
    assert (reached.total_minor, short.total_minor) == (50, 0)


# ---------------------------------------------------------------------------
# Figures the builders read (issue 14 item 21)
# ---------------------------------------------------------------------------


def test_the_room_drop_waits_for_the_flop_by_its_figure(figures):
    """000:L461 (figure rake.no_flop.jackpot_drop = false): the room's drop is
    never taken before the flop, even were its minimum round set lower; a
    rulebook allowing a no-flop drop takes it from round one."""
    room = dict(figures("veikkaus-poker-room"))
    lowered = {**room, "jackpot.bad_beat.drop.min_betting_round": 1}
    assert veikkaus_bad_beat_drop(lowered).betting_rounds_min == 2
    allowed = {**lowered, "rake.no_flop.jackpot_drop": True}
    assert veikkaus_bad_beat_drop(allowed).betting_rounds_min == 1


def test_the_room_rake_allocation_is_checked(figures):
    """000:L436-439 (figure rake.allocation): each unit from the pot where its
    block starts; a rulebook with another allocation is not raked by it."""
    room = dict(figures("veikkaus-poker-room"))
    assert veikkaus_room_rake(room).block_minor == 2000
    with pytest.raises(ValueError):
        veikkaus_room_rake({**room, "rake.allocation": "pro_rata"})


def test_online_rake_basis_and_banzai_omaha_rows_are_read(figures):
    """001:L721 (rake.basis: a percentage of the whole pot) and 001:L735-739
    (banzai.omaha.rake_table: Banzai Omaha takes Banzai Hold'em's rows)."""
    online = dict(figures("veikkaus-online-poker"))
    with pytest.raises(ValueError):
        online_rake({**online, "rake.basis": "percent_of_winnings"}, game="nl_holdem",
                    stake="nl100")
    banzai = online_rake(online, game="banzai_omaha", stake="nl5")
    assert banzai.name == "veikkaus_online_banzai_holdem_nl5"
    with pytest.raises(ValueError):
        online_rake({**online, "banzai.omaha.rake_table": "banzai_omaha"},
                    game="banzai_omaha", stake="nl5")
