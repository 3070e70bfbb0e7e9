"""Pai Gow Poker (casino): two hands against the bank's two, the house way (pure).

Cards (002:L2484, L2572-2621): 52 cards and one joker (`JK`). The joker
completes a straight, a flush or a straight flush; otherwise it is an ace.
A-2-3-4-5 is the second-best straight and straight flush (below A-K-Q-J-T,
above K-high); four aces and the joker are five aces, the top hand. The
two-card front hand is a pair or high cards.

A box's seven cards are set by the player into a front (2) and a back (5)
hand; a front that is not lower than the back fouls and loses (002:L2486).
The bank's hand is set by the house way (`house_way`, 002:L2492-2568); the
outcome may carry the dealer's setting, which must equal it. A box wins
1:1 less the 5 % commission when both its hands beat the bank's, pushes
when one does, loses otherwise; an equal hand (a copy) goes to the bank
(002:L2488).

Ranking values are tuples compared as such: (category, tie-breaks...), with
categories 0 high card ... 8 straight flush, 9 five aces; a straight's
tie-break is 15 for A-high, 14 for A-2-3-4-5, else its top card.
"""

from __future__ import annotations

from collections import Counter
from itertools import combinations
from typing import Any, Mapping, Sequence

from .common import (
    JOKER,
    RANKS,
    SUITS,
    BetInvalid,
    BetKind,
    BoxBet,
    OutcomeInvalid,
    Settled,
    box_bet,
    commission_of,
    distinct,
    find_row,
    lose,
    parse_cards,
    passed_of,
    passes_due,
    pay,
    push,
    result_of,
)

BOXES = 7            # the layout's boxes (common.box_bet's default)
PAYOUTS = "games.pai_gow_poker.payouts"
HIGH, PAIR, TWO_PAIR, TRIPS, STRAIGHT, FLUSH, FULL_HOUSE, QUADS, STRAIGHT_FLUSH, FIVE_ACES = (
    range(10))
CATEGORY_NAMES = ("high_card", "pair", "two_pair", "three_of_a_kind", "straight", "flush",
                  "full_house", "four_of_a_kind", "straight_flush", "five_aces")
DECK = [r + s for r in RANKS for s in SUITS]
ACE_FACE = (HIGH, 14, 11)      # ace with a jack (or better): "ace + face card"
KING_HIGH = (HIGH, 13)          # a king-high front (2 cards: K and anything)

Value = tuple[int, ...]


def rank(card: str) -> int:
    """2..14; the joker counts as an ace wherever it does not complete a hand."""
    return 14 if card == JOKER else RANKS.index(card[0]) + 2


def _straight_key(ranks: set[int]) -> int | None:
    if len(ranks) != 5:
        return None
    if ranks == {14, 2, 3, 4, 5}:
        return 14          # the second-best straight (002:L2601)
    if max(ranks) - min(ranks) == 4:
        return 15 if max(ranks) == 14 else max(ranks)
    return None


def _natural(cards: Sequence[str]) -> Value:
    ranks = [rank(c) for c in cards]
    counts = Counter(ranks)
    if counts.get(14) == 5:
        return (FIVE_ACES,)
    order = sorted(counts, key=lambda r: (counts[r], r), reverse=True)
    shape = sorted(counts.values(), reverse=True)
    flush = JOKER not in cards and len({c[1] for c in cards}) == 1
    straight = _straight_key(set(ranks))
    if straight and flush:
        return (STRAIGHT_FLUSH, straight)
    if shape[0] == 4:
        return (QUADS, *order)
    if shape[:2] == [3, 2]:
        return (FULL_HOUSE, *order)
    if flush:
        return (FLUSH, *sorted(ranks, reverse=True))
    if straight:
        return (STRAIGHT, straight)
    if shape[0] == 3:
        return (TRIPS, *order)
    if shape[:2] == [2, 2]:
        return (TWO_PAIR, *order)
    if shape[0] == 2:
        return (PAIR, *order)
    return (HIGH, *sorted(ranks, reverse=True))


