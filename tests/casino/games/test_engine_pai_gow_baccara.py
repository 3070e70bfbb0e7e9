"""Pai Gow Poker (the joker, the ranking, the house way, settlement) and Baccara.

Each house-way case is one row of the digest's table (002:L2492-2568) with
seven cards built for it; the expected front hand is typed from the row.
"""

from __future__ import annotations

import pytest

from casino.games.engine.baccarat import Baccara
from casino.games.engine.common import BetIn, OutcomeInvalid
from casino.games.engine.pai_gow import (
    FIVE_ACES,
    PAIR,
    STRAIGHT,
    TRIPS,
    PaiGowPoker,
    back_value,
    category,
    fouled,
    front_value,
    house_way,
)

from .rows import CASINO, rows, tables

STAKE = 1_000


def test_a_2_3_4_5_is_the_second_best_straight_and_straight_flush():
    """002:L2601, L2617."""
    wheel, broadway, king = (back_value(h.split()) for h in (
        "As 2d 3c 4h 5s", "Ad Ks Qc Jh Th", "Kd Qs Jc Th 9h"))
    assert king < wheel < broadway
    sf_wheel, sf_royal, sf_king = (back_value(h.split()) for h in (
        "Ah 2h 3h 4h 5h", "As Ks Qs Js Ts", "Kd Qd Jd Td 9d"))
    assert sf_king < sf_wheel < sf_royal


def test_the_joker_completes_straights_and_flushes_and_is_otherwise_an_ace():
    """002:L2484, L2619-2621."""
    assert category(back_value("JK Kd Qs Jc Th".split())) == "straight"
    assert category(back_value("JK 2h 5h 9h Jh".split())) == "flush"
    assert category(back_value("JK 9h 8h 7h 6h".split())) == "straight_flush"
    pair = back_value("JK Ks Kd 5c 2h".split())
    assert pair[:3] == (PAIR, 13, 14)           # kings with an ace, not three kings
    assert back_value("As Ad Ac Ah JK".split()) == (FIVE_ACES,)
    assert back_value("As Ad Ac Ah JK".split()) > back_value("As Ks Qs Js Ts".split())
    assert front_value(["JK", "Kd"]) == (0, 14, 13)
    assert back_value("JK As 7c 7d 2h".split())[0] == 2       # two pair: aces and sevens
    assert back_value("JK 3s 3c 7d 2h".split())[0] == PAIR    # the joker stays an ace
    assert back_value("3s 3c 3d 7d 2h".split())[0] == TRIPS
    assert back_value("4s 5c 6d 7d JK".split())[0] == STRAIGHT


def test_a_front_not_lower_than_the_back_fouls():
    """002:L2486."""
    assert fouled(["Ac", "Kd"], "Qs Jh 9c 5d 2s".split())
    assert not fouled(["8c", "8d"], "8s 8h Kc 5d 2s".split())
    assert fouled(["9c", "9d"], "8s 8h Kc 5d 2s".split())


