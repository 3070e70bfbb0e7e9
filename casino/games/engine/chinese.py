"""Chinese poker in points: Open-Faced Chinese Poker (Veikkaus room) and Chinese
Poker (RAY casino), played for money at the table's point value (pure).

Each player sets 13 cards into a front (3), a middle (5) and a back (5)
hand; the back must be at least as good as the middle and the middle better
than the front, three-card straights and flushes not counting (000:L2662-
2665, 002:L1993). Lines are ranked by native_eval: `evaluate` for the five-
card lines, `evaluate_front` for the front; a hand that breaks the order is
fouled. A line against a line is compared on the same scale; the front
against the middle only for the foul (decision games.chinese.front_vs_middle).

Scoring, each player against each other player (000:L2633-2641):
- OFC: a point per line won, ties nothing, three more for all three lines
  (six from that opponent); bonuses (royalties, `bonus` rows, 000:L2768-2802)
  of a legal hand are collected from every opponent whatever the lines, the
  difference where both hold one (000:L2649-2655); a fouled hand loses six
  to every legal hand and pays their bonuses, wins none (000:L2668-2671); a
  player's net loss in a hand is at most 50 points, the 50 shared among the
  winners pro rata, the odd points after the button (000:L2686-2692).
- Chinese Poker at RAY, the scoring announced in the room (002:L1995):
  1-3 (two lines of three won is one point, all three three points), 2-4
  (a point a line and one for the majority) or 1-6 (a point a line and three
  more for all three); decision games.chinese_poker.scoring.

Money (decision games.chinese.escrow): each playing seat stakes the most it
can lose in a hand (`seat` bet: the table's `table_points` x point value),
and gets back its stake plus its net points x the point value, so the
house's result is nil and the stakes are conserved.
"""

from __future__ import annotations

from collections import Counter
from typing import Any, Mapping, Sequence

import native_eval

from .common import (
    BetInvalid,
    BetKind,
    OutcomeInvalid,
    Settled,
    distinct,
    parse_cards,
    rank_of,
    result_of,
)

LINES = ("front", "middle", "back")
FRONT_CATEGORIES = ("high_card", "pair", "three_of_a_kind")
FIVE_CATEGORIES = ("high_card", "pair", "two_pair", "three_of_a_kind", "straight", "flush",
                   "full_house", "four_of_a_kind", "straight_flush")
ROYAL_VALUE = 7462


def _cards(cards: str | Sequence[str]) -> list[str]:
    return cards.split() if isinstance(cards, str) else list(cards)


def line_values(hand: Mapping[str, str | Sequence[str]]) -> dict[str, int]:
    """native_eval's values of the three lines (front on its own scale)."""
    return {"front": native_eval.evaluate_front(_cards(hand["front"])),
            "middle": native_eval.evaluate(_cards(hand["middle"])),
            "back": native_eval.evaluate(_cards(hand["back"]))}


def front_shape(value: int) -> tuple[str, tuple[int, ...]]:
    """A front value's category and its ranks (2..14), strongest group first."""
    category = FRONT_CATEGORIES[value >> 12]
    packed = value & 0xFFF
    if category == "three_of_a_kind":
        return category, (packed + 2,)
    if category == "pair":
        return category, ((packed >> 4) + 2, (packed & 0xF) + 2)
    return category, ((packed >> 8) + 2, ((packed >> 4) & 0xF) + 2, (packed & 0xF) + 2)


def five_shape(cards: Sequence[str], value: int) -> tuple[str, tuple[int, ...]]:
    """A five-card line's category (native_eval) and its ranks, strongest group first."""
    counts = Counter(rank_of(c) for c in _cards(cards))
    order = tuple(sorted(counts, key=lambda r: (counts[r], r), reverse=True))
    return native_eval.category(value), order


