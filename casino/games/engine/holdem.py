"""Hold'em against the dealer: THB, UTH (with progressives), Dynamic and Riverside (pure).

All four deal two hole cards to each box and the dealer and five community
cards from one 52-card deck; a hand is the best five of the seven
(poker_hands). The outcome is `dealer` (2 cards), `board` (5) and `boxes`
(box -> 2 cards). A box without its first continuation bet (THB flop, UTH
play, Dynamic flop, Riverside call) folded.

Texas Hold'em Bonus (002:L2144-2289): ante, optional bonus (never alone),
flop = 2 x ante, optional turn and river = ante. No dealer qualifier. The
better hand wins flop/turn/river 1:1 and the ante 1:1 only with the posted
ante option's hand (A: trip tens, B: a straight, C: a flush, or better),
else the ante pushes; the dealer's better hand takes them all; equal hands
push. The bonus pays on the two hole cards from the posted table I or II
(II adds player A-A against dealer A-A). A fold loses ante and bonus.

Ultimate Texas Hold'em (002:L2301-2470): ante = blind, optional trips
(never alone); one play bet, 3x or 4x ante before the flop, 2x after it, 1x
after the river (the `street` of the bet says which). The dealer qualifies
with the rulebook's `dealer_qualifier` hand, a pair (002:L2349); an
unqualified dealer pushes the ante. Blind: the blind table on a winning
straight or better, else push; lost to a better dealer. Trips
pays on the final hand from the posted table I-IV, dealer or not. A fold
loses ante and blind; trips still settles (decision
games.ultimate_texas_holdem.fold).

Progressives (002:L2291-2299, L2472-2480): a sixth (fifth) box; a fixed
share of every progressive stake goes to the pool's pending account
(`games.<game>.progressive_funding`), and wins are paid from the pool, not
by the table: a winning progressive returns nothing at settlement and is
recorded as a jackpot hit for the jackpots app to pay (result `jackpot`,
decision games.progressive.paid_from_pool). The hand is the hole cards and
the flop (decision games.progressive.hand).

Dynamic Poker (002:L578-662, halls): blind, optional bonus (never alone),
flop = 2 x blind, optional turn = blind, river = blind only after a turn
bet. No qualifier; a winning flush or better wins the blind 1:1, a lesser
winning hand pushes it. Bonus on the hole cards, lost on a fold.

Riverside Poker (002:L664-762, halls): blind and optional bonus, the flop is
shown, then call = 2 x blind or fold. The dealer qualifies with the
rulebook's `dealer_qualifier` hand, a pair (002:L688);
unqualified, the blind wins 1:1 whatever the hand and the call pushes.
Against a qualified dealer a better hand wins the call 1:1 and the blind by
the blind table (two pair or better; a lesser hand pushes it). The bonus
pays on the hole cards and the flop, before the turn.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from .common import (
    BetIn,
    BetInvalid,
    BetKind,
    BoxBet,
    Row,
    Settled,
    Tables,
    box_bet,
    boxes_cards,
    by_box,
    contribute,
    dealer_qualifier,
    distinct,
    find_row,
    lose,
    parse_cards,
    pay,
    push,
    table_cite,
)
from .poker_hands import (
    CATEGORIES,
    Ranked,
    hand_row,
    hole_class,
    hole_row,
    rank_cards,
    rank_holdem,
)


def _held(outcome: Mapping[str, Any], bets: Sequence[BetIn]) -> dict[str, Any]:
    dealer = parse_cards(outcome.get("dealer"), count=2, what="dealer")
    board = parse_cards(outcome.get("board"), count=5, what="board")
    boxes = boxes_cards(outcome, bets, count=2)
    distinct(dealer + board + [c for cards in boxes.values() for c in cards],
             "hold'em games use one deck")
    return {"dealer": dealer, "board": board, "boxes": boxes}


def _choice(config: Mapping[str, Any], key: str, allowed: Sequence[str]) -> str:
    value = config.get(key)
    if value not in allowed:
        raise BetInvalid(f"{key} must be one of {', '.join(allowed)} (the table posts it)")
    return value


def _compare(player: Ranked, dealer: Ranked) -> int:
    return (player.value > dealer.value) - (player.value < dealer.value)


class _HoldemGame:
    """Shared dealing, folding and side-bet settlement; games supply the main bets."""

    id: str
    tables: tuple[str, ...]
    bets: Mapping[str, BoxBet]
    continuation: str           # the bet whose absence means the box folded
    boxes_max = 6

    def configure(self, config, tables):
        extra = sorted(set(config) - set(self.options))
        if extra:
            raise BetInvalid(f"{self.id} takes no option {', '.join(extra)}")
        if self.qualifier is not None:
            self.qualifying_hand(tables)
        return {key: _choice(config, key, allowed) for key, allowed in self.options.items()}

    options: Mapping[str, tuple[str, ...]] = {}
    # The rulebook table naming the dealer's least qualifying hand, if any.
    qualifier: str | None = None

    def qualifying_hand(self, tables) -> str:
        """The category the dealer needs to qualify, from the rulebook row."""
        hand = dealer_qualifier(tables, self.qualifier)["hand"]
        if hand not in CATEGORIES:
            raise BetInvalid(f"unknown dealer qualifier {hand!r}: one of {', '.join(CATEGORIES)}")
        return hand

    def bet_kind(self, kind, spec, tables, config) -> BetKind:
        return box_bet(self.id, kind, spec, self.bets, self.boxes_max)

    def check_outcome(self, outcome, config, bets, tables) -> dict[str, Any]:
        return _held(outcome, bets)

    def settle(self, bets, outcome, tables, config) -> list[Settled]:
        dealer_hole, board = outcome["dealer"], outcome["board"]
        dealer = rank_holdem(dealer_hole, board)
        settled = []
        for box, kinds in sorted(by_box(bets).items()):
            hole = outcome["boxes"][box]
            player = rank_holdem(hole, board)
            folded = self.continuation not in kinds
            facts = {"hand": player.category, "dealer_hand": dealer.category,
                     "folded": folded}
            for kind, placed in kinds.items():
                for bet in placed:
                    settled.append(self.settle_bet(bet, kind, tables=tables, config=config,
                                                   hole=hole, board=board,
                                                   dealer_hole=dealer_hole, player=player,
                                                   dealer=dealer, folded=folded, facts=facts))
        return settled

    def settle_bet(self, bet: BetIn, kind: str, **context: Any) -> Settled:
        raise NotImplementedError

    # Shared pieces -------------------------------------------------------

    @staticmethod
    def hand_bet(bet: BetIn, table: str, rows: Sequence[Row], ranked: Ranked, cite: str,
                 schedule: str | None = None, **facts: Any) -> Settled:
        """A bet on the player's own hand: its row pays, anything less loses."""
        row = hand_row(rows, ranked.category, schedule)
        if row is None:
            return lose(bet, table, None, cite, **facts)
        return pay(bet, table, row, **facts)

    def progressive(self, bet: BetIn, tables: Tables, hole, board, facts) -> Settled:
        """Decisions games.progressive.hand and games.progressive.paid_from_pool."""
        table = f"games.{self.id}.progressive"
        funding = find_row(tables[f"games.{self.id}.progressive_funding"], "contribution")
        hand = rank_cards(list(hole) + list(board[:3]))
        row = hand_row(tables[table], hand.category)
        detail = {**facts, "progressive_hand": hand.category}
        if row is None or facts.get("folded_before_flop"):
            settled = lose(bet, table, None, table_cite(tables, table), **detail)
        else:
            hit = {"row": row["id"], "cite": row["cite"], "kind": funding["kind"],
                   "pool_basis_points": row.get("pool_basis_points"),
                   "pays": row.get("pays"), "stake_minor": bet.stake_minor}
            settled = Settled(bet.bet_id, bet.stake_minor, 0, "jackpot", table, row["id"],
                              row["cite"], 0, {**detail, "jackpot_hit": hit})
        return contribute(settled, int(funding["basis_points"]), funding["kind"],
                          funding["cite"])


