"""THB, UTH and their progressives, Dynamic and Riverside Poker: every pay-table row.

Expected multipliers are typed from the digests (002:L2194-2237 THB,
L2349-2414 UTH, L604-622 Dynamic, L686-762 Riverside) and compared with the
shipped rows first, so a changed row fails here.
"""

from __future__ import annotations

import pytest

from casino.games.engine.common import BetIn, BetInvalid
from casino.games.engine.holdem import (
    DynamicPoker,
    RiversidePoker,
    TexasHoldemBonus,
    TexasHoldemBonusProgressive,
    UltimateTexasHoldem,
    UltimateTexasHoldemProgressive,
)
from casino.games.engine.poker_hands import hole_class, rank_holdem
from casino.games.events import HOLDEM_BONUS_PROGRESSIVE, ULTIMATE_HOLDEM_PROGRESSIVE

from .rows import CASINO, HALL, rows, tables

STAKE = 1_000
# The player's hole cards and the board for a hand of each category.
HANDS = {
    "royal_flush": ("Ah Kh", "Qh Jh Th 2c 3d"),
    "straight_flush": ("9h 8h", "7h 6h 5h 2c Kd"),
    "four_of_a_kind": ("9c 9d", "9h 9s 2c 5d Kh"),
    "full_house": ("9c 9d", "9h 5s 5c 2d Kh"),
    "flush": ("Ah 8h", "2h 5h Jh 3c Kd"),
    "straight": ("9c 8d", "7h 6s 5c 2d Kh"),
    "three_of_a_kind": ("9c 9d", "9h 5s 2c Jd Kh"),
    "two_pair": ("9c 5d", "9h 5s 2c Jd Kh"),
    "pair": ("9c 4d", "9h 5s 2c Jd Kh"),
    "high_card": ("9c 4d", "8h 5s 2c Jd Kh"),
}
WEAK_DEALER = "Qs 7d"     # below every hand above but high card, on every board above
# Dealer A-A beats the player's pair of nines on the same board.
LOSING = ("9c 4d", "9h 5s 2c Jd Kh", "As Ad")


def settle(game, kinds, hole, board, dealer, config, book=CASINO, box_kinds=None):
    bets = [BetIn(f"{kind}", kind, {"box": 1}, STAKE * (2 if kind in ("flop", "call") else 1))
            for kind in kinds]
    outcome = game.check_outcome({"dealer": dealer, "board": board, "boxes": {"1": hole}},
                                 config, bets, tables(book))
    return {s.bet_id: s for s in game.settle(bets, outcome, tables(book), config)}


def test_the_hand_fixtures_are_what_they_say():
    for category, (hole, board) in HANDS.items():
        assert rank_holdem(hole.split(), board.split()).category == category
        if category != "high_card":
            dealer = rank_holdem(WEAK_DEALER.split(), board.split())
            assert dealer.value < rank_holdem(hole.split(), board.split()).value, category


# ---------------------------------------------------------------------------
# Texas Hold'em Bonus
# ---------------------------------------------------------------------------

THB = TexasHoldemBonus()
THB_CONFIG = {"ante_rule": "a", "bonus_table": "i"}
BONUS_PAYS = {"aa": 30, "ak_suited": 25, "aq_aj_suited": 20, "ak_offsuit": 15, "kk_qq_jj": 10,
              "aq_aj_offsuit": 5, "pair_2_10": 3}
BONUS_HOLES = {"aa": "Ac Ad", "ak_suited": "Ac Kc", "aq_aj_suited": "Ad Jd", "ak_offsuit": "Ac Kd",
               "kk_qq_jj": "Qc Qd", "aq_aj_offsuit": "Ac Qd", "pair_2_10": "7c 7d"}


def test_thb_needs_its_posted_options():
    """Decision games.texas_holdem_bonus.options (002:L2196-2206, L2212-2237)."""
    with pytest.raises(BetInvalid):
        THB.configure({}, tables(CASINO))
    assert THB.configure({"ante_rule": "c", "bonus_table": "ii"}, tables(CASINO)) == {
        "ante_rule": "c", "bonus_table": "ii"}


