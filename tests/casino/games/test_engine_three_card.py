"""Three Card Poker and Fast Poker: qualifier, pushes, every pay-table row."""

from __future__ import annotations

import pytest

from casino.games.engine.common import BetIn, BetInvalid, OutcomeInvalid
from casino.games.engine.red_dog import Bulldog, RedDog
from casino.games.engine.three_card import FastPoker, ThreeCardPoker, hand, qualifies

from .rows import CASINO, HALL, rows, tables

TCP, FAST = ThreeCardPoker(), FastPoker()
STAKE = 1_000
# A hand of each category (one deck, disjoint from the dealer hands below).
HANDS = {"straight_flush": "9s Ts Js", "three_of_a_kind": "7c 7d 7h", "straight": "4c 5d 6h",
         "flush": "2h 8h Kh", "pair": "3c 3h Ac", "high_card": "2c 9h Jc"}
DEALER_QUALIFIED_LOW = "Qh 5s 3d"   # queen-high: qualifies, beaten by any pair
DEALER_NOT_QUALIFIED = "Jh 5s 3d"
DEALER_STRONG = "Qd Kd Ad"


def _settle(game, dealer, cards, kinds, book=CASINO):
    bets = [BetIn(kind, kind, {"box": 1}, STAKE) for kind in kinds]
    outcome = game.check_outcome({"dealer": dealer, "boxes": {"1": cards}}, {}, bets,
                                 tables(book))
    return {s.bet_id: s for s in game.settle(bets, outcome, tables(book), {})}


def test_dealer_qualifies_with_queen_high_or_better():
    """002:L2631, 002:L478: Q-high qualifies, J-high does not; any pair does."""
    assert rows(CASINO, "games.three_card_poker.dealer_qualifier") == [
        {"hand": "queen_high", "cite": "002:L2631"}]
    assert rows(HALL, "games.fast_poker.dealer_qualifier") == [
        {"hand": "queen_high", "cite": "002:L478"}]
    assert qualifies(DEALER_QUALIFIED_LOW.split(), "queen_high")
    assert not qualifies(DEALER_NOT_QUALIFIED.split(), "queen_high")
    assert qualifies("2c 2d 5h".split(), "queen_high")
    assert not qualifies(DEALER_QUALIFIED_LOW.split(), "pair")
    assert qualifies(DEALER_NOT_QUALIFIED.split(), "jack_high")


def _with_qualifier(book, game, hand):
    changed = dict(tables(book))
    changed[f"games.{game.id}.dealer_qualifier"] = [{"hand": hand, "cite": "002:L1"}]
    return changed


@pytest.mark.parametrize("game, book", [(ThreeCardPoker(), CASINO), (FastPoker(), HALL)])
def test_the_qualifier_is_read_from_the_rulebook(game, book):
    """A version naming another qualifier changes who qualifies, and so the settlement."""
    ante = game.ante
    bets = [BetIn(kind, kind, {"box": 1}, STAKE) for kind in (ante, "play")]
    facts = {"dealer": DEALER_NOT_QUALIFIED, "boxes": {"1": HANDS["pair"]}}
    for hand, ante_row, play_result in (("queen_high", f"{ante}_dealer_not_qualified", "push"),
                                        ("jack_high", ante, "win")):
        rulebook = _with_qualifier(book, game, hand)
        outcome = game.check_outcome(facts, {}, bets, rulebook)
        settled = {s.bet_id: s for s in game.settle(bets, outcome, rulebook, {})}
        assert (settled[ante].row, settled["play"].result) == (ante_row, play_result), hand


@pytest.mark.parametrize("game, book", [(ThreeCardPoker(), CASINO), (FastPoker(), HALL)])
def test_an_unknown_or_missing_qualifier_cannot_open_a_table(game, book):
    with pytest.raises(BetInvalid):
        game.configure({}, _with_qualifier(book, game, "somewhat_high"))
    missing = {k: v for k, v in tables(book).items() if not k.endswith("dealer_qualifier")}
    with pytest.raises(BetInvalid):
        game.configure({}, missing)
    assert game.configure({}, tables(book)) == {}