def back_value(cards: Sequence[str]) -> Value:
    """The value of a five-card hand, the joker at its best allowed use (002:L2484)."""
    if JOKER not in cards:
        return _natural(cards)
    rest = [c for c in cards if c != JOKER]
    best = _natural(cards)  # the joker as an ace
    for card in DECK:
        if card in rest:
            continue
        value = _natural(rest + [card])
        if value[0] in (STRAIGHT, FLUSH, STRAIGHT_FLUSH) and value > best:
            best = value
    return best


def front_value(cards: Sequence[str]) -> Value:
    """A two-card hand: a pair or high cards; the joker is an ace."""
    high, low = sorted((rank(c) for c in cards), reverse=True)
    return (PAIR, high) if high == low else (HIGH, high, low)


def fouled(front: Sequence[str], back: Sequence[str]) -> bool:
    """The front must rank lower than the back (002:L2486)."""
    return not front_value(front) < back_value(back)


def category(value: Value) -> str:
    return CATEGORY_NAMES[value[0]]


# ---------------------------------------------------------------------------
# The house way (002:L2492-2568)
# ---------------------------------------------------------------------------


def _without(cards: Sequence[str], taken: Sequence[str]) -> list[str]:
    rest = list(cards)
    for card in taken:
        rest.remove(card)
    return rest


def _by_rank(cards: Sequence[str]) -> dict[int, list[str]]:
    groups: dict[int, list[str]] = {}
    for card in sorted(cards, key=rank, reverse=True):
        groups.setdefault(rank(card), []).append(card)
    return groups


def _highest(cards: Sequence[str], count: int) -> list[str]:
    return sorted(cards, key=rank, reverse=True)[:count]


def _setting(front: Sequence[str], cards: Sequence[str]) -> tuple[list[str], list[str]]:
    return list(front), _without(cards, front)


def _splits(cards: Sequence[str]):
    for front in combinations(cards, 2):
        back = _without(cards, front)
        yield list(front), back, front_value(front), back_value(back)


def _best_front(cards, categories: Sequence[int]):
    """Among settings whose back is in `categories`, the one with the best front."""
    found = [(fv, bv, f, b) for f, b, fv, bv in _splits(cards) if bv[0] in categories]
    if not found:
        return None
    fv, bv, front, back = max(found, key=lambda item: (item[0], item[1]))
    return front, back, fv


def _pair_exception(pairs: Sequence[int], singles: Sequence[int], royal: bool = False) -> bool:
    """The pairs that turn a straight, flush or straight flush into 'two pair' play."""
    if len(pairs) < 2:
        return False
    high, low = pairs[0], pairs[1]
    if high == 14:
        return True                             # ace pair and any other pair
    if low >= 10:
        return True                             # both pairs 10 or more
    return not royal and high <= 10 and 14 in singles   # both 10 or less, with an ace


def _two_pair(cards, groups, pairs, singles):
    """Split the pairs, except (a)-(c) of 002:L2504-2510 (decision games.pai_gow.two_pair_front)."""
    high, low = pairs[0], pairs[1]
    ace = 14 in singles
    keep = (high <= 6 or (high <= 10 and ace)
            or (11 <= high <= 13 and low <= 5 and ace))
    spare = [c for r in singles for c in groups[r]]
    if keep:
        return _setting(_highest(spare, 2), cards)
    return _setting(groups[low][:2], cards)