def _against_dealer(bet: BetIn, table: str, row: Row, outcome: int, facts) -> Settled:
    """A 1:1 bet against the dealer: win pays the row, a tie pushes, a loss loses."""
    if outcome > 0:
        return pay(bet, table, row, **facts)
    if outcome == 0:
        return push(bet, table, row, row["cite"], **facts)
    return lose(bet, table, row, row["cite"], **facts)


# ---------------------------------------------------------------------------
# Texas Hold'em Bonus
# ---------------------------------------------------------------------------


class TexasHoldemBonus(_HoldemGame):
    id = "texas_holdem_bonus"
    main = "games.texas_holdem_bonus.main"
    bonus = "games.texas_holdem_bonus.bonus"
    tables = (main, bonus)
    options = {"ante_rule": ("a", "b", "c"), "bonus_table": ("i", "ii")}
    continuation = "flop"
    bets = {
        "ante": BoxBet(),
        "bonus": BoxBet(requires=("ante",)),
        "flop": BoxBet(in_play=True, raise_of="ante", raise_rule="multiple", multiples=(2,)),
        "turn": BoxBet(in_play=True, raise_of="ante", raise_rule="equal", requires=("flop",)),
        "river": BoxBet(in_play=True, raise_of="ante", raise_rule="equal", requires=("flop",)),
    }

    def settle_bet(self, bet, kind, *, tables, config, hole, board, dealer_hole, player,
                   dealer, folded, facts) -> Settled:
        main = tables[self.main]
        if kind == "bonus":
            if folded:
                return lose(bet, self.bonus, None, "002:L2168", **facts)
            schedule = config["bonus_table"]
            both_aces = hole_class(hole) == "aa" and hole_class(dealer_hole) == "aa"
            row = (hole_row(tables[self.bonus], "aa_vs_aa", schedule) if both_aces else None
                   ) or hole_row(tables[self.bonus], hole_class(hole), schedule)
            if row is None:
                return lose(bet, self.bonus, None, table_cite(tables, self.bonus), **facts)
            return pay(bet, self.bonus, row, **facts)
        if kind == "progressive":
            return self.progressive(bet, tables, hole, board,
                                    {**facts, "folded_before_flop": folded})
        if folded:
            return lose(bet, self.main, find_row(main, "flop"), "002:L2168", **facts)
        outcome = _compare(player, dealer)
        if kind == "ante":
            row = find_row(main, f"ante_{config['ante_rule']}")
            if outcome > 0 and not player.at_least(row["min_hand"]):
                return push(bet, self.main, row, row["cite"], **facts)
            return _against_dealer(bet, self.main, row, outcome, facts)
        return _against_dealer(bet, self.main, find_row(main, kind), outcome, facts)


