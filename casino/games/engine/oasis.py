"""Oasis Stud Poker (casino): five cards against the dealer's five (pure).

Bets (002:L2003-2011): ante, optional bonus, then bet = 2 x ante to
continue (no bet: folded, ante and bonus lost). A box may swap one card for
a fee equal to the ante, which forfeits its bonus (`swap`), and, when the
dealer does not qualify, may buy the dealer a game for a fee equal to the
ante (`buy`): the dealer's highest card is replaced once for all buyers.

The dealer qualifies with the rulebook's `dealer_qualifier` hand, ace-king
or better (002:L2007): below that, the
ante pays 1:1 and the bet pushes. Against a qualified dealer the better
hand wins: ante 1:1 and the bet by the bet table on the player's hand; the
dealer's better hand takes both; equal hands push both (decision
games.oasis_stud_poker.tie). After a buy, a dealer with a pair or better
plays the buyers' hands normally (decision games.oasis_stud_poker.buy);
otherwise their ante and bet push. The bonus pays on the player's own hand
(a straight or better), whatever the dealer holds. The swap and buy fees
are never returned.

Outcome: `dealer` (the five cards dealt), `boxes` (box -> the five cards
played, after any swap) and, when a box bought, `dealer_replacement` (the
card that replaced the dealer's highest). Version A (no exchanges,
002:L2102) refuses swaps and buys; versions B-D are not offered (decision
games.oasis_stud_poker.versions).
"""

from __future__ import annotations

from typing import Any

