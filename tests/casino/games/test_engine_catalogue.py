"""Issue 22, games engines: the options the first wave left out, row by row.

Punto Banco's minimum commission (002:L2799); Oasis Stud Poker versions B, C
and D with their pay tables (002:L2104-2140), the table's euro win cap
(002:L2039) and the progressive bonus (002:L2041). Expected multipliers are
typed from the seed lines and compared with the shipped rows first.
"""

from __future__ import annotations

import pytest

from casino.games.engine.baccarat import PuntoBanco
from casino.games.engine.common import BetIn, BetInvalid, OutcomeInvalid
from casino.games.engine.oasis import OasisStudPoker
from casino.games.engine.oasis_wild import wild_class, wild_value

from .rows import CASINO, rows, tables

OASIS = OasisStudPoker()
PUNTO_BANCO = PuntoBanco()

# ---------------------------------------------------------------------------
# Punto Banco: the minimum commission (002:L2799)
# ---------------------------------------------------------------------------


def _banco(config, stake):
    clean = PUNTO_BANCO.configure(config, tables(CASINO))
    bets = [BetIn("b", "banco", {}, stake)]
    outcome = PUNTO_BANCO.check_outcome({"punto": "2h 3d", "banco": "9h Kd"}, clean, bets,
                                        tables(CASINO))
    return PUNTO_BANCO.settle(bets, outcome, tables(CASINO), clean)[0]


def test_a_banco_win_pays_at_least_the_posted_minimum_commission():
    """002:L2799, decision games.punto_banco.commission_min: 5 % of EUR 10 is 0.50, the
    posted minimum EUR 1 is taken instead; 5 % of EUR 100 (EUR 5) is above it."""
    small = _banco({"commission_minor_min": 1_00}, 10_00)
    assert (small.commission_minor, small.returned_minor) == (1_00, 19_00)
    assert small.detail["commission_min_cite"] == "002:L2799"
    large = _banco({"commission_minor_min": 1_00}, 100_00)
    assert (large.commission_minor, large.returned_minor) == (5_00, 195_00)
    none = _banco({}, 10_00)
    assert (none.commission_minor, none.returned_minor) == (50, 19_50)


def test_the_minimum_commission_never_takes_more_than_the_win():
    """A EUR 0.50 banco win against a EUR 1 minimum: the stake comes back whole."""
    tiny = _banco({"commission_minor_min": 1_00}, 50)
    assert (tiny.commission_minor, tiny.returned_minor, tiny.result) == (50, 50, "push")


def test_the_minimum_commission_needs_the_commission_version():
    with pytest.raises(BetInvalid):
        PUNTO_BANCO.configure({"banco": "no_commission_6", "commission_minor_min": 100},
                              tables(CASINO))
    with pytest.raises(BetInvalid):
        PUNTO_BANCO.configure({"commission_minor_min": 0}, tables(CASINO))


# ---------------------------------------------------------------------------
# Oasis versions B-D (002:L2104-2140)
# ---------------------------------------------------------------------------

B_PAYS = {"royal_flush": 100, "straight_flush": 50, "four_of_a_kind": 20, "full_house": 7,
          "flush": 5, "straight": 3, "three_of_a_kind": 2, "two_pair": 1, "pair": 1}
C_PAYS = {"royal_flush_natural": 100, "royal_flush_wild": 50, "five_of_a_kind": 30,
          "straight_flush": 10, "four_of_a_kind": 3, "full_house": 3, "flush": 2,
          "straight": 2, "three_of_a_kind": 1, "two_pair": 1, "pair": 1}
D_PAYS = {"royal_flush": 1000, "straight_flush": 200, "four_of_a_kind": 50, "full_house": 11,
          "flush": 8, "straight": 5, "three_of_a_kind": 3, "two_pair": 2, "pair": 1}
STAKE = 1_000
B_HANDS = {"royal_flush": "Ah Kh Qh Jh Th", "straight_flush": "9s 8s 7s 6s 5s",
           "four_of_a_kind": "9c 9d 9h 9s 3c", "full_house": "Qc Qd Qh 4s 4c",
           "flush": "Ad 9d 7d 4d 3d", "straight": "9c 8h 7h 6s 5c",
           "three_of_a_kind": "Jc Jd Jh Ks 3c", "two_pair": "Jc Jd 5h 5s 3c",
           "pair": "Tc Td Kh 5s 3c"}
