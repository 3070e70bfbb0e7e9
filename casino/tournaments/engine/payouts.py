"""Payout structures: how many places are paid and what share each gets.

A structure is a list of brackets read from a rulebook table
(`tournaments.payout.*` rows: `field_min`, `field_max` (optional: no upper
bound), `shares_basis_points`, best place first). The bracket is chosen by
the *paid field*: the entrants, plus one for every `re_entries_per_step`
re-entries where the tournament announces such a rule (000:L3302-3304:
"goes up by 1 for every 2 re-entries"). The money is always the pool
actually collected; the paid field only picks the bracket.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, Sequence

from .errors import EngineError
from .money import by_basis_points


@dataclass(frozen=True, slots=True)
class Bracket:
    field_min: int
    field_max: int | None
    shares_basis_points: tuple[int, ...]

    def covers(self, field: int) -> bool:
        return self.field_min <= field and (self.field_max is None or field <= self.field_max)


@dataclass(frozen=True, slots=True)
class PayoutStructure:
    key: str
    brackets: tuple[Bracket, ...]

    @classmethod
    def from_rows(cls, key: str, rows: Iterable[dict[str, Any]]) -> "PayoutStructure":
        """Build and check a structure from rulebook table rows."""
        brackets = tuple(
            Bracket(int(row["field_min"]), row.get("field_max"),
                    tuple(int(bp) for bp in row["shares_basis_points"]))
            for row in rows
        )
        structure = cls(key, tuple(sorted(brackets, key=lambda b: b.field_min)))
        structure.check()
        return structure

    def as_rows(self) -> list[dict[str, Any]]:
        return [{"field_min": b.field_min, "field_max": b.field_max,
                 "shares_basis_points": list(b.shares_basis_points)} for b in self.brackets]

    def check(self) -> None:
        """Refuse gaps, overlaps, shares not summing to 100 %, or more paid places
        than the bracket's smallest field."""
        if not self.brackets:
            raise EngineError("invalid_payout_structure", f"{self.key} has no brackets")
        expected_min = self.brackets[0].field_min
        if expected_min > 2:
            raise EngineError("invalid_payout_structure",
                              f"{self.key} must cover fields from 2 players")
        for index, bracket in enumerate(self.brackets):
            if bracket.field_min != expected_min:
                raise EngineError("invalid_payout_structure",
                                  f"{self.key}: brackets leave a gap or overlap at"
                                  f" {expected_min} players")
            shares = bracket.shares_basis_points
            if sum(shares) != 10_000 or any(bp <= 0 for bp in shares):
                raise EngineError("invalid_payout_structure",
                                  f"{self.key}: shares must be positive and add up to 100 %")
            if list(shares) != sorted(shares, reverse=True):
                raise EngineError("invalid_payout_structure",
                                  f"{self.key}: a lower place may not pay more")
            if len(shares) > max(bracket.field_min, 1):
                raise EngineError("invalid_payout_structure",
                                  f"{self.key}: more places paid than players")
            last = index == len(self.brackets) - 1
            if bracket.field_max is None and not last:
                raise EngineError("invalid_payout_structure",
                                  f"{self.key}: only the last bracket may be open")
            if bracket.field_max is not None:
                expected_min = bracket.field_max + 1

    def bracket_for(self, paid_field: int) -> Bracket:
        for bracket in self.brackets:
            if bracket.covers(paid_field):
                return bracket
        if paid_field < self.brackets[0].field_min:
            return self.brackets[0]
        raise EngineError("field_too_large", f"{self.key} has no bracket for"
                          f" {paid_field} players", paid_field=paid_field)

    def prizes(self, pool_minor: int, paid_field: int) -> list[int]:
        """The prize of each paid place, best first; they sum to the pool."""
        return by_basis_points(pool_minor, self.bracket_for(paid_field).shares_basis_points)


def paid_field(entries: int, re_entries: int, re_entries_per_step: int | None) -> int:
    """The player count that picks the bracket (000:L3302-3304).

    Decision (tournaments.re_entry.paid_field): entries are first entries
    and late registrations; re-entries count only through the announced
    step, rounded down (3 re-entries at a step of 2 add 1).
    """
    if not re_entries_per_step:
        return entries + re_entries
    return entries + re_entries // re_entries_per_step


def prize_table(structure: PayoutStructure, pool_minor: int, field: int
                ) -> list[dict[str, int]]:
    """The table shown before the money is paid: place and prize."""
    return [{"place": place, "prize_minor": prize}
            for place, prize in enumerate(structure.prizes(pool_minor, field), start=1)]


