"""Blackjack: one engine, configured by a version row (pure).

The versions are rulebook rows (`games.blackjack.versions`): A-S in the
halls (002:L798-1166), the base game and variants A and B in the casino
(002:L2693-2746). A row fixes the dealer's cards (no hole card, hole card
with or without a peek, both face up), the tie rule, the dealer's bust
total (22 pushes in P-S), the blackjack payouts a table may post, doubling
(any two cards, or 9-11 with the ace staying 1), the most hands after
splits, doubling after a split, insurance (exactly or at most half), the up
cards on which even money is offered, surrender, the 10-card Charlie (F),
three sevens (H-O) and F/G's "lose the original stake only".

A round's bets per box: `box` (the first hand), `split` (hand 2, 3, 4: one
per split, equal to the box), `double` (per hand, equal to that hand's
stake), `insurance` (up to or exactly half the box) and `side_game` (halls,
side games A-I on the box's first two cards, 002:L1170-1285). The outcome
is the cards: the dealer's, and each box's hands in order, with the player's
stake-free choices (surrender, even money). `check_outcome` verifies the
cards against the version and the stakes placed (a double has exactly three
cards, split aces one card each, no more hands than allowed, the dealer drew
to 17 and stood, decision games.blackjack.soft_17), so a settlement is never
computed from an impossible deal.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any, Mapping, Sequence

from .common import (
    BetIn,
    BetInvalid,
    BetKind,
    OutcomeInvalid,
    Row,
    Settled,
    find_row,
    lose,
    parse_cards,
    pay,
    push,
)

VERSIONS = "games.blackjack.versions"
PAYOUTS = "games.blackjack.payouts"
SIDE_GAMES = "games.blackjack.side_games"
HOLE_CARD = ("hole_peek", "hole_no_peek", "face_up")
PEEK = ("hole_peek", "face_up")   # a dealer blackjack is known before play
TEN = frozenset("TJQK")


# ---------------------------------------------------------------------------
# Card arithmetic
# ---------------------------------------------------------------------------


def value(card: str) -> int:
    """Points of a card with the ace as 1."""
    if card[0] == "A":
        return 1
    return 10 if card[0] in TEN else int(card[0])


def hard_total(cards: Sequence[str]) -> int:
    return sum(value(c) for c in cards)


def best_total(cards: Sequence[str]) -> int:
    """The best total: one ace counts 11 when that does not bust the hand."""
    hard = hard_total(cards)
    if any(c[0] == "A" for c in cards) and hard + 10 <= 21:
        return hard + 10
    return hard


def is_natural(cards: Sequence[str]) -> bool:
    return len(cards) == 2 and best_total(cards) == 21


def up_class(card: str) -> str:
    """A, T (any ten-value card) or the pip, for even money's up cards."""
    return "A" if card[0] == "A" else ("T" if value(card) == 10 else card[0])


# ---------------------------------------------------------------------------
# The game
# ---------------------------------------------------------------------------


