"""The buy-in rules that look past one table: the evening and Banzai (pure).

A buy-in is checked against the table's own range (000:L535-546), then
against what the player did earlier on the same gaming day ("evening") at
the venue, and, at Banzai tables, in the last half hour:

- One night, one stack (000:L306-324, L549-551): a player who left a table
  and sits down again the same evening at a table of the same betting
  structure brings the stack they left with (capped at the new table's
  maximum when the stakes differ), never less than the table minimum. A
  different structure starts afresh.
- The short buy-in (000:L557-560; 003:L122): once per evening, in pot limit,
  a player who has run out of chips may buy in for at least half the
  minimum, but not as the first buy-in of the evening.
- Coming back within the hour (003:L129): a player who left a table and
  sits down at the same table again less than an hour later brings at
  least the stack they left with.
- Banzai (001:L221-223): a stack of at most 10 big blinds on joining and
  after any top-up; at most two Banzai tables of one stake level at once
  (decision banzai.same_stack); leaving with more than 10 big blinds and
  joining a Banzai table within 30 minutes means sitting down with that
  same stack.

Nothing here reads the database. The rules read an `Evening`, a summary
of the player's moves that the poker projection keeps current at every
buy-in and cash-out (`PlayerEvening`, `PlayerBanzaiMove` in models.py, both
read by primary key), so a buy-in costs the same after one move or a
thousand. `Evening.after(move)` is that summary's one step, used by the
projection and by the tests alike.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from .engine import Stakes
from .errors import PokerError, PokerErrorCode as Code


@dataclass(frozen=True, slots=True)
class TableTerms:
    table_id: str
    structure: str
    small_blind_minor: int
    big_blind_minor: int
    buy_in_minor_min: int
    buy_in_minor_max: int
    banzai: bool
    rulebook: str


def opening_unit(stakes: Mapping[str, int]) -> int:
    """A table's big blind; in a stud game without blinds its small betting unit."""
    parsed = Stakes(**stakes)
    return parsed.big_blind_minor or parsed.small_unit_minor


@dataclass(frozen=True, slots=True)
class Move:
    """One earlier buy-in or cash-out of the player (SeatMove, as plain values)."""

    kind: str                      # "buy_in" | "cash_out"
    table_id: str
    structure: str
    small_blind_minor: int
    big_blind_minor: int
    banzai: bool
    amount_minor: int
    stack_minor: int               # after a buy-in; what was taken away on a cash-out
    short: bool
    at: dt.datetime


@dataclass(frozen=True, slots=True)
class Evening:
    """What the rules read of a player's moves at the venue before this buy-in.

    `buy_ins` and `short_buy_ins` count this gaming day's; `last_moves` holds
    the last move of the day at a non-Banzai table of each betting structure
    (one night, one stack looks no further, 000:L306-324); `last_banzai` is
    the last move at a Banzai table, of any day (the 30-minute lock may reach
    into the previous gaming day, 001:L223).
    """

    buy_ins: int = 0
    short_buy_ins: int = 0
    last_moves: Mapping[str, Move] = field(default_factory=dict)
    last_banzai: Move | None = None

    def after(self, move: Move) -> Evening:
        """Return the summary with one more move (the projection's step)."""
        last_moves = dict(self.last_moves)
        last_banzai = self.last_banzai
        if move.banzai:
            last_banzai = move
        else:
            last_moves[move.structure] = move
        bought = move.kind == "buy_in"
        return Evening(self.buy_ins + bought, self.short_buy_ins + (bought and move.short),
                       last_moves, last_banzai)

    @classmethod
    def of(cls, moves: Sequence[Move]) -> Evening:
        """Fold moves, oldest first, into the summary."""
        evening = cls()
        for move in moves:
            evening = evening.after(move)
        return evening


