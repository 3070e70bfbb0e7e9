"""Oasis Stud Poker (casino) and Triple Bet Poker (halls): every pay-table row.

Expected multipliers are typed from the digests (002:L2017-2037 Oasis,
002:L549-576 Triple Bet) and compared with the shipped rows first.
"""

from __future__ import annotations

import pytest

from casino.games.engine.common import BetIn, BetInvalid, OutcomeInvalid
from casino.games.engine.oasis import OasisStudPoker, oasis_hand
from casino.games.engine.triple_bet import TripleBetPoker, four_flush, four_straight

from .rows import CASINO, HALL, rows, tables

STAKE = 1_000
OASIS = OasisStudPoker()
BASE = {"version": "base"}
BET_PAYS = {"royal_flush": 100, "straight_flush": 50, "four_of_a_kind": 20, "full_house": 7,
            "flush": 5, "straight": 4, "three_of_a_kind": 3, "two_pair": 2, "pair": 1,
            "ace_king": 1}
BONUS_PAYS = {"royal_flush": 5000, "straight_flush": 1000, "four_of_a_kind": 250,
              "full_house": 150, "flush": 100, "straight": 50}
PLAYER = {"royal_flush": "Ah Kh Qh Jh Th", "straight_flush": "9s 8s 7s 6s 5s",
          "four_of_a_kind": "9c 9d 9h 9s 2c", "full_house": "Qc Qd Qh 4s 4c",
          "flush": "Ad 9d 7d 4d 2d", "straight": "9c 8h 7h 6s 5c",
          "three_of_a_kind": "7c 7d 7h Ks 2c", "two_pair": "7c 7d 5h 5s 2c",
          "pair": "7c 7d Kh 5s 2c", "ace_king": "Ac Kd 9h 5s 2c"}
DEALER_AK = "As Kc 8d 4h 3c"          # qualifies with the weakest class, below each hand above
DEALER_JACKS = "Js Jd 6c 3h 2h"       # beats a pair of sevens
DEALER_NO_GAME = "Qs Jd 8c 4h 3d"


def oasis(kinds, player, dealer, replacement=None, config=BASE):
    bets = [BetIn(k, k, {"box": 1}, STAKE * (2 if k == "bet" else 1)) for k in kinds]
    facts = {"dealer": dealer, "boxes": {"1": player}}
    if replacement:
        facts["dealer_replacement"] = replacement
    outcome = OASIS.check_outcome(facts, config, bets, tables(CASINO))
    return {s.bet_id: s for s in OASIS.settle(bets, outcome, tables(CASINO), config)}


def test_oasis_classes():
    for cls, cards in PLAYER.items():
        assert oasis_hand(cards.split())[1] == cls
    assert oasis_hand(DEALER_NO_GAME.split())[1] == "no_game"


def test_every_oasis_bet_row_pays_when_the_player_beats_a_qualified_dealer():
    """002:L2015-2028: ante 1:1 and the bet by the player's hand; lost to a better dealer."""
    assert {r["id"]: r["pays"] for r in rows(CASINO, "games.oasis_stud_poker.bet")} == BET_PAYS
    for cls, pays in BET_PAYS.items():
        won = oasis(["ante", "bet"], PLAYER[cls], DEALER_AK)
        assert (won["bet"].returned_minor, won["bet"].row) == (2 * STAKE * (1 + pays), cls)
        assert won["ante"].returned_minor == 2 * STAKE
    lost = oasis(["ante", "bet"], PLAYER["pair"], DEALER_JACKS)
    assert (lost["ante"].returned_minor, lost["bet"].returned_minor) == (0, 0)


def test_every_oasis_bonus_row_pays_on_the_players_hand_whatever_the_dealer():
    """002:L2013, L2030-2037: below a straight the bonus loses."""
    assert {r["id"]: r["pays"] for r in rows(CASINO, "games.oasis_stud_poker.bonus")} == (
        BONUS_PAYS)
    for cls, pays in BONUS_PAYS.items():
        for dealer in (DEALER_AK, DEALER_NO_GAME):
            won = oasis(["ante", "bet", "bonus"], PLAYER[cls], dealer)["bonus"]
            assert (won.returned_minor, won.row) == (STAKE * (1 + pays), cls)
    lost = oasis(["ante", "bet", "bonus"], PLAYER["three_of_a_kind"], DEALER_AK)["bonus"]
    assert lost.returned_minor == 0


def test_oasis_dealer_below_ace_king_pays_the_ante_and_pushes_the_bet():
    """002:L2007."""
    result = oasis(["ante", "bet"], PLAYER["pair"], DEALER_NO_GAME)
    assert (result["ante"].returned_minor, result["ante"].row) == (
        2 * STAKE, "ante_dealer_not_qualified")
    assert (result["bet"].result, result["bet"].returned_minor) == ("push", 2 * STAKE)