class Blackjack:
    id = "blackjack"
    tables = (VERSIONS, PAYOUTS, SIDE_GAMES)
    optional_tables = (SIDE_GAMES,)

    def configure(self, config, tables) -> dict[str, Any]:
        versions = {row["id"]: row for row in tables[VERSIONS]}
        version = config.get("version")
        if version not in versions:
            raise BetInvalid(f"version must be one of {', '.join(sorted(versions))}")
        rules = dict(versions[version])
        pays = config.get("blackjack_pays", rules["blackjack_pays"][0])
        if pays not in rules["blackjack_pays"]:
            raise BetInvalid(f"version {version} pays a blackjack "
                             f"{' or '.join(rules['blackjack_pays'])} ({rules['cite']})")
        side_game = config.get("side_game")
        if side_game is not None:
            games = {row["game"] for row in tables.get(SIDE_GAMES, ())}
            if side_game not in games:
                raise BetInvalid(f"side_game must be one of {', '.join(sorted(games))}"
                                 if games else "this venue offers no blackjack side games")
        return {"version": version, "blackjack_pays": pays, "side_game": side_game,
                "rules": rules}

    def bet_kind(self, kind, spec, tables, config) -> BetKind:
        box = spec.get("box")
        if type(box) is not int or not 1 <= box <= 7:
            raise BetInvalid("box must be a whole number from 1 to 7")
        rules = config["rules"]
        if kind == "box":
            return BetKind(kind, {"box": box}, "box", f"box:{box}")
        if kind == "side_game":
            if not config.get("side_game"):
                raise BetInvalid("this table runs no side game")
            return BetKind(kind, {"box": box}, "side_game", f"side_game:{box}")
        if kind == "insurance":
            rule = "exactly_half" if rules["insurance"] == "exactly_half" else "at_most_half"
            return BetKind(kind, {"box": box}, "box", f"insurance:{box}", in_play=True,
                           raise_of=f"box:{box}", raise_rule=rule)
        if kind in ("split", "double"):
            hand = spec.get("hand")
            low = 2 if kind == "split" else 1
            if type(hand) is not int or not low <= hand <= rules["hands_max"]:
                raise BetInvalid(f"hand must be {low} to {rules['hands_max']} under version"
                                 f" {config['version']} ({rules['cite']})")
            base = f"box:{box}"
            return BetKind(kind, {"box": box, "hand": hand}, "box", f"{kind}:{box}:{hand}",
                           in_play=True, raise_of=base, raise_rule="equal")
        raise BetInvalid(f"blackjack has no bet {kind!r}")

    # -- outcome -----------------------------------------------------------

    def check_outcome(self, outcome, config, bets, tables) -> dict[str, Any]:
        rules = config["rules"]
        dealer = parse_cards(outcome.get("dealer"), minimum=1, what="dealer")
        boxes_in = outcome.get("boxes")
        if not isinstance(boxes_in, Mapping):
            raise OutcomeInvalid("boxes must map each box to its hands")
        by_box: dict[str, list[BetIn]] = defaultdict(list)
        for bet in bets:
            by_box[str(bet.spec["box"])].append(bet)
        boxes: dict[str, Any] = {}
        for key, box_in in boxes_in.items():
            box = str(int(key))
            if not isinstance(box_in, Mapping):
                raise OutcomeInvalid(f"box {box}: give hands, and surrender / even_money")
            hands_in = box_in.get("hands")
            if not isinstance(hands_in, list) or not hands_in:
                raise OutcomeInvalid(f"box {box}: hands is a list of card lists")
            hands = [parse_cards(h, minimum=2, what=f"box {box} hand {i + 1}")
                     for i, h in enumerate(hands_in)]
            boxes[box] = {"hands": hands, "surrender": bool(box_in.get("surrender", False)),
                          "even_money": bool(box_in.get("even_money", False))}
        main_boxes = {str(b.spec["box"]) for b in bets if b.kind == "box"}
        if main_boxes - set(boxes):
            raise OutcomeInvalid(f"no cards for box(es) {', '.join(sorted(main_boxes - set(boxes)))}")
        if set(boxes) - main_boxes:
            raise OutcomeInvalid(f"cards for box(es) without a bet: "
                                 f"{', '.join(sorted(set(boxes) - main_boxes))}")
        dealer_natural = is_natural(dealer[:2]) if len(dealer) >= 2 else False
        live = False
        for box, facts in boxes.items():
            live |= _check_box(box, facts, by_box[box], dealer, rules, dealer_natural)
        _check_dealer(dealer, rules, live)
        return {"dealer": dealer, "boxes": boxes}

    # -- settlement --------------------------------------------------------

    def settle(self, bets, outcome, tables, config) -> list[Settled]:
        by_box: dict[str, list[BetIn]] = defaultdict(list)
        for bet in bets:
            by_box[str(bet.spec["box"])].append(bet)
        settled: list[Settled] = []
        for box, box_bets in by_box.items():
            settled += _settle_box(box_bets, outcome["boxes"][box], outcome["dealer"],
                                   tables, config)
        return settled


