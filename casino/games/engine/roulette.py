"""Roulette, single zero: the bets' numbers and their settlement (pure).

Part I (halls) pays straight 30, split 15, street 10, corner 7, six-line 4,
dozen and column 2, the even chances 1 (002:L181-193); when zero wins every
bet paying 1x or 2x loses (002:L177). Part II (casino) pays 35/17/11/8/5,
quarter 3, dozen and column 2, even chances 1 (002:L1590-1598), and on zero
the even chances lose half (002:L1602). Which of these applies is the
venue's rulebook table `games.roulette.payouts`: its rows carry the pays,
the Part IV cap unit and the zero rule (`on_zero`), so one engine serves both.

Bets (`spec`): straight/split/street/corner/six_line name their `numbers`,
checked against the layout (three columns of twelve rows, zero above);
dozen, column and quarter name `which` (1-3, 1-3, 1-4); red, black, even,
odd, low and high need nothing.

A casino table may post the 38-pocket wheel (table option `wheel`:
`double_zero`, 002:L1573): 00 is written "00" (37 inside the engine), it
loses or halves the bets zero does (002:L1602), and the five-number bet
0-00-1-2-3 (`five_number`, 6 x, 002:L1594, L1604) is offered on it alone;
the zero-side bets are those of decision games.roulette.double_zero.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from .common import (
    BetIn,
    BetInvalid,
    BetKind,
    Settled,
    Tables,
    find_row,
    half,
    int_in,
    lose,
    pay,
    spec_int,
    spec_ints,
)

TABLE = "games.roulette.payouts"
DOUBLE_ZERO = 37          # "00" on the 38-pocket wheel (002:L1573)
WHEELS = ("single_zero", "double_zero")
RED = frozenset({1, 3, 5, 7, 9, 12, 14, 16, 18, 19, 21, 23, 25, 27, 30, 32, 34, 36})
NUMBERS = range(0, 37)
INSIDE = ("straight", "split", "street", "corner", "six_line")
OUTSIDE = {
    "red": lambda: RED,
    "black": lambda: frozenset(range(1, 37)) - RED,
    "even": lambda: frozenset(range(2, 37, 2)),
    "odd": lambda: frozenset(range(1, 37, 2)),
    "low": lambda: frozenset(range(1, 19)),
    "high": lambda: frozenset(range(19, 37)),
}


def _inside_sets() -> dict[str, set[frozenset[int]]]:
    """Every legal inside bet on the single-zero layout, by kind."""
    sets: dict[str, set[frozenset[int]]] = {k: set() for k in INSIDE}
    sets["straight"] = {frozenset({n}) for n in NUMBERS}
    for n in range(1, 37):
        if n % 3 != 0:
            sets["split"].add(frozenset({n, n + 1}))
        if n <= 33:
            sets["split"].add(frozenset({n, n + 3}))
        if n % 3 == 1:
            sets["street"].add(frozenset({n, n + 1, n + 2}))
            if n <= 31:
                sets["six_line"].add(frozenset(range(n, n + 6)))
        if n % 3 != 0 and n <= 32:
            sets["corner"].add(frozenset({n, n + 1, n + 3, n + 4}))
    # Zero's neighbours (decision games.roulette.first_four).
    sets["split"] |= {frozenset({0, 1}), frozenset({0, 2}), frozenset({0, 3})}
    sets["street"] |= {frozenset({0, 1, 2}), frozenset({0, 2, 3})}
    sets["corner"].add(frozenset({0, 1, 2, 3}))
    return sets


INSIDE_SETS = _inside_sets()


def _double_zero_sets() -> dict[str, set[frozenset[int]]]:
    """The 38-pocket layout: 0 and 00 side by side above the first row.

    Decision games.roulette.double_zero: splits 0-1, 0-2, 00-2, 00-3 and 0-00;
    streets 0-1-2, 0-00-2 and 00-2-3; the five-number bet 0-00-1-2-3; no
    first-four corner.
    """
    sets = {k: set(v) for k, v in INSIDE_SETS.items()}
    zz = DOUBLE_ZERO
    sets["straight"].add(frozenset({zz}))
    sets["split"] -= {frozenset({0, 3})}
    sets["split"] |= {frozenset({zz, 2}), frozenset({zz, 3}), frozenset({0, zz})}
    sets["street"] -= {frozenset({0, 2, 3})}
    sets["street"] |= {frozenset({0, zz, 2}), frozenset({zz, 2, 3})}
    sets["corner"] -= {frozenset({0, 1, 2, 3})}
    sets["five_number"] = {frozenset({0, zz, 1, 2, 3})}
    return sets


DOUBLE_ZERO_SETS = _double_zero_sets()


def _numbers_in(spec: Mapping[str, Any]) -> dict[str, Any]:
    """The spec with "00" read as the engine's 37."""
    numbers = spec.get("numbers")
    if isinstance(numbers, list):
        return {**spec, "numbers": [DOUBLE_ZERO if n == "00" else n for n in numbers]}
    return dict(spec)