C_HANDS = {"royal_flush_natural": "Ah Kh Qh Jh Th", "royal_flush_wild": "Ah Kh Qh Jh 2c",
           "five_of_a_kind": "9c 9d 9h 2s 2c", "straight_flush": "9s 8s 7s 6s 2c",
           "four_of_a_kind": "Qc Qd Qh 2s 4c", "full_house": "Qc Qd 4h 2s 4c",
           "flush": "Ad 9d 7d 2d 3d", "straight": "9c 8h 7h 2s 5c",
           "three_of_a_kind": "Kc Kd 2h 5s 3c", "two_pair": "Kc Kd 5h 5s 3c",
           "pair": "Kc 2d 9h 5s 3c"}


def _oasis(version, kinds, box, dealer=None, community=None, stake=STAKE, **config):
    clean = OASIS.configure({"version": version, **config}, tables(CASINO))
    bets = [BetIn(k, k, {"box": 1}, stake * (2 if k == "bet" else 1)) for k in kinds]
    facts = {"boxes": {"1": box}}
    if dealer is not None:
        facts["dealer"] = dealer
    if community is not None:
        facts["community"] = community
    outcome = OASIS.check_outcome(facts, clean, bets, tables(CASINO))
    return {s.bet_id: s for s in OASIS.settle(bets, outcome, tables(CASINO), clean)}


def test_the_version_pay_tables_are_the_seeds():
    """002:L2106-2114, L2118-2128, L2132-2140."""
    for key, pays in (("bet_b", B_PAYS), ("bet_c", C_PAYS), ("bet_d", D_PAYS)):
        assert {r["id"]: r["pays"] for r in rows(CASINO, f"games.oasis_stud_poker.{key}")
                } == pays, key
    versions = {r["id"]: r for r in rows(CASINO, "games.oasis_stud_poker.versions")}
    assert {v: r["pair_rank_min"] for v, r in versions.items()} == {"b": 8, "c": 8, "d": 10}
    assert (versions["b"]["exchanges_max"], versions["c"]["wild"]) == (2, "2")


def test_version_b_pays_every_row_against_a_pair_of_eights():
    """002:L2104: the dealer opens with a pair of eights; the bet pays by B's table."""
    dealer = "8d 8c 6d 4h 2h"
    for hand, pays in B_PAYS.items():
        won = _oasis("b", ["ante", "bet"], B_HANDS[hand], dealer)
        assert (won["ante"].returned_minor, won["bet"].returned_minor, won["bet"].row) == (
            2 * STAKE, 2 * STAKE * (1 + pays), hand), hand


def test_version_b_dealer_below_eights_does_not_qualify():
    """002:L2104 with 002:L2007: a pair of sevens does not open; ante 1:1, bet pushes."""
    result = _oasis("b", ["ante", "bet"], B_HANDS["pair"], "7h 7d 6c 4s 2h")
    assert (result["ante"].returned_minor, result["bet"].result) == (2 * STAKE, "push")
    assert result["ante"].detail["dealer_qualified"] is False


def test_version_b_exchange_is_one_ante_fee_and_there_is_no_bought_game():
    """Decision games.oasis_stud_poker.version_b_fee; 002:L2104."""
    result = _oasis("b", ["ante", "bet", "swap"], B_HANDS["flush"], "8h 8c 6c 4s 2h")
    assert (result["swap"].returned_minor, result["swap"].row) == (0, "swap_fee")
    config = OASIS.configure({"version": "b"}, tables(CASINO))
    swap = OASIS.bet_kind("swap", {"box": 1}, tables(CASINO), config)
    assert (swap.raise_rule, swap.in_play) == ("equal", True)
    for kind in ("buy", "bonus"):
        with pytest.raises(BetInvalid):
            OASIS.bet_kind(kind, {"box": 1}, tables(CASINO), config)