HOUSE_WAY = [
    # (digest row, seven cards, the front the house way sets)
    ("no pair: 2nd and 3rd highest in front", "As Kd 9c 7h 5s 3d 2c", "Kd 9c"),
    ("one pair back, two highest in front", "8s 8d Ac Kh 9c 5d 2s", "Ac Kh"),
    ("two pair split", "Ks Kd 8c 8h Ac 5d 2s", "8c 8h"),
    ("two pair split, no ace", "Ts Td 4c 4h Kc 9d 2s", "4c 4h"),
    ("two pair both 6 or lower: kept", "6s 6d 3c 3h Kc 9d 2s", "Kc 9d"),
    ("two pair 10 or lower with an ace: kept", "Ts Td 4c 4h Ac 9d 2s", "Ac 9d"),
    ("face pair, pair 5 or lower, ace: kept", "Qs Qd 5c 5h Ac 9d 2s", "Ac 9d"),
    ("three pair: highest in front", "Ks Kd 8c 8h 4c 4d As", "Ks Kd"),
    ("trips back", "8s 8d 8c Kh 9c 5d 2s", "Kh 9c"),
    ("three aces: one ace in front", "As Ad Ac Kh 9c 5d 2s", "As Kh"),
    ("two trips: a pair of the higher in front", "Ks Kd Kc 8h 8c 8d 2s", "Ks Kd"),
    ("straight and flush, the straight gives a king-high front", "9h 8h 7c 6h 5d 2h Kh",
     "Kh 2h"),
    ("straight and flush, neither gives king-high: flush back", "9h 8h 7c 6h 5d 2h Qh",
     "7c 5d"),
    ("straight with aces and another pair: two pair", "As Ad Kc Qh Jd Ts Td", "Ts Td"),
    ("straight back", "9s 8d 7c 6h 5d Kc 2s", "Kc 2s"),
    ("six-card straight: the best front", "Ts 9d 8c 7h 6d 5s 2c", "Ts 2c"),
    ("full house: pair in front", "Ks Kd Kc 8h 8c Ad 2s", "8h 8c"),
    ("full house with 2s, ace and king: all back", "8s 8d 8c 2h 2c Ad Ks", "Ad Ks"),
    ("trips and two pairs: higher pair in front", "8s 8d 8c Kh Kc 5d 5s", "Kh Kc"),
    ("four aces split", "As Ad Ac Ah 5c 5d 2s", "As Ad"),
    ("four aces kept with a pair of 7s or better", "As Ad Ac Ah 9c 9d 2s", "9c 9d"),
    ("four kings split", "Ks Kd Kc Kh 9c 9d 2s", "Ks Kd"),
    ("four kings kept with a pair of 10s", "Ks Kd Kc Kh Tc Td 2s", "Tc Td"),
    ("four eights split", "8s 8d 8c 8h Ac 9d 2s", "8s 8d"),
    ("four eights kept with ace and face", "8s 8d 8c 8h Ac Qd 2s", "Ac Qd"),
    ("four fives always back", "5s 5d 5c 5h 9c 7d 2s", "9c 7d"),
    ("straight flush back", "9h 8h 7h 6h 5h Kc 2s", "Kc 2s"),
    ("straight flush: a straight back for ace and face in front", "Jh Th 9h 8h 7h 6c Ad",
     "Jh Ad"),
    ("royal flush back", "Ah Kh Qh Jh Th 3c 2d", "3c 2d"),
    ("royal flush: a straight flush back for king-high in front", "Ah Kh Qh Jh Th 9h 2d",
     "Ah 2d"),
    ("five aces: aces in front", "As Ad Ac Ah JK 9c 2d", "As Ad"),
    ("five aces with kings: kings in front", "As Ad Ac Ah JK Kc Kd", "Kc Kd"),
]


@pytest.mark.parametrize("name,cards,front", HOUSE_WAY, ids=[h[0] for h in HOUSE_WAY])
def test_the_house_way(name, cards, front):
    """002:L2492-2568 with decisions games.pai_gow.two_pair_front, .five_aces_kings, .precedence."""
    got_front, back = house_way(cards.split())
    assert sorted(got_front, key=lambda c: (c == "JK", c)) == sorted(
        front.split(), key=lambda c: (c == "JK", c)) or (
        # An ace pair from five aces may include the joker.
        {front_value(got_front)} == {front_value(front.split())})
    assert sorted(got_front + back) == sorted(cards.split())
    assert not fouled(got_front, back)


PAI_GOW = PaiGowPoker()
DEALER = "Ks Kd 8c 8h Ac 5d 2s"     # house way: 8-8 in front, K-K-A-5-2 back


def pai_gow(front, back, dealer=DEALER, **extra):
    bet = BetIn("b", "bet", {"box": 1}, STAKE)
    outcome = PAI_GOW.check_outcome({"dealer": dealer, "boxes": {"1": {"front": front,
                                                                     "back": back}}, **extra},
                                    {}, [bet], tables(CASINO))
    return PAI_GOW.settle([bet], outcome, tables(CASINO), {})[0]


def test_pai_gow_pays_1_to_1_less_5_percent_when_both_hands_win():
    """002:L2488: the 5 % commission is taken from the win."""
    assert {r["id"]: (r["pays"], r.get("commission_basis_points"))
            for r in rows(CASINO, "games.pai_gow_poker.payouts")} == {
        "win": (1, 500), "push": (0, None), "foul": (0, None),
        "bank_net_win": (0, 500)}      # 002:L2623: 5 % of a player bank's net win
    won = pai_gow("Qc Qd", "As Ah 9s 9d 3c")
    assert (won.returned_minor, won.commission_minor, won.row) == (1_950, 50, "win")
    lost = pai_gow("3d 4d", "Ts Th 4c 3h 6d")
    assert (lost.result, lost.returned_minor) == ("lose", 0)


