"""Three Card Poker (casino) and Fast Poker (halls): 3-card hands vs the dealer.

Hands are ranked by `native_eval.best_hand("three_card", ...)`: high card <
pair < flush < straight < trips < straight flush, A-2-3 the lowest straight
(002:L2663-2687, 002:L502-519). The dealer qualifies with the hand the
rulebook's `games.<game>.dealer_qualifier` row names: queen-high or better
in both games (002:L2631, 002:L478-480).

Three Card Poker (002:L2625-2689): ante, play (= ante, placed after the deal)
and optional pairplus. Dealer not qualified: ante 1:1, play pushes. Dealer
qualified: the better hand wins ante and play 1:1; equal hands push. The ante
bonus pays on the player's own straight or better (decision
games.three_card_poker.ante_bonus), pairplus on the player's own pair or
better. A box with no play bet folded: ante and pairplus lose.

Fast Poker (002:L452-500): the same with Bet for ante, Play 3:1 when the
player beats a qualified dealer with trips or a straight flush, and a Bonus
paid on the player's own hand.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any, Mapping, Sequence

import native_eval

from .base import no_config
from .common import (
    BetIn,
    BetInvalid,
    BetKind,
    OutcomeInvalid,
    Row,
    Settled,
    dealer_qualifier,
    distinct,
    find_row,
    lose,
    parse_cards,
    pay,
    push,
    rank_of,
    result_of,
)

# Three-card categories from low to high (002:L2663-2687).
CATEGORIES = ("high_card", "pair", "flush", "straight", "three_of_a_kind", "straight_flush")
RANKS = {"two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
         "nine": 9, "ten": 10, "jack": 11, "queen": 12, "king": 13, "ace": 14}


def hand(cards: Sequence[str]) -> tuple[int, str]:
    """(value, category) of a three-card hand; higher value is better."""
    result = native_eval.best_hand("three_card", list(cards))
    return result.value, result.category


def threshold(qualifier: str) -> tuple[int, int]:
    """A qualifier as (least category index, least high card).

    `<rank>_high` (`queen_high`, 002:L2631) is a high card of that rank or
    any better category; a category name (`pair`) is that category or
    better. BetInvalid for anything else.
    """
    if qualifier in CATEGORIES:
        return CATEGORIES.index(qualifier), 0
    rank, _, high = qualifier.partition("_")
    if high == "high" and rank in RANKS:
        return 0, RANKS[rank]
    raise BetInvalid(f"unknown dealer qualifier {qualifier!r}: <rank>_high or one of"
                     f" {', '.join(CATEGORIES)}")


def qualifies(cards: Sequence[str], qualifier: str) -> bool:
    """Whether a dealer's three cards reach the qualifier (see `threshold`)."""
    category_min, high_min = threshold(qualifier)
    category = CATEGORIES.index(hand(cards)[1])
    if category != category_min:
        return category > category_min
    return max(rank_of(c) for c in cards) >= high_min


def _hand_row(rows: Sequence[Row], category: str) -> Row | None:
    for row in rows:
        if row.get("hand") == category:
            return row
    return None


