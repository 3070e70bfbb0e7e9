"""Roulette's pay tables, zero rule, layout and exact house edge (pure)."""

from __future__ import annotations

from fractions import Fraction

import pytest

from casino.games.engine.common import BetIn, BetInvalid
from casino.games.engine.roulette import INSIDE_SETS, TABLE, Roulette, covered

from .rows import CASINO, HALL, PARTNER, rows, tables

GAME = Roulette()
STAKE = 1_000

# Typed from the digests (002:L181-193 halls, 002:L1590-1598 casino).
PAYS = {
    HALL: {"straight": 30, "split": 15, "street": 10, "corner": 7, "six_line": 4, "dozen": 2,
           "column": 2, "even": 1, "odd": 1, "black": 1, "red": 1, "low": 1, "high": 1},
    CASINO: {"straight": 35, "split": 17, "street": 11, "corner": 8, "five_number": 6,
             "six_line": 5, "quarter": 3, "dozen": 2, "column": 2, "even": 1, "odd": 1,
             "black": 1, "red": 1, "low": 1, "high": 1},
}
DOUBLE_ZERO = {"wheel": "double_zero"}
PAYS[PARTNER] = PAYS[HALL]
EXAMPLE_SPEC = {
    "straight": {"numbers": [17]}, "split": {"numbers": [17, 20]},
    "street": {"numbers": [16, 17, 18]}, "corner": {"numbers": [17, 18, 20, 21]},
    "six_line": {"numbers": [16, 17, 18, 19, 20, 21]}, "quarter": {"which": 2},
    "five_number": {"numbers": [0, "00", 1, 2, 3]},
    "dozen": {"which": 2}, "column": {"which": 2},
}


def bet(kind: str, spec=None, stake=STAKE) -> BetIn:
    clean = GAME.bet_kind(kind, spec if spec is not None else EXAMPLE_SPEC.get(kind, {}),
                          tables(CASINO), {}).spec
    return BetIn("b1", kind, clean, stake)


@pytest.mark.parametrize("book", [HALL, PARTNER, CASINO])
def test_every_roulette_row_pays_its_odds_on_a_covered_number_and_loses_otherwise(book):
    """Each row: a covered number returns stake x (1 + pays); an uncovered non-zero loses all."""
    data = rows(book, TABLE)
    assert {row["id"]: row["pays"] for row in data} == PAYS[book]
    for row in data:
        config = DOUBLE_ZERO if row.get("wheel") == "double_zero" else {}
        spec = GAME.bet_kind(row["id"], EXAMPLE_SPEC.get(row["id"], {}), tables(book),
                             config).spec
        b = BetIn("b", row["id"], spec, STAKE)
        numbers = covered(row["id"], b.spec, config.get("wheel", "single_zero"))
        assert len(numbers) == row["numbers"], row["id"]
        won = GAME.settle([b], {"number": min(numbers)}, tables(book), config)[0]
        assert (won.returned_minor, won.result, won.row) == (
            STAKE * (1 + PAYS[book][row["id"]]), "win", row["id"])
        assert won.cite == row["cite"]
        other = min(set(range(1, 37)) - numbers)
        lost = GAME.settle([b], {"number": other}, tables(book), config)[0]
        assert (lost.returned_minor, lost.result, lost.row) == (0, "lose", row["id"])


def test_casino_zero_halves_the_even_chances_and_kills_dozens_columns_quarters():
    """002:L1602: on zero even chances lose half; dozens and columns lose; zero bets pay."""
    casino = tables(CASINO)
    results = {kind: GAME.settle([BetIn("b", kind, EXAMPLE_SPEC.get(kind, {}), STAKE)],
                                 {"number": 0}, casino, {})[0]
               for kind in PAYS[CASINO] if kind != "five_number"}
    for kind in ("even", "odd", "red", "black", "low", "high"):
        assert (results[kind].returned_minor, results[kind].result) == (500, "half")
    for kind in ("dozen", "column", "quarter", "straight", "six_line"):
        assert results[kind].returned_minor == 0
    zero_split = GAME.settle([bet("split", {"numbers": [0, 2]})], {"number": 0}, casino, {})[0]
    assert zero_split.returned_minor == STAKE * 18
    first_four = GAME.settle([bet("corner", {"numbers": [0, 1, 2, 3]})], {"number": 0},
                             casino, {})[0]
    assert first_four.returned_minor == STAKE * 9


def test_hall_zero_loses_every_one_and_two_times_bet():
    """002:L177: when zero wins, the even chances, dozens and columns lose whole."""
    for kind in ("even", "odd", "red", "black", "low", "high", "dozen", "column"):
        settled = GAME.settle([BetIn("b", kind, EXAMPLE_SPEC.get(kind, {}), STAKE)],
                              {"number": 0}, tables(HALL), {})[0]
        assert settled.returned_minor == 0, kind


def test_half_of_an_odd_stake_rounds_down():
    """Decision games.rounding: half of 1.01 is 0.50."""
    settled = GAME.settle([BetIn("b", "red", {}, 101)], {"number": 0}, tables(CASINO), {})[0]
    assert settled.returned_minor == 50