@pytest.mark.parametrize("kind", ["flop", "turn", "river"])
def test_thb_flop_turn_river_pay_1_to_1_on_a_win_push_on_a_tie_lose_to_the_dealer(kind):
    """002:L2194, L2208, L2210."""
    assert {r["id"]: r["pays"] for r in rows(CASINO, "games.texas_holdem_bonus.main")
            if r["id"] == kind} == {kind: 1}
    kinds = ["ante", "flop"] + ([kind] if kind != "flop" else [])
    stake = STAKE * (2 if kind == "flop" else 1)
    won = settle(THB, kinds, *HANDS["pair"], WEAK_DEALER, THB_CONFIG)[kind]
    assert (won.returned_minor, won.row) == (2 * stake, kind)
    lost = settle(THB, kinds, *LOSING, THB_CONFIG)[kind]
    assert lost.returned_minor == 0
    # The same board plays for both: a tie.
    tie = settle(THB, kinds, "2h 3h", "Ac Ad Ah Ks Qs", "2d 3d", THB_CONFIG)[kind]
    assert (tie.result, tie.returned_minor) == ("push", stake)


@pytest.mark.parametrize("rule,floor_hand,below_hand", [
    ("a", "three_of_a_kind_tens", "three_of_a_kind"),   # nines are below three tens
    ("b", "straight", "three_of_a_kind"),
    ("c", "flush", "straight"),
])
def test_thb_ante_pays_only_with_the_posted_options_hand(rule, floor_hand, below_hand):
    """002:L2196-2206: A trip tens, B a straight, C a flush; below it a winning ante pushes."""
    assert {r["id"]: r.get("min_hand") for r in rows(CASINO, "games.texas_holdem_bonus.main")
            if r["id"].startswith("ante_")} == {
        "ante_a": "three_tens", "ante_b": "straight", "ante_c": "flush"}
    config = {"ante_rule": rule, "bonus_table": "i"}
    hand = ("Tc Td", "Th 5s 2c Jd Kh") if floor_hand == "three_of_a_kind_tens" else HANDS[
        floor_hand]
    won = settle(THB, ["ante", "flop"], *hand, WEAK_DEALER, config)["ante"]
    assert (won.returned_minor, won.row) == (2 * STAKE, f"ante_{rule}")
    pushed = settle(THB, ["ante", "flop"], *HANDS[below_hand], WEAK_DEALER, config)["ante"]
    assert (pushed.result, pushed.returned_minor) == ("push", STAKE)
    lost = settle(THB, ["ante", "flop"], *LOSING, config)["ante"]
    assert lost.returned_minor == 0


@pytest.mark.parametrize("schedule", ["i", "ii"])
def test_thb_every_bonus_row_wins_on_its_hole_cards_and_other_cards_lose(schedule):
    """002:L2212-2237: Bonus I and II on the two hole cards, the dealer irrelevant."""
    expected = {f"{schedule}.{k}": v for k, v in BONUS_PAYS.items()}
    if schedule == "ii":
        expected["ii.aa_vs_aa"] = 1000
    assert {r["id"]: r["pays"] for r in rows(CASINO, "games.texas_holdem_bonus.bonus")
            if r["schedule"] == schedule} == expected
    config = {"ante_rule": "a", "bonus_table": schedule}
    board = "2h 5s 8c 9d 3h"
    for hole_kind, hole in BONUS_HOLES.items():
        assert hole_class(hole.split()) == hole_kind
        won = settle(THB, ["ante", "flop", "bonus"], hole, board, "Ks 4d", config)["bonus"]
        assert (won.returned_minor, won.row) == (STAKE * (1 + BONUS_PAYS[hole_kind]),
                                                 f"{schedule}.{hole_kind}")
    lost = settle(THB, ["ante", "flop", "bonus"], "Kc 4c", board, "Ks 6d", config)["bonus"]
    assert lost.returned_minor == 0


