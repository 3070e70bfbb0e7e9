"""Chinese poker in points (issue 22 item 5): OFC at the Veikkaus room
(000:L2633-2692, L2768-2802) and RAY's Chinese Poker (002:L1991-1997), every
line ranked by native_eval (evaluate; evaluate_front for the three-card front)."""

from __future__ import annotations

import tomllib

import native_eval
import pytest

from casino.games.engine.chinese import (
    ChinesePoker,
    OpenFacedChinesePoker,
    cap_losses,
    fouled,
    line_values,
)
from casino.games.engine.common import BetIn, BetInvalid, OutcomeInvalid

from .rows import CASINO, DATA, tables

OFC = OpenFacedChinesePoker()
CHINESE = ChinesePoker()


def room_tables():
    with (DATA / "veikkaus-poker-room.v1.d" / "games.toml").open("rb") as fh:
        return {t["key"]: t["rows"] for t in tomllib.load(fh)["tables"]}


# Seat 1: QQ front (7), trip nines middle (2), flush back (4): 13 bonus points.
# Seat 2: A-K-J front, tens middle, full house back (6). Seat 3: no bonus.
HANDS = {
    "1": {"front": "Qs Qh 2d", "middle": "9c 9d 9h 4s 3c", "back": "Ac Kc Jc 8c 5c"},
    "2": {"front": "As Ks Js", "middle": "Td Tc 6h 5d 4d", "back": "8s 8h 8d 7c 7s"},
    "3": {"front": "2c 3d 4h", "middle": "5s 6s 7h 9s Jh", "back": "Th Jd Qd Kd 2h"},
}


def _ofc(hands, button=3, value=100):
    config = OFC.configure({"point_value_minor": value}, room_tables())
    bets = [BetIn(f"b{seat}", "seat", {"seat": int(seat)}, config["stake_minor"])
            for seat in hands]
    outcome = OFC.check_outcome({"button": button, "hands": hands}, config, bets,
                                room_tables())
    return {s.bet_id: s for s in OFC.settle(bets, outcome, room_tables(), config)}


def test_evaluate_front_ignores_straights_and_flushes():
    """000:L2664-2665: the best front is three aces; three-card straights do not count."""
    assert native_eval.evaluate_front("Qs Ks As") < native_eval.evaluate_front("2c 2d 3h")
    assert native_eval.evaluate_front("Ac Ad Ah") > native_eval.evaluate_front("Kc Kd Kh")
    with pytest.raises(ValueError):
        native_eval.evaluate_front("Ac Ad")


def test_lines_points_scoops_and_bonuses_per_opponent():
    """000:L2633-2655: 1 vs 2: two lines to one (+1) and bonuses 13 - 6 (+7) = 8;
    1 vs 3: all three lines (3 + 3) and 13 = 19; 2 vs 3: 6 + 6 = 12. EUR 1 a point."""
    result = _ofc(HANDS)
    assert {k: s.detail["points"] for k, s in result.items()} == {"b1": 27, "b2": 4,
                                                                 "b3": -31}
    assert result["b1"].detail["bonus"] == {"front": 7, "middle": 2, "back": 4}
    assert result["b2"].detail["bonus"] == {"front": 0, "middle": 0, "back": 6}
    assert {k: s.returned_minor for k, s in result.items()} == {
        "b1": 50_00 + 27_00, "b2": 50_00 + 4_00, "b3": 50_00 - 31_00}
    assert sum(s.returned_minor - s.stake_minor for s in result.values()) == 0


def test_a_fouled_hand_loses_six_and_the_bonuses_to_each_legal_hand():
    """000:L2668-2671: seat 3's back below its middle: six to each, plus seat 1's 13
    and seat 2's 6; a foul wins no bonus."""
    bad = {**HANDS, "3": {"front": "2c 3d 4h", "middle": "Th Jd Qd Kd 2h",
                          "back": "5s 6s 7h 9s Jh"}}
    assert fouled(bad["3"], line_values(bad["3"]))
    result = _ofc(bad)
    assert result["b3"].detail["fouled"] is True
    assert result["b3"].detail["points"] == -(6 + 13) - (6 + 6)