def _check_box(box: str, facts: dict, bets: Sequence[BetIn], dealer: Sequence[str],
               rules: Row, dealer_natural: bool) -> bool:
    """Verify one box's hands against its stakes and the version; True if still live."""
    hands = facts["hands"]
    splits = sorted(b.spec["hand"] for b in bets if b.kind == "split")
    doubles = {b.spec["hand"] for b in bets if b.kind == "double"}
    insured = any(b.kind == "insurance" for b in bets)
    where = f"box {box}"
    if splits != list(range(2, len(hands) + 1)):
        raise OutcomeInvalid(f"{where}: {len(hands)} hands need split stakes for hands 2 to"
                             f" {len(hands)}, found {splits}")
    if len(hands) > rules["hands_max"]:
        raise OutcomeInvalid(f"{where}: at most {rules['hands_max']} hands ({rules['cite']})")
    if doubles - set(range(1, len(hands) + 1)):
        raise OutcomeInvalid(f"{where}: a double stake on a hand that does not exist")
    split = len(hands) > 1
    if split and len({value(h[0]) for h in hands}) != 1:
        raise OutcomeInvalid(f"{where}: split hands start with cards of equal value")
    if insured and rules.get("insured_no_double_split") and (split or doubles):
        raise OutcomeInvalid(f"{where}: an insured hand cannot be doubled or split"
                             f" ({rules['cite']})")
    peek_blackjack = rules["dealer_cards"] in PEEK and dealer_natural
    if peek_blackjack and (split or doubles or any(len(h) > 2 for h in hands)):
        raise OutcomeInvalid(f"{where}: the dealer's blackjack ended the round before any"
                             " further card (002:L1016)")
    if facts["surrender"]:
        if not rules["surrender"]:
            raise OutcomeInvalid(f"{where}: version {rules['id']} offers no surrender")
        if split or doubles or len(hands[0]) != 2 or up_class(dealer[0]) == "A":
            raise OutcomeInvalid(f"{where}: surrender only on the first two cards and not"
                                 " against an ace (002:L978-984)")
    if facts["even_money"]:
        if split or not is_natural(hands[0]) or up_class(dealer[0]) not in rules["even_money_up"]:
            raise OutcomeInvalid(f"{where}: even money is offered on a blackjack against"
                                 f" {rules['even_money_up'] or 'no up card'} ({rules['cite']})")
    live = False
    for number, cards in enumerate(hands, start=1):
        what = f"{where} hand {number}"
        for i in range(2, len(cards)):
            if best_total(cards[:i]) >= 21:
                raise OutcomeInvalid(f"{what}: no card is drawn on 21 or more")
        if split and hands[0][0][0] == "A" and len(cards) != 2:
            raise OutcomeInvalid(f"{what}: split aces get one card each (002:L822)")
        if number in doubles:
            _check_double(what, cards, split, rules, hands)
        natural = not split and is_natural(cards)
        if not natural and best_total(cards) <= 21 and not facts["surrender"]:
            live = True
    return live


def _check_double(what: str, cards: Sequence[str], split: bool, rules: Row,
                  hands: Sequence[Sequence[str]]) -> None:
    if len(cards) != 3:
        raise OutcomeInvalid(f"{what}: a doubled hand takes exactly one card")
    if split and not rules["double_after_split"]:
        raise OutcomeInvalid(f"{what}: no doubling after a split ({rules['cite']})")
    if split and hands[0][0][0] == "A":
        raise OutcomeInvalid(f"{what}: split aces cannot be doubled (002:L822)")
    first_two = cards[:2]
    if not split and is_natural(first_two):
        raise OutcomeInvalid(f"{what}: a blackjack cannot be doubled")
    if rules["double"] == "nine_to_eleven" and hard_total(first_two) not in (9, 10, 11):
        raise OutcomeInvalid(f"{what}: version {rules['id']} doubles only on 9, 10 or 11"
                             f" ({rules['cite']})")


def _check_dealer(dealer: Sequence[str], rules: Row, live: bool) -> None:
    if len(dealer) < 2:
        raise OutcomeInvalid("the dealer completes at least two cards")
    for i in range(2, len(dealer)):
        if best_total(dealer[:i]) >= 17:
            raise OutcomeInvalid("the dealer stands on 17 or more (002:L804, decision"
                                 " games.blackjack.soft_17)")
    natural = is_natural(dealer[:2])
    if live and not natural and best_total(dealer) < 17:
        raise OutcomeInvalid("the dealer draws on 16 or less (002:L804)")


def hand_total(cards: Sequence[str], doubled: bool, rules: Row) -> int:
    """The hand's total; a 9-11 double keeps its ace at 1 (002:L816)."""
    if doubled and rules["double"] == "nine_to_eleven":
        return hard_total(cards)
    return best_total(cards)


def _settle_box(bets: Sequence[BetIn], facts: Mapping[str, Any], dealer: Sequence[str],
                tables, config) -> list[Settled]:
    rules = config["rules"]
    payouts = tables[PAYOUTS]
    hands = facts["hands"]
    split = len(hands) > 1
    dealer_natural = is_natural(dealer[:2])
    dealer_total = best_total(dealer)
    doubles = {b.spec["hand"] for b in bets if b.kind == "double"}
    out: list[Settled] = []
    for bet in bets:
        if bet.kind == "insurance":
            row = find_row(payouts, "insurance")
            if up_class(dealer[0]) != "A" or (not split and is_natural(hands[0])):
                out.append(Settled(bet.bet_id, bet.stake_minor, bet.stake_minor, "void", None,
                                   None, "002:L826-832",
                                   {"reason": "insurance is offered only against an ace,"
                                              " and never on a blackjack"}))
            elif dealer_natural:
                out.append(pay(bet, PAYOUTS, row, dealer=list(dealer)))
            else:
                out.append(lose(bet, PAYOUTS, row, row["cite"], dealer=list(dealer)))
            continue
        if bet.kind == "side_game":
            out.append(_side_game(bet, hands, tables, config))
            continue
        number = 1 if bet.kind == "box" else bet.spec["hand"]
        cards = hands[number - 1]
        out.append(_settle_hand(bet, cards, number in doubles, split, facts, dealer,
                                dealer_natural, dealer_total, rules, payouts, config))
    return out