def test_thb_bonus_ii_pays_1000_when_player_and_dealer_both_hold_aces():
    """002:L2228: only under Bonus II; Bonus I pays the player's A-A 30x."""
    board = "2h 5s 8c 9d 3h"
    both = settle(THB, ["ante", "flop", "bonus"], "Ac Ad", board, "As Ah",
                  {"ante_rule": "a", "bonus_table": "ii"})["bonus"]
    assert (both.returned_minor, both.row) == (STAKE * 1001, "ii.aa_vs_aa")
    one = settle(THB, ["ante", "flop", "bonus"], "Ac Ad", board, "As Ah", THB_CONFIG)["bonus"]
    assert (one.returned_minor, one.row) == (STAKE * 31, "i.aa")


def test_thb_fold_loses_ante_and_bonus():
    """002:L2168: no flop bet, the box folded."""
    folded = settle(THB, ["ante", "bonus"], "Ac Ad", "2h 5s 8c 9d 3h", "Ks 4d", THB_CONFIG)
    assert folded["ante"].returned_minor == 0 and folded["bonus"].returned_minor == 0


def test_thb_bets_relate_to_the_ante():
    """Flop exactly 2x, turn and river = ante and only after the flop; bonus never alone."""
    flop = THB.bet_kind("flop", {"box": 2}, tables(CASINO), THB_CONFIG)
    assert (flop.raise_of, flop.raise_rule, flop.multiples, flop.in_play) == (
        "ante:2", "multiple", (2,), True)
    assert THB.bet_kind("river", {"box": 2}, tables(CASINO), THB_CONFIG).requires == ("flop:2",)
    assert THB.bet_kind("bonus", {"box": 2}, tables(CASINO), THB_CONFIG).requires == ("ante:2",)
    with pytest.raises(BetInvalid):
        THB.bet_kind("progressive", {"box": 2}, tables(CASINO), THB_CONFIG)


# ---------------------------------------------------------------------------
# Progressives
# ---------------------------------------------------------------------------

PROGRESSIVE = {"royal_flush": ("pool_basis_points", 10000),
               "straight_flush": ("pool_basis_points", 1000),
               "four_of_a_kind": ("pays", 300), "full_house": ("pays", 50),
               "flush": ("pays", 40)}
# Hole cards + flop making each progressive hand (the turn and river do not count).
FIRST_FIVE = {"royal_flush": ("Ah Kh", "Qh Jh Th 2c 3d"),
              "straight_flush": ("9h 8h", "7h 6h 5h 2c Kd"),
              "four_of_a_kind": ("9c 9d", "9h 9s 2c 5d Kh"),
              "full_house": ("9c 9d", "9h 5s 5c 2d Kh"),
              "flush": ("Ah 8h", "2h 5h Jh 3c Kd")}


@pytest.mark.parametrize("game,kind,config,main", [
    (TexasHoldemBonusProgressive(), HOLDEM_BONUS_PROGRESSIVE, THB_CONFIG, ["ante", "flop"]),
    (UltimateTexasHoldemProgressive(), ULTIMATE_HOLDEM_PROGRESSIVE, {"trips_table": "i"},
     ["ante", "blind", "play"]),
])
def test_every_progressive_row_is_a_jackpot_hit_and_every_stake_feeds_the_pool(
        game, kind, config, main):
    """002:L2297, L2478; decisions games.progressive.posted_table, .hand, .paid_from_pool."""
    key = f"games.{game.id}.progressive"
    assert {r["id"]: next((c, r[c]) for c in ("pool_basis_points", "pays") if c in r)
            for r in rows(CASINO, key)} == PROGRESSIVE
    funding = rows(CASINO, f"{key}_funding")
    assert [(r["basis_points"], r["kind"]) for r in funding] == [(1500, kind)]
    for category, (hole, board) in FIRST_FIVE.items():
        hit = settle(game, main + ["progressive"], hole, board, WEAK_DEALER, config)[
            "progressive"]
        assert (hit.result, hit.returned_minor, hit.row) == ("jackpot", 0, category)
        column, value = PROGRESSIVE[category]
        assert hit.detail["jackpot_hit"][column] == value
        assert (hit.contribution_minor, hit.jackpot_kind) == (150, kind)
    # Trips made on the turn and river do not count: the first five are a pair.
    miss = settle(game, main + ["progressive"], "9c 4d", "9h 5s 2c 9s 9d", WEAK_DEALER,
                  config)["progressive"]
    assert (miss.result, miss.returned_minor, miss.contribution_minor) == ("lose", 0, 150)