def test_pai_gow_one_hand_each_pushes_and_a_copy_goes_to_the_bank():
    pushed = pai_gow("Jc Jd", "Qs Qh 4c 3h 6d")
    assert (pushed.result, pushed.returned_minor) == ("push", STAKE)
    copy = pai_gow("8s 8d", "As Ah 9s 9d 3c")        # 8-8 against the bank's 8-8
    assert copy.result == "push"                      # back wins, front copy is the bank's
    both_copies = pai_gow("8s 8d", "3d 4d 6s 7c Jc", dealer="3s 4s 6d 7d Jh 8c 8h")
    assert (both_copies.result, both_copies.returned_minor) == ("lose", 0)


def test_pai_gow_a_foul_loses():
    fouled_ = pai_gow("Qc Qd", "Ts 9h 4c 3h 6d")
    assert (fouled_.result, fouled_.row, fouled_.detail["fouled"]) == ("lose", "foul", True)


def test_the_dealers_setting_must_be_the_house_way():
    pai_gow("Qc Qd", "As Ah 9s 9d 3c", dealer_front="8c 8h")
    with pytest.raises(OutcomeInvalid):
        pai_gow("Qc Qd", "As Ah 9s 9d 3c", dealer_front="Ks Kd")


# ---------------------------------------------------------------------------
# Baccara (player-banked)
# ---------------------------------------------------------------------------

BACCARA = Baccara()


def baccara(punto, banco, bets, choices=None):
    placed = [BetIn(f"{kind}-{i}", kind, {}, stake) for i, (kind, stake) in enumerate(bets)]
    outcome = BACCARA.check_outcome({"punto": punto, "banco": banco,
                                     "choices": choices or {}}, {}, placed, tables(CASINO))
    return {s.bet_id: s for s in BACCARA.settle(placed, outcome, tables(CASINO), {})}


def test_baccara_bank_wins_the_punto_stakes_less_5_percent_for_the_house():
    """002:L2813; the rows typed from the digest."""
    assert {r["id"]: (r["pays"], r.get("commission_basis_points"))
            for r in rows(CASINO, "games.baccara.payouts")} == {
        "banco": (1, 500), "punto": (1, None), "tie": (0, None)}
    result = baccara("Th Kd 2c", "7c Ks", [("banco", 10_000), ("punto", 3_000),
                                            ("punto", 2_000)])
    assert (result["banco-0"].returned_minor, result["banco-0"].commission_minor) == (
        14_750, 250)
    assert result["punto-1"].returned_minor == 0 and result["punto-2"].returned_minor == 0
    staked = 15_000
    returned = sum(s.returned_minor for s in result.values())
    commission = sum(s.commission_minor for s in result.values())
    assert staked - returned - commission == 0       # the house keeps only the commission


def test_baccara_punto_is_paid_out_of_the_bank():
    """002:L2815."""
    result = baccara("9h Kd", "7c Ks", [("banco", 10_000), ("punto", 3_000), ("punto", 2_000)])
    assert (result["punto-1"].returned_minor, result["punto-2"].returned_minor) == (6_000,
                                                                                  4_000)
    assert (result["banco-0"].returned_minor, result["banco-0"].result) == (5_000, "lose")


def test_baccara_tie_pushes_every_stake():
    """Decision games.baccara.tie."""
    result = baccara("7h Kd", "7c Ks", [("banco", 10_000), ("punto", 3_000)])
    assert {s.result for s in result.values()} == {"push"}


def test_baccara_options_follow_the_choice_recorded():
    """002:L2847: punto's option on 5."""
    stood = baccara("5h Kd", "6c Ks", [("banco", 1_000), ("punto", 1_000)],
                    choices={"punto": False})
    assert stood["banco-0"].returned_minor == 1_950
    with pytest.raises(OutcomeInvalid):
        baccara("5h Kd", "6c Ks", [("banco", 1_000)], choices={"punto": True})


def test_baccara_the_bank_bounds_the_punto_stakes():
    """002:L2811, decision games.baccara.cover."""
    assert BACCARA.stake_room("banco", "p1", []) is None
    placed = [("p1", "banco", 10_000), ("p2", "punto", 6_000)]
    assert BACCARA.stake_room("punto", "p3", placed) == (4_000, "002:L2811")
    refusal = BACCARA.bank_refusal
    assert refusal("punto", "p1", 100, placed, None, {})      # not against one's own bank
    assert refusal("banco", "p2", 100, placed, None, {})      # one bank per coup
    assert refusal("punto", "p2", 100, [], None, {})          # no bank yet
    assert refusal("punto", "p3", 100, placed, None, {}) is None