def _settle_hand(bet: BetIn, cards, doubled: bool, split: bool, facts, dealer,
                 dealer_natural: bool, dealer_total: int, rules: Row, payouts,
                 config) -> Settled:
    """One stake on one hand (the hand's own stake, or its double)."""
    facts_out = {"cards": list(cards), "dealer": list(dealer)}
    total = hand_total(cards, doubled, rules)
    facts_out["total"] = total
    facts_out["dealer_total"] = dealer_total
    natural = not split and is_natural(cards)
    win = find_row(payouts, "win")
    if facts["surrender"]:
        row = find_row(payouts, "surrender")
        return Settled(bet.bet_id, bet.stake_minor, bet.stake_minor // 2, "half", PAYOUTS,
                       row["id"], row["cite"], 0, facts_out)
    if facts["even_money"]:
        return pay(bet, PAYOUTS, find_row(payouts, "even_money"), **facts_out)
    if (rules["three_sevens"] and not split and len(cards) >= 3
            and all(c[0] == "7" for c in cards[:3])):
        return pay(bet, PAYOUTS, find_row(payouts, "three_sevens"), **facts_out)
    if total > 21:
        return lose(bet, PAYOUTS, win, "002:L808", bust=True, **facts_out)
    if natural:
        if dealer_natural:
            return push(bet, PAYOUTS, None, "002:L2705", **facts_out)
        row = find_row(payouts, "blackjack_" + config["blackjack_pays"].replace(":", "_"))
        return pay(bet, PAYOUTS, row, **facts_out)
    if dealer_natural:
        if (rules["lose_original_only"] and up_class(dealer[0]) == "T"
                and bet.kind in ("double", "split")):
            return push(bet, PAYOUTS, None, "002:L914", original_only=True, **facts_out)
        return lose(bet, PAYOUTS, win, "002:L832", dealer_blackjack=True, **facts_out)
    if rules["ten_card_charlie"] and len(cards) >= 10:
        return pay(bet, PAYOUTS, find_row(payouts, "ten_card_charlie"), **facts_out)
    bust_over = rules["dealer_bust_over"]
    if dealer_total > bust_over:
        return pay(bet, PAYOUTS, win, dealer_bust=True, **facts_out)
    if bust_over == 22 and dealer_total == 22:
        return push(bet, PAYOUTS, None, "002:L1078", dealer_22=True, **facts_out)
    if total > dealer_total:
        return pay(bet, PAYOUTS, win, **facts_out)
    if total < dealer_total:
        return lose(bet, PAYOUTS, win, win["cite"], **facts_out)
    ties = rules["ties"]
    pushes = (ties == "push" or (ties == "dealer_except_21" and total == 21)
              or (ties == "dealer_except_20_21" and total in (20, 21)))
    if pushes:
        return push(bet, PAYOUTS, None, rules["cite"], tie=True, **facts_out)
    return lose(bet, PAYOUTS, win, rules["cite"], tie=True, dealer_wins_ties=True, **facts_out)


def first_two(hands: Sequence[Sequence[str]]) -> list[str]:
    """The box's first two cards: hand 1's, or the two that were split."""
    if len(hands) > 1:
        return [hands[0][0], hands[1][0]]
    return list(hands[0][:2])


def side_game_combination(cards: Sequence[str]) -> list[str]:
    """Every side-game combination the two cards make, best first."""
    a, b = cards
    found = []
    if a[0] == b[0]:
        if a[1] == b[1]:
            found.append("pair_suited_aces" if a[0] == "A" else "pair_suited")
        if (a[1] in "hd") == (b[1] in "hd"):
            found.append("pair_same_colour")
        else:
            found.append("pair_mixed_colour")
    elif a[1] == b[1]:
        ranks = sorted("23456789TJQKA".index(c[0]) for c in cards)
        if ranks == [11, 12]:
            found.append("suited_ace_king")
        if ranks[1] - ranks[0] == 1:
            found.append("suited_consecutive")
        found.append("suited")
    return found


def _side_game(bet: BetIn, hands, tables, config) -> Settled:
    """Side games A-I pay only the highest combination of the first two cards."""
    letter = config["side_game"]
    rows = [row for row in tables[SIDE_GAMES] if row["game"] == letter]
    cards = first_two(hands)
    for combination in side_game_combination(cards):
        for row in rows:
            if row["combination"] == combination:
                return pay(bet, SIDE_GAMES, row, cards=cards)
    return lose(bet, SIDE_GAMES, None, "002:L1176", cards=cards, side_game=letter)
