"""What an interrupted tournament pays (001:L417-444).

Applies once play has started (before it, every purchase is refunded in
full: `Tournament._refund_all`, 001:L419-421). In every case the players
still in get back the fee part of everything they bought, rebuys and
add-ons included (decision `tournament.cancel.refund_item`, 001:L425,
L431), and in a bounty tournament the bounty on their own head (001:L444).
The pool:

- nobody in the money yet (the pool not fixed, or more players left than
  places paid): half equally among the players still in, half by their
  chips (001:L426; figures `tournament.cancel.before_itm.*`);
- in the money, not at the final table: the players out in paid places get
  their prizes; each player still in gets the lowest prize still open, and
  the rest of the open prizes goes by chips (001:L431-432);
- in the money at the final table (no more players left than a table
  seats): the open prizes by ICM (001:L433);
- HexaPro: each player still in gets 10 % of the pool, the rest by ICM
  (001:L436-442, decision `hexapro.cancel_share`: 10 % each).

Decision (tournaments.cancel.places): players already out keep the places
they hold; the players still in share the places above them as above.
Every split rounds by `money.allocate` with the larger stack first.
"""

from __future__ import annotations

from fractions import Fraction
from typing import TYPE_CHECKING, Mapping

from .errors import EngineError
from .icm import icm_equities
from .money import allocate
from .places import assign_prizes, standings

if TYPE_CHECKING:  # pragma: no cover
    from .tournament import Payout, Tournament

HEXAPRO_SHARE_BASIS_POINTS = 1000  # per remaining player, 001:L441


def interruption_payout(t: "Tournament", stacks: Mapping[str, int]) -> "Payout":
    from .tournament import Payout, Phase

    alive = t.alive
    if set(stacks) != set(alive) or any(type(s) is not int or s <= 0 for s in stacks.values()):
        raise EngineError("chip_counts_required", "give the chip count of every player"
                          " still in, and no one else", remaining=sorted(alive))
    chips = [stacks[p] for p in alive]
    total_chips = sum(chips)
    fees = {p: t.players[p].paid_fee_minor for p in alive}
    bounties = {p: t.players[p].bounty_minor for p in alive if t.players[p].bounty_minor}
    disqualified = frozenset(p for p, s in t.players.items() if s.disqualified)
    pool = t.pool_minor
    places: dict[str, int] = {}
    prizes_out: dict[str, int] = {}
    if t.config.format == "hexapro" and t.drawn_shares is not None:
        each = pool * HEXAPRO_SHARE_BASIS_POINTS // 10_000
        rest = pool - each * len(alive)
        open_prizes = _fill(t.prizes()[:len(alive)], len(alive), rest)
        shares = [each + e for e in icm_equities(chips, open_prizes)]
        method = "hexapro_icm"
    elif t.phase == Phase.IN_THE_MONEY:
        prizes = t.prizes()
        out_blocks = standings(t.groups, t.config.elimination, disqualified)
        # The players out hold the places below the ones still open.
        held, paid = assign_prizes(out_blocks, prizes, first_place=len(alive) + 1)
        places.update(held)
        prizes_out.update(paid)
        rest = pool - sum(prizes_out.values())
        if len(alive) <= t.config.seats_per_table:
            open_prizes = _fill(prizes[:len(alive)], len(alive), rest)
            shares = icm_equities(chips, open_prizes)
            method = "icm"
        else:
            lowest = prizes[len(alive) - 1] if len(prizes) >= len(alive) else 0
            by_chips = rest - lowest * len(alive)
            shares = [lowest + Fraction(by_chips * c, total_chips) for c in chips]
            method = "lowest_prize_and_chips"
    else:
        half = Fraction(pool, 2)
        shares = [half / len(alive) + half * c / total_chips for c in chips]
        method = "equal_and_chips"
    rest_total = pool - sum(prizes_out.values())
    amounts = allocate(rest_total, shares, tie_keys=chips)
    prizes = dict(prizes_out)
    prizes.update(zip(alive, amounts))
    return Payout(prizes_minor=prizes, places=places, bounties_minor=bounties,
                  fees_refunded_minor=fees, method=method)


def _fill(prizes: list[int], count: int, total: int) -> list[int]:
    """The open prizes, padded to `count` places, scaled to add up to `total`.

    The prizes of the open places add up to what is left in the pool except
    where a rounding or an unheld place made a difference of a few cents;
    that difference goes to the first place.
    """
    padded = list(prizes) + [0] * (count - len(prizes))
    padded[0] += total - sum(padded)
    return padded
