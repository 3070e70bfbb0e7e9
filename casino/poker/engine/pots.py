"""Pots and side pots, built from what each player put in.

The pots are never taken from a client: `settle` derives them from the
contributions of a hand and the seats still in it. First the uncalled part of
the largest bet goes back to its bettor; then each all-in level of the players
still in closes a pot, main pot first, side pots in the order they formed
(000:L346-350, L1666; 001:L78-80). A folded player's chips stay in the pots
they reached, but the player is eligible for none of them.

`Pot` is a named tuple `(amount_minor, eligible_seats)`, the exact shape
`native_eval.showdown(variant, board, hands, pots, button)` takes.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, NamedTuple

from .errors import InvariantViolation

if TYPE_CHECKING:
    from .betting import HandState


class Pot(NamedTuple):
    amount_minor: int
    eligible_seats: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Settlement:
    """The uncalled bet returned, and the pots, main pot first."""

    returned_minor: tuple[tuple[int, int], ...]  # (seat, amount), at most one entry
    pots: tuple[Pot, ...]

    @property
    def returned_total_minor(self) -> int:
        return sum(amount for _, amount in self.returned_minor)

    @property
    def pots_total_minor(self) -> int:
        return sum(pot.amount_minor for pot in self.pots)


def settle(
    contributions_minor: Mapping[int, int], live_seats: Collection[int],
) -> Settlement:
    """Return the uncalled bet and build the pots from the contributions.

    `contributions_minor` maps seat to everything the player put in, live and
    dead; `live_seats` are the players still in (not folded).

    The uncalled bet: when one player still in has put in more than anyone
    else, the excess over the next largest contribution was never called and
    goes back before any pot is awarded (000:L1824-1832: a bet nobody calls
    is not part of the pot a showdown decides).

    Decision: chips above the highest total of any player still in (dead money
    a folded player put in past every live player) go into the last pot; the
    seeds keep a folded player's chips in the pot and never give them back.
    """
    for seat, amount in contributions_minor.items():
        if isinstance(amount, bool) or not isinstance(amount, int) or amount < 0:
            raise InvariantViolation(
                f"seat {seat}: contribution {amount!r} is not a count of chips"
            )
    live = sorted(set(live_seats))
    if not live:
        raise InvariantViolation("a hand ends with at least one player in it")
    for seat in live:
        if seat not in contributions_minor:
            raise InvariantViolation(f"live seat {seat} has no contribution entry")
    totals = dict(contributions_minor)

    returned: tuple[tuple[int, int], ...] = ()
    ranked = sorted(totals.values(), reverse=True)
    top = ranked[0] if ranked else 0
    second = ranked[1] if len(ranked) > 1 else 0
    leaders = [seat for seat, amount in totals.items() if amount == top]
    if top > second and len(leaders) == 1 and leaders[0] in live:
        returned = ((leaders[0], top - second),)
        totals[leaders[0]] = second

    levels = sorted({totals[seat] for seat in live if totals[seat] > 0})
    pots: list[Pot] = []
    below = 0
    for level in levels:
        amount = sum(min(c, level) - min(c, below) for c in totals.values())
        eligible = tuple(seat for seat in live if totals[seat] >= level)
        pots.append(Pot(amount, eligible))
        below = level
    leftover = sum(max(0, c - below) for c in totals.values())
    if leftover:
        if not pots:
            # Only folded players put chips in; the last player in takes them.
            pots.append(Pot(0, tuple(live)))
        pots[-1] = Pot(pots[-1].amount_minor + leftover, pots[-1].eligible_seats)

    settlement = Settlement(returned, tuple(pots))
    if settlement.returned_total_minor + settlement.pots_total_minor != sum(
        contributions_minor.values()
    ):
        raise InvariantViolation("pots and returned bet differ from the chips put in")
    return settlement


def settle_hand(state: HandState) -> Settlement:
    """Settle a finished hand's betting (see `settle`)."""
    if not state.is_over:
        raise InvariantViolation("settle a hand only once its betting is over")
    return settle(state.contributions_minor, state.live_seats)


def award_without_showdown(pots: Sequence[Pot], seat: int) -> int:
    """Return what the last player in wins: every pot, no cards needed.

    000:L192-195, L1824-1832: a bet nobody calls wins without a showdown, and
    the hand need not be shown.
    """
    for pot in pots:
        if pot.eligible_seats != (seat,):
            raise InvariantViolation(f"seat {seat} is not alone in {pot}")
    return sum(pot.amount_minor for pot in pots)


def net_pots(pots: Sequence[Pot], *taken_per_pot: Sequence[int]) -> tuple[Pot, ...]:
    """Return the pots left after rake and drops, each given per pot, to award.

    A pot may end at zero (everything in it taken); it is kept so indexes
    match the pots the rake and drop were computed on.
    """
    amounts = [pot.amount_minor for pot in pots]
    for taken in taken_per_pot:
        if len(taken) != len(amounts):
            raise InvariantViolation("takes must be given for every pot")
        for i, amount in enumerate(taken):
            amounts[i] -= amount
            if amounts[i] < 0:
                raise InvariantViolation(f"pot {i} would go below zero")
    return tuple(Pot(amount, pot.eligible_seats) for amount, pot in zip(amounts, pots))