def test_a_thb_box_that_folds_loses_its_progressive_but_still_feeds_the_pool():
    game = TexasHoldemBonusProgressive()
    folded = settle(game, ["ante", "progressive"], *FIRST_FIVE["royal_flush"], WEAK_DEALER,
                    THB_CONFIG)["progressive"]
    assert (folded.result, folded.contribution_minor) == ("lose", 150)


# ---------------------------------------------------------------------------
# Ultimate Texas Hold'em
# ---------------------------------------------------------------------------

UTH = UltimateTexasHoldem()
BLIND_PAYS = {"royal_flush": 500, "straight_flush": 50, "four_of_a_kind": 10, "full_house": 3,
              "flush": 3, "straight": 1}
TRIPS = {"i": {"royal_flush": 50, "straight_flush": 40, "four_of_a_kind": 30, "full_house": 9,
               "flush": 7, "straight": 4, "three_of_a_kind": 3},
         "ii": {"royal_flush": 50, "straight_flush": 40, "four_of_a_kind": 30, "full_house": 8,
                "flush": 6, "straight": 5, "three_of_a_kind": 3},
         "iii": {"royal_flush": 50, "straight_flush": 40, "four_of_a_kind": 30,
                 "full_house": 8, "flush": 7, "straight": 4, "three_of_a_kind": 3},
         "iv": {"royal_flush": 50, "straight_flush": 40, "four_of_a_kind": 20, "full_house": 7,
                "flush": 6, "straight": 5, "three_of_a_kind": 3}}


def uth(kinds, hole, board, dealer, schedule="i"):
    return settle(UTH, kinds, hole, board, dealer, {"trips_table": schedule})


def test_every_blind_row_pays_on_a_winning_straight_or_better():
    """002:L2363-2370 (decision games.ultimate_texas_holdem.blind_flush: flush 3x)."""
    assert {r["id"]: r["pays"] for r in rows(CASINO, "games.ultimate_texas_holdem.blind")} == (
        BLIND_PAYS)
    for category, pays in BLIND_PAYS.items():
        won = uth(["ante", "blind", "play"], *HANDS[category], WEAK_DEALER)["blind"]
        assert (won.returned_minor, won.row) == (STAKE * (1 + pays), category)
    below = uth(["ante", "blind", "play"], *HANDS["three_of_a_kind"], WEAK_DEALER)["blind"]
    assert (below.result, below.returned_minor) == ("push", STAKE)
    lost = uth(["ante", "blind", "play"], *LOSING)["blind"]
    assert lost.returned_minor == 0


@pytest.mark.parametrize("schedule", ["i", "ii", "iii", "iv"])
def test_every_trips_row_pays_on_the_final_hand_whatever_the_dealer(schedule):
    """002:L2374-2414: trips or better wins the posted table's row, anything less loses."""
    assert {r["id"].split(".", 1)[1]: r["pays"]
            for r in rows(CASINO, "games.ultimate_texas_holdem.trips")
            if r["schedule"] == schedule} == TRIPS[schedule]
    for category, pays in TRIPS[schedule].items():
        won = uth(["ante", "blind", "trips"], *HANDS[category], WEAK_DEALER, schedule)["trips"]
        assert (won.returned_minor, won.row) == (STAKE * (1 + pays), f"{schedule}.{category}")
    lost = uth(["ante", "blind", "play", "trips"], *HANDS["two_pair"], WEAK_DEALER,
               schedule)["trips"]
    assert lost.returned_minor == 0