class TexasHoldemBonusProgressive(TexasHoldemBonus):
    id = "texas_holdem_bonus_progressive"
    tables = (TexasHoldemBonus.main, TexasHoldemBonus.bonus,
              "games.texas_holdem_bonus_progressive.progressive",
              "games.texas_holdem_bonus_progressive.progressive_funding")
    bets = {**TexasHoldemBonus.bets, "progressive": BoxBet(requires=("ante",))}


# ---------------------------------------------------------------------------
# Ultimate Texas Hold'em
# ---------------------------------------------------------------------------

PLAY_MULTIPLES = {"preflop": (3, 4), "flop": (2,), "river": (1,)}


class UltimateTexasHoldem(_HoldemGame):
    id = "ultimate_texas_holdem"
    main = "games.ultimate_texas_holdem.main"
    blind = "games.ultimate_texas_holdem.blind"
    trips = "games.ultimate_texas_holdem.trips"
    qualifier = "games.ultimate_texas_holdem.dealer_qualifier"
    tables = (main, blind, trips, qualifier)
    options = {"trips_table": ("i", "ii", "iii", "iv")}
    continuation = "play"
    bets = {
        "ante": BoxBet(),
        "blind": BoxBet(raise_of="ante", raise_rule="equal"),
        "trips": BoxBet(requires=("ante", "blind")),
        "play": BoxBet(in_play=True, raise_of="ante", raise_rule="multiple"),
    }

    def bet_kind(self, kind, spec, tables, config) -> BetKind:
        if kind != "play":
            return super().bet_kind(kind, spec, tables, config)
        street = spec.get("street")
        if street not in PLAY_MULTIPLES:
            raise BetInvalid("a play bet names its street: preflop (3x or 4x the ante),"
                             " flop (2x) or river (1x) (002:L2309)")
        kind_ = box_bet(self.id, kind, spec, self.bets, self.boxes_max, street=street)
        return BetKind(kind_.kind, kind_.spec, kind_.bet_unit, kind_.position, kind_.in_play,
                       kind_.raise_of, kind_.raise_rule, PLAY_MULTIPLES[street],
                       kind_.requires)

    def settle_bet(self, bet, kind, *, tables, config, hole, board, dealer_hole, player,
                   dealer, folded, facts) -> Settled:
        main = tables[self.main]
        qualified = dealer.at_least(self.qualifying_hand(tables))
        facts = {**facts, "dealer_qualifies": qualified}
        if kind == "trips":
            return self.hand_bet(bet, self.trips, tables[self.trips], player,
                                 table_cite(tables, self.trips),
                                 schedule=config["trips_table"], **facts)
        if kind == "progressive":
            return self.progressive(bet, tables, hole, board, facts)
        if folded:
            return lose(bet, self.main, find_row(main, "play"), "002:L2341", **facts)
        outcome = _compare(player, dealer)
        if kind == "play":
            return _against_dealer(bet, self.main, find_row(main, "play"), outcome, facts)
        if kind == "ante":
            if not qualified:
                row = find_row(main, "ante_dealer_not_qualified")
                return push(bet, self.main, row, row["cite"], **facts)
            return _against_dealer(bet, self.main, find_row(main, "ante"), outcome, facts)
        # blind
        if outcome > 0:
            row = hand_row(tables[self.blind], player.category)
            if row is None:
                row = find_row(main, "blind_push")
                return push(bet, self.main, row, row["cite"], **facts)
            return pay(bet, self.blind, row, **facts)
        row = find_row(main, "blind_push")
        return _against_dealer(bet, self.main, row, outcome, facts)