def test_oasis_equal_hands_push():
    """Decision games.oasis_stud_poker.tie (002:L2098)."""
    tie = oasis(["ante", "bet"], "As Kd 8h 4c 3s", DEALER_AK.replace("As", "Ad"))
    assert (tie["ante"].result, tie["bet"].result) == ("push", "push")


def test_oasis_fold_loses_ante_and_bonus():
    folded = oasis(["ante", "bonus"], PLAYER["royal_flush"], DEALER_AK)
    assert folded["ante"].returned_minor == 0 and folded["bonus"].returned_minor == 0


def test_oasis_swap_fee_is_lost_and_forfeits_the_bonus():
    """002:L2005, decision games.oasis_stud_poker.swap."""
    result = oasis(["ante", "bet", "bonus", "swap"], PLAYER["straight"], DEALER_AK)
    assert result["swap"].returned_minor == 0
    assert (result["bonus"].returned_minor, result["bonus"].detail["forfeited"]) == (0, True)
    assert result["bet"].returned_minor == 2 * STAKE * 5


def test_oasis_buying_a_game_replaces_the_dealers_highest_card():
    """002:L2009-2011, decision games.oasis_stud_poker.buy."""
    # Q replaced by the 8d: J-8-8-4-3, a pair of eights, beats the buyer's sevens.
    bought = oasis(["ante", "bet", "buy"], PLAYER["pair"], DEALER_NO_GAME, "8d")
    assert bought["ante"].detail["dealer_bought_hand"] == "pair"
    assert (bought["ante"].returned_minor, bought["bet"].returned_minor,
            bought["buy"].returned_minor) == (0, 0, 0)
    # Q replaced by the 9s: still no pair, ante and bet push, the fee is lost.
    nothing = oasis(["ante", "bet", "buy"], PLAYER["pair"], DEALER_NO_GAME, "9s")
    assert (nothing["ante"].result, nothing["bet"].result, nothing["buy"].result) == (
        "push", "push", "lose")
    # A dealer pair of eights against the buyer's two pair: settled normally.
    won = oasis(["ante", "bet", "buy"], PLAYER["two_pair"], DEALER_NO_GAME, "8d")
    assert (won["ante"].returned_minor, won["bet"].returned_minor) == (2 * STAKE,
                                                                     2 * STAKE * 3)
    with pytest.raises(OutcomeInvalid):
        oasis(["ante", "bet", "buy"], PLAYER["pair"], DEALER_AK, "8d")   # dealer qualified
    with pytest.raises(OutcomeInvalid):
        oasis(["ante", "bet", "buy"], PLAYER["pair"], DEALER_NO_GAME)    # no replacement


def test_oasis_version_a_has_no_exchanges():
    """002:L2102, decision games.oasis_stud_poker.versions."""
    config = OASIS.configure({"version": "a"}, tables(CASINO))
    with pytest.raises(BetInvalid):
        OASIS.bet_kind("swap", {"box": 1}, tables(CASINO), config)
    with pytest.raises(BetInvalid):
        OASIS.configure({"version": "e"}, tables(CASINO))
    bet = OASIS.bet_kind("bet", {"box": 1}, tables(CASINO), config)
    assert (bet.raise_rule, bet.multiples) == ("multiple", (2,))


# ---------------------------------------------------------------------------
# Triple Bet Poker
# ---------------------------------------------------------------------------

TRIPLE = TripleBetPoker()
MAIN_PAYS = {"straight_flush": 30, "four_of_a_kind": 15, "full_house": 10, "flush": 7,
             "straight": 5, "three_of_a_kind": 3, "two_pair": 2, "pair_tens_or_better": 1}
TRIPLE_BONUS = {"straight_flush": 50, "four_of_a_kind": 40, "full_house": 30, "flush": 20,
                "straight": 15, "three_of_a_kind": 5, "four_card_straight": 3,
                "four_card_flush": 3, "two_pair": 3}
OWN = {"straight_flush": ("9h 8h 7h", "6h 5h"), "four_of_a_kind": ("9c 9d 9h", "9s 2c"),
       "full_house": ("9c 9d 9h", "5s 5c"), "flush": ("Ah 8h 2h", "5h Jh"),
       "straight": ("9c 8d 7h", "6s 5c"), "three_of_a_kind": ("9c 9d 9h", "5s 2c"),
       "two_pair": ("9c 9d 5h", "5s 2c"), "pair_tens_or_better": ("Tc Td 5h", "8s 2c"),
       "four_card_straight": ("9c 8d 7h", "6s 2c"), "four_card_flush": ("Ah 8h 2h", "5h Jc")}