def covered(kind: str, spec: Mapping[str, Any], wheel: str = "single_zero"
            ) -> frozenset[int]:
    """The numbers a bet covers; BetInvalid if it is not a bet on the layout."""
    if kind in INSIDE or kind == "five_number":
        double = wheel == "double_zero"
        sets = DOUBLE_ZERO_SETS if double else INSIDE_SETS
        if kind not in sets:
            raise BetInvalid("the five-number bet is played on the 38-pocket wheel only"
                             " (002:L1604)")
        numbers = frozenset(spec_ints(_numbers_in(spec) if double else spec, "numbers", 0,
                                      DOUBLE_ZERO if double else 36))
        if numbers not in sets[kind]:
            raise BetInvalid(f"{sorted(numbers)} is not a {kind} on the layout")
        return numbers
    if kind == "dozen":
        which = spec_int(spec, "which", 1, 3)
        return frozenset(range(12 * which - 11, 12 * which + 1))
    if kind == "column":
        which = spec_int(spec, "which", 1, 3)
        return frozenset(range(which, 37, 3))
    if kind == "quarter":
        which = spec_int(spec, "which", 1, 4)
        return frozenset(range(9 * which - 8, 9 * which + 1))
    if kind in OUTSIDE:
        return OUTSIDE[kind]()
    raise BetInvalid(f"roulette has no bet {kind!r}")


class Roulette:
    id = "roulette"
    tables = (TABLE,)

    def configure(self, config, tables):
        if not config:
            return {}
        wheel = config.get("wheel")
        if set(config) != {"wheel"} or wheel not in WHEELS:
            raise BetInvalid("roulette takes `wheel`: single_zero or double_zero (002:L1573)")
        if wheel == "double_zero" and not any(r["id"] == "five_number" for r in tables[TABLE]):
            raise BetInvalid("this venue's rulebook posts no 38-pocket wheel")
        return {"wheel": wheel} if wheel == "double_zero" else {}

    def bet_kind(self, kind, spec, tables, config) -> BetKind:
        rows = {row["id"]: row for row in tables[TABLE]}
        if kind not in rows:
            raise BetInvalid(f"this table's roulette has no bet {kind!r}")
        wheel = config.get("wheel", "single_zero")
        numbers = covered(kind, spec, wheel)
        row = rows[kind]
        if len(numbers) != row["numbers"]:
            raise BetInvalid(f"a {kind} covers {row['numbers']} numbers")
        clean = {"numbers": sorted(numbers)} if kind in INSIDE or kind == "five_number" else (
            {"which": spec["which"]} if "which" in spec else {})
        return BetKind(kind, clean, row["bet_unit"],
                       f"{kind}:{'-'.join(map(str, sorted(numbers)))}")

    def check_outcome(self, outcome, config, bets, tables) -> dict[str, Any]:
        if config.get("wheel") == "double_zero":
            number = outcome.get("number")
            if number == "00":
                return {"number": DOUBLE_ZERO}
            return {"number": int_in(number, 0, 36, "number (or \"00\")")}
        return {"number": int_in(outcome.get("number"), 0, 36, "number")}

    def settle(self, bets: Sequence[BetIn], outcome, tables: Tables, config) -> list[Settled]:
        number = outcome["number"]
        rows = tables[TABLE]
        wheel = config.get("wheel", "single_zero")
        return [settle_bet(bet, number, rows, wheel) for bet in bets]


def settle_bet(bet: BetIn, number: int, rows, wheel: str = "single_zero") -> Settled:
    """Settle one roulette bet on the winning number (0 and 00 alike, 002:L1602)."""
    row = find_row(rows, bet.kind)
    if number in covered(bet.kind, bet.spec, wheel):
        return pay(bet, TABLE, row, number=number)
    if number in (0, DOUBLE_ZERO) and row["on_zero"] == "half":
        return half(bet, TABLE, row, number=number)
    return lose(bet, TABLE, row, row["cite"], number=number)
