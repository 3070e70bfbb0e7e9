"""Lucky Dice, Sic Bo and Money Wheel: every row, every bet, exact house edge."""

from __future__ import annotations

import itertools
from fractions import Fraction

import pytest

from casino.games.engine.common import BetIn, BetInvalid
from casino.games.engine.dice import LUCKY, SIC_BO, LuckyDice, SicBo, square
from casino.games.engine.wheel import TABLE as WHEEL, MoneyWheel

from .rows import CASINO, HALL, PARTNER, rows, tables

STAKE = 1_000
LUCKY_GAME, SIC_BO_GAME, WHEEL_GAME = LuckyDice(), SicBo(), MoneyWheel()


# ---------------------------------------------------------------------------
# Lucky Dice (002:L209-219)
# ---------------------------------------------------------------------------

LUCKY_PAYS = {"plein": 30, "cheval": 15, "transversal": 10, "carre": 7, "simple": 4,
              "sum_3_or_11": 15, "sum_4_or_10": 10, "sum_5_or_9": 7, "sum_6_or_8": 5,
              "sum_7": 4, "all_pairs": 4, "under_7": 1, "over_7": 1}
LUCKY_BETS = {  # row -> [(kind, spec), ...] covering every bet the row pays
    "plein": [("plein", {"squares": [8]})], "cheval": [("cheval", {"squares": [8, 9]})],
    "transversal": [("transversal", {"squares": [7, 8, 9]})],
    "carre": [("carre", {"squares": [7, 8, 13, 14]})],
    "simple": [("simple", {"squares": [7, 8, 9, 10, 11, 12]})],
    "sum_3_or_11": [("sum", {"total": 3}), ("sum", {"total": 11})],
    "sum_4_or_10": [("sum", {"total": 4}), ("sum", {"total": 10})],
    "sum_5_or_9": [("sum", {"total": 5}), ("sum", {"total": 9})],
    "sum_6_or_8": [("sum", {"total": 6}), ("sum", {"total": 8})],
    "sum_7": [("sum", {"total": 7})], "all_pairs": [("all_pairs", {})],
    "under_7": [("under_7", {})], "over_7": [("over_7", {})],
}
# Hand-derived expected return per unit: ways out of 36 x (pays + 1) / 36.
LUCKY_RETURN = {"plein": Fraction(31, 36), "cheval": Fraction(32, 36),
                "transversal": Fraction(33, 36), "carre": Fraction(32, 36),
                "simple": Fraction(30, 36), "sum_3": Fraction(32, 36),
                "sum_11": Fraction(32, 36), "sum_4": Fraction(33, 36),
                "sum_10": Fraction(33, 36), "sum_5": Fraction(32, 36),
                "sum_9": Fraction(32, 36), "sum_6": Fraction(30, 36),
                "sum_8": Fraction(30, 36), "sum_7": Fraction(30, 36),
                "all_pairs": Fraction(30, 36), "under_7": Fraction(30, 36),
                "over_7": Fraction(30, 36)}
DICE2 = list(itertools.product(range(1, 7), repeat=2))


def _lucky(kind, spec, red, green, book=HALL):
    clean = LUCKY_GAME.bet_kind(kind, spec, tables(book), {}).spec
    return LUCKY_GAME.settle([BetIn("b", kind, clean, STAKE)], {"red": red, "green": green},
                             tables(book), {})[0]


@pytest.mark.parametrize("book", [HALL, PARTNER])
def test_every_lucky_dice_row_wins_and_loses(book):
    """Each row's bets: a winning roll returns stake x (1 + pays), a losing one nothing."""
    assert {r["id"]: r["pays"] for r in rows(book, LUCKY)} == LUCKY_PAYS
    for row_id, bets in LUCKY_BETS.items():
        for kind, spec in bets:
            outcomes = [_lucky(kind, spec, r, g, book) for r, g in DICE2]
            winners = [s for s in outcomes if s.result == "win"]
            losers = [s for s in outcomes if s.result == "lose"]
            assert winners and losers, (row_id, spec)
            assert {(s.returned_minor, s.row) for s in winners} == {
                (STAKE * (1 + LUCKY_PAYS[row_id]), row_id)}
            assert {s.returned_minor for s in losers} == {0}


