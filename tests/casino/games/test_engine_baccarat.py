"""Punto Banco and Baccara: the drawing tables in full, payouts and commission."""

from __future__ import annotations

import pytest

from casino.games.engine.baccarat import (
    BACCARA_DRAWING,
    DRAWING,
    PAYOUTS,
    PuntoBanco,
    banco_action,
    check_coup,
    punto_action,
)
from casino.games.engine.common import BetIn, OutcomeInvalid

from .rows import CASINO, rows, tables

GAME = PuntoBanco()
STAKE = 1_000


def typed_punto_banco(banco_total: int, third: int | None) -> str:
    """The banco column of 002:L2787-2797, typed from the digest."""
    if banco_total in (8, 9):
        return "natural"
    if third is None:
        return "draw" if banco_total <= 5 else "stand"
    return {0: "draw", 1: "draw", 2: "draw", 3: "stand" if third == 8 else "draw",
            4: "draw" if 2 <= third <= 7 else "stand",
            5: "draw" if 4 <= third <= 7 else "stand",
            6: "draw" if third in (6, 7) else "stand", 7: "stand"}[banco_total]


def typed_baccara(banco_total: int, third: int | None) -> str:
    """The banco column of 002:L2852-2867 (and decision games.baccara.banco_seven)."""
    if banco_total in (8, 9):
        return "natural"
    if third is None:
        return "draw" if banco_total <= 5 else "stand"
    if banco_total == 3:
        return "option" if third == 9 else ("stand" if third == 8 else "draw")
    if banco_total == 5 and third == 4:
        return "option"
    return {0: "draw", 1: "draw", 2: "draw", 4: "draw" if 2 <= third <= 7 else "stand",
            5: "draw" if 5 <= third <= 7 else "stand",
            6: "draw" if third in (6, 7) else "stand", 7: "stand"}[banco_total]


def test_punto_banco_drawing_table_in_full():
    """Every punto total, and every banco total against every punto third card."""
    data = rows(CASINO, DRAWING)
    assert [punto_action(data, t) for t in range(10)] == ["draw"] * 6 + ["stand"] * 2 + [
        "natural"] * 2
    for banco_total in range(10):
        for third in [None, *range(10)]:
            assert banco_action(data, banco_total, third) == typed_punto_banco(
                banco_total, third), (banco_total, third)


def test_baccara_drawing_table_in_full():
    """Baccara: punto's option on 5, banco's options on 3-vs-9 and 5-vs-4."""
    data = rows(CASINO, BACCARA_DRAWING)
    assert [punto_action(data, t) for t in range(10)] == ["draw"] * 5 + ["option"] + [
        "stand"] * 2 + ["natural"] * 2
    for banco_total in range(10):
        for third in [None, *range(10)]:
            assert banco_action(data, banco_total, third) == typed_baccara(
                banco_total, third), (banco_total, third)


def test_a_punto_natural_gives_banco_no_card():
    assert banco_action(rows(CASINO, DRAWING), 2, None, punto_natural=True) == "stand"


def test_a_coup_dealt_against_the_table_is_refused():
    data = rows(CASINO, DRAWING)
    with pytest.raises(OutcomeInvalid):
        check_coup(data, ["5h", "Kd"], ["2c", "3s"])          # punto 5 must draw
    with pytest.raises(OutcomeInvalid):
        check_coup(data, ["5h", "Kd", "8c"], ["2c", "Ks"])    # banco 2 must draw
    with pytest.raises(OutcomeInvalid):
        check_coup(data, ["5h", "Kd", "8c"], ["3c", "Ks", "4d"])  # banco 3 stands vs 8
    assert check_coup(data, ["9h", "Kd"], ["2c", "3s"])["punto_total"] == 9
    assert check_coup(data, ["2h", "Kd"], ["8c", "Ks"])["banco_total"] == 8


def _coup(punto, banco, kinds=("punto", "banco", "egalite"), banco_rule="commission"):
    outcome = GAME.check_outcome({"punto": punto, "banco": banco}, {}, [], tables(CASINO))
    bets = [BetIn(k, k, {}, STAKE) for k in kinds]
    return {s.bet_id: s for s in GAME.settle(bets, outcome, tables(CASINO),
                                             {"banco": banco_rule})}


def test_punto_banco_rows_win_and_lose():
    """002:L2765-2771: punto 1:1, banco 1:1 less 5 %, egalite 8:1; a tie pushes punto and banco."""
    assert {r["id"]: r["pays"] for r in rows(CASINO, PAYOUTS)} == {
        "punto": 1, "banco": 1, "egalite": 8, "banco_no_commission": 1,
        "banco_no_commission_on_6": 1, "banco_no_commission_on_5": 1}
    punto_wins = _coup(["9h", "Kd"], ["2c", "3s"])
    assert punto_wins["punto"].returned_minor == 2_000
    assert punto_wins["banco"].returned_minor == 0
    assert punto_wins["egalite"].returned_minor == 0
    banco_wins = _coup(["Th", "Kd", "2c"], ["7c", "Ks"])
    assert banco_wins["banco"].returned_minor == 1_950
    assert banco_wins["banco"].commission_minor == 50
    assert banco_wins["punto"].returned_minor == 0
    tie = _coup(["9h", "Kd"], ["9c", "Ks"])
    assert tie["egalite"].returned_minor == 9_000
    assert (tie["punto"].result, tie["banco"].result) == ("push", "push")
    assert tie["banco"].returned_minor == STAKE


def test_banco_commission_rounds_up_to_the_cent():
    outcome = GAME.check_outcome({"punto": ["Th", "Kd", "2c"], "banco": ["7c", "Ks"]}, {}, [],
                                 tables(CASINO))
    settled = GAME.settle([BetIn("b", "banco", {}, 1_010)], outcome, tables(CASINO),
                          {"banco": "commission"})[0]
    assert (settled.commission_minor, settled.returned_minor) == (51, 1_969)


@pytest.mark.parametrize("rule,total,returned,row", [
    ("no_commission_6", 6, 1_500, "banco_no_commission_on_6"),
    ("no_commission_6", 7, 2_000, "banco_no_commission"),
    ("no_commission_5", 5, 1_500, "banco_no_commission_on_5"),
    ("no_commission_5", 6, 2_000, "banco_no_commission"),
])
def test_no_commission_banco_pays_half_on_its_total(rule, total, returned, row):
    """002:L2773: banco wins pay 1:1 without commission, 1:2 on 6 (or 5)."""
    banco = {5: ["2c", "3s"], 6: ["2c", "4s"], 7: ["3c", "4s"]}[total]
    punto = ["Th", "Kd", "Tc"]  # punto 0, drew a ten; banco stands or draws per table
    outcome = check_coup(rows(CASINO, DRAWING), punto, banco)  # banco stands against a 0
    settled = GAME.settle([BetIn("b", "banco", {}, STAKE)], outcome, tables(CASINO),
                          {"banco": rule})[0]
    assert (settled.returned_minor, settled.row, settled.commission_minor) == (returned, row, 0)
    lost = GAME.settle([BetIn("b", "banco", {}, STAKE)],
                       check_coup(rows(CASINO, DRAWING), ["9h", "Kd"], ["2c", "3s"]),
                       tables(CASINO), {"banco": rule})[0]
    assert lost.returned_minor == 0