class _ThreeCardGame:
    """Shared by both games; subclasses name the bets and tables."""

    id: str
    tables: tuple[str, ...]
    main: str
    side: str            # pairplus or bonus table
    ante: str            # ante | bet
    side_kind: str       # pairplus | bonus
    bonus_table: str | None = None

    @property
    def qualifier(self) -> str:
        return f"games.{self.id}.dealer_qualifier"

    def configure(self, config, tables):
        threshold(dealer_qualifier(tables, self.qualifier)["hand"])
        return no_config(config)

    def bet_kind(self, kind, spec, tables, config) -> BetKind:
        box = spec.get("box")
        if type(box) is not int or not 1 <= box <= 7:
            raise BetInvalid("box must be a whole number from 1 to 7")
        if kind not in (self.ante, "play", self.side_kind):
            raise BetInvalid(f"{self.id} has no bet {kind!r}")
        play = kind == "play"
        return BetKind(kind, {"box": box}, "box", f"{kind}:{box}", in_play=play,
                       raise_of=f"{self.ante}:{box}" if play else None,
                       raise_rule="equal" if play else None)

    def check_outcome(self, outcome, config, bets, tables) -> dict[str, Any]:
        dealer = parse_cards(outcome.get("dealer"), count=3, what="dealer")
        boxes_in = outcome.get("boxes")
        if not isinstance(boxes_in, Mapping):
            raise OutcomeInvalid("boxes must map each box number to its three cards")
        boxes = {}
        for key, cards in boxes_in.items():
            boxes[str(int(key))] = parse_cards(cards, count=3, what=f"box {key}")
        every = dealer + [c for cards in boxes.values() for c in cards]
        distinct(every, "three-card games use one deck")
        missing = {str(b.spec["box"]) for b in bets} - set(boxes)
        if missing:
            raise OutcomeInvalid(f"no cards for box(es) {', '.join(sorted(missing))}")
        return {"dealer": dealer, "boxes": boxes}

    def settle(self, bets, outcome, tables, config) -> list[Settled]:
        by_box: dict[str, list[BetIn]] = defaultdict(list)
        for bet in bets:
            by_box[str(bet.spec["box"])].append(bet)
        dealer = outcome["dealer"]
        dealer_value, _ = hand(dealer)
        dealer_ok = qualifies(dealer, dealer_qualifier(tables, self.qualifier)["hand"])
        settled = []
        for box, box_bets in by_box.items():
            cards = outcome["boxes"][box]
            value, category = hand(cards)
            continued = any(b.kind == "play" for b in box_bets)
            facts = {"hand": category, "dealer_qualifies": dealer_ok,
                     "dealer_hand": hand(dealer)[1]}
            for bet in box_bets:
                settled.extend(self._settle_bet(bet, tables, value, category, dealer_value,
                                                dealer_ok, continued, facts))
        return settled

    def _settle_bet(self, bet, tables, value, category, dealer_value, dealer_ok, continued,
                    facts) -> list[Settled]:
        main = tables[self.main]
        if bet.kind == self.side_kind:
            row = _hand_row(tables[self.side], category)
            if not continued:
                return [lose(bet, self.side, None, tables_cite(tables, self.side), folded=True,
                             **facts)]
            if row is None:
                return [lose(bet, self.side, None, tables_cite(tables, self.side), **facts)]
            return [pay(bet, self.side, row, **facts)]
        if not continued:
            row = find_row(main, self.ante)
            return [lose(bet, self.main, row, row["cite"], folded=True, **facts)]
        if not dealer_ok:
            if bet.kind == self.ante:
                return [pay(bet, self.main, find_row(main, f"{self.ante}_dealer_not_qualified"),
                            **facts)]
            row = find_row(main, "play")
            return [push(bet, self.main, row, row["cite"], **facts)]
        row = self._win_row(main, bet.kind, category)
        if value > dealer_value:
            return [pay(bet, self.main, row, **facts)]
        if value == dealer_value:
            return [push(bet, self.main, row, row["cite"], **facts)]
        return [lose(bet, self.main, row, row["cite"], **facts)]

    def _win_row(self, main, kind: str, category: str) -> Row:
        return find_row(main, kind)


def tables_cite(tables, key: str) -> str:
    rows = tables[key]
    return rows[-1]["cite"] if rows else ""


class ThreeCardPoker(_ThreeCardGame):
    id = "three_card_poker"
    main = "games.three_card_poker.main"
    side = "games.three_card_poker.pairplus"
    bonus_table = "games.three_card_poker.ante_bonus"
    tables = (main, side, bonus_table, "games.three_card_poker.dealer_qualifier")
    ante = "ante"
    side_kind = "pairplus"

    def _settle_bet(self, bet, tables, value, category, dealer_value, dealer_ok, continued,
                    facts) -> list[Settled]:
        settled = super()._settle_bet(bet, tables, value, category, dealer_value, dealer_ok,
                                      continued, facts)
        if bet.kind != "ante" or not continued:
            return settled
        # The ante bonus is paid on top of the ante's own result: the ante's
        # settlement returns stake (+ win), the bonus adds its win only.
        row = _hand_row(tables[self.bonus_table], category)
        if row is None:
            return settled
        base = settled[0]
        bonus = pay(bet, self.bonus_table, row).returned_minor - bet.stake_minor
        return [Settled(base.bet_id, base.stake_minor, base.returned_minor + bonus,
                        result_of(base.stake_minor, base.returned_minor + bonus),
                        base.table, base.row, base.cite, base.commission_minor,
                        {**base.detail, "ante_bonus": {"row": row["id"], "cite": row["cite"],
                                                       "win_minor": bonus,
                                                       "table": self.bonus_table}})]


class FastPoker(_ThreeCardGame):
    id = "fast_poker"
    main = "games.fast_poker.main"
    side = "games.fast_poker.bonus"
    tables = (main, side, "games.fast_poker.dealer_qualifier")
    ante = "bet"
    side_kind = "bonus"

    def _win_row(self, main, kind: str, category: str) -> Row:
        if kind == "play" and category in ("three_of_a_kind", "straight_flush"):
            return find_row(main, f"play_{category}")
        return find_row(main, kind)
