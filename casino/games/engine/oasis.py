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
002:L2102) refuses swaps and buys.

Versions B-D (002:L2104-2140, rows of `games.oasis_stud_poker.versions`
and their pay tables `bet_b`, `bet_c`, `bet_d`; decision
games.oasis_stud_poker.versions):
- B: the player and the dealer may each exchange up to two cards; the
  player's exchange is one `swap` fee equal to the ante, as in the base game
  (decision games.oasis_stud_poker.version_b_fee); no bought game; the dealer
  qualifies with a pair of eights. The outcome holds the final hands.
- C: every two is wild (casino/games/engine/oasis_wild.py), no exchanges,
  the dealer qualifies with a pair of eights.
- D: no dealer hand and no ante: three equal bets (`bet_1`..`bet_3`) on the
  player's three own cards and the two community cards (`community`); a pair
  of tens or better pays each bet by the table, anything less loses them.
B-D have no bonus box (decision games.oasis_stud_poker.versions).

Table options: `win_minor_max`, the table's posted euro cap on a box's win
in a round (002:L2039; decision games.oasis_stud_poker.win_cap): the odds pay
up to it, the largest wins cut first. `bonus: progressive` (base and A,
002:L2041): the bonus box feeds a progressive pool shown on the display and
wins are paid from it (rows `progressive`, `progressive_funding`; decisions
games.oasis_stud_poker.progressive and games.progressive.paid_from_pool).
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
    result_of,
    table_cite,
)
from .common import contribute, find_row as _find
from .oasis_wild import pair_rank, wild_class, wild_value
from .poker_hands import CATEGORIES, Ranked, hand_row, rank_cards

MAIN = "games.oasis_stud_poker.main"
BET = "games.oasis_stud_poker.bet"
BONUS = "games.oasis_stud_poker.bonus"
QUALIFIER = "games.oasis_stud_poker.dealer_qualifier"
VERSION_ROWS = "games.oasis_stud_poker.versions"
PROGRESSIVE = "games.oasis_stud_poker.progressive"
PROGRESSIVE_FUNDING = "games.oasis_stud_poker.progressive_funding"
BET_TABLES = {"b": "games.oasis_stud_poker.bet_b", "c": "games.oasis_stud_poker.bet_c",
              "d": "games.oasis_stud_poker.bet_d"}