class UltimateTexasHoldemProgressive(UltimateTexasHoldem):
    id = "ultimate_texas_holdem_progressive"
    tables = (UltimateTexasHoldem.main, UltimateTexasHoldem.blind, UltimateTexasHoldem.trips,
              UltimateTexasHoldem.qualifier,
              "games.ultimate_texas_holdem_progressive.progressive",
              "games.ultimate_texas_holdem_progressive.progressive_funding")
    bets = {**UltimateTexasHoldem.bets, "progressive": BoxBet(requires=("ante", "blind"))}


# ---------------------------------------------------------------------------
# Dynamic Poker and Riverside Poker (halls)
# ---------------------------------------------------------------------------


class DynamicPoker(_HoldemGame):
    id = "dynamic_poker"
    main = "games.dynamic_poker.main"
    bonus = "games.dynamic_poker.bonus"
    tables = (main, bonus)
    continuation = "flop"
    bets = {
        "blind": BoxBet(),
        "bonus": BoxBet(requires=("blind",)),
        "flop": BoxBet(in_play=True, raise_of="blind", raise_rule="multiple", multiples=(2,)),
        "turn": BoxBet(in_play=True, raise_of="blind", raise_rule="equal", requires=("flop",)),
        "river": BoxBet(in_play=True, raise_of="blind", raise_rule="equal", requires=("turn",)),
    }

    def settle_bet(self, bet, kind, *, tables, config, hole, board, dealer_hole, player,
                   dealer, folded, facts) -> Settled:
        main = tables[self.main]
        if kind == "bonus":
            if folded:
                return lose(bet, self.bonus, None, "002:L612", **facts)
            row = hole_row(tables[self.bonus], hole_class(hole))
            if row is None:
                return lose(bet, self.bonus, None, table_cite(tables, self.bonus), **facts)
            return pay(bet, self.bonus, row, **facts)
        if folded:
            return lose(bet, self.main, find_row(main, "flop"), "002:L596", **facts)
        outcome = _compare(player, dealer)
        row = find_row(main, kind)
        if kind == "blind" and outcome > 0 and not player.at_least(row["min_hand"]):
            return push(bet, self.main, row, row["cite"], **facts)
        return _against_dealer(bet, self.main, row, outcome, facts)


class RiversidePoker(_HoldemGame):
    id = "riverside_poker"
    main = "games.riverside_poker.main"
    blind = "games.riverside_poker.blind"
    bonus = "games.riverside_poker.bonus"
    qualifier = "games.riverside_poker.dealer_qualifier"
    tables = (main, blind, bonus, qualifier)
    continuation = "call"
    boxes_max = 7
    bets = {
        "blind": BoxBet(),
        "bonus": BoxBet(requires=("blind",)),
        "call": BoxBet(in_play=True, raise_of="blind", raise_rule="multiple", multiples=(2,)),
    }

    def settle_bet(self, bet, kind, *, tables, config, hole, board, dealer_hole, player,
                   dealer, folded, facts) -> Settled:
        main = tables[self.main]
        qualified = dealer.at_least(self.qualifying_hand(tables))
        facts = {**facts, "dealer_qualifies": qualified}
        if kind == "bonus":
            if folded:
                return lose(bet, self.bonus, None, "002:L748", **facts)
            first_five = rank_cards(list(hole) + list(board[:3]))
            return self.hand_bet(bet, self.bonus, tables[self.bonus], first_five,
                                 table_cite(tables, self.bonus),
                                 **{**facts, "bonus_hand": first_five.category})
        if folded:
            return lose(bet, self.main, find_row(main, "call"), "002:L684", **facts)
        if not qualified:
            if kind == "blind":
                return pay(bet, self.main, find_row(main, "blind_dealer_not_qualified"),
                           **facts)
            row = find_row(main, "call")
            return push(bet, self.main, row, "002:L690", **facts)
        outcome = _compare(player, dealer)
        if kind == "call":
            return _against_dealer(bet, self.main, find_row(main, "call"), outcome, facts)
        if outcome > 0:
            row = hand_row(tables[self.blind], player.category)
            if row is None:
                row = find_row(main, "blind_push")
                return push(bet, self.main, row, row["cite"], **facts)
            return pay(bet, self.blind, row, **facts)
        row = find_row(main, "blind_push")
        return _against_dealer(bet, self.main, row, outcome, facts)