from .common import (
    BetInvalid,
    BetKind,
    BoxBet,
    OutcomeInvalid,
    Settled,
    box_bet,
    boxes_cards,
    by_box,
    dealer_qualifier,
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

MAIN = "games.oasis_stud_poker.main"
BET = "games.oasis_stud_poker.bet"
BONUS = "games.oasis_stud_poker.bonus"
QUALIFIER = "games.oasis_stud_poker.dealer_qualifier"
# Oasis classes of a hand from low to high: no game, ace-king, the categories.
CLASSES = ("no_game", "ace_king", *CATEGORIES[1:])
VERSIONS = ("base", "a")


def oasis_hand(cards) -> tuple[Ranked, str]:
    """The hand and its Oasis class: a category, or ace_king, or no_game (002:L2054-2094)."""
    hand = rank_cards(cards)
    if hand.category != "high_card":
        return hand, hand.category
    ranks = {rank_of(c) for c in cards}
    return hand, "ace_king" if {14, 13} <= ranks else "no_game"


def _qualifying_class(tables) -> str:
    """The dealer's least qualifying class, from the rulebook row (002:L2007)."""
    hand = dealer_qualifier(tables, QUALIFIER)["hand"]
    if hand not in CLASSES:
        raise BetInvalid(f"unknown dealer qualifier {hand!r}: one of {', '.join(CLASSES)}")
    return hand


def _qualifies(dealer_class: str, tables) -> bool:
    return CLASSES.index(dealer_class) >= CLASSES.index(_qualifying_class(tables))


def bought_hand(dealer: list[str], replacement: str) -> list[str]:
    """The dealer's hand after a buy: the highest card replaced (002:L2009-2011)."""
    highest = max(dealer, key=rank_of)
    return [c for c in dealer if c != highest] + [replacement]


class OasisStudPoker:
    id = "oasis_stud_poker"
    tables = (MAIN, BET, BONUS, QUALIFIER)
    bets = {
        "ante": BoxBet(),
        "bonus": BoxBet(requires=("ante",)),
        "bet": BoxBet(in_play=True, raise_of="ante", raise_rule="multiple", multiples=(2,)),
        "swap": BoxBet(in_play=True, raise_of="ante", raise_rule="equal"),
        "buy": BoxBet(in_play=True, raise_of="ante", raise_rule="equal", requires=("bet",)),
    }

    def configure(self, config, tables):
        _qualifying_class(tables)
        version = config.get("version", "base")
        if set(config) - {"version"} or version not in VERSIONS:
            raise BetInvalid("oasis stud poker takes `version`: base or a (versions b-d are"
                             " not offered)")
        return {"version": version}

    def bet_kind(self, kind, spec, tables, config) -> BetKind:
        if config["version"] == "a" and kind in ("swap", "buy"):
            raise BetInvalid("version A has no exchanges: no swap and no bought game"
                             " (002:L2102)")
        return box_bet(self.id, kind, spec, self.bets)

    def check_outcome(self, outcome, config, bets, tables) -> dict[str, Any]:
        dealer = parse_cards(outcome.get("dealer"), count=5, what="dealer")
        boxes = boxes_cards(outcome, bets, count=5)
        every = dealer + [c for cards in boxes.values() for c in cards]
        buyers = any(b.kind == "buy" for b in bets)
        _, dealer_class = oasis_hand(dealer)
        facts: dict[str, Any] = {"dealer": dealer, "boxes": boxes}
        if buyers:
            if _qualifies(dealer_class, tables):
                raise OutcomeInvalid("a game is bought only from a dealer who does not"
                                     " qualify (002:L2009)")
            replacement = parse_cards([outcome.get("dealer_replacement")], count=1,
                                      what="dealer_replacement")[0]
            every.append(replacement)
            facts["dealer_replacement"] = replacement
        elif outcome.get("dealer_replacement") is not None:
            raise OutcomeInvalid("no box bought a game: the dealer's hand is not changed")
        distinct(every, "oasis stud poker uses one deck")
        return facts

    def settle(self, bets, outcome, tables, config) -> list[Settled]:
        dealer_hand, dealer_class = oasis_hand(outcome["dealer"])
        bought = None
        if "dealer_replacement" in outcome:
            bought = oasis_hand(bought_hand(outcome["dealer"], outcome["dealer_replacement"]))
        settled = []
        for box, kinds in sorted(by_box(bets).items()):
            player, player_class = oasis_hand(outcome["boxes"][box])
            folded = "bet" not in kinds
            swapped = "swap" in kinds
            buyer = "buy" in kinds
            facts = {"hand": player_class, "dealer_hand": dealer_class, "folded": folded}
            versus = dealer_hand
            qualified = _qualifies(dealer_class, tables)
            if buyer and bought is not None:
                versus, facts["dealer_bought_hand"] = bought[0], bought[1]
                qualified = bought[0].at_least("pair")
            for kind, placed in kinds.items():
                for bet in placed:
                    settled.append(self._settle_bet(
                        bet, kind, tables, player, player_class, versus, qualified,
                        _qualifies(dealer_class, tables), folded, swapped, buyer, facts))
        return settled

    def _settle_bet(self, bet, kind, tables, player, player_class, versus, qualified,
                    dealer_qualified, folded, swapped, buyer, facts) -> Settled:
        main = tables[MAIN]
        if kind in ("swap", "buy"):
            row = find_row(main, f"{kind}_fee")
            return lose(bet, MAIN, row, row["cite"], **facts)
        if kind == "bonus":
            if folded or swapped:
                return lose(bet, BONUS, None, "002:L2005", forfeited=swapped, **facts)
            row = hand_row(tables[BONUS], player_class)
            if row is None:
                return lose(bet, BONUS, None, table_cite(tables, BONUS), **facts)
            return pay(bet, BONUS, row, **facts)
        if folded:
            return lose(bet, MAIN, find_row(main, "ante"), "002:L2005", **facts)
        if not qualified:
            if buyer:
                row = find_row(main, "bought_no_game")
                return push(bet, MAIN, row, row["cite"], **facts)
            if kind == "ante":
                return pay(bet, MAIN, find_row(main, "ante_dealer_not_qualified"), **facts)
            row = find_row(main, "bet_dealer_not_qualified")
            return push(bet, MAIN, row, row["cite"], **facts)
        if player.value < versus.value:
            return lose(bet, BET if kind == "bet" else MAIN,
                        None if kind == "bet" else find_row(main, "ante"), "002:L2013", **facts)
        if player.value == versus.value:
            row = find_row(main, "tie")
            return push(bet, MAIN, row, row["cite"], **facts)
        if kind == "ante":
            return pay(bet, MAIN, find_row(main, "ante"), **facts)
        row = hand_row(tables[BET], player_class)
        if row is None:  # cannot happen: a winner beats a qualified hand
            raise OutcomeInvalid(f"no bet row for a winning {player_class}")
        return pay(bet, BET, row, **facts)
