"""Dice games: Lucky Dice (two dice, halls) and Sic Bo (three dice, casino).

Lucky Dice (002:L197-219): the red die picks one of six groups, the green
die one of six squares in it, so the 36 squares are equally likely (square =
6 x (red - 1) + green). Number-field bets cover 1, 2, 3, 4 or 6 squares
(plein 30 ... simple 4); the sum field bets on one total (3 or 11: 15, ...),
on any double (4), or on a total under or over 7 (1); a 7 loses both
(decision games.lucky_dice.sum_bets).

Sic Bo (002:L1641-1716): small/big/even/odd lose on any triple (002:L1696);
a single number pays 1, 2 or 12 by how many dice show it; two-dice
combination 6; double 11; any triple 30; specific triple 180; totals 4-17;
three-of-four 7; double plus a specific other number 50 (decision
games.sic_bo.double_and_number); three specific numbers 30.
"""

from __future__ import annotations

from collections import Counter
from typing import Any, Mapping, Sequence

from .base import no_config
from .common import (
    BetIn,
    BetInvalid,
    BetKind,
    OutcomeInvalid,
    Settled,
    find_row,
    int_in,
    lose,
    pay,
    spec_int,
    spec_ints,
)

LUCKY = "games.lucky_dice.payouts"
SIC_BO = "games.sic_bo.payouts"


# ---------------------------------------------------------------------------
# Lucky Dice
# ---------------------------------------------------------------------------

NUMBER_FIELD = ("plein", "cheval", "transversal", "carre", "simple")


def square(red: int, green: int) -> int:
    return 6 * (red - 1) + green


class LuckyDice:
    id = "lucky_dice"
    tables = (LUCKY,)

    def configure(self, config, tables):
        return no_config(config)

    def bet_kind(self, kind, spec, tables, config) -> BetKind:
        rows = {row["id"]: row for row in tables[LUCKY]}
        if kind in NUMBER_FIELD:
            row = rows[kind]
            squares = spec_ints(spec, "squares", 1, 36)
            if len(squares) != row["squares"]:
                raise BetInvalid(f"a {kind} covers {row['squares']} squares")
            return BetKind(kind, {"squares": squares}, row["bet_unit"],
                           f"{kind}:{'-'.join(map(str, squares))}")
        if kind == "sum":
            total = spec_int(spec, "total", 2, 12)
            row = _sum_row(tables[LUCKY], total)
            return BetKind(kind, {"total": total}, row["bet_unit"], f"sum:{total}")
        if kind in ("all_pairs", "under_7", "over_7"):
            return BetKind(kind, {}, rows[kind]["bet_unit"], kind)
        raise BetInvalid(f"lucky dice has no bet {kind!r}")

    def check_outcome(self, outcome, config, bets, tables) -> dict[str, Any]:
        return {"red": int_in(outcome.get("red"), 1, 6, "red"),
                "green": int_in(outcome.get("green"), 1, 6, "green")}

    def settle(self, bets, outcome, tables, config) -> list[Settled]:
        return [settle_lucky(bet, outcome["red"], outcome["green"], tables[LUCKY])
                for bet in bets]


def _sum_row(rows, total: int):
    for row in rows:
        if total in row.get("totals", ()):
            return row
    raise BetInvalid(f"the sum field has no bet on the total {total}")


def settle_lucky(bet: BetIn, red: int, green: int, rows) -> Settled:
    """Settle one Lucky Dice bet on the two dice."""
    total = red + green
    facts = {"red": red, "green": green}
    if bet.kind in NUMBER_FIELD:
        row = find_row(rows, bet.kind)
        won = square(red, green) in bet.spec["squares"]
    elif bet.kind == "sum":
        row = _sum_row(rows, bet.spec["total"])
        won = total == bet.spec["total"]
    else:
        row = find_row(rows, bet.kind)
        won = {"all_pairs": red == green, "under_7": total < 7, "over_7": total > 7}[bet.kind]
    return pay(bet, LUCKY, row, **facts) if won else lose(bet, LUCKY, row, row["cite"], **facts)


# ---------------------------------------------------------------------------
# Sic Bo
# ---------------------------------------------------------------------------

SIMPLE = ("small", "big", "even", "odd", "any_triple")