def test_three_card_ranking_puts_a_straight_above_a_flush():
    assert hand(HANDS["straight"].split())[0] > hand(HANDS["flush"].split())[0]
    assert hand("Ah 2d 3c".split())[0] < hand("2h 3d 4c".split())[0]


def test_every_pairplus_row_wins_on_its_hand_and_high_card_loses():
    """002:L2643-2650, on the player's hand alone (the dealer's is irrelevant)."""
    expected = {"straight_flush": 40, "three_of_a_kind": 30, "straight": 6, "flush": 3,
                "pair": 1}
    assert {r["id"]: r["pays"] for r in rows(CASINO, "games.three_card_poker.pairplus")} == expected
    for category, pays in expected.items():
        won = _settle(TCP, DEALER_STRONG, HANDS[category], ["ante", "play", "pairplus"])
        assert (won["pairplus"].returned_minor, won["pairplus"].row) == (
            STAKE * (1 + pays), category)
    lost = _settle(TCP, DEALER_STRONG, HANDS["high_card"], ["ante", "play", "pairplus"])
    assert lost["pairplus"].returned_minor == 0


def test_every_ante_bonus_row_pays_whether_or_not_the_dealer_qualifies():
    """002:L2637-2641 and decision games.three_card_poker.ante_bonus."""
    expected = {"straight_flush": 3, "three_of_a_kind": 2, "straight": 1}
    assert {r["id"]: r["pays"] for r in rows(CASINO, "games.three_card_poker.ante_bonus")} == expected
    for category, pays in expected.items():
        beaten = _settle(TCP, DEALER_STRONG, HANDS[category], ["ante", "play"])
        assert beaten["ante"].returned_minor == STAKE * pays  # ante lost, bonus paid
        assert beaten["ante"].detail["ante_bonus"]["row"] == category
        unqualified = _settle(TCP, DEALER_NOT_QUALIFIED, HANDS[category], ["ante", "play"])
        assert unqualified["ante"].returned_minor == STAKE * 2 + STAKE * pays
    flush = _settle(TCP, DEALER_QUALIFIED_LOW, HANDS["flush"], ["ante", "play"])
    assert "ante_bonus" not in flush["ante"].detail


def test_ante_and_play_against_the_dealer():
    """Dealer not qualified: ante 1:1, play pushes; qualified: better hand wins both 1:1."""
    rows_main = {r["id"]: r["pays"] for r in rows(CASINO, "games.three_card_poker.main")}
    assert rows_main == {"ante": 1, "ante_dealer_not_qualified": 1, "play": 1}
    not_q = _settle(TCP, DEALER_NOT_QUALIFIED, HANDS["pair"], ["ante", "play"])
    assert (not_q["ante"].returned_minor, not_q["ante"].row) == (2_000, "ante_dealer_not_qualified")
    assert (not_q["play"].returned_minor, not_q["play"].result) == (1_000, "push")
    won = _settle(TCP, DEALER_QUALIFIED_LOW, HANDS["pair"], ["ante", "play"])
    assert (won["ante"].returned_minor, won["play"].returned_minor) == (2_000, 2_000)
    lost = _settle(TCP, DEALER_STRONG, HANDS["pair"], ["ante", "play"])
    assert (lost["ante"].returned_minor, lost["play"].returned_minor) == (0, 0)


def test_equal_hands_push_ante_and_play():
    """002:L2689: suits do not rank."""
    tie = _settle(TCP, "Qh 5s 3d", "Qc 5d 3h", ["ante", "play"])
    assert (tie["ante"].result, tie["play"].result) == ("push", "push")


def test_a_box_without_play_has_folded_and_loses_ante_and_pairplus():
    """Decision games.three_card_poker.fold (002:L2629)."""
    folded = _settle(TCP, DEALER_NOT_QUALIFIED, HANDS["straight_flush"], ["ante", "pairplus"])
    assert folded["ante"].returned_minor == 0 and folded["pairplus"].returned_minor == 0


def test_a_card_twice_in_one_deck_is_refused():
    with pytest.raises(OutcomeInvalid):
        _settle(TCP, "Qh 5s 3d", "Qh 5d 3h", ["ante"])