def move_record(move: Move) -> dict[str, Any]:
    """A move as the projection stores it (JSON; the time in UTC, so a live
    append and a rebuild from the stored events write the same text)."""
    return {**{f: getattr(move, f) for f in MOVE_FIELDS},
            "at": move.at.astimezone(dt.timezone.utc).isoformat()}


def move_from(record: Mapping[str, Any]) -> Move:
    """The move a `move_record` stored."""
    return Move(**{f: record[f] for f in MOVE_FIELDS},
                at=dt.datetime.fromisoformat(record["at"]))


MOVE_FIELDS = ("kind", "table_id", "structure", "small_blind_minor", "big_blind_minor",
               "banzai", "amount_minor", "stack_minor", "short")


@dataclass(frozen=True, slots=True)
class ShortBuyInRule:
    fraction_basis_points: int
    per_day: int
    first_of_day_allowed: bool
    structure: str | None          # None: any structure
    cite: str


@dataclass(frozen=True, slots=True)
class BanzaiRule:
    stack_max_big_blinds: int
    max_tables: int
    lock_minutes: int
    lock_threshold_big_blinds: int
    cite: str


@dataclass(frozen=True, slots=True)
class ReturnRule:
    """Back at the same table within `window_minutes`: at least the stack left with."""

    window_minutes: int
    cite: str


REMOVAL_FIGURE = "chips.removal_during_gaming_day_allowed"


@dataclass(frozen=True, slots=True)
class EveningRules:
    one_stack: str | None          # the cite when the rulebook has the rule
    short: ShortBuyInRule | None
    banzai: BanzaiRule | None
    comeback: ReturnRule | None = None
    # A top-up between hands may not take the stack over the maximum buy-in
    # (000:L545-546, figure buy_in.max_applies_to_top_up).
    top_up_bounded: bool = True
    # Big blinds a player must have left to top up by any amount; below it
    # the minimum buy-in applies (000:L541-543, buy_in.top_up.min_stack_big_blinds).
    top_up_min_stack_big_blinds: int = 1
    # A stack carried to a table of other stakes is at most that table's
    # maximum buy-in (000:L322-324, buy_in.structure_change.bounded_by_table_limits).
    carried_bounded: bool = True

    @classmethod
    def from_figures(cls, figures: Mapping[str, tuple[Any, str]]) -> EveningRules:
        """Read the rules from a rulebook's figures (key -> (value, cite))."""
        def value(key: str, default: Any = None) -> Any:
            return figures[key][0] if key in figures else default

        # 000:L298: no chips leave play during the evening (gaming day); one
        # night, one stack (000:L306-324, L549-551) is how that holds for a
        # player who leaves a table and sits down again. A rulebook that
        # bans the removal keeps the stack rule even without its own figure.
        one_stack = None
        if value("buy_in.one_night_one_stack") is True:
            one_stack = figures["buy_in.one_night_one_stack"][1]
        elif value(REMOVAL_FIGURE) is False:
            one_stack = figures[REMOVAL_FIGURE][1]
        short = None
        if "buy_in.short.per_gaming_day" in figures:
            short = ShortBuyInRule(
                fraction_basis_points=value("buy_in.short.min_fraction_of_min_buy_in", 10_000),
                per_day=value("buy_in.short.per_gaming_day"),
                first_of_day_allowed=value("buy_in.short.first_of_gaming_day_allowed", True),
                structure=value("buy_in.short.structure"),
                cite=figures["buy_in.short.per_gaming_day"][1])
        banzai = None
        if "banzai.stack_max_big_blinds" in figures:
            banzai = BanzaiRule(
                stack_max_big_blinds=value("banzai.stack_max_big_blinds"),
                max_tables=value("banzai.max_tables_same_stack"),
                lock_minutes=value("banzai.rathole.window"),
                lock_threshold_big_blinds=value("banzai.rathole.threshold_big_blinds"),
                cite="001:L221-223")
        comeback = None
        if "rathole.window" in figures:
            comeback = ReturnRule(window_minutes=value("rathole.window"),
                                  cite=figures["rathole.window"][1])
        return cls(one_stack, short, banzai, comeback,
                   top_up_bounded=value("buy_in.max_applies_to_top_up", True) is not False,
                   top_up_min_stack_big_blinds=value("buy_in.top_up.min_stack_big_blinds", 1),
                   carried_bounded=value("buy_in.structure_change.bounded_by_table_limits",
                                         True) is not False)