def test_the_layout_has_the_standard_count_of_inside_bets():
    """Single-zero layout: 37 straights, 60 splits, 14 streets, 23 corners, 11 six-lines."""
    assert {k: len(v) for k, v in INSIDE_SETS.items()} == {
        "straight": 37, "split": 60, "street": 14, "corner": 23, "six_line": 11}


@pytest.mark.parametrize("kind,numbers", [
    ("split", [1, 5]), ("split", [3, 4]), ("street", [2, 3, 4]), ("corner", [3, 4, 6, 7]),
    ("six_line", [2, 3, 4, 5, 6, 7]), ("straight", [37]), ("street", [17, 18]),
])
def test_bets_that_are_not_on_the_layout_are_refused(kind, numbers):
    with pytest.raises(BetInvalid):
        GAME.bet_kind(kind, {"numbers": numbers}, tables(CASINO), {})


def test_the_hall_table_has_no_quarter_bet():
    with pytest.raises(BetInvalid):
        GAME.bet_kind("quarter", {"which": 1}, tables(HALL), {})


def _expected_return(book: str, kind: str, spec) -> Fraction:
    """Exact expected return of a one-unit-per-cent stake over the 37 pockets."""
    total = Fraction(0)
    for number in range(37):
        settled = GAME.settle([BetIn("b", kind, spec, 100)], {"number": number},
                              tables(book), {})[0]
        total += Fraction(settled.returned_minor, 100)
    return total / 37


# Expected return per unit staked, derived by hand: (numbers covered) x
# (pays + 1) / 37, plus half the stake back on zero for the casino's even
# chances. The house edge is 1 minus this.
HAND_RETURN = {
    CASINO: {"straight": Fraction(36, 37), "split": Fraction(36, 37),
             "street": Fraction(36, 37), "corner": Fraction(36, 37),
             "six_line": Fraction(36, 37), "quarter": Fraction(36, 37),
             "dozen": Fraction(36, 37), "column": Fraction(36, 37),
             "red": Fraction(73, 74), "black": Fraction(73, 74), "even": Fraction(73, 74),
             "odd": Fraction(73, 74), "low": Fraction(73, 74), "high": Fraction(73, 74)},
    HALL: {"straight": Fraction(31, 37), "split": Fraction(32, 37),
           "street": Fraction(33, 37), "corner": Fraction(32, 37),
           "six_line": Fraction(30, 37), "dozen": Fraction(36, 37),
           "column": Fraction(36, 37), "red": Fraction(36, 37), "black": Fraction(36, 37),
           "even": Fraction(36, 37), "odd": Fraction(36, 37), "low": Fraction(36, 37),
           "high": Fraction(36, 37)},
}


@pytest.mark.parametrize("book", [CASINO, HALL])
def test_exact_expected_return_of_every_roulette_bet_matches_the_hand_figure(book):
    """Enumerating the 37 pockets gives the hand-derived return for every row."""
    for kind, expected in HAND_RETURN[book].items():
        assert _expected_return(book, kind, EXAMPLE_SPEC.get(kind, {})) == expected, kind
    assert set(HAND_RETURN[book]) == {row["id"] for row in rows(book, TABLE)
                                      if row.get("wheel") != "double_zero"}


def test_the_38_pocket_wheel_offers_the_five_number_bet():
    """002:L1573, L1594, L1604 (decisions games.roulette.wheel, games.roulette.double_zero):
    on 0-00-1-2-3 the five-number bet pays 6:1, over the 38 pockets it returns
    5 x 7 / 38; 00 halves the even chances like zero (002:L1602); the single-zero table
    refuses the bet and the number 00."""
    config = GAME.configure({"wheel": "double_zero"}, tables(CASINO))
    assert config == DOUBLE_ZERO
    five = GAME.bet_kind("five_number", {"numbers": [3, 2, 1, "00", 0]}, tables(CASINO),
                         config)
    assert (five.bet_unit, five.spec["numbers"]) == ("numbers_5", [0, 1, 2, 3, 37])
    total = Fraction(0)
    for number in [*range(37), "00"]:
        outcome = GAME.check_outcome({"number": number}, config, [], tables(CASINO))
        settled = GAME.settle([BetIn("b", "five_number", five.spec, 100)], outcome,
                              tables(CASINO), config)[0]
        total += Fraction(settled.returned_minor, 100)
    assert total / 38 == Fraction(35, 38)
    red = GAME.bet_kind("red", {}, tables(CASINO), config)
    on_00 = GAME.settle([BetIn("r", "red", red.spec, 100)], {"number": 37}, tables(CASINO),
                        config)[0]
    assert (on_00.result, on_00.returned_minor) == ("half", 50)
    with pytest.raises(BetInvalid):
        GAME.bet_kind("five_number", {"numbers": [0, "00", 1, 2, 3]}, tables(CASINO), {})
    with pytest.raises(BetInvalid):
        GAME.bet_kind("corner", {"numbers": [0, 1, 2, 3]}, tables(CASINO), config)
    with pytest.raises(BetInvalid):
        GAME.configure({"wheel": "double_zero"}, tables(HALL))     # no 38-pocket rows


def test_every_inside_bet_position_has_the_same_return():
    """Whatever numbers a casino split covers, zero included, it returns 36/37."""
    for numbers in INSIDE_SETS["split"]:
        assert _expected_return(CASINO, "split", {"numbers": sorted(numbers)}) == Fraction(36, 37)
