"""Triple Bet Poker (halls): three own cards and two community cards, no dealer hand (pure).

Bets (002:L537-547): three equal bets in circles 1-3 and an optional
bonus (never without the main game). After seeing his cards the player may
take back one bet, and after the first community card one more; the third
always plays (decision games.triple_bet_poker.withdrawals: the first
decision may take back circle 1, the second circle 2). What stays pays by
the main table on the five-card hand, a pair of tens or better
(002:L549-562); the bonus pays its highest combination only, two pair, a
four-card straight or flush or better (002:L564-576, decision
games.triple_bet_poker.bonus_highest).

Outcome: `community` (2 cards), `boxes` (box -> 3 cards) and `withdrawn`
(box -> the circles taken back, e.g. {"1": [1, 2]}). Ace high, and low in
A-2-3-4(-5) (002:L531).
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

import native_eval

from .base import no_config
from .common import (
    BetKind,
    BoxBet,
    OutcomeInvalid,
    Row,
    Settled,
    box_bet,
    boxes_cards,
    distinct,
    find_row,
    lose,
    parse_cards,
    pay,
    push,
    rank_of,
    table_cite,
)
from .poker_hands import CATEGORIES, Ranked, hand_row, rank_cards

MAIN = "games.triple_bet_poker.main"
BONUS = "games.triple_bet_poker.bonus"
# The weakest pair of tens (T-T-4-3-2): the main table's lowest paying hand.
TENS_VALUE = native_eval.evaluate("Ts Th 4c 3d 2s")
CIRCLES = {"bet_1": 1, "bet_2": 2, "bet_3": 3}
WITHDRAWABLE = (1, 2)


def four_flush(cards: Sequence[str]) -> bool:
    suits = [c[1] for c in cards]
    return max(suits.count(s) for s in set(suits)) >= 4


def four_straight(cards: Sequence[str]) -> bool:
    """Four consecutive ranks among the cards; the ace high or low (002:L531)."""
    ranks = {rank_of(c) for c in cards}
    if 14 in ranks:
        ranks.add(1)
    return any(all(r + i in ranks for i in range(4)) for r in range(1, 12))


def main_row(rows: Sequence[Row], hand: Ranked) -> Row | None:
    if hand.category == "pair" and hand.value < TENS_VALUE:
        return None
    if hand.category == "high_card":
        return None
    return hand_row(rows, hand.category)


def bonus_row(rows: Sequence[Row], cards: Sequence[str], hand: Ranked) -> Row | None:
    """The highest paying combination the hand makes (only one pays)."""
    candidates = [hand_row(rows, hand.category)]
    if four_straight(cards) and CATEGORIES.index(hand.category) < CATEGORIES.index("straight"):
        candidates.append(find_row(rows, "four_card_straight"))
    if four_flush(cards) and CATEGORIES.index(hand.category) < CATEGORIES.index("flush"):
        candidates.append(find_row(rows, "four_card_flush"))
    found = [row for row in candidates if row is not None]
    return max(found, key=lambda row: int(row["pays"])) if found else None


class TripleBetPoker:
    id = "triple_bet_poker"
    tables = (MAIN, BONUS)
    bets = {
        "bet_1": BoxBet(),
        "bet_2": BoxBet(raise_of="bet_1", raise_rule="equal"),
        "bet_3": BoxBet(raise_of="bet_1", raise_rule="equal"),
        "bonus": BoxBet(requires=("bet_1",)),
    }

    def configure(self, config, tables):
        return no_config(config)

    def bet_kind(self, kind, spec, tables, config) -> BetKind:
        return box_bet(self.id, kind, spec, self.bets)

    def check_outcome(self, outcome, config, bets, tables) -> dict[str, Any]:
        community = parse_cards(outcome.get("community"), count=2, what="community")
        boxes = boxes_cards(outcome, bets, count=3)
        distinct(community + [c for cards in boxes.values() for c in cards],
                 "triple bet poker uses one deck")
        withdrawn_in = outcome.get("withdrawn") or {}
        if not isinstance(withdrawn_in, Mapping):
            raise OutcomeInvalid("withdrawn maps a box to the circles taken back")
        withdrawn: dict[str, list[int]] = {}
        for key, circles in withdrawn_in.items():
            if (not isinstance(circles, list) or len(set(circles)) != len(circles)
                    or not all(c in WITHDRAWABLE for c in circles)):
                raise OutcomeInvalid(f"box {key}: only circles 1 and 2 can be taken back, each"
                                     " once; circle 3 always plays (002:L543-545)")
            withdrawn[str(int(key))] = sorted(circles)
        return {"community": community, "boxes": boxes, "withdrawn": withdrawn}

    def settle(self, bets, outcome, tables, config) -> list[Settled]:
        settled = []
        for bet in bets:
            box = str(bet.spec["box"])
            cards = outcome["boxes"][box] + outcome["community"]
            hand = rank_cards(cards)
            facts = {"hand": hand.category}
            if bet.kind == "bonus":
                row = bonus_row(tables[BONUS], cards, hand)
                settled.append(pay(bet, BONUS, row, **facts) if row else
                               lose(bet, BONUS, None, table_cite(tables, BONUS), **facts))
                continue
            if CIRCLES[bet.kind] in outcome["withdrawn"].get(box, []):
                settled.append(push(bet, MAIN, None, "002:L543-545", withdrawn=True, **facts))
                continue
            row = main_row(tables[MAIN], hand)
            settled.append(pay(bet, MAIN, row, **facts) if row else
                           lose(bet, MAIN, None, table_cite(tables, MAIN), **facts))
        return settled