@dataclass(frozen=True, slots=True)
class Verdict:
    """A buy-in the rules accept; `short` marks the once-an-evening short buy-in."""

    short: bool = False


def check_buy_in(rules: EveningRules, table: TableTerms, *, amount_minor: int,
                 stack_minor: int, sitting_down: bool, evening: Evening,
                 banzai_tables_now: int, at: dt.datetime) -> Verdict:
    """Accept a buy-in or raise the PokerError (422) of the first rule it breaks.

    `evening`: the player's moves at the venue so far, summed up (this gaming
    day's, and the last Banzai move). `banzai_tables_now`: Banzai tables of
    this stake level where the player sits now, this one excluded.
    """
    limits = dict(limit_minor_min=table.buy_in_minor_min,
                  limit_minor_max=table.buy_in_minor_max, amount_minor=amount_minor,
                  stack_minor=stack_minor, rulebook=table.rulebook)
    after = stack_minor + amount_minor
    if table.banzai and rules.banzai is not None:
        locked = (_banzai_lock(rules.banzai, evening.last_banzai, at) if sitting_down
                  else None)
        if locked is not None:
            if amount_minor != locked.stack_minor:
                raise PokerError(
                    Code.BANZAI_STACK_LOCKED,
                    f"the player left a Banzai table with {locked.stack_minor} less than"
                    f" {rules.banzai.lock_minutes} minutes ago: they sit down with that stack",
                    required_minor=locked.stack_minor, left_at=locked.at.isoformat(),
                    cite="001:L223", **limits)
            return Verdict()
        if sitting_down and banzai_tables_now >= rules.banzai.max_tables:
            raise PokerError(
                Code.BANZAI_TABLE_LIMIT,
                f"at most {rules.banzai.max_tables} Banzai tables of one stake level at once",
                tables=banzai_tables_now, cite="001:L221", decision="banzai.same_stack",
                **limits)
        cap = rules.banzai.stack_max_big_blinds * table.big_blind_minor
        if after > cap:
            raise PokerError(
                Code.BUY_IN_ABOVE_MAXIMUM,
                f"a Banzai stack is at most {rules.banzai.stack_max_big_blinds} big blinds"
                f" ({cap}); the stack would be {after}", cite="001:L221",
                **{**limits, "limit_minor_max": cap})
    ceiling = table.buy_in_minor_max
    if sitting_down and rules.comeback is not None:
        left = _left_this_table(rules.comeback, table, evening.last_moves.get(table.structure),
                                at)
        if left is not None and amount_minor < left.stack_minor:
            raise PokerError(
                Code.RETURN_STACK_TOO_SMALL,
                f"the player left this table with {left.stack_minor} less than"
                f" {rules.comeback.window_minutes} minutes ago: they come back with at"
                f" least that stack", required_minor=left.stack_minor,
                left_at=left.at.isoformat(), cite=rules.comeback.cite, **limits)
        if left is not None:
            ceiling = max(ceiling, left.stack_minor)
    if sitting_down and rules.one_stack is not None:
        carried = _carried_stack(table, evening.last_moves.get(table.structure))
        if carried is not None:
            same_stakes, left_with = carried
            bounded = not same_stakes and rules.carried_bounded
            floor = max(min(left_with, table.buy_in_minor_max) if bounded else left_with,
                        table.buy_in_minor_min)
            if amount_minor < floor:
                raise PokerError(
                    Code.ONE_STACK_PER_EVENING,
                    f"the player left a {table.structure} table this evening with"
                    f" {left_with}: they come back with at least {floor}",
                    required_minor=floor, left_with_minor=left_with,
                    cite=("000:L306-317, L549-551" if same_stakes
                          else "000:L317-319, L549-551"), **limits)
            ceiling = max(ceiling, floor)
    if after > ceiling and (sitting_down or rules.top_up_bounded):
        raise PokerError(Code.BUY_IN_ABOVE_MAXIMUM,
                         f"the stack would be {after}, over the table's maximum buy-in"
                         f" {ceiling}", cite="000:L535-546", **limits)
    if (stack_minor >= table.big_blind_minor * rules.top_up_min_stack_big_blinds
            or amount_minor >= table.buy_in_minor_min):
        return Verdict()
    short = rules.short
    if short is None or (short.structure is not None and short.structure != table.structure):
        raise PokerError(Code.BUY_IN_BELOW_MINIMUM,
                         f"{amount_minor} is under the table's minimum buy-in"
                         f" {table.buy_in_minor_min}",
                         cite="000:L535-546, L541-543", **limits)
    return _short_buy_in(short, table, amount_minor=amount_minor, stack_minor=stack_minor,
                         evening=evening, limits=limits)