def test_fast_poker_rows():
    """002:L476-500: Bet/Play 1:1, Play 3:1 on trips or straight flush, Bonus table."""
    main = {r["id"]: r["pays"] for r in rows(HALL, "games.fast_poker.main")}
    assert main == {"bet": 1, "bet_dealer_not_qualified": 1, "play": 1,
                    "play_three_of_a_kind": 3, "play_straight_flush": 3}
    for category in ("three_of_a_kind", "straight_flush"):
        won = _settle(FAST, DEALER_QUALIFIED_LOW, HANDS[category], ["bet", "play"], HALL)
        assert (won["play"].returned_minor, won["play"].row) == (4_000, f"play_{category}")
        assert won["bet"].returned_minor == 2_000
        stronger = ("Qs Ks As", "2h 3h 4h") if category == "straight_flush" else (
            "Kh Ks Kd", "2c 2d 2h")
        lost = _settle(FAST, *stronger, ["bet", "play"], HALL)
        assert lost["play"].returned_minor == 0
    bonus = {"straight_flush": 30, "three_of_a_kind": 30, "straight": 5, "flush": 4, "pair": 1}
    assert {r["id"]: r["pays"] for r in rows(HALL, "games.fast_poker.bonus")} == bonus
    for category, pays in bonus.items():
        won = _settle(FAST, DEALER_STRONG, HANDS[category], ["bet", "play", "bonus"], HALL)
        assert won["bonus"].returned_minor == STAKE * (1 + pays)
    lost = _settle(FAST, DEALER_STRONG, HANDS["high_card"], ["bet", "play", "bonus"], HALL)
    assert lost["bonus"].returned_minor == 0
    not_q = _settle(FAST, DEALER_NOT_QUALIFIED, HANDS["high_card"], ["bet", "play"], HALL)
    assert (not_q["bet"].returned_minor, not_q["play"].result) == (2_000, "push")


# ---------------------------------------------------------------------------
# Red Dog and Bulldog
# ---------------------------------------------------------------------------

RED_DOG_PAYS = {"three_of_a_kind": 11, "spread_1": 5, "spread_2": 4, "spread_3": 2,
                "spread_4_11": 1}
EXAMPLES = {"three_of_a_kind": ("8h", "8d", "8c", "5c"), "spread_1": ("5h", "7d", "6c", "9c"),
            "spread_2": ("5h", "8d", "6c", "5c"), "spread_3": ("5h", "9d", "7c", "Kc"),
            "spread_4_11": ("2h", "Ad", "Kc", "Ac")}


@pytest.mark.parametrize("book", [CASINO, HALL])
@pytest.mark.parametrize("game", [RedDog(), Bulldog()])
def test_every_red_dog_and_bulldog_row_wins_and_loses(book, game):
    """002:L1319-1325, L1359-1365, L2897-2903, L2929-2935: the stake and raise both at the row."""
    key = f"games.{game.id}.payouts"
    assert {r["id"]: r["pays"] for r in rows(book, key)} == RED_DOG_PAYS
    for row_id, (a, b, win, other) in EXAMPLES.items():
        kinds = ["bet"] if row_id == "three_of_a_kind" else ["bet", "raise"]
        bets = [BetIn(k, k, {"box": 1}, STAKE) for k in kinds]
        for third, expected in ((win, STAKE * (1 + RED_DOG_PAYS[row_id])), (other, None)):
            facts = {"base": [a, b], "third": third, "thirds": {"1": third}}
            outcome = game.check_outcome(facts, {}, bets, tables(book))
            for s in game.settle(bets, outcome, tables(book), {}):
                assert s.row == row_id
                if expected is None:
                    assert s.result == ("push" if row_id == "three_of_a_kind" else "lose")
                else:
                    assert s.returned_minor == expected


def test_red_dog_consecutive_cards_void_and_a_pair_takes_no_raise():
    game = RedDog()
    with pytest.raises(OutcomeInvalid):
        game.check_outcome({"base": ["5h", "6d"], "third": "9c"}, {}, [], tables(CASINO))
    with pytest.raises(OutcomeInvalid):
        game.check_outcome({"base": ["5h", "5d"], "third": "9c"}, {},
                           [BetIn("r", "raise", {"box": 1}, STAKE)], tables(CASINO))