def test_lucky_dice_square_is_red_group_then_green_number():
    """002:L201-203: the red die picks the group, the green die the square in it."""
    assert square(1, 1) == 1 and square(2, 3) == 9 and square(6, 6) == 36
    assert _lucky("plein", {"squares": [9]}, 2, 3).result == "win"
    assert _lucky("plein", {"squares": [9]}, 3, 2).result == "lose"


def test_a_seven_loses_both_under_and_over_seven():
    assert _lucky("under_7", {}, 3, 4).result == "lose"
    assert _lucky("over_7", {}, 3, 4).result == "lose"


def test_totals_two_and_twelve_have_no_single_sum_bet():
    for total in (2, 12):
        with pytest.raises(BetInvalid):
            LUCKY_GAME.bet_kind("sum", {"total": total}, tables(HALL), {})


def test_exact_expected_return_of_every_lucky_dice_bet_matches_the_hand_figure():
    for kind, spec, name in (
            [(k, s, row) for row, bets in LUCKY_BETS.items() for k, s in bets
             if not row.startswith("sum_")]
            + [("sum", {"total": t}, f"sum_{t}") for t in range(3, 12)]):
        total = sum(Fraction(_lucky(kind, spec, r, g).returned_minor, STAKE) for r, g in DICE2)
        assert total / 36 == LUCKY_RETURN[name], name


# ---------------------------------------------------------------------------
# Sic Bo (002:L1641-1716)
# ---------------------------------------------------------------------------

SIC_BO_PAYS = {"small": 1, "big": 1, "even": 1, "odd": 1, "single_one": 1, "single_two": 2,
               "single_three": 12, "two_dice": 6, "double": 11, "any_triple": 30,
               "triple": 180, "three_of_four": 7, "double_and_number": 50,
               "three_numbers": 30,
               **{f"total_{t}": p for t, p in zip(range(4, 18), (60, 30, 18, 12, 8, 6, 6, 6, 6,
                                                                  8, 12, 18, 30, 60))}}
SIC_BO_BETS = [("small", {}), ("big", {}), ("even", {}), ("odd", {}), ("single", {"number": 4}),
               ("two_dice", {"numbers": [2, 5]}), ("double", {"number": 3}),
               ("any_triple", {}), ("triple", {"number": 6}),
               ("three_of_four", {"numbers": [2, 3, 5, 6]}),
               ("double_and_number", {"pair": 2, "number": 5}),
               ("three_numbers", {"numbers": [1, 3, 6]})] + [
    ("total", {"total": t}) for t in range(4, 18)]
# Hand-derived: ways out of 216 x (pays + 1), over 216.
SIC_BO_RETURN = {
    "small": Fraction(105 * 2, 216), "big": Fraction(105 * 2, 216),
    "even": Fraction(105 * 2, 216), "odd": Fraction(105 * 2, 216),
    "single": Fraction(75 * 2 + 15 * 3 + 1 * 13, 216), "two_dice": Fraction(30 * 7, 216),
    "double": Fraction(16 * 12, 216), "any_triple": Fraction(6 * 31, 216),
    "triple": Fraction(181, 216), "three_of_four": Fraction(24 * 8, 216),
    "double_and_number": Fraction(3 * 51, 216), "three_numbers": Fraction(6 * 31, 216),
    **{f"total_{t}": Fraction(w * (p + 1), 216) for t, w, p in zip(
        range(4, 18), (3, 6, 10, 15, 21, 25, 27, 27, 25, 21, 15, 10, 6, 3),
        (60, 30, 18, 12, 8, 6, 6, 6, 6, 8, 12, 18, 30, 60))},
}
DICE3 = list(itertools.product(range(1, 7), repeat=3))


def _sic_bo(kind, spec, dice):
    clean = SIC_BO_GAME.bet_kind(kind, spec, tables(CASINO), {}).spec
    outcome = SIC_BO_GAME.check_outcome({"dice": list(dice)}, {}, [], tables(CASINO))
    return SIC_BO_GAME.settle([BetIn("b", kind, clean, STAKE)], outcome, tables(CASINO), {})[0]