def fouled(hand: Mapping[str, Sequence[str]], values: Mapping[str, int]) -> bool:
    """The back below the middle, or a front not below the middle (000:L2662-2665)."""
    if values["back"] < values["middle"]:
        return True
    front_category, front_ranks = front_shape(values["front"])
    middle_category, middle_ranks = five_shape(hand["middle"], values["middle"])
    a, b = FIVE_CATEGORIES.index(front_category), FIVE_CATEGORIES.index(middle_category)
    if a != b:
        return a > b
    # Same category: the front is better only if its ranks beat the middle's
    # first ones; equal ranks leave the middle ahead on its extra cards.
    return front_ranks > middle_ranks[:len(front_ranks)]


def bonus_points(hand, values, rows) -> dict[str, int]:
    """A legal hand's bonus (royalty) points per line, from the rulebook rows."""
    points = {line: 0 for line in LINES}
    category, ranks = front_shape(values["front"])
    for row in rows:
        line = row["line"]
        if line == "front":
            if row["hand"] == category and row["rank"] == ranks[0]:
                points["front"] = max(points["front"], int(row["points"]))
            continue
        value = values[line]
        name = "royal_flush" if value == ROYAL_VALUE else native_eval.category(value)
        if row["hand"] == name:
            points[line] = max(points[line], int(row["points"]))
    return points


def pair_points(a: Mapping[str, int], b: Mapping[str, int], scoring: Mapping[str, Any]
                ) -> tuple[int, int, int]:
    """Points a wins from b on the lines (both legal), and each side's lines won."""
    won_a = sum(a[line] > b[line] for line in LINES)
    won_b = sum(b[line] > a[line] for line in LINES)
    if scoring["id"] == "one_to_three":
        # 002:L1995: two of three lines one point, all three three points.
        points = 3 if won_a == 3 else -3 if won_b == 3 else (won_a == 2) - (won_b == 2)
        return points, won_a, won_b
    # Per line, with a bonus for the majority of lines and one for all three
    # (002:L1995-1997: the scoring announced in the room; OFC 000:L2633-2641).
    per_line = int(scoring["points_per_line"])
    scoop = int(scoring["scoop_bonus"])
    majority = int(scoring.get("majority_bonus", 0))
    points = per_line * (won_a - won_b)
    points += majority if won_a > won_b else -majority if won_b > won_a else 0
    points += scoop if won_a == 3 else -scoop if won_b == 3 else 0
    return points, won_a, won_b