def test_uth_settlement_against_a_qualified_dealer():
    """002:L2349-2354: ante, play 1:1 for the better hand, lost to the dealer's, tie pushes."""
    won = uth(["ante", "blind", "play"], *HANDS["two_pair"], "Qs 2d")   # dealer pair of 2s
    assert won["ante"].detail["dealer_qualifies"] is True
    assert (won["ante"].returned_minor, won["play"].returned_minor) == (2 * STAKE, 2 * STAKE)
    assert won["blind"].result == "push"                    # two pair: below a straight
    lost = uth(["ante", "blind", "play"], *LOSING)
    assert [lost[k].returned_minor for k in ("ante", "blind", "play")] == [0, 0, 0]
    tie = uth(["ante", "blind", "play"], "2h 3h", "Ac Ad Ah Ks Qs", "2d 3d")
    assert [tie[k].result for k in ("ante", "blind", "play")] == ["push"] * 3


def test_uth_an_unqualified_dealer_pushes_the_ante():
    """002:L2356-2361: the ante pushes whoever wins; play and blind as usual."""
    won = uth(["ante", "blind", "play"], *HANDS["straight"], "Qs 4d")
    assert won["ante"].detail["dealer_qualifies"] is False
    assert (won["ante"].result, won["ante"].returned_minor) == ("push", STAKE)
    assert won["play"].returned_minor == 2 * STAKE
    assert won["blind"].returned_minor == 2 * STAKE          # a straight pays the blind 1x
    lost = uth(["ante", "blind", "play"], "3c 4d", "8h 6s 2c Jd Kh", "As 9d")
    assert lost["ante"].detail["dealer_qualifies"] is False
    assert (lost["ante"].result, lost["play"].returned_minor, lost["blind"].returned_minor) == (
        "push", 0, 0)


def test_uth_fold_loses_ante_and_blind_but_trips_still_settles():
    """Decision games.ultimate_texas_holdem.fold."""
    folded = uth(["ante", "blind", "trips"], *HANDS["full_house"], WEAK_DEALER)
    assert folded["ante"].returned_minor == 0 and folded["blind"].returned_minor == 0
    assert folded["trips"].returned_minor == STAKE * 10


def test_uth_play_size_depends_on_its_street():
    """002:L2309, L2327-2343: 3x or 4x preflop, 2x on the flop, 1x at the river."""
    config = {"trips_table": "i"}
    for street, multiples in (("preflop", (3, 4)), ("flop", (2,)), ("river", (1,))):
        play = UTH.bet_kind("play", {"box": 1, "street": street}, tables(CASINO), config)
        assert (play.multiples, play.raise_of, play.in_play) == (multiples, "ante:1", True)
    with pytest.raises(BetInvalid):
        UTH.bet_kind("play", {"box": 1}, tables(CASINO), config)
    blind = UTH.bet_kind("blind", {"box": 1}, tables(CASINO), config)
    assert (blind.raise_rule, blind.in_play) == ("equal", False)
    assert UTH.bet_kind("trips", {"box": 1}, tables(CASINO), config).requires == (
        "ante:1", "blind:1")


# ---------------------------------------------------------------------------
# Dynamic Poker (halls)
# ---------------------------------------------------------------------------

DYNAMIC = DynamicPoker()
DYNAMIC_BONUS = {"aa": 50, "ak_suited": 40, "aq_aj_suited": 30, "ak_offsuit": 20,
                 "kk_qq_jj": 10}