def test_every_sic_bo_row_wins_and_loses():
    """Each row is the winning row of some roll, paying its odds; the bet loses on others."""
    assert {r["id"]: r["pays"] for r in rows(CASINO, SIC_BO)} == SIC_BO_PAYS
    paid_rows = set()
    for kind, spec in SIC_BO_BETS:
        results = [_sic_bo(kind, spec, dice) for dice in DICE3]
        assert any(s.result == "lose" and s.returned_minor == 0 for s in results), kind
        for s in results:
            if s.result == "win":
                assert s.returned_minor == STAKE * (1 + SIC_BO_PAYS[s.row]), (kind, s.row)
                paid_rows.add(s.row)
    assert paid_rows == set(SIC_BO_PAYS)


def test_any_triple_makes_small_big_even_and_odd_lose():
    """002:L1696."""
    for kind in ("small", "big", "even", "odd"):
        assert all(_sic_bo(kind, {}, (n, n, n)).result == "lose" for n in range(1, 7))


def test_double_and_number_needs_a_different_number():
    """Decision games.sic_bo.double_and_number: 2-2-2 does not win pair 2 + number 2."""
    with pytest.raises(BetInvalid):
        SIC_BO_GAME.bet_kind("double_and_number", {"pair": 2, "number": 2}, tables(CASINO), {})
    assert _sic_bo("double_and_number", {"pair": 2, "number": 5}, (2, 2, 2)).result == "lose"


def test_three_of_four_is_one_of_the_four_posted_sets():
    with pytest.raises(BetInvalid):
        SIC_BO_GAME.bet_kind("three_of_four", {"numbers": [1, 2, 3, 5]}, tables(CASINO), {})


def test_exact_expected_return_of_every_sic_bo_bet_matches_the_hand_figure():
    for kind, spec in SIC_BO_BETS:
        name = f"total_{spec['total']}" if kind == "total" else kind
        total = sum(Fraction(_sic_bo(kind, spec, d).returned_minor, STAKE) for d in DICE3)
        assert total / 216 == SIC_BO_RETURN[name], name


# ---------------------------------------------------------------------------
# Money Wheel (002:L1610-1619)
# ---------------------------------------------------------------------------

WHEEL_ROWS = {"one": (23, 1), "two": (15, 2), "five": (8, 5), "ten": (4, 10),
              "twenty": (2, 20), "joker": (1, 45), "logo": (1, 45)}
# Hand-derived: sectors x (pays + 1) / 54.
WHEEL_RETURN = {"one": Fraction(46, 54), "two": Fraction(45, 54), "five": Fraction(48, 54),
                "ten": Fraction(44, 54), "twenty": Fraction(42, 54),
                "joker": Fraction(46, 54), "logo": Fraction(46, 54)}


def _wheel(symbol, landed):
    return WHEEL_GAME.settle([BetIn("b", "symbol", {"symbol": symbol}, STAKE)],
                             {"symbol": landed}, tables(CASINO), {})[0]


def test_every_money_wheel_row_wins_on_its_symbol_and_loses_on_another():
    data = rows(CASINO, WHEEL)
    assert {r["id"]: (r["sectors"], r["pays"]) for r in data} == WHEEL_ROWS
    assert sum(r["sectors"] for r in data) == 54
    for symbol, (_, pays) in WHEEL_ROWS.items():
        won = _wheel(symbol, symbol)
        assert (won.returned_minor, won.row) == (STAKE * (1 + pays), symbol)
        other = "one" if symbol != "one" else "two"
        assert _wheel(symbol, other).returned_minor == 0


def test_exact_expected_return_of_every_money_wheel_bet_matches_the_hand_figure():
    """Over the 54 sectors; no bet returns more than it takes (decision games.money_wheel.symbols)."""
    wheel = [r["id"] for r in rows(CASINO, WHEEL) for _ in range(r["sectors"])]
    assert len(wheel) == 54
    for symbol, expected in WHEEL_RETURN.items():
        total = sum(Fraction(_wheel(symbol, landed).returned_minor, STAKE) for landed in wheel)
        assert total / 54 == expected, symbol
        assert expected < 1