def house_way(cards: Sequence[str]) -> tuple[list[str], list[str]]:
    """The bank's (front, back) for seven cards, with no discretion (002:L2490)."""
    if len(cards) != 7:
        raise OutcomeInvalid("the house way sets seven cards")
    groups = _by_rank(cards)
    counts = {r: len(g) for r, g in groups.items()}
    fives = [r for r, n in counts.items() if n == 5]
    quads = sorted((r for r, n in counts.items() if n == 4), reverse=True)
    trips = sorted((r for r, n in counts.items() if n == 3), reverse=True)
    pairs = sorted((r for r, n in counts.items() if n == 2), reverse=True)
    singles = sorted((r for r, n in counts.items() if n == 1), reverse=True)

    if fives:  # five aces (002:L2566-2568; decision games.pai_gow.five_aces_kings)
        if 13 in pairs:
            return _setting(groups[13][:2], cards)
        return _setting(groups[14][:2], cards)

    if quads:  # 002:L2542-2545
        q = quads[0]
        rest = _without(cards, groups[q])
        rest_groups = _by_rank(rest)
        rest_pair = max((r for r, g in rest_groups.items() if len(g) >= 2), default=None)
        best_front = (rest_groups[rest_pair][:2] if rest_pair is not None
                      else _highest(rest, 2))
        if q == 14:
            keep = rest_pair is not None and rest_pair >= 7
        elif q >= 11:
            keep = rest_pair is not None and rest_pair >= 10
        elif q >= 7:
            keep = front_value(best_front) >= ACE_FACE
        else:
            keep = True
        return _setting(best_front if keep else groups[q][:2], cards)

    if len(trips) == 2:  # a pair from the higher trips in front (002:L2520)
        return _setting(groups[trips[0]][:2], cards)
    if trips and len(pairs) >= 2:  # the higher pair in front (002:L2538)
        return _setting(groups[pairs[0]][:2], cards)
    if trips and pairs:  # full house (002:L2534-2536)
        if pairs[0] == 2 and 14 in singles and 13 in singles:
            return _setting(groups[14] + groups[13], cards)
        return _setting(groups[pairs[0]][:2], cards)

    values = [bv for _, _, _, bv in _splits(cards)]
    if any(v[0] == STRAIGHT_FLUSH for v in values):  # 002:L2547-2564
        royal = any(v == (STRAIGHT_FLUSH, 15) for v in values)
        if _pair_exception(pairs, singles, royal=royal) and len(pairs) >= 2:
            return _two_pair(cards, groups, pairs, singles)
        kept = max(((fv, bv, f, b) for f, b, fv, bv in _splits(cards)
                    if bv[0] == STRAIGHT_FLUSH and (bv == (STRAIGHT_FLUSH, 15)) == royal),
                   key=lambda item: (item[0], item[1]))
        others = [STRAIGHT, FLUSH, STRAIGHT_FLUSH] if royal else [STRAIGHT, FLUSH]
        floor = KING_HIGH if royal else ACE_FACE
        found = [(fv, bv, f, b) for f, b, fv, bv in _splits(cards)
                 if bv[0] in others and bv != (STRAIGHT_FLUSH, 15)]
        if kept[0] < floor and found:
            fv, _, front, back = max(found, key=lambda item: (item[0], item[1]))
            if fv >= floor:
                return front, back
        return kept[2], kept[3]

    if any(v[0] in (STRAIGHT, FLUSH) for v in values):  # 002:L2522-2532
        if len(pairs) >= 2 and _pair_exception(pairs, singles):
            return _two_pair(cards, groups, pairs, singles)
        straight = _best_front(cards, [STRAIGHT])
        flush = _best_front(cards, [FLUSH])
        if straight and flush:
            if max(straight[2], flush[2]) < KING_HIGH or flush[2] >= straight[2]:
                return flush[0], flush[1]
            return straight[0], straight[1]
        chosen = straight or flush
        return chosen[0], chosen[1]

    if len(pairs) == 3:  # the highest pair in front (002:L2512-2514)
        return _setting(groups[pairs[0]][:2], cards)
    if trips:  # trips back; three aces: one ace in front (002:L2516-2518)
        spare = [c for r in singles for c in groups[r]]
        if trips[0] == 14:
            return _setting([groups[14][0]] + _highest(spare, 1), cards)
        return _setting(_highest(spare, 2), cards)
    if len(pairs) == 2:
        return _two_pair(cards, groups, pairs, singles)
    if pairs:  # the pair back, the two highest others in front (002:L2500-2502)
        return _setting(_highest(_without(cards, groups[pairs[0]]), 2), cards)
    ordered = _highest(cards, 7)  # no pair: second and third highest in front
    return _setting(ordered[1:3], cards)


# ---------------------------------------------------------------------------
# The game
# ---------------------------------------------------------------------------


def _hand(value: Any, what: str, count: int) -> list[str]:
    return parse_cards(value, count=count, what=what, joker=True)