# Oasis classes of a hand from low to high: no game, ace-king, the categories.
CLASSES = ("no_game", "ace_king", *CATEGORIES[1:])
VERSIONS = ("base", "a", "b", "c", "d")
D_BETS = ("bet_1", "bet_2", "bet_3")


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
    tables = (MAIN, BET, BONUS, QUALIFIER, VERSION_ROWS, *BET_TABLES.values(), PROGRESSIVE,
              PROGRESSIVE_FUNDING)
    optional_tables = (PROGRESSIVE, PROGRESSIVE_FUNDING)
    # Version D: three equal bets on the box, no ante (002:L2130).
    bets_d = {
        "bet_1": BoxBet(),
        "bet_2": BoxBet(raise_of="bet_1", raise_rule="equal", requires=("bet_1",)),
        "bet_3": BoxBet(raise_of="bet_1", raise_rule="equal", requires=("bet_2",)),
    }
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
        if set(config) - {"version", "win_minor_max", "bonus"} or version not in VERSIONS:
            raise BetInvalid("oasis stud poker takes `version` (base, a, b, c, d),"
                             " `win_minor_max` and `bonus` (fixed, progressive)")
        clean: dict[str, Any] = {"version": version}
        if version in BET_TABLES:
            _version_row(tables, version)
        if "win_minor_max" in config:
            cap = config["win_minor_max"]
            if type(cap) is not int or cap <= 0:
                raise BetInvalid("win_minor_max must be a positive whole number of cents"
                                 " (002:L2039)")
            clean["win_minor_max"] = cap
        bonus = config.get("bonus", "fixed")
        if bonus not in ("fixed", "progressive"):
            raise BetInvalid("bonus must be fixed or progressive (002:L2041)")
        if bonus == "progressive":
            if version not in ("base", "a"):
                raise BetInvalid("the progressive bonus is the base game's bonus box: base"
                                 " or a only (decision games.oasis_stud_poker.versions)")
            if not tables.get(PROGRESSIVE) or not tables.get(PROGRESSIVE_FUNDING):
                raise BetInvalid("the rulebook posts no Oasis progressive (002:L2041)")
            clean["bonus"] = "progressive"
        return clean

    def bet_kind(self, kind, spec, tables, config) -> BetKind:
        version = config["version"]
        if version == "d":
            return box_bet(self.id, kind, spec, self.bets_d)
        if version in ("a", "c") and kind in ("swap", "buy"):
            raise BetInvalid(f"version {version.upper()} has no exchanges: no swap and no"
                             " bought game (002:L2102, L2116)")
        if version in ("b", "c") and kind in ("buy", "bonus"):
            raise BetInvalid(f"version {version.upper()} has no {kind}: the dealer"
                             f" {'exchanges instead' if kind == 'buy' else 'pays no bonus'}"
                             " (decision games.oasis_stud_poker.versions)")
        return box_bet(self.id, kind, spec, self.bets)

    def check_outcome(self, outcome, config, bets, tables) -> dict[str, Any]:
        version = config.get("version", "base")
        if version == "d":
            community = parse_cards(outcome.get("community"), count=2, what="community")
            boxes = boxes_cards(outcome, bets, count=3)
            distinct(community + [c for cards in boxes.values() for c in cards],
                     "oasis stud poker uses one deck")
            return {"community": community, "boxes": boxes}
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
        version = config.get("version", "base")
        if version in BET_TABLES:
            settled = self._settle_version(bets, outcome, tables, version)
        else:
            settled = self._settle_base(bets, outcome, tables, config)
        return _win_capped(settled, bets, config.get("win_minor_max"))

    def _settle_base(self, bets, outcome, tables, config) -> list[Settled]:
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
                    if kind == "bonus" and config.get("bonus") == "progressive":
                        settled.append(_progressive(bet, tables, player_class, folded,
                                                    swapped, facts))
                        continue
                    settled.append(self._settle_bet(
                        bet, kind, tables, player, player_class, versus, qualified,
                        _qualifies(dealer_class, tables), folded, swapped, buyer, facts))
        return settled

    def _settle_version(self, bets, outcome, tables, version) -> list[Settled]:
        """Versions B, C and D (002:L2104-2140)."""
        row_v = _version_row(tables, version)
        pay_table = BET_TABLES[version]
        pay_rows = tables[pay_table]
        pair_min = int(row_v["pair_rank_min"])
        settled = []
        if version == "d":
            for box, kinds in sorted(by_box(bets).items()):
                cards = outcome["boxes"][box] + outcome["community"]
                cls = oasis_hand(cards)[1]
                row = _paying_row(pay_rows, cls, _pair_rank_plain(cards), pair_min)
                facts = {"hand": cls, "version": "d"}
                for placed in kinds.values():
                    for bet in placed:
                        settled.append(pay(bet, pay_table, row, **facts) if row is not None
                                       else lose(bet, pay_table, None, row_v["cite"],
                                                 **facts))
            return settled
        dealer = outcome["dealer"]
        dealer_value = _value_of(dealer, version)
        dealer_class = _class_of(dealer, version, dealer_value)
        qualified = _qualifies_pair(dealer, version, dealer_value, pair_min)
        main = tables[MAIN]
        for box, kinds in sorted(by_box(bets).items()):
            cards = outcome["boxes"][box]
            value = _value_of(cards, version)
            cls = _class_of(cards, version, value)
            folded = "bet" not in kinds
            facts = {"hand": cls, "dealer_hand": dealer_class, "folded": folded,
                     "dealer_qualified": qualified, "version": version}
            for kind, placed in kinds.items():
                for bet in placed:
                    if kind == "swap":
                        row = find_row(main, "swap_fee")
                        settled.append(lose(bet, MAIN, row, row["cite"], **facts))
                    elif folded:
                        settled.append(lose(bet, MAIN, find_row(main, "ante"), "002:L2005",
                                            **facts))
                    elif not qualified:
                        if kind == "ante":
                            settled.append(pay(bet, MAIN,
                                               find_row(main, "ante_dealer_not_qualified"),
                                               qualifier=row_v["cite"], **facts))
                        else:
                            row = find_row(main, "bet_dealer_not_qualified")
                            settled.append(push(bet, MAIN, row, row_v["cite"], **facts))
                    elif value < dealer_value:
                        settled.append(lose(bet, pay_table, None, "002:L2013", **facts))
                    elif value == dealer_value:
                        row = find_row(main, "tie")
                        settled.append(push(bet, MAIN, row, row["cite"], **facts))
                    elif kind == "ante":
                        settled.append(pay(bet, MAIN, find_row(main, "ante"), **facts))
                    else:
                        pair = (pair_rank(value) if version == "c"
                                else _pair_rank_plain(cards))
                        row = _paying_row(pay_rows, cls, pair, pair_min)
                        if row is None:   # cannot happen: a winner beats a qualified dealer
                            raise OutcomeInvalid(f"no version {version} row for {cls}")
                        settled.append(pay(bet, pay_table, row, **facts))
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