def cap_losses(owed: dict[tuple[str, str], int], seats_from_button: Sequence[str],
               cap: int) -> dict[tuple[str, str], int]:
    """No player's net loss above `cap`: their debts shared pro rata (000:L2686-2692).

    `owed[(a, b)]` is what a pays b (positive). A player whose net loss is
    over the cap pays `cap` plus what they win, shared among their creditors
    in proportion to their debts, rounded down, the points left over to the
    largest remainders, ties to the seats first after the button. Repeated
    until no player is over (a cut only lowers debts, so it ends).
    """
    owed = {k: v for k, v in owed.items() if v > 0}
    position = {seat: n for n, seat in enumerate(seats_from_button)}
    for _ in range(64 * max(len(seats_from_button), 1)):
        changed = False
        for seat in seats_from_button:
            debts = {b: v for (a, b), v in owed.items() if a == seat}
            wins = sum(v for (a, b), v in owed.items() if b == seat)
            total = sum(debts.values())
            allowed = cap + wins
            if total <= allowed:
                continue
            shares = {b: allowed * v // total for b, v in debts.items()}
            left = allowed - sum(shares.values())
            ranked = sorted(debts, key=lambda b: (-(allowed * debts[b] % total), position[b]))
            for b in ranked[:left]:
                shares[b] += 1
            for b, v in shares.items():
                owed[(seat, b)] = v
            changed = True
        if not changed:
            return {k: v for k, v in owed.items() if v > 0}
    raise OutcomeInvalid("the loss cap did not settle")     # cannot happen: debts only fall


class _Chinese:
    """The shared table, bets and outcome of both games."""

    category = "pvp"      # between players: no online loss cap (002:L3082)
    id = ""
    scoring_table = ""
    bonus_table: str | None = None
    # The Part IV row these games are checked against at a RAY venue: poker
    # played between players, its opening stake (decision games.chinese.escrow).
    part_iv_game = "poker_pvp"
    seats_max = 5

    @property
    def tables(self) -> tuple[str, ...]:
        return (self.scoring_table,) + ((self.bonus_table,) if self.bonus_table else ())

    def _scoring(self, tables, config) -> Mapping[str, Any]:
        rows = tables[self.scoring_table]
        wanted = config.get("scoring", rows[0]["id"]) if config else rows[0]["id"]
        for row in rows:
            if row["id"] == wanted:
                return row
        raise BetInvalid(f"{self.id} posts no scoring {wanted!r}; one of"
                         f" {', '.join(r['id'] for r in rows)}")

    def configure(self, config, tables):
        value = config.get("point_value_minor")
        if type(value) is not int or value <= 0:
            raise BetInvalid("point_value_minor (the value of a point, in cents) is required"
                             " (000:L2682)")
        if set(config) - {"point_value_minor", "scoring"}:
            raise BetInvalid("takes point_value_minor and scoring")
        scoring = self._scoring(tables, config)
        return {"point_value_minor": value, "scoring": scoring["id"],
                "stake_minor": int(scoring["table_points"]) * value}

    def bet_kind(self, kind, spec, tables, config) -> BetKind:
        if kind != "seat":
            raise BetInvalid(f"{self.id} has one bet, seat (the points at stake in a hand)")
        seat = spec.get("seat")
        if type(seat) is not int or not 1 <= seat <= self.seats_max:
            raise BetInvalid(f"seat must be a whole number from 1 to {self.seats_max}")
        return BetKind("seat", {"seat": seat}, "opening_stake", f"seat:{seat}")

    def check_outcome(self, outcome, config, bets, tables) -> dict[str, Any]:
        scoring = self._scoring(tables, config)
        hands_in = outcome.get("hands")
        if not isinstance(hands_in, Mapping):
            raise OutcomeInvalid("hands maps each seat to its front, middle and back")
        seats = {str(b.spec["seat"]) for b in bets}
        if len(seats) != len(bets):
            raise OutcomeInvalid("one stake per seat")
        if not int(scoring["players_min"]) <= len(seats) <= int(scoring["players_max"]):
            raise OutcomeInvalid(f"{scoring['players_min']}-{scoring['players_max']} players"
                                 f" play a hand ({scoring['cite']})")
        for bet in bets:
            if bet.stake_minor != config["stake_minor"]:
                raise OutcomeInvalid(f"seat {bet.spec['seat']} has {bet.stake_minor} at stake,"
                                     f" not the table's {config['stake_minor']}"
                                     " (decision games.chinese.escrow)")
        hands: dict[str, dict[str, list[str]]] = {}
        for key, hand in hands_in.items():
            if str(key) not in seats or not isinstance(hand, Mapping):
                raise OutcomeInvalid(f"seat {key}: no stake, or not a front/middle/back hand")
            hands[str(key)] = {line: parse_cards(hand.get(line), count=3 if line == "front"
                                                 else 5, what=f"seat {key} {line}")
                               for line in LINES}
        if set(hands) != seats:
            raise OutcomeInvalid(f"no hand for seat(s) {', '.join(sorted(seats - set(hands)))}")
        distinct([c for hand in hands.values() for line in LINES for c in hand[line]],
                 "one deck")
        button = outcome.get("button")
        if type(button) is not int or not 1 <= button <= self.seats_max:
            raise OutcomeInvalid(f"button must be a seat from 1 to {self.seats_max}")
        return {"hands": hands, "button": button}

    def settle(self, bets, outcome, tables, config) -> list[Settled]:
        scoring = self._scoring(tables, config)
        hands = outcome["hands"]
        values = {seat: line_values(hand) for seat, hand in hands.items()}
        foul = {seat: fouled(hands[seat], values[seat]) for seat in hands}
        bonus_rows = tables[self.bonus_table] if self.bonus_table else []
        bonus = {seat: (bonus_points(hands[seat], values[seat], bonus_rows)
                        if bonus_rows and not foul[seat] else {line: 0 for line in LINES})
                 for seat in hands}
        seats = sorted(hands, key=int)
        button = outcome["button"]
        from_button = sorted(seats, key=lambda s: (int(s) - button - 1) % self.seats_max)
        owed: dict[tuple[str, str], int] = {}
        lines_won: dict[str, dict[str, list[int]]] = {s: {} for s in seats}
        for i, a in enumerate(seats):
            for b in seats[i + 1:]:
                points = self._pair(a, b, values, foul, bonus, scoring, lines_won)
                if points > 0:
                    owed[(b, a)] = points
                elif points < 0:
                    owed[(a, b)] = -points
        raw = dict(owed)
        cap = scoring.get("loss_points_max")
        if cap is not None:
            owed = cap_losses(owed, from_button, int(cap))
        value = config["point_value_minor"]
        settled = []
        for bet in bets:
            seat = str(bet.spec["seat"])
            net = (sum(v for (a, b), v in owed.items() if b == seat)
                   - sum(v for (a, b), v in owed.items() if a == seat))
            uncapped = (sum(v for (a, b), v in raw.items() if b == seat)
                        - sum(v for (a, b), v in raw.items() if a == seat))
            returned = bet.stake_minor + net * value
            detail = {"points": net, "points_before_cap": uncapped, "fouled": foul[seat],
                      "bonus": bonus[seat], "lines_won": lines_won[seat],
                      "point_value_minor": value, "front": front_shape(values[seat]["front"])[0],
                      "middle": native_eval.category(values[seat]["middle"]),
                      "back": native_eval.category(values[seat]["back"])}
            if cap is not None and net != uncapped:
                detail["loss_cap"] = {"points_max": int(cap), "cite": scoring["cap_cite"]}
            settled.append(Settled(bet.bet_id, bet.stake_minor, returned,
                                   result_of(bet.stake_minor, returned), self.scoring_table,
                                   scoring["id"], scoring["cite"], 0, detail))
        return settled

    def _pair(self, a, b, values, foul, bonus, scoring, lines_won) -> int:
        """Points a wins from b (negative: b wins)."""
        if foul[a] and foul[b]:
            return 0
        if foul[a] or foul[b]:
            penalty = int(scoring["foul_points"])
            loser, winner = (a, b) if foul[a] else (b, a)
            points = penalty + sum(bonus[winner].values())
            lines_won[winner][loser] = [3, 0]
            lines_won[loser][winner] = [0, 3]
            return -points if loser == a else points
        points, won_a, won_b = pair_points(values[a], values[b], scoring)
        lines_won[a][b], lines_won[b][a] = [won_a, won_b], [won_b, won_a]
        points += sum(bonus[a].values()) - sum(bonus[b].values())
        return points


class OpenFacedChinesePoker(_Chinese):
    """Veikkaus's cash game (000:L2608-2692)."""

    id = "open_faced_chinese_poker"
    scoring_table = "games.open_faced_chinese_poker.scoring"
    bonus_table = "games.open_faced_chinese_poker.bonus"


class ChinesePoker(_Chinese):
    """RAY's Chinese Poker (002:L1989-1997): the scoring the table announces
    (config `scoring`): 1-3 (the default), 2-4 or 1-6 (rows of
    games.chinese_poker.scoring, decision games.chinese_poker.scoring)."""

    id = "chinese_poker"
    scoring_table = "games.chinese_poker.scoring"
    seats_max = 4
