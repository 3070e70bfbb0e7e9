"""What an interrupted tournament pays (001:L417-444).

Applies once play has started (before it, every purchase is refunded in
full: `Tournament._refund_all`, 001:L419-421). In every case the players
still in get back the fee part of everything they bought, rebuys and
add-ons included (decision `tournament.cancel.refund_item`, 001:L425,
L431), and in a bounty tournament the bounty on their own head (001:L444).
The pool:

- nobody in the money yet (the pool not fixed, or more players left than
  places paid): a share equally among the players still in, the rest by
  their chips, half and half (001:L426; figures
  `tournament.cancel.before_itm.*`);
- in the money, not at the final table: the players out in paid places get
  their prizes; each player still in gets the lowest prize still open, and
  the rest of the open prizes goes by chips (001:L431-432);
- in the money at the final table (no more players left than a table
  seats): the open prizes by ICM (001:L433);
- HexaPro: each player still in gets 10 % of the pool, the rest by ICM
  (001:L436-442, decision `hexapro.cancel_share`: 10 % each).

The shares are `CancellationTerms`, read from the rulebook's figures by
`CancellationTerms.from_figures` and carried by the tournament's `Config`.
`tournaments.commands.announce` freezes the rulebook's figures into the
config; a config without them (a rulebook that has none, or a tournament
announced before they were passed) uses `ONLINE_POLICY`, the shipped
veikkaus-online-poker v1 figures; a test keeps the two equal.

Decision (tournaments.cancel.places): players already out keep the places
they hold; the players still in share the places above them as above.
Every split rounds by `money.allocate` with the larger stack first.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any, Mapping

from .errors import EngineError
from .icm import icm_equities
from .money import allocate
from .places import assign_prizes, standings

if TYPE_CHECKING:  # pragma: no cover
    from .tournament import Payout, Tournament

BASIS_POINTS = 10_000
REFUND_ITEM = "tournament.cancel.refund_item"


@dataclass(frozen=True, slots=True)
class CancellationTerms:
    """How an interruption shares the pool, in basis points of it."""

    equal_basis_points: int            # before the money, shared equally (001:L426)
    chips_basis_points: int            # before the money, shared by chips (001:L426)
    hexapro_share_basis_points: int    # HexaPro, to each player still in (001:L441)

    FIGURES = {
        "equal_basis_points": "tournament.cancel.before_itm.equal_split",
        "chips_basis_points": "tournament.cancel.before_itm.chip_split",
        "hexapro_share_basis_points": "hexapro.cancel.share_per_remaining_player",
    }

    def __post_init__(self) -> None:
        if self.equal_basis_points + self.chips_basis_points != BASIS_POINTS or min(
                self.equal_basis_points, self.chips_basis_points) < 0:
            raise EngineError("invalid_cancellation_terms", "the equal and the chip parts"
                              " must share the whole pool")
        if not 0 <= self.hexapro_share_basis_points * 3 <= BASIS_POINTS:
            raise EngineError("invalid_cancellation_terms", "three HexaPro shares must fit"
                              " in the pool")

    @classmethod
    def from_figures(cls, figures: Mapping[str, Any]) -> "CancellationTerms":
        """Read the terms from a rulebook's figures (key -> value).

        The players still in get back the fee part of what they bought
        (`tournament.cancel.refund_item`, decision of that name); that is
        the only refund the engine makes, so any other value is refused.
        """
        missing = sorted(key for key in (*cls.FIGURES.values(), REFUND_ITEM)
                         if key not in figures)
        if missing:
            raise EngineError("invalid_cancellation_terms", "the rulebook lacks"
                              f" {', '.join(missing)}", missing=missing)
        if figures[REFUND_ITEM] != "fee_part":
            raise EngineError("invalid_cancellation_terms", "an interruption refunds the fee"
                              f" part only, not {figures[REFUND_ITEM]!r}")
        return cls(**{field: int(figures[key]) for field, key in cls.FIGURES.items()})


# The shipped veikkaus-online-poker v1 figures (001:L426, L441), for a config
# announced without terms; tests/casino/tournaments checks they agree.
ONLINE_POLICY = CancellationTerms(5000, 5000, 1000)


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
    terms = t.config.cancellation or ONLINE_POLICY
    pool = t.pool_minor
    places: dict[str, int] = {}
    prizes_out: dict[str, int] = {}
    if t.config.format == "hexapro" and t.drawn_shares is not None:
        each = pool * terms.hexapro_share_basis_points // BASIS_POINTS
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
        equal = Fraction(pool * terms.equal_basis_points, BASIS_POINTS)
        by_chips = pool - equal
        shares = [equal / len(alive) + by_chips * c / total_chips for c in chips]
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