class PaiGowPoker:
    """Pai Gow Poker, banked by the house or, in turn, by a player (002:L2623).

    Table option `bank`: `house` (default) or `player`. With a player bank
    (decision games.pai_gow.player_bank): the banker's `bank` bet (one per
    round, placed first, on the banker's box) covers the other boxes' `bet`
    stakes and the dealer's stake together; the banker sets their own seven
    cards (`banker`: {front, back}) and plays no box. Every box plays the
    banker's hand as it plays the house's: both hands better wins 1:1 less
    the row's commission, one each pushes, a copy goes to the bank, a foul
    loses. The dealer plays the house's seven cards (set by the house way)
    against the banker with `dealer_stake_minor`, at most what the banker
    staked against the bank in the previous settled round (read by the app,
    `previous_round`; none: the dealer does not play). The banker's net win
    (boxes and dealer together) pays the house a 5 % commission
    (`bank_net_win` row, 002:L2623); a net loss pays none. The house's own
    result is the dealer's stake alone.

    The bank goes round in seat order ("kukin pelaaja ... vuorollaan",
    002:L2623; decision games.pai_gow.bank_rotation): after the box that held
    the previous settled round's bank, the next box (1..7, then 1 again)
    takes it, or passes it on; a bank bet lists the boxes that passed since
    (`spec.passed`), exactly the boxes between the last bank and its own.
    The table's first bank may sit at any box.
    """

    id = "pai_gow_poker"
    tables = (PAYOUTS,)

    @staticmethod
    def looks_back(phase: str, config) -> bool:
        """The app reads the previous round for a player bank: its outcome (the
        dealer's cap) and its bets (the bank's turn)."""
        return phase in ("outcome", "bet") and config.get("bank") == "player"

    def configure(self, config, tables):
        bank = config.get("bank", "house")
        if set(config) - {"bank"} or bank not in ("house", "player"):
            raise BetInvalid("pai gow poker takes `bank`: house or player (002:L2623)")
        if bank == "player":
            find_row(tables[PAYOUTS], "bank_net_win")
            return {"bank": "player"}
        return {}

    def bet_kind(self, kind, spec, tables, config) -> BetKind:
        if config.get("bank") == "player":
            passed = passed_of(spec or {}, BOXES) if kind == "bank" else None
            if passed is None:
                return box_bet(self.id, kind, spec, {"bet": BoxBet(), "bank": BoxBet()})
            clean = {k: v for k, v in spec.items() if k != "passed"}
            return box_bet(self.id, kind, clean, {"bet": BoxBet(), "bank": BoxBet()},
                           passed=passed)
        return box_bet(self.id, kind, spec, {"bet": BoxBet()})

    @staticmethod
    def rotation_refusal(kind, spec, previous, config, player_id=None):
        """The bank's turn in seat order (002:L2623, decision games.pai_gow.bank_rotation).

        None when the bank bet sits at the next box after the previous
        round's bank, the boxes between listed as passed; a refusal otherwise.
        """
        if config.get("bank") != "player" or kind != "bank":
            return None
        passed = sorted(spec.get("passed", ()))
        last = next((b for b in (previous or {}).get("bets", ()) if b["kind"] == "bank"), None)
        if last is None:
            if passed:
                return {"message": "the table's first bank follows no one: no box passed it",
                        "cite": "002:L2623", "decision": "games.pai_gow.bank_rotation"}
            return None
        held, box = int(last["spec"]["box"]), int(spec["box"])
        due = passes_due(held, box, BOXES)
        if passed != due:
            nxt = held % BOXES + 1
            return {"message": f"the bank goes round in seat order: after box {held} it is"
                               f" box {nxt}'s to take or pass; box {box} takes it with boxes"
                               f" {due or 'none'} passed (listed: {passed or 'none'})",
                    "cite": "002:L2623", "decision": "games.pai_gow.bank_rotation",
                    "previous_bank_box": held, "passed_due": due}
        return None

    def bank_refusal(self, kind, player_id, stake_minor, placed, previous, config):
        """One bank per round, put up first; the banker plays no box (002:L2623)."""
        if config.get("bank") != "player":
            return None
        bankers = [p for p, k, _ in placed if k == "bank"]
        if kind == "bank":
            if bankers:
                return {"message": "the bank is already held this round", "cite": "002:L2623"}
            if placed:
                return {"message": "the bank is put up before the boxes", "cite": "002:L2623",
                        "decision": "games.pai_gow.player_bank"}
            return None
        if not bankers:
            return {"message": "no bank to play against: the banker puts it up first",
                    "cite": "002:L2623", "decision": "games.pai_gow.player_bank"}
        if bankers[0] == player_id:
            return {"message": "the banker plays no box against their own bank",
                    "cite": "002:L2623", "decision": "games.pai_gow.player_bank"}
        return None

    def stake_room(self, kind, player_id, placed, config=None):
        """The boxes together stake at most the bank (decision games.pai_gow.player_bank)."""
        if (config or {}).get("bank") != "player" or kind != "bet":
            return None
        bank = sum(s for _, k, s in placed if k == "bank")
        covered = sum(s for _, k, s in placed if k == "bet")
        return max(bank - covered, 0), "002:L2623"

    def check_outcome(self, outcome, config, bets, tables) -> dict[str, Any]:
        player_bank = config.get("bank") == "player"
        facts = {k: v for k, v in outcome.items()
                 if k not in ("previous_round", "round_players")}
        extra = {}
        if player_bank:
            extra = self._bank_facts(outcome, bets, outcome.get("previous_round"))
            facts.pop("banker"), facts.pop("dealer_stake_minor", None)
        elif outcome.get("banker") is not None or outcome.get("dealer_stake_minor") is not None:
            raise OutcomeInvalid("the house banks this table: no banker and no dealer stake")
        dealer = _hand(facts.get("dealer"), "dealer", 7)
        boxes_in = facts.get("boxes")
        if not isinstance(boxes_in, Mapping):
            raise OutcomeInvalid("boxes maps each box to its {front, back} setting")
        boxes: dict[str, dict[str, list[str]]] = {}
        for key, setting in boxes_in.items():
            if not isinstance(setting, Mapping):
                raise OutcomeInvalid(f"box {key}: give front (2 cards) and back (5 cards)")
            boxes[str(int(key))] = {"front": _hand(setting.get("front"), f"box {key} front", 2),
                                    "back": _hand(setting.get("back"), f"box {key} back", 5)}
        box_bets = [b for b in bets if b.kind == "bet"]
        missing = {str(b.spec["box"]) for b in box_bets} - set(boxes)
        if missing:
            raise OutcomeInvalid(f"no cards for box(es) {', '.join(sorted(missing))}")
        every = dealer + [c for s in boxes.values() for c in s["front"] + s["back"]]
        if player_bank:
            every += extra["banker"]["front"] + extra["banker"]["back"]
        distinct(every, "pai gow poker uses one deck and one joker")
        front, back = house_way(dealer)
        declared = facts.get("dealer_front")
        if declared is not None and sorted(_hand(declared, "dealer_front", 2)) != sorted(front):
            raise OutcomeInvalid(f"the house way puts {' '.join(front)} in the dealer's front,"
                                 f" not {declared} (002:L2490)")
        return {"dealer": dealer, "dealer_front": front, "dealer_back": back, "boxes": boxes,
                **extra}

    @staticmethod
    def _bank_facts(outcome, bets, previous) -> dict[str, Any]:
        """The banker's setting and the dealer's stake, capped by the previous round."""
        banks = [b for b in bets if b.kind == "bank"]
        if len(banks) != 1:
            raise OutcomeInvalid("a player-banked round has exactly one bank")
        banker = outcome.get("banker")
        if not isinstance(banker, Mapping):
            raise OutcomeInvalid("banker: give the banker's own front (2) and back (5)")
        setting = {"front": _hand(banker.get("front"), "banker front", 2),
                   "back": _hand(banker.get("back"), "banker back", 5)}
        stake = outcome.get("dealer_stake_minor", 0)
        if type(stake) is not int or stake < 0:
            raise OutcomeInvalid("dealer_stake_minor must be a whole number of cents, 0 or more")
        banker_id = (outcome.get("round_players") or {}).get(banks[0].bet_id)
        cap, cap_round = 0, None
        if previous is not None:
            cap_round = previous["round_id"]
            cap = sum(b["stake_minor"] for b in previous["bets"]
                      if b["kind"] == "bet" and b["player_id"] == banker_id)
        if stake > cap:
            raise OutcomeInvalid(f"the dealer plays the banker with at most the banker's"
                                 f" stake against the bank in the previous round ({cap})"
                                 " (002:L2623)")
        covered = sum(b.stake_minor for b in bets if b.kind == "bet") + stake
        if covered > banks[0].stake_minor:
            raise OutcomeInvalid(f"the bank ({banks[0].stake_minor}) does not cover the boxes"
                                 f" and the dealer ({covered})")
        return {"banker": setting, "dealer_stake_minor": stake, "dealer_cap_minor": cap,
                "dealer_cap_round": cap_round}

    def settle(self, bets, outcome, tables, config) -> list[Settled]:
        rows = tables[PAYOUTS]
        if config.get("bank") == "player":
            return self._settle_player_bank(bets, outcome, rows)
        bank_front = front_value(outcome["dealer_front"])
        bank_back = back_value(outcome["dealer_back"])
        settled = []
        for bet in bets:
            setting = outcome["boxes"][str(bet.spec["box"])]
            settled.append(_box_against(bet, rows, setting, bank_front, bank_back))
        return settled

    @staticmethod
    def _settle_player_bank(bets, outcome, rows) -> list[Settled]:
        banker = outcome["banker"]
        bank_front, bank_back = front_value(banker["front"]), back_value(banker["back"])
        banker_fouled = fouled(banker["front"], banker["back"])
        settled, net = [], 0
        for bet in bets:
            if bet.kind != "bet":
                continue
            setting = outcome["boxes"][str(bet.spec["box"])]
            if banker_fouled and not fouled(setting["front"], setting["back"]):
                # Decision games.pai_gow.player_bank: a fouled bank loses to every
                # box that did not foul, as a fouled box loses (002:L2486).
                row = find_row(rows, "win")
                item = pay(bet, PAYOUTS, row,
                           commission_basis_points=row["commission_basis_points"],
                           banker_fouled=True)
            else:
                item = _box_against(bet, rows, setting, bank_front, bank_back)
            # What the bank wins or pays on this box (commission is the house's).
            net += item.stake_minor - item.returned_minor - item.commission_minor
            settled.append(item)
        stake = outcome["dealer_stake_minor"]
        dealer_wins = 0
        if stake:
            if banker_fouled:
                dealer_wins = 2
            else:
                dealer_front = front_value(outcome["dealer_front"])
                dealer_back = back_value(outcome["dealer_back"])
                dealer_wins = (dealer_front > bank_front) + (dealer_back > bank_back)
            net += {2: -stake, 1: 0, 0: stake}[dealer_wins]
        bank = next(b for b in bets if b.kind == "bank")
        row = find_row(rows, "bank_net_win")
        commission = commission_of(net, int(row["commission_basis_points"])) if net > 0 else 0
        returned = bank.stake_minor + net - commission
        facts = {"bank_net_minor": net, "dealer_stake_minor": stake,
                 "dealer_cap_minor": outcome["dealer_cap_minor"],
                 "dealer_cap_round": outcome["dealer_cap_round"],
                 "dealer_result": {2: "dealer_won", 1: "push", 0: "bank_won"}[dealer_wins]
                 if stake else None, "banker_fouled": banker_fouled}
        settled.append(Settled(bank.bet_id, bank.stake_minor, returned,
                               result_of(bank.stake_minor, returned), PAYOUTS, row["id"],
                               row["cite"], commission, facts))
        return settled


def _box_against(bet, rows, setting, bank_front, bank_back) -> Settled:
    """A box's two hands against the bank's (002:L2486-2488)."""
    front, back = front_value(setting["front"]), back_value(setting["back"])
    facts = {"front": category(front), "back": category(back),
             "dealer_front": category(bank_front), "dealer_back": category(bank_back)}
    if fouled(setting["front"], setting["back"]):
        row = find_row(rows, "foul")
        return lose(bet, PAYOUTS, row, row["cite"], fouled=True, **facts)
    wins = (front > bank_front) + (back > bank_back)   # a copy goes to the bank
    if wins == 2:
        row = find_row(rows, "win")
        return pay(bet, PAYOUTS, row, commission_basis_points=row["commission_basis_points"],
                   **facts)
    if wins == 1:
        row = find_row(rows, "push")
        return push(bet, PAYOUTS, row, row["cite"], **facts)
    row = find_row(rows, "win")
    return lose(bet, PAYOUTS, row, "002:L2488", **facts)
