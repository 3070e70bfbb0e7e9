"""Finishing places: eliminations in one hand, ties, and who gets which prize.

Several players out in the same hand (000:L3391-3398, 004:L77-78,
001:L346, 003:L184):

- `different_tables = "tie"` (Veikkaus room, PSLive): players out at
  different tables in the same hand share the places they cover, whatever
  their stacks. Decision: when a group spans more than one table, the whole
  group ties. `"by_stack"` (online hand-for-hand, 001:L348): ranked by stack
  like one table.
- At one table, the larger stack at the start of the hand finishes higher.
  Equal stacks tie and share (000:L3391-3394; `equal_stacks = "tie"`), or,
  where the rules decide otherwise (online: random, 001:L346; Tallinn: the
  better hand, 003:L184; `equal_stacks = "tie_break"`), by the `tie_break`
  rank the director records (1 = higher); without one they tie.

Tied players share the prizes of the places they cover equally; leftover
cents go to the larger starting stack, then the earlier in the order
recorded (decision `elimination.tie_prizes`, 004:L77).

Disqualified players hold no place: everyone below moves up one place for
each (000:L3614-3618); an excluded player keeps the place held when
excluded (004:L175-176), which is how an exclusion is recorded: as an
elimination of one.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import groupby
from typing import Sequence

from .money import split_equally


@dataclass(frozen=True, slots=True)
class Out:
    """One player leaving in a hand (or at a final chip count)."""

    player_id: str
    stack_minor: int = 0          # chips at the start of the hand (chips, not money)
    table: str = ""
    tie_break: int | None = None  # 1 = higher, where the rules break equal stacks


@dataclass(frozen=True, slots=True)
class EliminationRules:
    different_tables: str = "tie"   # "tie" | "by_stack"
    equal_stacks: str = "tie"       # "tie" | "tie_break"


def rank_group(group: Sequence[Out], rules: EliminationRules) -> list[list[Out]]:
    """Order a hand's eliminations into blocks, best first; a block ties."""
    if not group:
        return []
    if rules.different_tables == "tie" and len({o.table for o in group}) > 1:
        return [list(group)]

    def strength(out: Out):
        return out.stack_minor

    blocks: list[list[Out]] = []
    ordered = sorted(group, key=strength, reverse=True)
    for _, same in groupby(ordered, key=strength):
        same = list(same)
        if (len(same) > 1 and rules.equal_stacks == "tie_break"
                and all(o.tie_break is not None for o in same)
                and len({o.tie_break for o in same}) == len(same)):
            blocks.extend([o] for o in sorted(same, key=lambda o: o.tie_break))
        else:
            blocks.append(same)
    return blocks


def standings(groups: Sequence[Sequence[Out]], rules: EliminationRules,
              disqualified: frozenset[str] = frozenset()) -> list[list[Out]]:
    """All finishers in tie blocks, best first.

    `groups` are the hands in the order they happened, the last one holding
    the winner (or the players still in, ranked by their final chips).
    Disqualified players are left out, so those below them move up.
    """
    blocks: list[list[Out]] = []
    for group in reversed(groups):
        kept = [o for o in group if o.player_id not in disqualified]
        blocks.extend(rank_group(kept, rules))
    return blocks


def assign_prizes(blocks: Sequence[Sequence[Out]], prizes: Sequence[int],
                  first_place: int = 1) -> tuple[dict[str, int], dict[str, int]]:
    """Return (place, prize) per player for the finishing blocks.

    A block covering places p..q shares those places' prizes equally.
    Decision (tournaments.unheld_places): prizes of places that nobody holds
    (more paid places than finishers, after disqualifications) go to the
    first place, so every cent of the pool is paid.
    """
    places: dict[str, int] = {}
    paid: dict[str, int] = {}
    place = first_place
    for block in blocks:
        covered = prizes[place - 1:place - 1 + len(block)]
        amounts = split_equally(sum(covered), len(block),
                                tie_keys=[o.stack_minor for o in block])
        for out, amount in zip(block, amounts):
            places[out.player_id] = place
            paid[out.player_id] = amount
        place += len(block)
    unheld = sum(prizes[place - 1:])
    if unheld and blocks and first_place == 1:
        first = blocks[0]
        extra = split_equally(unheld, len(first), tie_keys=[o.stack_minor for o in first])
        for out, amount in zip(first, extra):
            paid[out.player_id] += amount
    return places, paid