def test_version_c_ranks_deuces_wild_and_pays_every_row():
    """002:L2116-2128: every two is a joker; five of a kind and the wild royal rank."""
    for hand, cards in C_HANDS.items():
        assert wild_class(wild_value(cards.split())) == hand, hand
    dealer = "8d 8c 6h 5d 3s"
    for hand, pays in C_PAYS.items():
        won = _oasis("c", ["ante", "bet"], C_HANDS[hand], dealer)
        assert (won["bet"].returned_minor, won["bet"].row) == (2 * STAKE * (1 + pays),
                                                               hand), hand
    # A natural royal beats a wild one, and a wild pair of eights opens for the dealer.
    assert wild_value("Ah Kh Qh Jh Th".split()) > wild_value("As Ks Qs Js 2c".split())
    lost = _oasis("c", ["ante", "bet"], "8c 2d 9h 5s 3c", "Ah 2h 9c 5d 4c")
    assert (lost["ante"].result, lost["bet"].result) == ("lose", "lose")


def test_version_c_has_no_exchanges():
    config = OASIS.configure({"version": "c"}, tables(CASINO))
    with pytest.raises(BetInvalid):
        OASIS.bet_kind("swap", {"box": 1}, tables(CASINO), config)


def test_version_d_pays_three_bets_from_a_pair_of_tens():
    """002:L2130-2140: three own cards and two community cards, no ante, no dealer."""
    won = _oasis("d", ["bet_1", "bet_2", "bet_3"], "Qh Jh Th", community="Ah Kh")
    assert {s.returned_minor for s in won.values()} == {STAKE * (1 + 1000)}
    tens = _oasis("d", ["bet_1", "bet_2", "bet_3"], "Tc Td 5h", community="9s 2c")
    assert {(s.row, s.returned_minor) for s in tens.values()} == {("pair", 2 * STAKE)}
    nines = _oasis("d", ["bet_1", "bet_2", "bet_3"], "9c 9d 5h", community="Ks 2c")
    assert {s.returned_minor for s in nines.values()} == {0}
    config = OASIS.configure({"version": "d"}, tables(CASINO))
    bet_2 = OASIS.bet_kind("bet_2", {"box": 3}, tables(CASINO), config)
    assert (bet_2.raise_of, bet_2.raise_rule, bet_2.in_play) == ("bet_1:3", "equal", False)
    with pytest.raises(BetInvalid):
        OASIS.bet_kind("ante", {"box": 1}, tables(CASINO), config)
    with pytest.raises(OutcomeInvalid):
        _oasis("d", ["bet_1"], "Qh Jh Th", community="Qh Kh")      # one deck


def test_the_tables_win_cap_cuts_a_boxs_win():
    """002:L2039, decision games.oasis_stud_poker.win_cap: EUR 500 posted; a flush against
    a qualified dealer wins 10 + 5 x 20 = EUR 110 on EUR 10 / 20; with EUR 50 posted the
    bet's win is cut by 60, the ante's win stays."""
    capped = _oasis("base", ["ante", "bet"], "Ad 9d 7d 4d 2d", "As Kc 8d 4h 3c",
                    win_minor_max=50_00, stake=10_00)
    assert capped["ante"].returned_minor == 20_00
    assert capped["bet"].returned_minor == 20_00 + 100_00 - 60_00
    assert capped["bet"].detail["win_cap"] == {"limit_minor": 50_00, "cut_minor": 60_00,
                                               "cite": "002:L2039"}
    free = _oasis("base", ["ante", "bet"], "Ad 9d 7d 4d 2d", "As Kc 8d 4h 3c", stake=10_00)
    assert free["bet"].returned_minor == 120_00


def test_the_progressive_bonus_feeds_the_pool_and_records_a_hit():
    """002:L2041, decision games.oasis_stud_poker.progressive: 15 % of the stake to the
    pool; a royal flush takes the whole pool, paid from it, not by the table."""
    result = _oasis("base", ["ante", "bet", "bonus"], "Ah Kh Qh Jh Th", "As Kc 8d 4h 3c",
                    bonus="progressive")
    bonus = result["bonus"]
    assert (bonus.result, bonus.returned_minor, bonus.contribution_minor) == (
        "jackpot", 0, 150)
    assert bonus.jackpot_kind == "oasis_progressive"
    assert bonus.detail["jackpot_hit"]["pool_basis_points"] == 10_000
    miss = _oasis("base", ["ante", "bet", "bonus"], "7c 7d Kh 5s 2c", "As Kc 8d 4h 3c",
                  bonus="progressive")["bonus"]
    assert (miss.result, miss.contribution_minor) == ("lose", 150)
    with pytest.raises(BetInvalid):
        OASIS.configure({"version": "c", "bonus": "progressive"}, tables(CASINO))