def _short_buy_in(short: ShortBuyInRule, table: TableTerms, *, amount_minor: int,
                  stack_minor: int, evening: Evening,
                  limits: Mapping[str, Any]) -> Verdict:
    floor = -(-table.buy_in_minor_min * short.fraction_basis_points // 10_000)
    reason = None
    if amount_minor < floor:
        reason = f"a short buy-in is at least {floor}, half the minimum"
    elif stack_minor > 0:
        reason = "a short buy-in is for a player who has run out of chips"
    elif not short.first_of_day_allowed and not evening.buy_ins:
        reason = "a short buy-in cannot be the player's first buy-in of the evening"
    elif evening.short_buy_ins >= short.per_day:
        reason = f"the player has used their {short.per_day} short buy-in this evening"
    if reason is not None:
        raise PokerError(Code.SHORT_BUY_IN_REFUSED,
                         f"{amount_minor} is under the minimum buy-in"
                         f" {table.buy_in_minor_min}, and {reason}",
                         short_minor_min=floor, cite=short.cite, **limits)
    return Verdict(short=True)


def _carried_stack(table: TableTerms, last: Move | None) -> tuple[bool, int] | None:
    """(same stakes, the stack left with) when the player's last move this
    evening at a (non-Banzai) table of this structure was leaving it with chips."""
    if last is None or last.kind != "cash_out" or last.stack_minor <= 0:
        return None
    same = (last.small_blind_minor, last.big_blind_minor) == (table.small_blind_minor,
                                                              table.big_blind_minor)
    return same, last.stack_minor


def _left_this_table(rule: ReturnRule, table: TableTerms, last: Move | None,
                     at: dt.datetime) -> Move | None:
    """The cash-out from this very table less than the window ago, if it left chips.

    The player's last move at a table of this structure this gaming day is
    the one read (decision comeback.last_move): a later move at another table
    of the structure replaces it.
    """
    if last is None or last.kind != "cash_out" or last.table_id != table.table_id:
        return None
    if last.stack_minor <= 0 or at - last.at >= dt.timedelta(minutes=rule.window_minutes):
        return None
    return last


def _banzai_lock(rule: BanzaiRule, last: Move | None, at: dt.datetime) -> Move | None:
    """The Banzai cash-out whose stack the player must sit down with, if any.

    Only the last Banzai move counts: after a buy-in the stack was already
    brought back to a table.
    """
    if last is None or last.kind != "cash_out":
        return None
    window = dt.timedelta(minutes=rule.lock_minutes)
    threshold = rule.lock_threshold_big_blinds * last.big_blind_minor
    if at - last.at < window and last.stack_minor > threshold:
        return last
    return None