def test_dynamic_raises_pay_1_to_1_and_the_blind_only_on_a_flush_or_better():
    """002:L604-608: no qualifier; the blind pushes on a lesser winning hand."""
    assert {r["id"]: (r["pays"], r.get("min_hand"))
            for r in rows(HALL, "games.dynamic_poker.main")} == {
        "blind": (1, "flush"), "flop": (1, None), "turn": (1, None), "river": (1, None)}
    kinds = ["blind", "flop", "turn", "river"]
    flush = settle(DYNAMIC, kinds, *HANDS["flush"], WEAK_DEALER, {}, HALL)
    assert [flush[k].returned_minor for k in kinds] == [2 * STAKE, 4 * STAKE, 2 * STAKE,
                                                        2 * STAKE]
    straight = settle(DYNAMIC, kinds, *HANDS["straight"], WEAK_DEALER, {}, HALL)
    assert (straight["blind"].result, straight["flop"].returned_minor) == ("push", 4 * STAKE)
    lost = settle(DYNAMIC, kinds, *LOSING, {}, HALL)
    assert [lost[k].returned_minor for k in kinds] == [0, 0, 0, 0]
    tie = settle(DYNAMIC, kinds, "2h 3h", "Ac Ad Ah Ks Qs", "2d 3d", {}, HALL)
    assert [tie[k].result for k in kinds] == ["push"] * 4


def test_every_dynamic_bonus_row_and_its_loss():
    """002:L610-622, on the hole cards; a fold loses the bonus (002:L612)."""
    assert {r["id"]: r["pays"] for r in rows(HALL, "games.dynamic_poker.bonus")} == (
        DYNAMIC_BONUS)
    board = "2h 5s 8c 9d 3h"
    for hole_kind, pays in DYNAMIC_BONUS.items():
        won = settle(DYNAMIC, ["blind", "flop", "bonus"], BONUS_HOLES[hole_kind], board,
                     "Ks 4d", {}, HALL)["bonus"]
        assert (won.returned_minor, won.row) == (STAKE * (1 + pays), hole_kind)
    for hole in ("Ac Qd", "7c 7d"):    # paid in THB, not in Dynamic
        lost = settle(DYNAMIC, ["blind", "flop", "bonus"], hole, board, "Ks 4d", {},
                      HALL)["bonus"]
        assert lost.returned_minor == 0
    folded = settle(DYNAMIC, ["blind", "bonus"], "Ac Ad", board, "Ks 4d", {}, HALL)
    assert folded["bonus"].returned_minor == 0


def test_dynamic_river_needs_the_turn():
    """002:L600: who skipped the turn raise cannot make the river raise."""
    river = DYNAMIC.bet_kind("river", {"box": 3}, tables(HALL), {})
    assert (river.requires, river.raise_rule) == (("turn:3",), "equal")


# ---------------------------------------------------------------------------
# Riverside Poker (halls)
# ---------------------------------------------------------------------------

RIVERSIDE = RiversidePoker()
RIVERSIDE_BLIND = {"royal_flush": 20, "straight_flush": 15, "four_of_a_kind": 10,
                   "full_house": 3, "flush": 2, "straight": 1, "three_of_a_kind": 1,
                   "two_pair": 1}
RIVERSIDE_BONUS = {"straight_flush": 30, "four_of_a_kind": 20, "full_house": 15, "flush": 10,
                   "straight": 10, "three_of_a_kind": 10, "two_pair": 10}
QUALIFIED_DEALER = "3s 3h"   # a pair of threes (or trips): qualifies, below every hand above


def test_every_riverside_blind_row_against_a_qualified_dealer():
    """002:L692-706: the blind by the player's hand; below two pair it pushes; call 1:1."""
    assert {r["id"]: r["pays"] for r in rows(HALL, "games.riverside_poker.blind")} == (
        RIVERSIDE_BLIND)
    for category, pays in RIVERSIDE_BLIND.items():
        hole, board = HANDS[category]
        won = settle(RIVERSIDE, ["blind", "call"], hole, board, QUALIFIED_DEALER, {}, HALL)
        assert won["blind"].detail["dealer_qualifies"] is True, category
        assert (won["blind"].returned_minor, won["blind"].row) == (STAKE * (1 + pays), category)
        assert won["call"].returned_minor == 4 * STAKE
    pair = settle(RIVERSIDE, ["blind", "call"], *HANDS["pair"], QUALIFIED_DEALER, {}, HALL)
    assert (pair["blind"].result, pair["call"].returned_minor) == ("push", 4 * STAKE)
    lost = settle(RIVERSIDE, ["blind", "call"], *LOSING, {}, HALL)
    assert (lost["blind"].returned_minor, lost["call"].returned_minor) == (0, 0)