class SicBo:
    id = "sic_bo"
    tables = (SIC_BO,)

    def configure(self, config, tables):
        return no_config(config)

    def bet_kind(self, kind, spec, tables, config) -> BetKind:
        rows = {row["id"]: row for row in tables[SIC_BO]}
        clean: dict[str, Any]
        if kind in SIMPLE:
            clean = {}
        elif kind in ("single", "double", "triple"):
            clean = {"number": spec_int(spec, "number", 1, 6)}
        elif kind == "two_dice":
            numbers = spec_ints(spec, "numbers", 1, 6)
            if len(numbers) != 2:
                raise BetInvalid("a two-dice combination names two different numbers")
            clean = {"numbers": numbers}
        elif kind == "total":
            clean = {"total": spec_int(spec, "total", 4, 17)}
        elif kind == "three_of_four":
            numbers = spec_ints(spec, "numbers", 1, 6)
            if "".join(map(str, numbers)) not in rows[kind]["sets"]:
                raise BetInvalid(f"three-of-four is one of {rows[kind]['sets']}")
            clean = {"numbers": numbers}
        elif kind == "double_and_number":
            pair, number = spec_int(spec, "pair", 1, 6), spec_int(spec, "number", 1, 6)
            if pair == number:
                raise BetInvalid("the specific number must differ from the pair"
                                 " (decision games.sic_bo.double_and_number)")
            clean = {"pair": pair, "number": number}
        elif kind == "three_numbers":
            numbers = spec_ints(spec, "numbers", 1, 6)
            if len(numbers) != 3:
                raise BetInvalid("three specific numbers are three different numbers")
            clean = {"numbers": numbers}
        else:
            raise BetInvalid(f"sic bo has no bet {kind!r}")
        row_id = f"total_{clean['total']}" if kind == "total" else (
            "single_one" if kind == "single" else kind)
        if row_id not in rows:
            raise BetInvalid(f"this table's sic bo has no bet {kind!r}")
        position = kind + "".join(f":{k}={v}" for k, v in sorted(clean.items()))
        return BetKind(kind, clean, rows[row_id]["bet_unit"], position)

    def check_outcome(self, outcome, config, bets, tables) -> dict[str, Any]:
        dice = outcome.get("dice")
        if not isinstance(dice, list) or len(dice) != 3:
            raise OutcomeInvalid("dice must be a list of three numbers 1-6")
        return {"dice": sorted(int_in(d, 1, 6, "a die") for d in dice)}

    def settle(self, bets, outcome, tables, config) -> list[Settled]:
        return [settle_sic_bo(bet, outcome["dice"], tables[SIC_BO]) for bet in bets]


def settle_sic_bo(bet: BetIn, dice: Sequence[int], rows) -> Settled:
    """Settle one Sic Bo bet on three dice: the row that pays, or the bet's row lost."""
    counts = Counter(dice)
    total = sum(dice)
    triple = len(counts) == 1
    spec = bet.spec
    facts = {"dice": list(dice)}
    kind = bet.kind
    row_id: str = kind
    won = False
    if kind == "small":
        won = 4 <= total <= 10 and not triple
    elif kind == "big":
        won = 11 <= total <= 17 and not triple
    elif kind == "even":
        won = total % 2 == 0 and not triple
    elif kind == "odd":
        won = total % 2 == 1 and not triple
    elif kind == "single":
        hits = counts[spec["number"]]
        row_id = {0: "single_one", 1: "single_one", 2: "single_two", 3: "single_three"}[hits]
        won = hits > 0
    elif kind == "two_dice":
        won = all(counts[n] >= 1 for n in spec["numbers"])
    elif kind == "double":
        won = counts[spec["number"]] >= 2
    elif kind == "any_triple":
        won = triple
    elif kind == "triple":
        won = counts[spec["number"]] == 3
    elif kind == "total":
        row_id = f"total_{spec['total']}"
        won = total == spec["total"]
    elif kind == "three_of_four":
        won = len(counts) == 3 and set(counts) <= set(spec["numbers"])
    elif kind == "double_and_number":
        won = counts[spec["pair"]] == 2 and counts[spec["number"]] == 1
    elif kind == "three_numbers":
        won = set(counts) == set(spec["numbers"])
    row = find_row(rows, row_id)
    return pay(bet, SIC_BO, row, **facts) if won else lose(bet, SIC_BO, row, row["cite"], **facts)