def triple(kinds, own, community, withdrawn=None):
    bets = [BetIn(k, k, {"box": 1}, STAKE) for k in kinds]
    outcome = TRIPLE.check_outcome({"boxes": {"1": own}, "community": community,
                                    "withdrawn": withdrawn or {}}, {}, bets, tables(HALL))
    return {s.bet_id: s for s in TRIPLE.settle(bets, outcome, tables(HALL), {})}


def test_every_triple_bet_main_row_pays_each_circle_still_in_play():
    """002:L549-562: a pair of nines or worse loses."""
    assert {r["id"]: r["pays"] for r in rows(HALL, "games.triple_bet_poker.main")} == MAIN_PAYS
    for row_id, pays in MAIN_PAYS.items():
        won = triple(["bet_1", "bet_2", "bet_3"], *OWN[row_id])
        assert {s.returned_minor for s in won.values()} == {STAKE * (1 + pays)}
        assert won["bet_3"].row == row_id
    lost = triple(["bet_1", "bet_2", "bet_3"], "9c 9d 5h", "8s 2c")
    assert {s.returned_minor for s in lost.values()} == {0}
    royal = triple(["bet_1"], "Ah Kh Qh", "Jh Th")["bet_1"]
    assert royal.row == "straight_flush"      # decision games.triple_bet_poker.royal_flush


def test_every_triple_bet_bonus_row_pays_only_the_highest_combination():
    """002:L564-576, decision games.triple_bet_poker.bonus_highest."""
    assert {r["id"]: r["pays"] for r in rows(HALL, "games.triple_bet_poker.bonus")} == (
        TRIPLE_BONUS)
    for row_id, pays in TRIPLE_BONUS.items():
        won = triple(["bet_1", "bonus"], *OWN[row_id])["bonus"]
        assert (won.returned_minor, won.row) == (STAKE * (1 + pays), row_id)
    # A four-card straight that is also a four-card flush pays once, 3x.
    both = triple(["bet_1", "bonus"], "9h 8h 7h", "6c 2h")["bonus"]
    assert both.returned_minor == STAKE * (1 + 3)
    lost = triple(["bet_1", "bonus"], "Tc Td 5h", "8s 2c")["bonus"]   # a pair: below two pair
    assert lost.returned_minor == 0


def test_four_card_draws_take_the_ace_high_and_low():
    """002:L531: A-2-3-4 and J-Q-K-A are four-card straights."""
    assert four_straight("Ac 2d 3h 4s 9c".split())
    assert four_straight("Jc Qd Kh As 5c".split())
    assert not four_straight("Qc Kd Ah 2s 4c".split())
    assert four_flush("Ah 8h 2h 5h Jc".split())


def test_triple_bet_circles_taken_back_are_returned():
    """Decision games.triple_bet_poker.withdrawals: circles 1 and 2 only."""
    result = triple(["bet_1", "bet_2", "bet_3"], *OWN["straight"], withdrawn={"1": [1, 2]})
    assert (result["bet_1"].result, result["bet_2"].result) == ("push", "push")
    assert result["bet_3"].returned_minor == STAKE * 6
    with pytest.raises(OutcomeInvalid):
        triple(["bet_1", "bet_2", "bet_3"], *OWN["straight"], withdrawn={"1": [3]})


def test_triple_bet_bets_are_equal_and_the_bonus_needs_the_main_game():
    bet_2 = TRIPLE.bet_kind("bet_2", {"box": 4}, tables(HALL), {})
    assert (bet_2.raise_of, bet_2.raise_rule, bet_2.in_play) == ("bet_1:4", "equal", False)
    assert TRIPLE.bet_kind("bonus", {"box": 4}, tables(HALL), {}).requires == ("bet_1:4",)


def test_oasis_qualifier_is_read_from_the_rulebook():
    """Ace-king qualifies (002:L2007); a version asking a pair pays the ante on it instead."""
    key = "games.oasis_stud_poker.dealer_qualifier"
    assert rows(CASINO, key) == [{"hand": "ace_king", "cite": "002:L2007"}]
    bets = [BetIn(k, k, {"box": 1}, STAKE * (2 if k == "bet" else 1)) for k in ("ante", "bet")]
    facts = {"dealer": DEALER_AK, "boxes": {"1": PLAYER["pair"]}}
    for hand, ante_row in (("ace_king", "ante"), ("pair", "ante_dealer_not_qualified")):
        rulebook = {**tables(CASINO), key: [{"hand": hand, "cite": "002:L1"}]}
        outcome = OASIS.check_outcome(facts, BASE, bets, rulebook)
        settled = {s.bet_id: s for s in OASIS.settle(bets, outcome, rulebook, BASE)}
        assert settled["ante"].row == ante_row, hand
    with pytest.raises(BetInvalid):
        OASIS.configure(BASE, {**tables(CASINO), key: [{"hand": "queen_high", "cite": "x"}]})