def test_riverside_an_unqualified_dealer_pays_the_blind_flat_and_pushes_the_call():
    """002:L690: whatever the player's hand."""
    result = settle(RIVERSIDE, ["blind", "call"], "9c 4d", "8h 6s 2c Jd Kh", "Qs 3d", {}, HALL)
    assert result["blind"].detail["dealer_qualifies"] is False
    assert (result["blind"].returned_minor, result["blind"].row) == (
        2 * STAKE, "blind_dealer_not_qualified")
    assert (result["call"].result, result["call"].returned_minor) == ("push", 2 * STAKE)


def test_every_riverside_bonus_row_on_hole_and_flop():
    """002:L744-762: the first five cards; worse than two pair loses; no call, no bonus."""
    assert {r["id"]: r["pays"] for r in rows(HALL, "games.riverside_poker.bonus")} == (
        RIVERSIDE_BONUS)
    for category, pays in RIVERSIDE_BONUS.items():
        hole, board = FIRST_FIVE.get(category, HANDS[category])
        won = settle(RIVERSIDE, ["blind", "call", "bonus"], hole, board, WEAK_DEALER, {},
                     HALL)["bonus"]
        assert (won.returned_minor, won.detail["bonus_hand"]) == (STAKE * (1 + pays), category)
    royal = settle(RIVERSIDE, ["blind", "call", "bonus"], *HANDS["royal_flush"], WEAK_DEALER,
                   {}, HALL)["bonus"]
    assert royal.row == "straight_flush"      # no royal row: paid as a straight flush
    late = settle(RIVERSIDE, ["blind", "call", "bonus"], "9c 4d", "9h 5s 2c 9s Kh",
                  WEAK_DEALER, {}, HALL)["bonus"]
    assert late.returned_minor == 0          # the trips came on the turn: a pair on the flop
    folded = settle(RIVERSIDE, ["blind", "bonus"], *HANDS["four_of_a_kind"], WEAK_DEALER, {},
                    HALL)
    assert folded["bonus"].returned_minor == 0 and folded["blind"].returned_minor == 0


def _with_qualifier(book, key, hand):
    changed = dict(tables(book))
    changed[key] = [{"hand": hand, "cite": "002:L1"}]
    return changed


@pytest.mark.parametrize("game, book, kinds, cite", [
    (UTH, CASINO, ["ante", "blind", "play"], "002:L2349"),
    (RIVERSIDE, HALL, ["blind", "call"], "002:L688"),
])
def test_the_dealer_qualifier_is_read_from_the_rulebook(game, book, kinds, cite):
    """A pair qualifies (the shipped row); a version asking two pair changes the result."""
    key = f"games.{game.id}.dealer_qualifier"
    assert rows(book, key) == [{"hand": "pair", "cite": cite}]
    config = {"trips_table": "i"} if game is UTH else {}
    bets = [BetIn(k, k, {"box": 1}, STAKE) for k in kinds]
    facts = {"dealer": QUALIFIED_DEALER, "board": HANDS["pair"][1],
             "boxes": {"1": HANDS["pair"][0]}}
    for hand, qualified in (("pair", True), ("two_pair", False)):
        rulebook = _with_qualifier(book, key, hand)
        outcome = game.check_outcome(facts, config, bets, rulebook)
        settled = game.settle(bets, outcome, rulebook, config)
        assert {s.detail["dealer_qualifies"] for s in settled} == {qualified}, hand
    with pytest.raises(BetInvalid):
        game.configure(config, _with_qualifier(book, key, "queen_high"))
