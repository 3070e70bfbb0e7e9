"""Pots and side pots, built from what each player put in.

The pots are never taken from a client: `settle` derives them from the
contributions of a hand and the seats still in it, each player's live bets
apart from their dead money (antes, the big-blind ante, a dead small blind,
which go straight into the pot and are no part of a bet, 000:L932-941,
L1154-1155). First the uncalled part of the largest live bet goes back to
its bettor; then each all-in level of the players still in closes a pot,
main pot first with all the dead money in it, side pots in the order they
formed (000:L346-350, L1666; 001:L78-80). A folded player's chips stay in
the pots they reached, but the player is eligible for none of them.
`claimants` narrows the pots to the players who did not muck at the
showdown.

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
    bets_minor: Mapping[int, int],
    live_seats: Collection[int],
    dead_minor: Mapping[int, int] | None = None,
) -> Settlement:
    """Return the uncalled bet and build the pots from what each player put in.

    `bets_minor` maps seat to the player's live chips this hand (blinds,
    bets, calls, raises); `dead_minor` to the dead money the player posted
    (antes, the big-blind ante, a dead small blind), none if not given;
    `live_seats` are the players still in (not folded).

    Dead money is no part of a player's bet: it goes straight into the pot
    (000:L932-933, L939-941, L1154-1155). So it is never returned as an
    uncalled bet, and it lies in the main pot, under the live bets, whoever
    put in how much of it: a big blind all-in with an ante contests his live
    bet from each player, and the dead money.

    The uncalled bet: when one player still in has bet more than anyone else,
    the excess over the next largest bet was never called and goes back
    before any pot is awarded (000:L1824-1832: a bet nobody calls is not part
    of the pot a showdown decides).

    Decision: a player still in who bet nothing live (all-in on the ante)
    contests only the dead money, and of each player's only as much as they
    put in themselves, because a player all-in takes part only in the pot
    their chips cover (000:L346-350); the rest of the dead money joins the
    first pot of live bets.

    Decision: chips above the highest bet of any player still in (a folded
    player's, past every live player) go into the last pot; the seeds keep a
    folded player's chips in the pot and never give them back.
    """
    bets = _chip_counts(bets_minor, "bet")
    dead = _chip_counts(dead_minor or {}, "dead money")
    live = sorted(set(live_seats))
    if not live:
        raise InvariantViolation("a hand ends with at least one player in it")
    for seat in live:
        if seat not in bets:
            raise InvariantViolation(f"live seat {seat} has no bet entry")
    for seat in dead:
        bets.setdefault(seat, 0)
    for seat in bets:
        dead.setdefault(seat, 0)

    returned: tuple[tuple[int, int], ...] = ()
    ranked = sorted(bets.values(), reverse=True)
    top = ranked[0] if ranked else 0
    second = ranked[1] if len(ranked) > 1 else 0
    leaders = [seat for seat, amount in bets.items() if amount == top]
    if top > second and len(leaders) == 1 and leaders[0] in live:
        returned = ((leaders[0], top - second),)
        bets[leaders[0]] = second

    pots: list[Pot] = []
    # The dead money, levelled only by players in with no live bet.
    dead_levels = sorted({dead[s] for s in live if bets[s] == 0 and dead[s] > 0})
    below = 0
    for level in dead_levels:
        amount = sum(min(d, level) - min(d, below) for d in dead.values())
        eligible = tuple(s for s in live if bets[s] > 0 or dead[s] >= level)
        pots.append(Pot(amount, eligible))
        below = level
    dead_rest = sum(max(0, d - below) for d in dead.values())

    levels = sorted({bets[seat] for seat in live if bets[seat] > 0})
    below = 0
    for level in levels:
        amount = sum(min(c, level) - min(c, below) for c in bets.values())
        eligible = tuple(seat for seat in live if bets[seat] >= level)
        pots.append(Pot(amount + dead_rest, eligible))
        dead_rest = 0
        below = level
    leftover = sum(max(0, c - below) for c in bets.values()) + dead_rest
    if leftover:
        if not pots:
            # Only folded players put chips in; the last player in takes them.
            pots.append(Pot(0, tuple(live)))
        pots[-1] = Pot(pots[-1].amount_minor + leftover, pots[-1].eligible_seats)

    settlement = Settlement(returned, tuple(pots))
    if settlement.returned_total_minor + settlement.pots_total_minor != sum(
        bets_minor.values()
    ) + sum(dead.values()):
        raise InvariantViolation("pots and returned bet differ from the chips put in")
    return settlement


def _chip_counts(amounts: Mapping[int, int], what: str) -> dict[int, int]:
    for seat, amount in amounts.items():
        if isinstance(amount, bool) or not isinstance(amount, int) or amount < 0:
            raise InvariantViolation(f"seat {seat}: {what} {amount!r} is not a count of chips")
    return dict(amounts)


def settle_hand(state: HandState) -> Settlement:
    """Settle a finished hand's betting (see `settle`): live bets and dead money apart."""
    if not state.is_over:
        raise InvariantViolation("settle a hand only once its betting is over")
    return settle(state.bets_minor, state.live_seats, state.dead_minor)


def claimants(pots: Sequence[Pot], mucked: Sequence[int]) -> tuple[Pot, ...]:
    """Return each pot with only the players who may still win it.

    `mucked` lists the seats that mucked at the showdown, in order.

    Decision (the muck rule): a player who mucks at the showdown forfeits
    every pot, even one their cards would have won, and each pot goes to the
    best hand shown among the players still holding cards, because a hand
    thrown away face down is dead (000:L245-248) and to win a pot a player
    must show all their cards (000:L192); a hand shown is read by its cards
    and cannot be killed (000:L203-206). If every player in a pot mucked,
    the last of them to muck wins it unshown, as the one who held cards last
    (000:L192-195).
    """
    order = {seat: i for i, seat in enumerate(mucked)}
    narrowed = []
    for pot in pots:
        holding = tuple(s for s in pot.eligible_seats if s not in order)
        if not holding and pot.eligible_seats:
            holding = (max(pot.eligible_seats, key=order.__getitem__),)
        narrowed.append(Pot(pot.amount_minor, holding))
    return tuple(narrowed)


def award_uncontested(pots: Sequence[Pot]) -> dict[int, int]:
    """Return seat -> amount for pots each with a single claimant, no cards needed."""
    awards: dict[int, int] = {}
    for pot in pots:
        if len(pot.eligible_seats) != 1:
            raise InvariantViolation(f"{pot} has more than one claimant: show down")
        seat = pot.eligible_seats[0]
        awards[seat] = awards.get(seat, 0) + pot.amount_minor
    return awards


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