def test_the_front_must_be_below_the_middle():
    """000:L2662-2663, decision games.chinese.front_vs_middle."""
    hand = {"front": "Ks Kh 2d", "middle": "Qc Qd 9h 4s 3c", "back": "Ac Kc Jc 8c 5c"}
    assert fouled(hand, line_values(hand))
    equal = {"front": "Ks Kh 2d", "middle": "Kc Kd 9h 4s 3c", "back": "Ac Qc Jc 8c 5c"}
    assert not fouled(equal, line_values(equal))       # the middle's extra cards


def test_the_50_point_loss_cap_is_shared_pro_rata_as_in_the_seeds_example():
    """000:L2686-2692: A loses 70 (B 25, C 20, D 25) and pays 18, 14, 18."""
    assert cap_losses({("A", "B"): 25, ("A", "C"): 20, ("A", "D"): 25},
                      ["B", "C", "D", "A"], 50) == {("A", "B"): 18, ("A", "C"): 14,
                                                    ("A", "D"): 18}
    # A player who also wins 10 from someone pays 50 net: 60 shared.
    capped = cap_losses({("A", "B"): 40, ("A", "C"): 40, ("D", "A"): 10},
                        ["B", "C", "D", "A"], 50)
    assert capped[("A", "B")] + capped[("A", "C")] == 60


def test_ofc_table_figures_are_the_seeds():
    """000:L2633-2641, L2669, L2685-2686, L2771-2802."""
    scoring = room_tables()["games.open_faced_chinese_poker.scoring"][0]
    assert (scoring["points_per_line"], scoring["scoop_bonus"], scoring["foul_points"],
            scoring["loss_points_max"], scoring["table_points"]) == (1, 3, 6, 50, 50)
    bonus = {r["id"]: r["points"] for r in room_tables()["games.open_faced_chinese_poker.bonus"]}
    assert (bonus["front_66"], bonus["front_AA"], bonus["front_222"], bonus["front_AAA"]) == (
        1, 9, 10, 22)
    assert (bonus["middle_three_of_a_kind"], bonus["middle_royal_flush"],
            bonus["back_straight"], bonus["back_royal_flush"]) == (2, 50, 2, 25)
    assert "back_three_of_a_kind" not in bonus


def test_the_stake_is_the_tables_points_at_the_point_value():
    """Decision games.chinese.escrow: 50 points of EUR 1 is EUR 50 a seat."""
    config = OFC.configure({"point_value_minor": 100}, room_tables())
    assert config["stake_minor"] == 50_00
    bets = [BetIn("b1", "seat", {"seat": 1}, 49_00), BetIn("b2", "seat", {"seat": 2}, 50_00)]
    with pytest.raises(OutcomeInvalid):
        OFC.check_outcome({"button": 1, "hands": {k: HANDS[k] for k in ("1", "2")}},
                          config, bets, room_tables())
    with pytest.raises(BetInvalid):
        OFC.configure({}, room_tables())


def test_chinese_poker_scores_one_to_three():
    """002:L1995: two lines of three one point, all three three points."""
    config = CHINESE.configure({"point_value_minor": 50}, tables(CASINO))
    assert config["stake_minor"] == 9 * 50
    bets = [BetIn(f"b{s}", "seat", {"seat": int(s)}, 450) for s in HANDS]
    outcome = CHINESE.check_outcome({"button": 1, "hands": HANDS}, config, bets,
                                    tables(CASINO))
    result = {s.bet_id: s for s in CHINESE.settle(bets, outcome, tables(CASINO), config)}
    # 1 v 2: two lines (+1); 1 v 3: three (+3); 2 v 3: three (+3). No bonuses at RAY.
    assert {k: s.detail["points"] for k, s in result.items()} == {"b1": 4, "b2": 2,
                                                                 "b3": -6}
    assert result["b3"].returned_minor == 450 - 6 * 50