# ---------------------------------------------------------------------------
# Versions B-D, the table's win cap and the progressive bonus
# ---------------------------------------------------------------------------


def _version_row(tables, version: str):
    for row in tables.get(VERSION_ROWS) or ():
        if row["id"] == version:
            return row
    raise BetInvalid(f"the rulebook has no Oasis version {version!r} (002:L2100-2140)")


def _value_of(cards, version: str):
    """A comparable value: native_eval's for B (no wild cards), the wild ranker's for C."""
    if version == "c":
        return wild_value(cards)
    return (rank_cards(cards).value,)


def _class_of(cards, version: str, value) -> str:
    if version == "c":
        return wild_class(value)
    return oasis_hand(cards)[1]


def _pair_rank_plain(cards) -> int | None:
    ranks = [rank_of(c) for c in cards]
    pairs = [r for r in set(ranks) if ranks.count(r) >= 2]
    return max(pairs) if pairs else None


def _qualifies_pair(dealer, version: str, value, pair_min: int) -> bool:
    """B and C: the dealer opens with a pair of eights or better (002:L2104, L2116)."""
    if version == "c":
        cls = wild_class(value)
        return cls != "high_card" and (cls != "pair" or pair_rank(value) >= pair_min)
    cls = oasis_hand(dealer)[1]
    if cls in ("no_game", "ace_king"):
        return False
    return cls != "pair" or (_pair_rank_plain(dealer) or 0) >= pair_min


def _paying_row(rows, cls: str, pair: int | None, pair_min: int):
    """The version's row for a hand; a pair pays only from `pair_rank_min` up."""
    if cls == "pair" and (pair is None or pair < pair_min):
        return None
    for row in rows:
        if row.get("hand") == cls:
            return row
    if cls == "royal_flush":
        return next((r for r in rows if r.get("hand") == "straight_flush"), None)
    return None


def _progressive(bet, tables, player_class: str, folded: bool, swapped: bool, facts
                 ) -> Settled:
    """The progressive bonus box (002:L2041): a share to the pool, hits paid from it."""
    funding = _find(tables[PROGRESSIVE_FUNDING], "contribution")
    row = None if folded or swapped else hand_row(tables[PROGRESSIVE], player_class)
    detail = {**facts, "progressive_hand": player_class}
    if row is None:
        settled = lose(bet, PROGRESSIVE, None, "002:L2005" if swapped else "002:L2041",
                       forfeited=swapped, **detail)
    else:
        hit = {"row": row["id"], "cite": row["cite"], "kind": funding["kind"],
               "pool_basis_points": row.get("pool_basis_points"), "pays": row.get("pays"),
               "stake_minor": bet.stake_minor}
        settled = Settled(bet.bet_id, bet.stake_minor, 0, "jackpot", PROGRESSIVE, row["id"],
                          row["cite"], 0, {**detail, "jackpot_hit": hit})
    return contribute(settled, int(funding["basis_points"]), funding["kind"], funding["cite"])


def _win_capped(settled: list[Settled], bets, cap: int | None) -> list[Settled]:
    """A box's net win in the round cut to the table's posted cap (002:L2039).

    Decision games.oasis_stud_poker.win_cap: the odds pay up to the cap; the
    part above it comes off the box's largest wins first, never below the
    stake, and the cut is recorded on the bet.
    """
    if cap is None:
        return settled
    box_of_bet = {b.bet_id: str(b.spec["box"]) for b in bets}
    out = {s.bet_id: s for s in settled}
    boxes: dict[str, list[Settled]] = {}
    for s in settled:
        boxes.setdefault(box_of_bet[s.bet_id], []).append(s)
    for items in boxes.values():
        over = sum(s.net_minor for s in items) - cap
        for s in sorted(items, key=lambda i: i.net_minor, reverse=True):
            if over <= 0 or s.net_minor <= 0:
                break
            cut = min(over, s.net_minor)
            over -= cut
            out[s.bet_id] = Settled(s.bet_id, s.stake_minor, s.returned_minor - cut,
                                    result_of(s.stake_minor, s.returned_minor - cut),
                                    s.table, s.row, s.cite, s.commission_minor,
                                    {**s.detail, "win_cap": {"limit_minor": cap,
                                                             "cut_minor": cut,
                                                             "cite": "002:L2039"}},
                                    s.contribution_minor, s.jackpot_kind)
    return [out[s.bet_id] for s in settled]
